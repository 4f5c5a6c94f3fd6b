/* SPDX-License-Identifier: BSD-3-Clause
 * Which configuration a start runs (main.h): the topology or its state
 * file, as state_origin.h decides; and the topology's flows, checked
 * against its own port names before the EAL starts.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "config_save.h"
#include "main.h"
#include "ofproto.h"
#include "state.h"
#include "vlog.h"
#include "xlate.h"

/* ---- flows checked against the topology's own port names ---------------- */

static uint32_t
cfg_port_by_name(const char *name, void *aux)
{
	const struct vxs_config *cfg = aux;
	const struct cfg_port *p = config_find_port(cfg, name);
	if (!p) {	/* a port to come, with its number kept (config.h) */
		for (uint32_t i = 0; i < cfg->n_ofport_names; i++)
			if (!strcmp(cfg->ofport_names[i].name, name))
				return cfg->ofport_names[i].ofport;
		return 0;
	}
	if (!strcmp(p->name, cfg->underlay_port))
		return 0;
	return p->ofport;
}

static bool
cfg_port_is_tunnel(uint32_t ofport, void *aux)
{
	const struct vxs_config *cfg = aux;
	for (uint16_t i = 0; i < cfg->n_ports; i++)
		if (cfg->ports[i].ofport == ofport)
			return cfg->ports[i].type == CFG_PORT_VXLAN;
	return false;
}

int
check_flows(const struct vxs_config *cfg)
{
	const struct ofp_port_map map = { .port_by_name = cfg_port_by_name,
					  .aux = (void *)cfg };
	char err[CFG_ERR_MAX];
	struct ofp_rule r;

	for (uint16_t i = 0; i < cfg->n_flows; i++) {
		if (ofp_parse_flow(cfg->flows[i].text, OFP_PARSE_ADD, &map, &r,
				   err, sizeof err) ||
		    xlate_check_rule(&r, cfg_port_is_tunnel, (void *)cfg, err,
				     sizeof err)) {
			VLOG_ERR(main, "%s:%d:%d: %s\n", cfg->file,
				cfg->flows[i].line, cfg->flows[i].col, err);
			return -1;
		}
	}
	return 0;
}

/* ---- the running state (state.h) ---------------------------------------- */

/* --state-file, else datapath.state-file (relative: to the topology's
 * folder), else "<topology>.state"; "" with --no-state, and in OVSDB
 * mode, where the database is the one source of truth (as OVS keeps no
 * state of its own beside its database). */
void
state_path_of(const struct options *o, const struct vxs_config *cfg,
	      char *buf, size_t len)
{
	const char *slash = strrchr(o->config, '/');

	buf[0] = '\0';
	if (o->no_state || o->ovsdb)
		return;
	if (o->state_file)
		snprintf(buf, len, "%s", o->state_file);
	else if (cfg->state_file[0] == '/' || (cfg->state_file[0] && !slash))
		snprintf(buf, len, "%s", cfg->state_file);
	else if (!cfg->state_file[0])
		state_default_path(o->config, buf, len);
	else if (snprintf(buf, len, "%.*s/%s", (int)(slash - o->config),
			  o->config, cfg->state_file) >= (int)len)
		buf[0] = '\0';	/* too long: no state rather than another */
}

/* One log line per line of text. */
static void
log_err_lines(char *text)
{
	char *save = NULL;

	for (char *l = strtok_r(text, "\n", &save); l;
	     l = strtok_r(NULL, "\n", &save))
		VLOG_ERR(main, "%s", l);
}

int
reset_state(const struct options *o, const char *path)
{
	char moved[CFG_PATH_MAX + 32], err[CFG_ERR_MAX];

	if (state_move_aside(path, moved, sizeof moved, err, sizeof err)) {
		VLOG_ERR(main, "--reset-state: %s\n", err);
		return 1;
	}
	VLOG_WARN(main, "--reset-state: starting from the topology %s; the "
		  "state file %s, and its run-time changes, moved aside to "
		  "%s\n", o->config, path, moved);
	return 0;
}

