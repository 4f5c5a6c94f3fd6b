/* SPDX-License-Identifier: BSD-3-Clause
 * vxswitch: start-up, the control thread's loop, and shutdown.
 *
 * Everything that can be wrong with the topology is found before the EAL
 * starts (config_load, then every flow parsed against the port names), so a
 * bad file changes nothing on the host.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include "commands.h"
#include "config.h"
#include "control.h"
#include "ct_ctl.h"
#include "flow_timeouts.h"
#include "main.h"
#include "core_list.h"
#include "daemon.h"
#include "offload_ctl.h"
#include "ofproto.h"
#include "ds.h"
#include "ovsdb_boot.h"
#include "ovsdb_client.h"
#include "of_chan.h"
#include "pmd.h"
#include "pmd_reconf.h"
#include "pmd_watch.h"
#include "run_state.h"
#include "port.h"
#include "state.h"
#include "telemetry.h"
#include "version.h"
#include "vlog.h"

static volatile sig_atomic_t quit_signal, reopen_signal;

static void
on_signal(int sig)
{
	quit_signal = sig;
}

/* SIGHUP, as for OVS's daemons after logrotate: the control loop reopens
 * the log file (a handler may not). */
static void
on_hup(int sig)
{
	(void)sig;
	reopen_signal = 1;
}

/* Before the EAL starts its threads, so they all share the handlers; the
 * handlers only set flags that the control loop polls. */
static void
set_signal_handlers(void)
{
	struct sigaction sa = { .sa_flags = SA_RESTART };

	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_hup;
	sigaction(SIGHUP, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	pmd_watch_init();	/* pmds_stop's interrupt of a blocked PMD */
}

static void
usage(FILE *f)
{
	fprintf(f,
"Usage: vxswitch --config FILE [OPTION]...\n"
"A DPDK poll-mode virtual switch for VXLAN overlays of vhost-user VMs.\n"
"\n"
"  -c, --config FILE      topology file (YAML; see topology/)\n"
"      --check            validate the topology and its flows (and the state\n"
"                         file, when there is one), say which a start would\n"
"                         run, then exit (with the status a start would have)\n"
"      --state-file PATH  where the running state is kept and restored from\n"
"                         (default: datapath.state-file, else FILE.state)\n"
"      --no-state         neither restore nor write a state file\n"
"      --reset-state      start from the topology; a state file is moved\n"
"                         aside, kept as PATH.<UTC time>\n"
"      --keep-state       restore the state file even if the topology was\n"
"                         edited after it was written (it is refused with\n"
"                         exit status 5 otherwise)\n"
"      --pmd-cores LIST   override datapath.pmd-cores (e.g. 1 or 2-5)\n"
"      --ctl-socket PATH  override datapath.ctl-socket\n"
"      --eal-args ARGS    extra EAL arguments, appended (one string)\n"
"      --duration SECS    run for SECS seconds, then shut down cleanly\n"
"      --detach           run in the background; returns once the ports are\n"
"                         up and the control socket answers (exit 0), or\n"
"                         with the daemon's exit code if start-up fails\n"
"      --pidfile[=FILE]   write the daemon's pid to FILE (locked while it\n"
"                         runs; default " DAEMON_DEFAULT_PIDFILE ",\n"
"                         with --ovsdb $OVS_RUNDIR/ovs-vswitchd.pid)\n"
"      --log-file[=FILE]  log to FILE too, reopened on SIGHUP or vlog/reopen\n"
"                         (logrotate); default " VLOG_DEFAULT_FILE "\n"
"      --stats-on-exit    print port and PMD counters at shutdown\n"
"      --ovsdb REMOTE     OVSDB mode: a client of ovsdb-server at REMOTE\n"
"                         (unix:PATH or tcp:IP:PORT), as ovs-vswitchd: the\n"
"                         database's ports are made, its columns written back\n"
"                         (vxswitch-ctl ovsdb/show); no state file\n"
"      --ovsdb-probe-ms MS\n"
"                         with nothing received from ovsdb-server for MS\n"
"                         ms, send an echo; none within MS more: reconnect\n"
"                         (0: never; default, as ovs-vswitchd: 5000 on\n"
"                         tcp:, none on unix:; else 1000 to 3600000)\n"
"      --vhost-msg-timeout MS\n"
"                         a vhost-user message must arrive whole within MS\n"
"                         milliseconds or its guest is disconnected (1000;\n"
"                         0: wait forever, blocking every other guest)\n"
"  -h, --help             this help\n"
"      --version          print the version\n"
"\n"
"Exit status: 0 clean shutdown, 1 start-up failed, 2 bad command line or\n"
"topology, 3 mbufs leaked, 4 a PMD did not stop, 5 the topology changed\n"
"after its state file was written (see --reset-state, --keep-state).\n"
"\n"
"Control it with vxswitch-ctl (see vxswitch-ctl --help). With --ovsdb, the\n"
"unixctl socket is $OVS_RUNDIR/ovs-vswitchd.<pid>.ctl (OVS_RUNDIR default\n"
DAEMON_OVS_RUNDIR ") unless datapath.unixctl-socket says, so that\n"
"plain ovs-appctl finds it as it finds ovs-vswitchd.\n");
}

/* --pidfile[=FILE] and --log-file[=FILE] also take "--pidfile FILE" (the
 * daemon takes no other arguments, so a word that is not an option can
 * only be the file). */
static const char *
optional_path(int argc, char **argv, const char *dflt)
{
	if (optarg)
		return optarg;
	if (optind < argc && argv[optind][0] && argv[optind][0] != '-')
		return argv[optind++];
	return dflt;
}

/* DIR/NAME in OVS's run directory (daemon.h), for OVSDB mode's defaults;
 * one at a time. */
static const char *
ovs_path(const char *name)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof path, "%s/%s", daemon_ovs_rundir(), name);
	return path;
}

