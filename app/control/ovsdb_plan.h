/* SPDX-License-Identifier: BSD-3-Clause
 * OVSDB's rows as vxswitch configures them: the mapping and the
 * refusal texts of doc/design-control-plane.md ("OVSDB"), row by row,
 * from the replica (ovsdb_replica.h). Nothing here changes the switch:
 * ovsdb_apply.h runs what the plan says. Each row ends in a verdict:
 *     do: WORDS        the vxswitch-ctl command (or role) it maps to
 *     wait: WHY        nothing yet, as OVS waits (a missing option)
 *     refused: TEXT    what OVS 3.1 would write to Interface.error
 * ovsdb/show prints the plan; each refusal is also a log line, once.
 */
#ifndef VXS_OVSDB_PLAN_H
#define VXS_OVSDB_PLAN_H

#include <jansson.h>

#include "ds.h"
#include "ovsdb_replica.h"

/* The plan as ovsdb/show's text into 'out'; with 'verdicts' (a JSON
 * array), also one object a verdict: "table" (Open_vSwitch, Controller,
 * Interface), "name", "bridge" and "port" where there are, "verdict"
 * ("do", "wait", "refused") and "text", in the text's order. Returns the
 * number of refusals. */
unsigned ovsdb_plan_put(const struct ovsdb_replica *r, struct ds *out,
			json_t *verdicts);

/* Logs each refusal of the plan once (a warning, "ovsdb: TABLE NAME:
 * refused: TEXT"): when it first appears or its text changes, not at
 * every update; a row that is refused again after it was not is logged
 * again. Called by the session whenever the plan may have changed
 * (an update applied, the lock granted), not from a tick. */
void ovsdb_plan_log_refusals(const struct ovsdb_replica *r);

/* How many refusal lines ovsdb_plan_log_refusals() logged. */
unsigned long long ovsdb_plan_refusals_logged(void);

/* Forgets what was logged (OVSDB mode off). */
void ovsdb_plan_forget(void);

#endif
