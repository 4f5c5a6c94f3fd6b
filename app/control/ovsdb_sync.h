/* SPDX-License-Identifier: BSD-3-Clause
 * OVSDB mode's loop (doc/design-control-plane.md, step 3), run by the
 * session (ovsdb_client.c) while it holds the lock and its replica is
 * current: on a change of the database, the plan (ovsdb_plan.h) is
 * applied (ovsdb_apply.h) and the result written back with
 * cur_cfg = next_cfg (ovsdb_write.h), which is what a plain ovs-vsctl
 * waits for; between changes, the status columns (link_state, ...) are
 * written when they change, checked every OVSDB_STATUS_MS, and the
 * statistics every OVSDB_STATS_MS (vswitch.xml's stats-update-interval
 * default). One transaction in flight at a time, as OVS's IDL: a change
 * that comes meanwhile is applied when its answer is in.
 */
#ifndef VXS_OVSDB_SYNC_H
#define VXS_OVSDB_SYNC_H

#include <stdbool.h>
#include <jansson.h>

#include "ovsdb_client.h"
#include "ovsdb_replica.h"

#define OVSDB_STATUS_MS 1000
#define OVSDB_STATS_MS 5000

/* One turn: applies when *changed (then clears it), else refreshes the
 * status when due; 'send' queues a "transact" with these params. */
void ovsdb_sync_run(const struct ovsdb_replica *r, bool *changed,
		    long long now, struct ovsdb_counters *n,
		    void (*send)(json_t *params));

/* The answer to our transaction: each operation's error logged and
 * counted (then everything is written again at the next turn). */
void ovsdb_sync_reply(const json_t *result, struct ovsdb_counters *n);

/* The connection ended: no transaction in flight, nothing known to be
 * written. The switch keeps running as configured. */
void ovsdb_sync_reset(void);

/* OVSDB mode off: everything forgotten. */
void ovsdb_sync_stop(void);

#endif