static int
parse_options(int argc, char **argv, struct options *o)
{
	enum { O_CHECK = 256, O_PMD, O_CTL, O_EAL, O_DUR, O_DETACH, O_PID,
	       O_STATS, O_VERSION, O_VHOST_TMO, O_STATE, O_NO_STATE, O_LOG,
	       O_KEEP_STATE, O_RESET_STATE, O_OVSDB, O_OVSDB_PROBE };
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check", no_argument, NULL, O_CHECK },
		{ "pmd-cores", required_argument, NULL, O_PMD },
		{ "ctl-socket", required_argument, NULL, O_CTL },
		{ "eal-args", required_argument, NULL, O_EAL },
		{ "duration", required_argument, NULL, O_DUR },
		{ "detach", no_argument, NULL, O_DETACH },
		{ "pidfile", optional_argument, NULL, O_PID },
		{ "log-file", optional_argument, NULL, O_LOG },
		{ "stats-on-exit", no_argument, NULL, O_STATS },
		{ "vhost-msg-timeout", required_argument, NULL, O_VHOST_TMO },
		{ "state-file", required_argument, NULL, O_STATE },
		{ "no-state", no_argument, NULL, O_NO_STATE },
		{ "keep-state", no_argument, NULL, O_KEEP_STATE },
		{ "reset-state", no_argument, NULL, O_RESET_STATE },
		{ "ovsdb", required_argument, NULL, O_OVSDB },
		{ "ovsdb-probe-ms", required_argument, NULL, O_OVSDB_PROBE },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, O_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "c:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'c': o->config = optarg; break;
		case O_CHECK: o->check = true; break;
		case O_PMD: o->pmd_cores = optarg; break;
		case O_CTL: o->ctl_socket = optarg; break;
		case O_EAL: o->eal_args = optarg; break;
		case O_DUR: o->duration = atof(optarg); break;
		case O_DETACH: o->detach = true; break;
		case O_PID:
			o->pidfile = optional_path(argc, argv, "");
			break;
		case O_LOG:
			o->log_file = optional_path(argc, argv,
						    VLOG_DEFAULT_FILE);
			break;
		case O_STATS: o->stats_on_exit = true; break;
		case O_STATE: o->state_file = optarg; break;
		case O_NO_STATE: o->no_state = true; break;
		case O_OVSDB: {
			char err[256];
			if (ovsdb_remote_check(optarg, err, sizeof err)) {
				VLOG_ERR(main, "%s\n", err);
				return -1;
			}
			o->ovsdb = optarg;
			break;
		}
		case O_OVSDB_PROBE: {
			char err[256];
			if (ovsdb_probe_check(optarg, &o->ovsdb_probe_ms, err,
					      sizeof err)) {
				VLOG_ERR(main, "%s\n", err);
				return -1;
			}
			break;
		}
		case O_KEEP_STATE: case O_RESET_STATE: {
			enum state_choice ch = c == O_KEEP_STATE
				? STATE_CHOICE_KEEP : STATE_CHOICE_RESET;
			if (o->state_choice && o->state_choice != ch) {
				VLOG_ERR(main, "--keep-state and --reset-state"
					" choose opposite files: give one\n");
				return -1;
			}
			o->state_choice = ch;
			break;
		}
		case O_VHOST_TMO: {
			char *end;
			unsigned long ms = strtoul(optarg, &end, 10);
			if (end == optarg || *end || ms > 3600000 ||
			    optarg[0] == '-') {
				VLOG_ERR(main, "--vhost-msg-timeout"
					" '%s': milliseconds, 0 to 3600000\n",
					optarg);
				return -1;
			}
			port_vhost_msg_timeout_ms = (unsigned int)ms;
			break;
		}
		case 'h': usage(stdout); exit(0);
		case O_VERSION: printf("vxswitch %s\n", VXSWITCH_VERSION);
			exit(0);
		default: usage(stderr); return -1;
		}
	}
	if (optind < argc) {
		VLOG_ERR(main, "unexpected argument '%s'\n",
			argv[optind]);
		return -1;
	}
	if (!o->config) {
		VLOG_ERR(main, "--config FILE is required\n");
		return -1;
	}
	if (o->ovsdb && (o->state_file || o->state_choice)) {
		VLOG_ERR(main, "--ovsdb keeps no state file: the database is "
			"the one source of truth\n");
		return -1;
	}
	if (o->pidfile && !*o->pidfile)	/* --pidfile with no FILE */
		o->pidfile = o->ovsdb ? ovs_path("ovs-vswitchd.pid")
				      : DAEMON_DEFAULT_PIDFILE;
	if (o->no_state && o->state_choice) {
		VLOG_ERR(main, "--no-state reads no state file: it takes "
			"neither --keep-state nor --reset-state\n");
		return -1;
	}
	return 0;
}

