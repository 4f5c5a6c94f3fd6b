/* SPDX-License-Identifier: BSD-3-Clause
 * vxswitch-ctl: sends one command to the running vxswitch over its control
 * socket and prints the answer (protocol in control.h).
 *
 * Exit status: 0 the command succeeded; 1 it failed, or this program was
 * used wrongly; 2 the daemon could not be reached or did not answer.
 *
 * "add-flows [BRIDGE] FILE" is the one command this side interprets: it
 * reads FILE
 * and sends its flows as the arguments of a single request, so the daemon
 * can apply all of them or none. The daemon names a bad flow by its
 * position, as an error starting "flow N: " (N counted from 1), which is
 * turned back into FILE:LINE here.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "control.h"
#include "ds.h"

#define EXIT_CMD_FAILED 1
#define EXIT_NO_DAEMON 2

struct options {
	const char *socket;
	bool json;
	unsigned timeout;		/* seconds; 0 = wait forever */
	int argc;			/* the command and its arguments */
	char **argv;
};

/* Where each flow sent by add-flows came from. */
struct flow_file {
	const char *bridge;		/* NULL: not given */
	const char *name;
	int n_flows;
	char **flows;
	int *lines;
};

static void
usage(void)
{
	printf(
"usage: vxswitch-ctl [OPTIONS] COMMAND [ARG...]\n"
"Sends COMMAND to the running vxswitch daemon and prints its answer.\n"
"\n"
"Options:\n"
"  -s, --socket PATH    control socket (default: $VXSWITCH_CTL_SOCKET, else\n"
"                       " CONTROL_DEFAULT_SOCKET ")\n"
"  -t, --target TARGET  as ovs-appctl's: an absolute PATH is the control\n"
"                       socket, a NAME is " CONTROL_DEFAULT_DIR "/NAME.ctl\n"
"      --json           ask for JSON output (before COMMAND)\n"
"  -T, --timeout SECS   give up after SECS seconds (default: wait)\n"
"  -h, --help           print this help\n"
"\n"
"Main commands:\n"
"  show                           the bridge, its ports and their state\n"
"  add-port NAME type=TYPE [KEY=VALUE]...\n"
"                                 add a port at run time, as ovs-vsctl:\n"
"                                 type=dpdkvhostuserclient\n"
"                                 options:vhost-server-path=PATH\n"
"                                 [options:n_rxq=N]\n"
"                                 [other_config:pmd-rxq-affinity=Q:CORE,...]\n"
"  del-port NAME                  remove a port (its flows stay)\n"
"  list-ports                     the ports' names\n"
"  set Interface NAME KEY=VALUE...\n"
"                                 change a port (a new pmd-rxq-affinity\n"
"                                 moves queues; other keys re-create it)\n"
"  (BRIDGE, as ovs-ofctl's: the one bridge's name, br-int by default)\n"
"  dump-flows [--no-stats] [BRIDGE] [FLOW]\n"
"                                 OpenFlow rules, with their counters\n"
"  add-flow [BRIDGE] FLOW         add one OpenFlow rule (idle_timeout=S,\n"
"                                 hard_timeout=S as ovs-ofctl)\n"
"  add-flows [BRIDGE] FILE        add the rules in FILE, one per line\n"
"                                 ('-' = stdin): all of them or none\n"
"  mod-flows [--strict] [BRIDGE] FLOW\n"
"                                 new actions for the matching rules\n"
"  del-flows [--strict] [BRIDGE] [FLOW]\n"
"                                 delete the matching rules (all if no FLOW;\n"
"                                 cookie=V/M matches cookies)\n"
"  dpctl/dump-flows [-m] [--names]\n"
"                                 megaflows cached in the datapath, as OVS\n"
"  dpctl/del-flows                flush the datapath's megaflow caches\n"
"  dpctl/dump-conntrack [-m] [-s] [zone=N]\n"
"                                 the connection tracker's sessions (sg());\n"
"                                 -m ids, status, TCP detail; -s timeouts\n"
"  dpctl/flush-conntrack [zone=N] forget the sessions\n"
"  dpctl/ct-stats-show            sessions by protocol and state, refusals\n"
"  dpctl/ct-set-limits [default=L] [zone=N,limit=L]...\n"
"                                 per-zone session limits\n"
"  add-zone-tp zone=N ATTR=SECS... a zone's session timeouts (tcp_close,\n"
"                                 udp_first... as ovs-vsctl add-zone-tp)\n"
"  del-zone-tp zone=N / list-zone-tp\n"
"  dpif-netdev/pmd-stats-show [-pmd CORE] [-m]\n"
"                                 per-PMD counters in OVS's lines; -m: and\n"
"                                 vxswitch's (tunnel, accounting, drops)\n"
"  dpif-netdev/pmd-stats-clear    reset the per-PMD counters\n"
"  dpif-netdev/pmd-rxq-show       which PMD polls which rx queue\n"
"  dpif-netdev/pmd-rxq-rebalance  reassign the rx queues to the PMDs now\n"
"  set-pmd-cores LIST             run the PMDs on these lcores (e.g. 1,2)\n"
"  trace add PORT N [MATCH] | show [-m] | clear\n"
"                                 trace the next N packets received on PORT\n"
"                                 (those matching MATCH, an ovs-ofctl match),\n"
"                                 print each one's stages, stop (also\n"
"                                 dpif-netdev/trace)\n"
"  tnl/arp/set IP MAC             add a static underlay neighbour\n"
"  tnl/arp/show                   the underlay neighbour table\n"
"  tnl/arp/flush                  forget the learned neighbours\n"
"  ovs/route/add IP/LEN [GW]      add an underlay route\n"
"  ovs/route/del IP/LEN           delete an underlay route\n"
"  ovs/route/show                 the underlay routing table\n"
"  save-config FILE               write the running state as a topology file\n"
"  state/show                     the state file and its writes\n"
"  list-commands                  every command, with its arguments\n"
"(run 'vxswitch-ctl list-commands' for what the running daemon supports)\n"
"\n"
"Exit status: 0 done, 1 the command failed, 2 vxswitch could not be reached.\n"
"Debian's ovs-appctl works too, on the daemon's unixctl socket:\n"
"  ovs-appctl -t " CONTROL_DEFAULT_DIR "/vxswitch.<pid>.ctl COMMAND [ARG...]\n");
}

