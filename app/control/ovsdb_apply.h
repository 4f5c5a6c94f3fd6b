/* SPDX-License-Identifier: BSD-3-Clause
 * OVSDB mode's reconfiguration (doc/design-control-plane.md, step 3): the
 * plan's verdicts (ovsdb_plan.h) made true in the running switch through
 * the commands an operator types (add-port, del-port, set Interface,
 * set-pmd-cores: cmd_port.c), as ovs-vswitchd's bridge_reconfigure()
 * makes its datapath match the database:
 *
 *   - a port the database does not name is removed (the topology's own
 *     ports too: in OVSDB mode the database is the source of truth),
 *     except the underlay port, which the topology gives;
 *   - a port whose words changed is made again under its name and
 *     number (a new pmd-rxq-affinity alone moves queues instead);
 *   - a new one is added; what add-port refuses is the row's error.
 *
 * Removals run before additions, so that a socket, device or ofport a
 * removed port held is free for the new one. Only on a change of the
 * database (or the lock granted): ovs-vswitchd reconfigures on a new
 * database sequence number, not on a timer. Control thread only.
 */
#ifndef VXS_OVSDB_APPLY_H
#define VXS_OVSDB_APPLY_H

#include <stdbool.h>
#include <jansson.h>

/* The local port's number (OFPP_LOCAL) written for a bridge's own
 * internal interface. */
#define OVSDB_OFPP_LOCAL 65534

/* Applies the verdicts (ovsdb_plan_put()'s array). Returns an object,
 * Interface UUID -> { "name": s, "ofport": i (-1: refused or failed),
 * "error": s or null, "port": s (the running port's name, when it
 * runs) }, for every Interface verdict but "wait" (no ofport yet, as
 * OVS leaves it); NULL when out of memory. */
json_t *ovsdb_apply(const json_t *verdicts);

/* In OVSDB mode the database is the one source of truth: the control
 * socket's port commands (add-port, del-port, set Interface,
 * set-pmd-cores) are refused unless they come from ovsdb_apply() itself.
 * True, with the reason in 'out', when refused. */
struct ds;
bool ovsdb_apply_refuses(const char *command, struct ds *out);

/* What was applied, forgotten (OVSDB mode off). */
void ovsdb_apply_forget(void);

#endif