/* "1,3-5" -> cores. A core listed twice is an error (it would start two
 * PMDs on one core), which also bounds the list to CFG_MAX_CORES. */
static int
parse_core_list(const char *s, struct vxs_config *cfg)
{
	bool seen[CFG_MAX_CORES] = { false };
	unsigned twice;

	cfg->n_pmd_cores = 0;
	return core_list_parse(s, CFG_MAX_CORES, cfg->pmd_cores,
			       &cfg->n_pmd_cores, seen, &twice) ? -1 : 0;
}

/* ---- mbufs ------------------------------------------------------------- */

/* Sized by config_n_mbufs() (config_check.c, which checks it fits the
 * EAL's memory): every place an mbuf can sit, NIC rx/tx rings, vhost
 * bursts, PMD tx buffers, per-lcore caches, plus headroom. */
static struct rte_mempool *
create_pool(const struct vxs_config *cfg)
{
	uint32_t n = config_n_mbufs(cfg);
	struct rte_mempool *mp = rte_pktmbuf_pool_create(
		"vxs_mbufs", n, CFG_MBUF_CACHE, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
		rte_socket_id());
	if (!mp)
		VLOG_ERR(main, "cannot create a pool of %u mbufs: "
			"%s (more hugepages, or eal.memory-mb?)\n", n,
			rte_strerror(rte_errno));
	return mp;
}

/* ---- process ----------------------------------------------------------- */

