/* SPDX-License-Identifier: BSD-3-Clause
 * ovsdb/show: the OVSDB session's state and counters (ovsdb_client.h)
 * and the plan (ovsdb_plan.h): what the replica says vxswitch configures
 * (ovsdb_apply.h runs it) or refuses, row by row. --json: the same content as one object (the
 * verdicts as ovsdb_plan.h's objects), built with jansson, which reads
 * OVSDB's JSON-RPC too.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_reply.h"
#include "config.h"
#include "control.h"
#include "ovsdb_client.h"
#include "ovsdb_plan.h"
#include "ovsdb_show.h"

/* ---- the verb ---- */

/* Why the plan is not shown, or NULL when it is. */
static const char *
why_no_plan(const struct ovsdb_client_view *v, char *buf, size_t len)
{
	if (!v->monitored)
		return "no replica";
	if (v->lock != OVSDB_LOCK_HELD) {
		snprintf(buf, len, "lock %s is %s", OVSDB_LOCK_NAME,
			 ovsdb_lock_state_name(v->lock));
		return buf;
	}
	return NULL;
}

static int
put_json(const struct ovsdb_client_view *v, struct ds *out)
{
	json_t *rows = json_object(), *counters = json_object();
	json_t *verdicts = json_array();
	char buf[128];
	const char *why = why_no_plan(v, buf, sizeof buf);
	unsigned refusals = 0;

	for (int t = 0; t < OVSDB_N_TABLES; t++)
		json_object_set_new(rows, ovsdb_table_name(t), json_integer(
			(json_int_t)ovsdb_replica_count(v->replica, t)));
#define SET_COUNTER(name) json_object_set_new(counters, #name, \
	json_integer((json_int_t)v->counters->name));
	OVSDB_COUNTERS(SET_COUNTER)
#undef SET_COUNTER
	if (!why) {
		struct ds scratch;
		ds_init(&scratch);
		refusals = ovsdb_plan_put(v->replica, &scratch, verdicts);
		ds_destroy(&scratch);
	}
	json_t *o = json_pack(
		"{s:s, s:s, s:I, s:I, s:s?, s:{s:s, s:s}, s:b, s:s?, s:o, "
		"s:o, s:I, s:{s:s?, s:I, s:o}, s:b}",
		"remote", v->remote, "state", v->state,
		"next_try_ms", (json_int_t)v->backoff_ms,
		"probe_ms", (json_int_t)v->probe_ms,
		"schema", *v->schema_version ? v->schema_version : NULL,
		"lock", "name", OVSDB_LOCK_NAME,
		"state", ovsdb_lock_state_name(v->lock),
		"monitored", v->monitored,
		"last_drop", *v->last_drop ? v->last_drop : NULL,
		"rows", rows, "counters", counters,
		"refusals_logged",
		(json_int_t)ovsdb_plan_refusals_logged(),
		"configuration", "why_not", why,
		"refusals", (json_int_t)refusals, "verdicts", verdicts,
		"epoll", v->polled);
	return json_reply(out, o, "ovsdb/show");
}

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
	ovsdb_client_get_view(&v);
	if (json)
		return put_json(&v, out);
	ds_put_format(out, "remote: %s\n", v.remote);
	ds_put_format(out, "state: %s", v.state);
	if (v.backoff_ms)
		ds_put_format(out, " (next try in %lld ms)", v.backoff_ms);
	ds_put_cstr(out, "\ninactivity probe: ");
	if (v.probe_ms)
		ds_put_format(out, "%lld ms\n", v.probe_ms);
	else
		ds_put_cstr(out, "none\n");
	ds_put_format(out, "io: %s\n", v.polled ? "epoll"
		      : "the loop's turn");
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
	char buf[128];
	const char *why = why_no_plan(&v, buf, sizeof buf);
	if (why) {
		ds_put_format(out, "configuring nothing: %s\n", why);
	} else {
		ds_put_cstr(out, "configuration:\n");
		ovsdb_plan_put(v.replica, out, NULL);
	}
	return 0;
}

void
ovsdb_show_register(void)
{
	control_register("ovsdb/show", "", 0, 0, cmd_ovsdb_show, NULL);
}