/* Which file runs (state_origin.h). A state file to restore replaces the
 * topology; one that does not load stops the switch (an operator must
 * look: it is neither used, nor overwritten); one older than an edit of
 * the topology stops it too, unless --keep-state or --reset-state chose.
 * With --check, the same verdict and exit status, both files checked. */
int
load_state(const struct options *o, struct vxs_config *cfg,
	   const char *path, const char *topo_hex, enum state_start *verdict_out)
{
	struct vxs_config saved;
	struct state_origin origin;
	char err[CFG_ERR_MAX], when[64];

	if (!path[0] || access(path, F_OK) != 0)
		return 0;
	state_origin_read(path, &origin);
	enum state_start verdict = state_decide(&origin, topo_hex,
						o->state_choice);
	*verdict_out = verdict;
	if (verdict == STATE_START_RESET) {	/* moved once all is checked */
		if (o->check)
			printf("%s: --reset-state: a start moves it aside and "
			       "runs the topology %s\n", path, o->config);
		return 0;
	}
	if (o->check) {
		if (check_flows(cfg))
			return 2;
		printf("%s: ok (%u ports, %u flows)\n", cfg->file,
		       cfg->n_ports, cfg->n_flows);
	}
	if (verdict == STATE_START_REFUSED) {
		char text[3 * CFG_ERR_MAX + 4 * CFG_PATH_MAX];
		state_refusal_text(o->config, path, &origin, topo_hex, text,
				   sizeof text);
		log_err_lines(text);
		return STATE_EXIT_CHANGED;
	}
	const char *from = o->check ? "the start" : "now on";
	if (verdict == STATE_START_UNRECORDED && !topo_hex[0])
		VLOG_WARN(main, "the topology %s is not a regular file: the "
			  "state file %s is restored as before, not compared "
			  "with it\n", o->config, path);
	else if (verdict == STATE_START_UNRECORDED)
		VLOG_WARN(main, "the state file %s records no topology (an "
			  "older vxswitch wrote it): restored as before, "
			  "although the topology %s may have been edited "
			  "since (saved %s); it records this topology from "
			  "%s (--reset-state: start from the topology)\n",
			  path, o->config, origin.saved[0] ? origin.saved
			  : "at an unknown time", from);
	if (verdict == STATE_START_KEPT)
		VLOG_WARN(main, "--keep-state: restoring the state file %s "
			  "although the topology %s was edited after it was "
			  "written; the topology's edits do not apply, and the "
			  "state file records this topology from %s\n",
			  path, o->config, from);
	if (config_load(path, &saved, err, sizeof err)) {
		VLOG_ERR(main, "%s\n", err);
		VLOG_ERR(main, "the running state in %s does not "
			"load: correct it, or remove it to start from the "
			"topology %s\n", path, o->config);
		return 2;
	}
	config_saved_time(path, when, sizeof when);
	if (o->check)
		printf("%s: a start restores it, not the topology%s\n", path,
		       verdict == STATE_START_STATE
		       ? " (it was written from this topology)" : "");
	else
		VLOG_INFO(main, "restoring running state from %s (saved %s)%s"
			  "%s\n", path, when[0] ? when : "at an unknown time",
			  verdict == STATE_START_STATE
			  ? ", written from this very topology " : "",
			  verdict == STATE_START_STATE ? o->config : "");
	config_free(cfg);
	*cfg = saved;
	return 0;
}

/* The SHA-256 of the topology as it starts, and its full path, for the
 * state file to record (state_origin.h). */
int
topology_origin(const struct options *o, char *hex, char *full)
{
	char err[CFG_ERR_MAX];
	struct stat sb;

	hex[0] = '\0';
	if (stat(o->config, &sb) == 0 && !S_ISREG(sb.st_mode))
		return 0;	/* a pipe is read once: by config_load */
	if (state_file_sha256(o->config, hex, err, sizeof err)) {
		VLOG_ERR(main, "%s\n", err);
		return -1;
	}
	if (!realpath(o->config, full))
		snprintf(full, PATH_MAX, "%s", o->config);
	return 0;
}
