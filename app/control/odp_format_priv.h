/* SPDX-License-Identifier: BSD-3-Clause
 * Between the parts of the datapath flow formatter (odp_format*.c): the
 * "name(a=1,b=2/0xf)" group writer both use. Not for other modules.
 */
#ifndef VXS_ODP_FORMAT_PRIV_H
#define VXS_ODP_FORMAT_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_ether.h>
#include "ds.h"
#include "flow_key.h"

/* A group's fields: skipped when wildcarded unless verbose, "/mask" when
 * not exact; 'any' says whether one was written (the comma before the
 * next). */
struct group {
	struct ds *out;
	bool verbose, any;
};

void field_start(struct group *g, const char *name);
/* OVS's u8/be16 fields: decimal (or %#x if 'hex'), mask as %#x. */
void field_uint(struct group *g, const char *name, unsigned v, unsigned m,
		unsigned exact, bool hex);
void field_mac(struct group *g, const char *name,
	       const struct rte_ether_addr *v, const struct rte_ether_addr *m);

/* odp_format_ipv6.c: an IPv6 key's ipv6(...), tcp(...)|udp(...)|
 * icmpv6(...) and nd(...), each "," first, in OVS's ODP order. */
/* NAME=ADDR[/MASK], nothing for an empty mask unless verbose
 * (odp_format_ipv6.c) */
void field_in6(struct group *g, const char *name,
	       const struct flow_in6_addr *v, const struct flow_in6_addr *m);
void odp_format_ipv6(struct ds *out, const struct flow_key *k,
		     const struct flow_key *m, bool verbose);

#endif
