/* SPDX-License-Identifier: BSD-3-Clause
 * The VTEP's neighbour table (tnl/arp, tnl/neigh), one for both families
 * keyed by 16-byte addresses, IPv4 mapped (::ffff:a.b.c.d) as OVS's
 * lib/tnl-neigh-cache.c; bounded (datapath
 * max-neighbours), indexed by an rte_hash that PMDs read without locks
 * (ctl_table.h). Static entries (topology, tnl/arp/set) never age; learned
 * ones age out tnl/neigh/aging seconds after they were last confirmed
 * (OVS's default, 900 s). When the table is full, tnl/arp/set fails with
 * an error naming the limit and a learned entry is refused and counted.
 *
 * Every change is reported to ofproto (ofproto_neigh_changed), which
 * revalidates only the megaflows whose next hop is that address (by its
 * neigh_addr_digest, dp_snapshot.h). Operator
 * changes are published before the command returns; learned ones and aging
 * are batched (ofproto_publish_due).
 */
#ifndef VXS_NEIGH_H
#define VXS_NEIGH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <rte_rcu_qsbr.h>
#include "clock.h"		/* the clock of its now_ms arguments */
#include "dp_snapshot.h"

#define NEIGH_AGING_DEFAULT_S 900	/* OVS's tnl/neigh/aging default */
#define NEIGH_AGING_MAX_S 3600		/* OVS's range, 1..3600 */

struct neigh_stats {
	uint64_t learned;		/* new learned entries */
	uint64_t learn_refused;		/* learned, refused: table full */
	uint64_t set_refused;		/* tnl/arp/set refused: table full */
	uint64_t aged;			/* learned entries aged out */
};

/* limit 0: CFG_MAX_NEIGHBOURS_DEFAULT (config.h); aging_s 0:
 * NEIGH_AGING_DEFAULT_S */
int neigh_init(uint32_t limit, uint32_t aging_s, struct rte_rcu_qsbr *qsbr);
void neigh_fini(void);

/* tnl/arp/set and the topology's arp entries: a static entry. Published
 * before it returns. -1 with err set when the table is full. addr: either
 * family, IPv4 mapped; neigh_set: an IPv4 address. */
int neigh_set6(const struct flow_in6_addr *addr,
	       const struct rte_ether_addr *mac, char *err, size_t errlen);
int neigh_set(rte_be32_t ip, const struct rte_ether_addr *mac, char *err,
	      size_t errlen);
/* From ARP or ND the datapath saw: never overrides a static entry;
 * refreshes the age of a known one. Returns true if the table changed. */
bool neigh_learn6(const struct flow_in6_addr *addr,
		  const struct rte_ether_addr *mac);
bool neigh_learn(rte_be32_t ip, const struct rte_ether_addr *mac);
/* The topology's static neighbours (arp / neighbours), of both families.
 * -1 with err set ("FILE:LINE:COL: arp: ..."). */
struct vxs_config;
int neigh_load_config(const struct vxs_config *cfg, char *err, size_t errlen);
/* Removes every learned entry; returns how many. Published. */
uint32_t neigh_flush(void);
/* Ages learned entries out, a bounded slice of the table per call (so a
 * table of a million entries costs the control thread no long pause). */
void neigh_age(uint64_t now_ms);

uint32_t neigh_count(void);
uint32_t neigh_limit(void);
uint32_t neigh_aging_s(void);
void neigh_set_aging_s(uint32_t s);
const struct neigh_stats *neigh_get_stats(void);
/* Iteration: i < neigh_slots(); NULL for an empty slot. */
uint32_t neigh_slots(void);
const struct neigh_entry *neigh_slot(uint32_t i);
/* Milliseconds until e ages out (0: due); UINT64_MAX for a static one. */
uint64_t neigh_expires_in_ms(const struct neigh_entry *e, uint64_t now_ms);

#endif
