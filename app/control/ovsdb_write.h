/* SPDX-License-Identifier: BSD-3-Clause
 * OVSDB mode's write-back (doc/design-control-plane.md, step 3): the
 * columns ovs-vswitchd writes, as one "transact" of "update" operations
 * by _uuid, behind an "assert" of the lock "ovs_vswitchd" (as OVS's IDL
 * asserts the lock it holds), so a transaction made after the lock was
 * stolen changes nothing:
 *
 *   Interface     ofport (-1 when refused), error, admin_state,
 *                 link_state, mtu, mac_in_use, status; statistics when
 *                 asked (every stats-update-interval, 5 s)
 *   Open_vSwitch  cur_cfg (the next_cfg just applied: what ovs-vsctl
 *                 waits for), datapath_types, iface_types,
 *                 dpdk_initialized, dpdk_version
 *   Bridge        datapath_id, datapath_version
 *   Datapath      capabilities (the row Open_vSwitch.datapaths names for
 *                 "netdev", which ovn-controller creates)
 *
 * Only what differs from what was last written is sent (a cache by row
 * and column); a value somebody else wrote over is not seen, as the
 * columns are not monitored (OVS monitors them without alerts).
 * Control thread only.
 */
#ifndef VXS_OVSDB_WRITE_H
#define VXS_OVSDB_WRITE_H

#include <stdbool.h>
#include <stdint.h>
#include <jansson.h>

#include "ovsdb_replica.h"

/* The transact's params (["Open_vSwitch", op...]), or NULL when nothing
 * is to be written. 'results': ovsdb_apply()'s; 'cur_cfg': the value to
 * write, or -1 for none; 'stats': the statistics columns too. */
json_t *ovsdb_write_build(const struct ovsdb_replica *r,
			  const json_t *results, long long cur_cfg,
			  bool stats);

/* A bridge's MAC, stable for its name, as a 48-bit number: the
 * datapath_id written for it (0000 and the MAC) and its local port's
 * mac_in_use; the OpenFlow channel answers the same. */
uint64_t ovsdb_bridge_mac(const char *name);

/* The cache emptied: the next build writes every column (a new
 * connection, or a transaction that failed). */
void ovsdb_write_forget(void);

#endif
