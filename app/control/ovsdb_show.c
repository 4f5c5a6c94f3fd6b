/* SPDX-License-Identifier: BSD-3-Clause
 * ovsdb/show: the OVSDB session's state and counters (ovsdb_client.h)
 * and the plan (ovsdb_plan.h): what the replica says vxswitch would
 * configure or refuse, row by row. Step 2 only reports: nothing here
 * changes the switch. Text only (no JSON yet).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "control.h"
#include "ovsdb_client.h"
#include "ovsdb_plan.h"
#include "ovsdb_show.h"

/* ---- the verb ---- */

static int
cmd_ovsdb_show(int argc, const char *argv[], bool json, struct ds *out,
	       void *aux)
{
	struct ovsdb_client_view v;

	(void)argc, (void)argv, (void)aux;
	if (!ovsdb_client_enabled()) {
		ds_put_cstr(out, "not in OVSDB mode (vxswitch --ovsdb)");
		return -1;
	}
	if (json) {
		ds_put_cstr(out, "ovsdb/show: text output only, for now");
		return -1;
	}
	ovsdb_client_get_view(&v);
	ds_put_format(out, "remote: %s\n", v.remote);
	ds_put_format(out, "state: %s", v.state);
	if (v.backoff_ms)
		ds_put_format(out, " (next try in %lld ms)", v.backoff_ms);
	ds_put_cstr(out, "\ninactivity probe: ");
	if (v.probe_ms)
		ds_put_format(out, "%lld ms\n", v.probe_ms);
	else
		ds_put_cstr(out, "none\n");
	ds_put_format(out, "schema: %s\n", *v.schema_version
		      ? v.schema_version : "-");
	ds_put_format(out, "lock %s: %s\n", OVSDB_LOCK_NAME,
		      ovsdb_lock_state_name(v.lock));
	ds_put_format(out, "monitor: %s\n", v.monitored ? "current"
		      : "none");
	if (*v.last_drop)
		ds_put_format(out, "last drop: %s\n", v.last_drop);
	ds_put_cstr(out, "rows:");
	for (int t = 0; t < OVSDB_N_TABLES; t++)
		ds_put_format(out, " %s %zu", ovsdb_table_name(t),
			      ovsdb_replica_count(v.replica, t));
	ds_put_cstr(out, "\ncounters:\n");
#define PUT_COUNTER(name) \
	ds_put_format(out, "  %s: %llu\n", #name, v.counters->name);
	OVSDB_COUNTERS(PUT_COUNTER)
#undef PUT_COUNTER
	ds_put_format(out, "refusals logged: %llu\n",
		      ovsdb_plan_refusals_logged());
	ds_put_cstr(out, "configured: nothing (step 2: OVSDB mode reads "
		    "and reports only)\n");
	if (!v.monitored) {
		ds_put_cstr(out, "would configure: nothing: no replica\n");
	} else if (v.lock != OVSDB_LOCK_HELD) {
		ds_put_format(out, "would configure: nothing: lock %s is "
			      "%s\n", OVSDB_LOCK_NAME,
			      ovsdb_lock_state_name(v.lock));
	} else {
		ds_put_cstr(out, "would configure:\n");
		ovsdb_plan_put(v.replica, out, NULL);
	}
	return 0;
}

void
ovsdb_show_register(void)
{
	control_register("ovsdb/show", "", 0, 0, cmd_ovsdb_show, NULL);
}
