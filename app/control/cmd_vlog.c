/* SPDX-License-Identifier: BSD-3-Clause
 * The log's control commands, named and shaped as OVS's (ovs-appctl
 * vlog/list, vlog/set, vlog/reopen), on what app/lib/vlog.h offers. Here,
 * not beside vlog.c: the control server is above app/lib, which includes
 * nothing of the parts it serves (scripts/check-layers.py).
 */
#include "cmd_util.h"
#include "control.h"
#include "vlog.h"

/* vlog/list */
static int
cmd_vlog_list(int argc, const char *argv[], bool json, struct ds *out,
	      void *aux)
{
	(void)argc, (void)argv, (void)aux;
	vlog_list(out, json);
	return 0;
}

/* vlog/set [SPEC]...: a bad spec changes nothing. */
static int
cmd_vlog_set(int argc, const char *argv[], bool json, struct ds *out,
	     void *aux)
{
	(void)json, (void)aux;
	return vlog_set_specs(argc - 1, argv + 1, out) ? -1 : 0;
}

/* vlog/reopen */
static int
cmd_vlog_reopen(int argc, const char *argv[], bool json, struct ds *out,
		void *aux)
{
	char err[512];

	(void)argc, (void)argv, (void)json, (void)aux;
	if (vlog_reopen(err, sizeof err)) {
		ds_put_cstr(out, err);
		return -1;
	}
	return 0;
}

void
cmd_vlog_register(void)
{
	control_register("vlog/list", "", 0, 0, cmd_vlog_list, NULL);
	control_register("vlog/set", "[PART:DEST:LEVEL]...", 0,
			 CONTROL_ARGS_ANY, cmd_vlog_set, NULL);
	control_register("vlog/reopen", "", 0, 0, cmd_vlog_reopen, NULL);
}