static void fail(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

static void
fail(int status, const char *fmt, ...)
{
	va_list args;

	fputs("vxswitch-ctl: ", stderr);
	va_start(args, fmt);
	vfprintf(stderr, fmt, args);
	va_end(args);
	fputc('\n', stderr);
	exit(status);
}

static unsigned
parse_timeout(const char *s)
{
	char *end;

	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v > 86400 * 365)
		fail(EXIT_CMD_FAILED, "bad timeout '%s' (seconds expected)", s);
	return (unsigned)v;
}

/* -t TARGET, as ovs-appctl's: an absolute path is the socket, a name
 * the daemon's socket of that name in the default directory. */
static const char *
target_socket(const char *target)
{
	static char path[sizeof ((struct sockaddr_un *)0)->sun_path];

	if (target[0] == '/')
		return target;
	if (!target[0] || strchr(target, '/') ||
	    strspn(target, "0123456789") == strlen(target))
		fail(EXIT_CMD_FAILED, "bad target '%s': a socket's absolute "
		     "path or a daemon's name (-t is the target, as in "
		     "ovs-appctl; the time-out is --timeout=SECS)", target);
	if ((size_t)snprintf(path, sizeof path, CONTROL_DEFAULT_DIR "/%s.ctl",
			     target) >= sizeof path)
		fail(EXIT_CMD_FAILED, "target name '%s' is too long", target);
	return path;
}

static void
parse_options(int argc, char *argv[], struct options *o)
{
	enum { OPT_JSON = 256 };
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "target", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "timeout", required_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *env = getenv("VXSWITCH_CTL_SOCKET");
	int c;

	o->socket = env && *env ? env : CONTROL_DEFAULT_SOCKET;
	/* '+': options end at the command, whose own arguments may well
	 * start with a dash (del-flows --strict). */
	while ((c = getopt_long(argc, argv, "+s:t:T:h", longopts, NULL)) != -1) {
		switch (c) {
		case 's': o->socket = optarg; break;
		case 't': o->socket = target_socket(optarg); break;
		case 'T': o->timeout = parse_timeout(optarg); break;
		case OPT_JSON: o->json = true; break;
		case 'h': usage(); exit(0);
		default:
			fail(EXIT_CMD_FAILED, "try 'vxswitch-ctl --help'");
		}
	}
	if (optind == argc)
		fail(EXIT_CMD_FAILED, "no command given; try "
		     "'vxswitch-ctl --help'");
	o->argc = argc - optind;
	o->argv = argv + optind;
}

/* ---- add-flows FILE ---- */

static char *
trim(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	size_t n = strlen(s);
	while (n && strchr(" \t\r\n", s[n - 1]))
		s[--n] = '\0';
	return s;
}

