/* SPDX-License-Identifier: BSD-3-Clause
 * The underlay's routes (ovs/route), both families in one table: bounded
 * (datapath max-routes), and a longest-prefix index PMDs read without
 * locks: one rte_hash keyed by (16-byte prefix, length), IPv4 mapped as
 * ::ffff:a.b.c.d/96+len (ctl_table.h), and per family the set of prefix
 * lengths in use, so a lookup probes only its family's lengths that exist,
 * longest first (an IPv4 lookup costs what it did before IPv6).
 *
 * Why not rte_lpm: its tbl24 is 64 MB of hugepage memory per table
 * whatever the number of routes, more than small hosts (and our tests)
 * give the switch; this index costs memory in proportion to its limit.
 */
#ifndef VXS_ROUTE_H
#define VXS_ROUTE_H

#include <stddef.h>
#include <stdint.h>
#include <rte_rcu_qsbr.h>
#include "dp_snapshot.h"

/* limit 0: CFG_MAX_ROUTES_DEFAULT (config.h: the topology's default) */
int route_init(uint32_t limit, struct rte_rcu_qsbr *qsbr);
void route_fini(void);

/* Adds or replaces; connected: the VTEP's own prefix. Not published: the
 * caller does (ofproto_publish). -1 with err set on a bad length, a
 * gateway of the other family or a full table. prefix: either family, an
 * IPv4 one mapped, with plen the family's (0..32 for IPv4, 0..128); gw
 * NULL or all zero: directly connected. route_insert/route_remove: IPv4
 * (gw 0: connected). */
int route_insert6(const struct flow_in6_addr *prefix, uint8_t plen,
		  const struct flow_in6_addr *gw, uint16_t port_idx,
		  bool connected, char *err, size_t errlen);
int route_remove6(const struct flow_in6_addr *prefix, uint8_t plen);
int route_insert(rte_be32_t prefix, uint8_t plen, rte_be32_t gw,
		 uint16_t port_idx, bool connected, char *err, size_t errlen);
int route_remove(rte_be32_t prefix, uint8_t plen);

/* The topology's: the VTEP's connected prefixes of both families on the
 * underlay port (underlay_idx; UINT16_MAX: none), and its routes. -1 with
 * err set ("FILE:LINE:COL: route: ..." for a route). */
struct vxs_config;
int route_load_config(const struct vxs_config *cfg, uint16_t underlay_idx,
		      char *err, size_t errlen);

uint32_t route_count(void);
uint32_t route_limit(void);
uint64_t route_refused(void);
/* The routes, IPv4 first, then longest prefix first (then by prefix): a
 * malloc'd array of route_count() entries for the caller to free. */
struct route_entry *route_list(uint32_t *n);

#endif
