/* SPDX-License-Identifier: BSD-3-Clause
 * OVSDB mode's loop (ovsdb_sync.h): plan, apply, write back.
 */
#include <stdio.h>
#include <string.h>

#include "ds.h"
#include "of_chan.h"
#include "ovsdb_apply.h"
#include "ovsdb_plan.h"
#include "ovsdb_sync.h"
#include "ovsdb_write.h"
#include "vlog.h"

static struct {
	json_t *results;	/* the last ovsdb_apply()'s */
	long long cur_cfg;	/* the next_cfg applied last; -1: none */
	bool in_flight;
	long long next_status, next_stats;
} s = { .cur_cfg = -1 };

static long long
next_cfg(const struct ovsdb_replica *r)
{
	const char *uuid;
	json_t *row;
	long long v;

	json_object_foreach(r->rows[OVSDB_T_OPEN_VSWITCH], uuid, row)
		if (ovsdb_datum_int(row, "next_cfg", &v))
			return v;
	return -1;
}

/* The OpenFlow bridge the plan chose: the bridge of its local
 * interface (role "local"), or NULL when there is none yet. */
static const char *
openflow_bridge(const json_t *verdicts)
{
	const json_t *v;
	size_t i;

	json_array_foreach(verdicts, i, v) {
		const char *role = json_string_value(json_object_get(v,
								     "role"));
		if (role && !strcmp(role, "local"))
			return json_string_value(json_object_get(v,
								 "bridge"));
	}
	return NULL;
}

static void
apply(const struct ovsdb_replica *r, struct ovsdb_counters *n)
{
	json_t *verdicts = json_array(), *results;
	struct ds text;

	ds_init(&text);
	if (!verdicts)
		goto out;
	ovsdb_plan_put(r, &text, verdicts);
	of_chan_set_bridge(openflow_bridge(verdicts));
	results = ovsdb_apply(verdicts);
	if (results) {
		json_decref(s.results);
		s.results = results;
	}
	s.cur_cfg = next_cfg(r);
	n->reconfigures++;
out:
	json_decref(verdicts);
	ds_destroy(&text);
}

void
ovsdb_sync_run(const struct ovsdb_replica *r, bool *changed, long long now,
	       struct ovsdb_counters *n, void (*send)(json_t *params))
{
	bool stats = now >= s.next_stats;

	/* A change is applied at once; only the write-back waits for the
	 * answer to the transaction in flight (ovs-vswitchd reconfigures
	 * whatever its status transaction does, too). */
	if (*changed) {
		apply(r, n);
		*changed = false;
	} else if (now < s.next_status) {
		return;
	}
	if (s.in_flight) {
		s.next_status = 0;	/* written as soon as it is answered */
		return;
	}
	s.next_status = now + OVSDB_STATUS_MS;
	if (stats)
		s.next_stats = now + OVSDB_STATS_MS;
	json_t *params = ovsdb_write_build(r, s.results, s.cur_cfg, stats);
	if (!params)
		return;
	s.in_flight = true;
	n->txns++;
	send(params);
}

void
ovsdb_sync_reply(const json_t *result, struct ovsdb_counters *n)
{
	const json_t *op;
	size_t i;
	bool failed = !json_is_array(result);

	s.in_flight = false;
	json_array_foreach(result, i, op) {
		const char *error = json_string_value(json_object_get(op,
								"error"));
		if (!error)
			continue;
		const char *details = json_string_value(
			json_object_get(op, "details"));
		VLOG_WARN(control, "ovsdb: transaction failed at operation "
			  "%zu: %s%s%s", i, error, details ? ": " : "",
			  details ? details : "");
		failed = true;
	}
	if (failed) {
		n->txn_errors++;
		ovsdb_write_forget();	/* all again, at the next status turn */
	}
}

void
ovsdb_sync_reset(void)
{
	s.in_flight = false;
	s.next_status = s.next_stats = 0;
	ovsdb_write_forget();
}

void
ovsdb_sync_stop(void)
{
	ovsdb_sync_reset();
	json_decref(s.results);
	s.results = NULL;
	s.cur_cfg = -1;
	ovsdb_apply_forget();
}
