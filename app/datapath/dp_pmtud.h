/* SPDX-License-Identifier: BSD-3-Clause
 * Path MTU discovery for what goes into the tunnel, as Linux's VXLAN
 * device does on bridged links (net/ipv4/ip_tunnel_core.c,
 * skb_tunnel_check_pmtu and iptunnel_pmtud_*, Linux >= 5.9).
 *
 * An inner frame longer than its template's max_inner (vxlan_tnl.h: the
 * underlay port's longest frame less the outer header) would be dropped
 * by the underlay's tx as mtu_exceeded; encap finds it with the length
 * compare it makes anyway, builds no outer header for it and hands it
 * here. It is dropped (mtu_exceeded, as before), and its sender is told
 * the path MTU, as if by the inner destination:
 *
 *   IPv4 with DF    ICMP type 3 code 4 "fragmentation needed", next-hop
 *                   MTU = max_inner - 14 (1450 on a 1500 underlay)
 *   IPv6            ICMPv6 type 2 "packet too big", MTU the same
 *
 * built as Linux builds it: Ethernet addresses swapped (the packet's own,
 * as received: its flow key's), IP source the packet's destination and
 * destination its source, TTL / hop limit the packet's, IPv4 id 0 with
 * DF and TOS 0, IPv6 traffic class and flow label 0, and the quote the
 * packet from its IP header on, cut to 548 bytes (IPv4: 576 in all) or
 * 1232 (IPv6: 1280 in all); checksums computed. It goes out of the port
 * the packet came in on, through the tx buffers like any output.
 *
 * Not answered, as Linux does not (checks in dp_pmtud.c, each a verdict
 * below): an MTU under 576 (IPv4) or 1280 (IPv6); IPv4 without DF, or
 * any IPv4 fragment; an IPv4 destination that is broadcast or multicast,
 * or a source that is zero, loopback, broadcast or multicast; an IPv6
 * source that is ::, ::1 or multicast; an IPv6 fragment but the first;
 * ICMP errors (types 3, 4, 5, 11, 12) and ICMPv6 errors (types < 128)
 * and redirects (137). And, where Linux's bridge would not get there:
 * a frame that is not untagged IPv4 or IPv6, a malformed or truncated
 * header, a segmentation-offload request, a multicast Ethernet source,
 * a packet that came in on the tunnel itself (a hairpin through the
 * VTEP: no port to answer on).
 *
 * IPv4 without DF is dropped (mtu_exceeded) and nothing more: fragmenting
 * the outer header would leave reassembly to the remote VTEP, which many
 * do not do (vxswitch drops outer fragments: outer_frag), and
 * fragmenting the inner packet would make a bridge act as a router; a
 * sender that clears DF has opted out of path MTU discovery.
 *
 * Rate: one token bucket per PMD (datapath pmtud-rate / pmtud-burst),
 * taken only by packets that would be answered. Switch: datapath pmtud,
 * also live (dpif-netdev/set-param pmtud on|off).
 *
 * Counted (dp_stats.h): pmtud_frag_needed and pmtud_too_big for the
 * errors sent, pmtud_policed for those the bucket refused; the dropped
 * packets under mtu_exceeded, and on the tunnel port's tx_dropped. An
 * ICMP error is a new packet made from the dropped one's head: the packet
 * accounting counts it as a copy (copies), which then ends on its own
 * (sent, or dropped on the way out like any output).
 *
 * Traced (dp_trace.h): a traced packet's record gets a pmtud entry (the
 * verdict, the MTU, the port), then its drop; the ICMP error inherits the
 * record, whose output and tx entries follow.
 *
 * Cost: nothing on the common path; encap's length compare was there
 * (against the 64 KB bound) and only reads the template's bound instead.
 */
#ifndef VXS_DP_PMTUD_H
#define VXS_DP_PMTUD_H

#include <stdint.h>
#include "datapath.h"
#include "flow_key.h"

/* The smallest path MTUs answered (RFC 791's 576, IPv6's 1280), and the
 * quote each error carries: the whole error fits them. */
#define PMTUD_IPV4_MIN_MTU 576
#define PMTUD_IPV6_MIN_MTU 1280
#define PMTUD_ICMP4_QUOTE (PMTUD_IPV4_MIN_MTU - 20 - 8)		/* 548 */
#define PMTUD_ICMP6_QUOTE (PMTUD_IPV6_MIN_MTU - 40 - 8)		/* 1232 */

/* What became of one packet too long for the tunnel: X(id, name, text);
 * the names are trace show's (doc/operating.md). */
#define DP_PMTUD_VERDICTS(X)                                                \
	X(FRAG_NEEDED, "frag_needed", "answered: ICMP fragmentation needed")\
	X(TOO_BIG,     "too_big",     "answered: ICMPv6 packet too big")   \
	X(POLICED,     "policed",     "not answered: over pmtud-rate")     \
	X(NO_MBUF,     "no_mbuf",     "not answered: mbuf pool empty")     \
	X(OFF,         "off",         "not answered: pmtud off")           \
	X(NOT_IP,      "not_ip",      "not answered: not untagged IPv4/IPv6")\
	X(MALFORMED,   "malformed",   "not answered: header malformed or cut short")\
	X(NO_DF,       "no_df",       "not answered: IPv4 without DF, or a fragment")\
	X(FRAGMENT,    "fragment",    "not answered: IPv6 fragment, not the first")\
	X(ICMP_ERROR,  "icmp_error",  "not answered: an ICMP error or redirect")\
	X(ADDRESS,     "address",     "not answered: multicast, broadcast, zero or loopback address")\
	X(SMALL_MTU,   "small_mtu",   "not answered: MTU under 576 (IPv4) or 1280 (IPv6)")\
	X(OFFLOAD,     "offload",     "not answered: a segmentation offload request")\
	X(NO_PORT,     "no_port",     "not answered: came in on the tunnel, or its port is gone")

enum dp_pmtud_verdict {
#define X(id, name, text) DP_PMTUD_##id,
	DP_PMTUD_VERDICTS(X)
#undef X
	DP_PMTUD_N_VERDICTS
};

const char *dp_pmtud_verdict_name(enum dp_pmtud_verdict v);
const char *dp_pmtud_verdict_text(enum dp_pmtud_verdict v);

/* The encap stage's packets too long for its template (max_inner):
 * answers each as above, then drops it (mtu_exceeded). keys and at: the
 * pass's keys and each packet's position in them (keys NULL: none, and
 * no answer). Consumes b. */
void dp_pmtud(struct dp_ctx *ctx, uint16_t max_inner, struct pkt_batch *b,
	      const struct flow_key keys[], const uint8_t at[]);

#endif