/* --stats-on-exit: the show and pmd-stats-show reports, a log line each. */
static void
log_exit_stats(void)
{
	char *text = NULL, *save = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return;
	print_exit_stats(f);
	fclose(f);
	for (char *line = strtok_r(text, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		VLOG_INFO(main, "%s", line);
	free(text);
}

/* --eal-args words join the topology's extra EAL args, so the argv that
 * config_eal_argv() builds (and rte_eal_init() reorders) stays one piece. */
static int
add_eal_args(struct vxs_config *cfg, const char *extra)
{
	char *copy = strdup(extra), *save = NULL;

	if (!copy)
		return -1;
	for (char *t = strtok_r(copy, " \t", &save); t;
	     t = strtok_r(NULL, " \t", &save)) {
		char **v = realloc(cfg->eal_extra,
				   (cfg->n_eal_extra + 1) * sizeof *v);
		if (!v || !(v[cfg->n_eal_extra] = strdup(t))) {
			free(copy);
			return -1;
		}
		cfg->eal_extra = v;
		cfg->n_eal_extra++;
	}
	free(copy);
	return 0;
}

/* The EAL's words, as ovs-vswitchd logs its own ("EAL ARGS: ..."), before
 * rte_eal_init() reorders them. */
static void
log_eal_args(int argc, char **argv)
{
	struct ds s = DS_EMPTY_INITIALIZER;

	for (int i = 0; i < argc; i++)
		ds_put_format(&s, "%s%s", i ? " " : "", argv[i]);
	VLOG_INFO(main, "EAL ARGS: %s", ds_cstr(&s));
	ds_destroy(&s);
}

static int
main_lcore_of(const struct vxs_config *cfg)
{
	return cfg->eal_main_lcore >= 0 ? cfg->eal_main_lcore
					: atoi(cfg->eal_lcores);
}

/* --pmd-cores replaces datapath.pmd-cores after config_load() checked
 * them: the new list must pass the same checks, before the EAL starts. */
static int
check_pmd_cores_override(const struct vxs_config *cfg, const char *arg)
{
	int main_lcore = main_lcore_of(cfg);

	for (uint16_t i = 0; i < cfg->n_pmd_cores; i++)
		if (cfg->pmd_cores[i] == main_lcore) {
			VLOG_ERR(main, "--pmd-cores: pmd core is the "
				"main lcore '%d'\n", main_lcore);
			return -1;
		}
	for (uint16_t p = 0; p < cfg->n_ports; p++) {
		const struct cfg_port *port = &cfg->ports[p];
		for (uint16_t a = 0; a < port->n_affinity; a++) {
			uint16_t core = port->affinity[a].core, i;
			for (i = 0; i < cfg->n_pmd_cores; i++)
				if (cfg->pmd_cores[i] == core)
					break;
			if (i < cfg->n_pmd_cores)
				continue;
			VLOG_ERR(main, "%s:%d:%d: rxq-affinity core "
				"is not a pmd core '%u' (--pmd-cores '%s')\n",
				cfg->file, port->line, port->col, core, arg);
			return -1;
		}
	}
	return 0;
}

/* After --pmd-cores, the EAL core list is the main lcore plus the PMDs. */
static void
rebuild_lcores(struct vxs_config *cfg)
{
	int main_lcore = main_lcore_of(cfg);
	size_t n = snprintf(cfg->eal_lcores, sizeof cfg->eal_lcores, "%d",
			    main_lcore);
	for (uint16_t i = 0; i < cfg->n_pmd_cores && n < sizeof cfg->eal_lcores;
	     i++)
		n += snprintf(cfg->eal_lcores + n, sizeof cfg->eal_lcores - n,
			      ",%u", cfg->pmd_cores[i]);
}

/* An exit before the EAL runs: nothing to undo but the config (freed so
 * that sanitizer builds report no leak on these paths). */
static int
exit_early(struct vxs_config *cfg, int rc)
{
	config_free(cfg);
	state_fini();
	return rc;
}

/* SIGTERM while a PMD stays inside a driver call that even an interrupt
 * does not end (pmds_stop logged which, and where): it may still touch
 * the ports, the pool and the tables, so nothing is closed or freed. The
 * running state is saved, the control socket and pidfile go, and the
 * process exits with 4 at once (_exit: no destructor runs under it). */
static int
exit_pmd_stuck(void)
{
	state_flush();
	VLOG_ERR(main, "exiting with a PMD still running: ports not closed, "
		 "memory not freed (exit code 4)\n");
	control_fini();
	daemon_remove_pidfile();
	fflush(NULL);
	_exit(4);
}

int
main(int argc, char **argv)
{
	struct options opt = { .ovsdb_probe_ms = -1 };
	struct vxs_config cfg;
	char err[CFG_ERR_MAX], state_path[CFG_PATH_MAX];
	char topo_hex[SHA256_HEX_LEN + 1], topo_full[PATH_MAX];
	char **eal_argv;
	int eal_argc, rc = 1;
	enum state_start verdict = STATE_START_TOPOLOGY;

	if (vlog_init()) {
		fprintf(stderr, "vxswitch: cannot set up logging\n");
		return 1;
	}
	if (parse_options(argc, argv, &opt))
		return 2;
	if (config_load(opt.config, &cfg, err, sizeof err)) {
		VLOG_ERR(main, "%s\n", err);
		return 2;
	}
	state_path_of(&opt, &cfg, state_path, sizeof state_path);
	if (topology_origin(&opt, topo_hex, topo_full))
		return exit_early(&cfg, 2);
	if ((rc = load_state(&opt, &cfg, state_path, topo_hex,
			     &verdict)) != 0)
		return exit_early(&cfg, rc);
	if (state_keep_loaded(&cfg)) {
		VLOG_ERR(main, "out of memory\n");
		return exit_early(&cfg, 1);
	}
	rc = 1;
	if (opt.pmd_cores) {
		if (parse_core_list(opt.pmd_cores, &cfg)) {
			VLOG_ERR(main, "--pmd-cores: bad core list "
				"'%s'\n", opt.pmd_cores);
			return exit_early(&cfg, 2);
		}
		if (check_pmd_cores_override(&cfg, opt.pmd_cores))
			return exit_early(&cfg, 2);
		rebuild_lcores(&cfg);
	}
	if (opt.eal_args && add_eal_args(&cfg, opt.eal_args)) {
		VLOG_ERR(main, "out of memory\n");
		return exit_early(&cfg, 1);
	}
	/* as ovs-vswitchd, the database's dpdk-* keys before the EAL */
	if (opt.ovsdb && ovsdb_boot_eal(opt.ovsdb, OVSDB_BOOT_TIMEOUT_MS, &cfg,
					err, sizeof err))
		VLOG_WARN(main, "ovsdb %s: dpdk-* keys not read (%s): the "
			  "topology's EAL settings only", opt.ovsdb, err);
	if (opt.ctl_socket)
		snprintf(cfg.ctl_socket, sizeof cfg.ctl_socket, "%s",
			 opt.ctl_socket);
	if (check_flows(&cfg))
		return exit_early(&cfg, 2);
	if (config_check_host(&cfg, err, sizeof err)) {
		VLOG_ERR(main, "%s\n", err);
		return exit_early(&cfg, 2);
	}
	if (opt.check) {
		printf("%s: ok (%u ports, %u flows)\n", cfg.file, cfg.n_ports,
		       cfg.n_flows);
		return exit_early(&cfg, 0);
	}
	if (verdict == STATE_START_RESET &&
	    (rc = reset_state(&opt, state_path)) != 0)
		return exit_early(&cfg, rc);
	if (opt.log_file && vlog_set_file(opt.log_file, err, sizeof err)) {
		VLOG_ERR(main, "%s", err);
		return exit_early(&cfg, 1);
	}
	if (opt.detach && daemon_detach_start()) {
		VLOG_ERR(main, "cannot fork: %s", strerror(errno));
		return exit_early(&cfg, 1);
	}
	if (opt.pidfile && daemon_make_pidfile(opt.pidfile, err, sizeof err)) {
		VLOG_ERR(main, "%s", err);
		return exit_early(&cfg, 1);
	}
	set_signal_handlers();

	eal_argc = config_eal_argv(&cfg, "vxswitch", &eal_argv);
	log_eal_args(eal_argc, eal_argv);
	if (rte_eal_init(eal_argc, eal_argv) < 0) {
		/* rte_errno is not always set: the EAL said why above. */
		VLOG_ERR(main, "EAL init failed%s%s\n",
			rte_errno ? ": " : " (see the EAL messages above)",
			rte_errno ? rte_strerror(rte_errno) : "");
		daemon_remove_pidfile();
		config_free_argv(eal_argc, eal_argv);
		return exit_early(&cfg, 1);
	}
	vlog_sync_eal_levels();

	if (opt.ovsdb && !cfg.unixctl_socket[0]) {	/* as ovs-vswitchd's */
		int n = snprintf(cfg.unixctl_socket, sizeof cfg.unixctl_socket,
				 "%s/ovs-vswitchd.%ld.ctl",
				 daemon_ovs_rundir(), (long)getpid());
		if (n < 0 || (size_t)n >= sizeof cfg.unixctl_socket) {
			VLOG_ERR(main, "OVS_RUNDIR is too long: '%s'\n",
				 daemon_ovs_rundir());
			goto out_eal;
		}
	}
	if (control_init(cfg.ctl_socket, err, sizeof err) ||
	    control_unixctl_init(cfg.unixctl_socket, err, sizeof err)) {
		VLOG_ERR(main, "%s\n", err);
		goto out_eal;
	}
	pktmbuf_pool = create_pool(&cfg);
	if (!pktmbuf_pool)
		goto out_ctl;
	if (ports_create(&cfg, pktmbuf_pool, cfg.n_pmd_cores, err,
			 sizeof err) ||
	    pmds_init(err, sizeof err) ||
	    ct_ctl_init(&cfg, err, sizeof err) ||
	    pmds_create(&cfg, cfg.dp_opts, err, sizeof err)) {
		VLOG_ERR(main, "%s\n", err);
		goto out_ports;
	}
	port_vhost_set_rcu(pmd_qsbr);
	ports_remember_config_names(&cfg);
	if (ofproto_init(&cfg, pmd_qsbr, err, sizeof err)) {
		VLOG_ERR(main, "%s\n", err);
		goto out_ports;
	}
	run_state_init(&cfg);
	commands_register();
	state_init(&cfg, state_path);
	state_set_origin(topo_full, topo_hex);
	if (verdict == STATE_START_UNRECORDED || verdict == STATE_START_KEPT)
		state_changed();	/* to record this topology */
	telemetry_register();
	if (opt.ovsdb && ovsdb_client_start(opt.ovsdb, opt.ovsdb_probe_ms, err,
					    sizeof err)) {
		VLOG_ERR(main, "%s\n", err);
		goto out_offload;
	}
	/* in OVSDB mode, for the bridge ovs-vsctl makes (ovsdb_sync.c) */
	if (of_chan_start(opt.ovsdb != NULL, err, sizeof err)) {
		VLOG_ERR(main, "%s\n", err);
		goto out_offload;
	}
	if (offload_init(err, sizeof err)) {
		VLOG_ERR(main, "%s\n", err);
		goto out_offload;
	}
	if (ports_start(err, sizeof err)) {
		VLOG_ERR(main, "%s\n", err);
		goto out_offload;
	}
	if (pmds_start()) {
		VLOG_ERR(main, "cannot launch PMD threads\n");
		goto out_stop_ports;
	}
	VLOG_INFO(main, "running: %u ports, %u PMDs, %u flows, control "
	       "socket %s\n", n_ports, n_pmds, ofproto_n_rules(),
	       cfg.ctl_socket);
	char status[160];
	snprintf(status, sizeof status, "running: %u ports, %u PMDs",
		 n_ports, n_pmds);
	daemon_ready(status);

	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!quit_signal) {
		control_poll(20);
		ctl_events_process();
		ports_tick();
		pmd_auto_lb_tick();
		pmd_watch_tick();
		ct_ctl_tick();
		flow_timeouts_tick();
		ofproto_tick();
		ovsdb_client_run();
		of_chan_run();
		state_tick();
		if (reopen_signal) {
			reopen_signal = 0;
			if (vlog_reopen(err, sizeof err))
				VLOG_ERR(vlog, "SIGHUP: %s", err);
		}
		if (opt.duration > 0) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if (t.tv_sec - t0.tv_sec +
				    (t.tv_nsec - t0.tv_nsec) / 1e9 >=
			    opt.duration)
				break;
		}
	}
	VLOG_INFO(main, "shutting down%s\n",
	       quit_signal ? " (signal)" : "");
	daemon_stopping();
	if (pmds_stop())
		return exit_pmd_stuck();
	state_flush();
	if (opt.stats_on_exit)
		log_exit_stats();
	rc = 0;
out_stop_ports:
	pmds_stop();
out_offload:
	of_chan_stop();
	ovsdb_client_stop();
	offload_fini();
	ports_stop();
	ctl_events_process();
	ofproto_fini();
out_ports:
	pmds_destroy();		/* the PMDs' datapaths, then the sessions */
	ct_ctl_fini();
	pmds_fini();
	/* Less what closed drivers keep (counted by ports_stop while their
	 * ports still existed): not the datapath's to leak. */
	uint32_t kept = ports_mbufs_kept(stdout);
	ports_destroy();
	if (pktmbuf_pool) {
		uint32_t in_use = mbufs_in_use();
		uint32_t leaked = in_use > kept ? in_use - kept : 0;
		VLOG_INFO(main, "mbufs in use at exit: %u\n", leaked);
		if (leaked)
			rc = 3;
		rte_mempool_free(pktmbuf_pool);
		pktmbuf_pool = NULL;
	}
out_ctl:
	control_fini();
out_eal:
	rte_eal_cleanup();
	config_free_argv(eal_argc, eal_argv);
	config_free(&cfg);
	state_fini();
	daemon_remove_pidfile();
	vlog_fini();
	return rc;
}
