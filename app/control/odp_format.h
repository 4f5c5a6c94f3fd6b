/* SPDX-License-Identifier: BSD-3-Clause
 * Megaflows in OVS 3.1's dpctl/dump-flows text (odp_format.c):
 *
 *   [ufid:UUID, ]KEY, packets:N, bytes:N, used:S.SSSs|never
 *	[, offloaded:partial, mark:N][, dp:ovs], actions:ACTIONS
 *
 * KEY in ODP order (tunnel, ct_*, recirc_id, in_port, packet_type, eth,
 * vlan, eth_type, ipv4|ipv6|arp, tcp|udp|icmp|icmpv6, nd: IPv6's are
 * odp_format_ipv6.c's); plain, a field the mask
 * ignores is left out and a partly masked one is VALUE/MASK; verbose (-m)
 * prints every field with its mask, and the ufid, the offload state and
 * the dp layer as OVS does. Ports are numbers (ofport) unless 'names'.
 * tnl_push prints the header the template builds, and the underlay NIC
 * as its out_port(). The bracketed fields are only there verbose; "mark"
 * is vxswitch's (the NIC's flow mark). MACs in lower case. */
#ifndef VXS_ODP_FORMAT_H
#define VXS_ODP_FORMAT_H

#include <stdbool.h>
#include <stdint.h>
#include "dp_actions.h"
#include "ds.h"
#include "flow_key.h"
#include "mf_dump.h"

struct odp_format_opts {
	bool verbose;		/* -m */
	bool names;		/* --names; default: verbose */
};

void odp_format_key(struct ds *out, const struct flow_key *key,
		    const struct flow_key *mask,
		    const struct odp_format_opts *o);
void odp_format_actions(struct ds *out, const struct dp_actions *a,
			const struct odp_format_opts *o);
/* A 64-bit megaflow id in the shape of OVS's ufid (a UUID): "ufid:...". */
void odp_format_ufid(struct ds *out, uint64_t id);
/* One line, newline included; 'now_tsc' is when the dump was taken. */
void odp_format_flow(struct ds *out, const struct mf_dump *d,
		     uint64_t now_tsc, const struct odp_format_opts *o);

#endif
