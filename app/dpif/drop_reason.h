/* SPDX-License-Identifier: BSD-3-Clause
 * Why the datapath dropped a packet. Every drop is counted under exactly one
 * of these, per PMD (pmd-stats-show) and in telemetry; the packet
 * accounting (dp_stats.h) adds them up against what was received. Notes:
 *  - foreign_mac: on the underlay only frames to our VTEP MAC are ours
 *    (ARP also when broadcast), as OVS's br-phy matches the bridge MAC;
 *  - outer_frag: VXLAN to our VTEP in IPv4 fragments (a kernel VTEP
 *    fragments when the underlay MTU is too small): not reassembled;
 *  - mtu_exceeded: a frame longer than the output port's MTU + Ethernet
 *    header (+4 with a VLAN tag), or a guest frame longer than its vhost
 *    port's mtu (+ the same), instead of a silent loss in the driver;
 *  - no_mbuf: the copy for an output that is not the last could not be
 *    made (pool empty): that copy is counted as made and dropped;
 *  - arp_policed: ARP that would make us reply or learn, over the PMD's
 *    token bucket (datapath arp-rate / arp-burst): dropped before any
 *    table lookup, so a flood costs a header check per frame;
 *  - nd_ignored, nd_invalid, nd_policed: Neighbour Discovery to our VTEP
 *    (nd_responder.c): neither answered nor learned from (a solicitation
 *    for another address, an unsolicited advertisement for an unknown
 *    one); failing RFC 4861 7.1's checks; over the bucket ARP's share;
 *  - resubmit_limit: the rules' resubmit/goto_table chain went deeper
 *    than 64 or past 4096 resubmits in one translation (OVS's limits: a
 *    loop in the tables), or visited more actions than the translation
 *    keeps (XLATE_MAX_PIPELINE_ACTIONS);
 *  - recirc_limit: a packet recirculated (ct(table=T)) more than
 *    DP_MAX_RECIRC times in one burst (a loop of ct(table=) in the
 *    tables), or a ct(table=T) this datapath cannot freeze: registers
 *    set, in_port or tunnel fields changed before it, or actions after it
 *    (ct_recirc.c says why), or more packets than one recirculation
 *    pass takes (DP_RECIRC_CAP: a burst finishing many fragmented
 *    datagrams, dp_ipf.h);
 *  - ipf_expired: a fragment held for the tracker (app/conntrack/ct_ipf.h)
 *    whose datagram was not complete within 15 s (OVS forwards those
 *    +inv; sg() would drop them as sg_invalid);
 *  - ipf_purged: a fragment held for the tracker whose datagram was
 *    flushed (dpctl/flush-conntrack, its port removed);
 *  - udp6_zero_csum: VXLAN over an IPv6 underlay with a zero UDP
 *    checksum, on a tunnel port with udp6zerocsumrx: false (Linux's
 *    default; ours, as OVS's, accepts them and counts
 *    udp6_zero_csum_rx).
 *  Fragments the store refuses go on to the tracker, which finds them
 *  +inv (sg_invalid under sg()), as in OVS; ipf-get-status counts why. */
#ifndef VXS_DROP_REASON_H
#define VXS_DROP_REASON_H

#define DROP_REASONS(X)                                                        \
	X(MALFORMED,      "malformed")      /* failed header sanity checks  */ \
	X(NO_RULE,        "no_rule")        /* no OpenFlow rule matched     */ \
	X(RULE_DROP,      "rule_drop")      /* rule said actions=drop       */ \
	X(NOT_VTEP,       "not_vtep")       /* underlay packet not for us   */ \
	X(BAD_VXLAN,      "bad_vxlan")      /* VXLAN flags/length wrong     */ \
	X(UNKNOWN_VNI,    "unknown_vni")    /* VNI not configured           */ \
	X(NO_NEIGH,       "no_neigh")       /* remote VTEP MAC unresolved   */ \
	X(NO_ROUTE,       "no_route")       /* no route to remote VTEP      */ \
	X(ARP_IGNORED,    "arp_ignored")    /* ARP not for our VTEP IP      */ \
	X(PORT_DOWN,      "port_down")      /* output port not connected    */ \
	X(NO_HEADROOM,    "no_headroom")    /* no room to push outer header */ \
	X(TX_FULL,        "tx_full")        /* tx queue or vring full       */ \
	X(UPCALL_FAIL,    "upcall_fail")    /* megaflow table full          */ \
	X(LOOP,           "loop")           /* output to the input port     */ \
	X(FOREIGN_MAC,    "foreign_mac")    /* underlay dl_dst not our VTEP */ \
	X(OUTER_FRAG,     "outer_frag")     /* IPv4 fragment to our VTEP    */ \
	X(ARP_BAD_OP,     "arp_bad_op")     /* ARP opcode not req/reply     */ \
	X(MTU_EXCEEDED,   "mtu_exceeded")   /* frame longer than port's MTU */ \
	X(NO_MBUF,        "no_mbuf")        /* pool empty: copy not made    */ \
	X(ARP_POLICED,    "arp_policed")    /* over the PMD's ARP budget    */ \
	X(RESUBMIT_LIMIT, "resubmit_limit") /* table chain too deep or long */ \
	X(SG_DENY,        "sg_deny")        /* sg(deny): no session         */ \
	X(SG_INVALID,     "sg_invalid")     /* sg(): tracker said +inv      */ \
	X(RECIRC_LIMIT,   "recirc_limit")   /* recirculation too deep       */ \
	X(SG_REFUSED,     "sg_refused")     /* sg(allow): no session made   */ \
	X(IPF_EXPIRED,    "ipf_expired")    /* fragment's datagram timed out*/ \
	X(IPF_PURGED,     "ipf_purged")     /* fragment held, then flushed  */ \
	X(UDP6_ZERO_CSUM, "udp6_zero_csum") /* VXLAN/IPv6, UDP checksum 0   */ \
	X(ND_IGNORED,     "nd_ignored")     /* ND neither answered nor learnt*/ \
	X(ND_INVALID,     "nd_invalid")     /* ND failing RFC 4861 7.1      */ \
	X(ND_POLICED,     "nd_policed")     /* over the PMD's ARP budget    */

enum drop_reason {
#define X(name, str) DROP_##name,
	DROP_REASONS(X)
#undef X
	DROP_N_REASONS
};

const char *drop_reason_name(enum drop_reason r);

#endif