static void
add_flow_line(struct flow_file *ff, const char *text, int line)
{
	char **flows = realloc(ff->flows, (ff->n_flows + 1) * sizeof *flows);
	int *lines = realloc(ff->lines, (ff->n_flows + 1) * sizeof *lines);
	if (flows)
		ff->flows = flows;
	if (lines)
		ff->lines = lines;
	if (!flows || !lines || !(flows[ff->n_flows] = strdup(text)))
		fail(EXIT_CMD_FAILED, "out of memory");
	lines[ff->n_flows++] = line;
}

static void
read_flow_file(struct flow_file *ff)
{
	bool is_stdin = !strcmp(ff->name, "-");
	FILE *f = is_stdin ? stdin : fopen(ff->name, "r");
	char *buf = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!f)
		fail(EXIT_CMD_FAILED, "%s: %s", ff->name, strerror(errno));
	if (is_stdin)
		ff->name = "(stdin)";	/* how errors will name it */
	for (int line = 1; (n = getline(&buf, &cap, f)) >= 0; line++) {
		if (memchr(buf, '\0', (size_t)n))
			fail(EXIT_CMD_FAILED, "%s:%d: NUL byte in line",
			     ff->name, line);
		char *text = trim(buf);
		if (*text && *text != '#')
			add_flow_line(ff, text, line);
	}
	if (ferror(f))
		fail(EXIT_CMD_FAILED, "%s: %s", ff->name, strerror(errno));
	free(buf);
	if (!is_stdin)
		fclose(f);
}

static void
free_flow_file(struct flow_file *ff)
{
	for (int i = 0; i < ff->n_flows; i++)
		free(ff->flows[i]);
	free(ff->flows);
	free(ff->lines);
}

/* "flow N: why" -> "FILE:LINE: why"; other messages pass as they are. */
static void
put_flow_error(const struct flow_file *ff, const char *msg, struct ds *out)
{
	if (!strncmp(msg, "flow ", 5) && msg[5] >= '0' && msg[5] <= '9') {
		char *end;
		long n = strtol(msg + 5, &end, 10);
		if (*end == ':' && n >= 1 && n <= ff->n_flows) {
			msg = end + 1 + (end[1] == ' ');
			ds_put_format(out, "%s:%d: ", ff->name,
				      ff->lines[n - 1]);
		}
	}
	ds_put_cstr(out, msg);
}

/* ---- talking to the daemon ---- */

static void
put_request_string(struct ds *req, const char *s)
{
	/* An empty string would end the request early (see control.h). */
	if (!*s)
		fail(EXIT_CMD_FAILED, "empty arguments cannot be sent");
	ds_put_buf(req, s, strlen(s) + 1);
}

static void
build_request(const struct options *o, const struct flow_file *ff,
	      struct ds *req)
{
	int nargs = ff ? ff->n_flows : o->argc - 1, nargs_sent = nargs;

	if (o->json)
		put_request_string(req, CONTROL_JSON_OPTION);
	put_request_string(req, o->argv[0]);
	if (ff && ff->bridge) {		/* the daemon checks the name */
		ds_put_format(req, "--bridge=%s", ff->bridge);
		ds_put_char(req, '\0');
		nargs_sent++;
	}
	for (int i = 0; i < nargs; i++)
		put_request_string(req, ff ? ff->flows[i] : o->argv[i + 1]);
	ds_put_char(req, '\0');

	if (nargs_sent > CONTROL_MAX_ARGS)
		fail(EXIT_CMD_FAILED, "%d %s, but a request carries at most %d",
		     nargs, ff ? "flows" : "arguments", CONTROL_MAX_ARGS);
	if (req->len > CONTROL_MAX_REQUEST)
		fail(EXIT_CMD_FAILED, "request of %zu bytes is over the "
		     "daemon's limit of %d", req->len, CONTROL_MAX_REQUEST);
}

/* SIGALRM ends the wait; the message is made before the alarm is set,
 * since the handler may only write() and _exit(). */
static char timeout_msg[256];

static void
on_timeout(int sig)
{
	(void)sig;
	ssize_t rc = write(STDERR_FILENO, timeout_msg, strlen(timeout_msg));
	(void)rc;
	_exit(EXIT_NO_DAEMON);
}

static void
arm_timeout(const struct options *o)
{
	if (!o->timeout)
		return;
	snprintf(timeout_msg, sizeof timeout_msg, "vxswitch-ctl: no answer "
		 "from %s within %u s\n", o->socket, o->timeout);
	signal(SIGALRM, on_timeout);
	alarm(o->timeout);
}

