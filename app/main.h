/* SPDX-License-Identifier: BSD-3-Clause
 * vxswitch's start-up, shared by main.c (the command line, the EAL, the
 * control loop) and main_state.c (which configuration a start runs: the
 * topology or its state file, state_origin.h; the flows checked against
 * the topology's port names).
 */
#ifndef VXS_MAIN_H
#define VXS_MAIN_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "state_origin.h"

/* The command line. */
struct options {
	const char *config;
	const char *pmd_cores;
	const char *ctl_socket;
	const char *eal_args;
	const char *pidfile;
	const char *log_file;
	const char *state_file;
	const char *ovsdb;		/* --ovsdb REMOTE: OVSDB mode */
	long long ovsdb_probe_ms;	/* --ovsdb-probe-ms; -1: OVS's */
	double duration;
	bool check, detach, stats_on_exit, no_state;
	enum state_choice state_choice;	/* --keep-state, --reset-state */
};

/* Every flow of cfg parsed and translated against cfg's own ports; -1
 * after FILE:LINE:COL: message on the log. */
int check_flows(const struct vxs_config *cfg);

/* --state-file, else datapath.state-file (relative: to the topology's
 * folder), else "<topology>.state"; "" with --no-state. */
void state_path_of(const struct options *o, const struct vxs_config *cfg,
		   char *buf, size_t len);

/* The SHA-256 of the topology as it starts (hex; "" if it is not a
 * regular file), and its full path (full: PATH_MAX bytes). -1 after a
 * message on the log. */
int topology_origin(const struct options *o, char *hex, char *full);

/* The state file at path, if any, decides what runs (state_origin.h):
 * it replaces cfg (STATE_START_STATE, _UNRECORDED, _KEPT: then to be
 * written again at once, so that it records this topology), or it is to
 * be moved aside (_RESET: reset_state(), once the topology is checked),
 * or the start is refused (the exit code returned). 0, or the exit code;
 * the verdict in *verdict (left as it was without a state file). */
int load_state(const struct options *o, struct vxs_config *cfg,
	       const char *path, const char *topo_hex,
	       enum state_start *verdict);

/* --reset-state: the state file at path moved aside, said in the log. 0,
 * or the exit code. */
int reset_state(const struct options *o, const char *path);

#endif