static int
connect_daemon(const char *path)
{
	struct sockaddr_un addr = { .sun_family = AF_UNIX };

	if (strlen(path) >= sizeof addr.sun_path)
		fail(EXIT_NO_DAEMON, "socket path %s is too long", path);
	memcpy(addr.sun_path, path, strlen(path) + 1);

	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		fail(EXIT_NO_DAEMON, "socket: %s", strerror(errno));
	if (connect(fd, (struct sockaddr *)&addr, sizeof addr)) {
		int e = errno;
		fail(EXIT_NO_DAEMON, "cannot connect to %s: %s%s", path,
		     strerror(e), e == EACCES || e == EPERM
		     ? " (are you the daemon's user?)"
		     : " (is vxswitch running?)");
	}
	return fd;
}

/* A send error is not final: the daemon may have refused the request
 * part-way and still left its reason to read. */
static void
send_request(int fd, const struct ds *req)
{
	for (size_t done = 0; done < req->len;) {
		ssize_t n = send(fd, req->s + done, req->len - done,
				 MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		done += (size_t)n;
	}
}

/* Reads until the daemon closes. ECONNRESET after data is how a unix
 * socket reports a close that left some of our request unread. */
static void
read_response(int fd, const char *path, struct ds *resp)
{
	char buf[65536];

	for (;;) {
		ssize_t n = read(fd, buf, sizeof buf);
		if (n > 0)
			ds_put_buf(resp, buf, (size_t)n);
		else if (n < 0 && errno == EINTR)
			continue;
		else if (n == 0 || (errno == ECONNRESET && resp->len))
			return;
		else
			fail(EXIT_NO_DAEMON, "reading from %s: %s", path,
			     strerror(errno));
	}
}

static int
print_response(const struct ds *resp, const struct flow_file *ff)
{
	const char *s = ds_cstr(resp);

	if (!strncmp(s, "OK\n", 3)) {
		fwrite(s + 3, 1, resp->len - 3, stdout);
		if (fflush(stdout) || ferror(stdout))
			fail(EXIT_CMD_FAILED, "writing output: %s",
			     strerror(errno));
		return 0;
	}
	if (strncmp(s, "ERROR\n", 6))
		fail(EXIT_NO_DAEMON, "%s", resp->len ? "malformed answer "
		     "from vxswitch" : "vxswitch closed the connection "
		     "without answering");

	struct ds msg = DS_EMPTY_INITIALIZER;
	if (ff)
		put_flow_error(ff, s + 6, &msg);
	else
		ds_put_cstr(&msg, s + 6);
	if (!msg.len)
		ds_put_cstr(&msg, "command failed");
	fprintf(stderr, "vxswitch-ctl: %s%s", ds_cstr(&msg),
		msg.s[msg.len - 1] == '\n' ? "" : "\n");
	ds_destroy(&msg);
	return EXIT_CMD_FAILED;
}

int
main(int argc, char *argv[])
{
	struct options o = { 0 };
	struct flow_file ff = { 0 };
	struct ds req = DS_EMPTY_INITIALIZER, resp = DS_EMPTY_INITIALIZER;
	bool add_flows;

	parse_options(argc, argv, &o);
	add_flows = !strcmp(o.argv[0], "add-flows");
	if (add_flows) {
		if (o.argc != 2 && o.argc != 3)
			fail(EXIT_CMD_FAILED, "usage: add-flows [BRIDGE] FILE");
		ff.bridge = o.argc == 3 ? o.argv[1] : NULL;
		ff.name = o.argv[o.argc - 1];
		read_flow_file(&ff);
	}
	/* the daemon writes it: a relative FILE means ours, not its cwd */
	char *save_path = NULL;
	if (!strcmp(o.argv[0], "save-config") && o.argc == 2 &&
	    o.argv[1][0] != '/') {
		char cwd[4096];
		if (!getcwd(cwd, sizeof cwd) ||
		    asprintf(&save_path, "%s/%s", cwd, o.argv[1]) < 0)
			fail(EXIT_CMD_FAILED, "save-config: cannot make '%s' "
			     "absolute", o.argv[1]);
		o.argv[1] = save_path;
	}
	build_request(&o, add_flows ? &ff : NULL, &req);
	free(save_path);

	arm_timeout(&o);
	int fd = connect_daemon(o.socket);
	send_request(fd, &req);
	read_response(fd, o.socket, &resp);
	close(fd);

	int status = print_response(&resp, add_flows ? &ff : NULL);
	ds_destroy(&req);
	ds_destroy(&resp);
	free_flow_file(&ff);
	return status;
}
