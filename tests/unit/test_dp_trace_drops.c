/* SPDX-License-Identifier: BSD-3-Clause
 * A trace for each drop reason (drop_reason.h), in the real pipeline of
 * test_dp_trace.c: for each, the situation that makes the datapath drop a
 * packet for that reason (a rule, a crafted frame, a full ring, an empty
 * pool, a limit reached), a trace armed on the receiving port, and then:
 *  - the traced packet's record ends in a drop entry with that reason
 *    (for a copy not made: a drop entry marked as a copy, the packet
 *    itself sent on);
 *  - the reason's counter rose by exactly the drops the trace recorded;
 *  - the entries before it are the path such a packet takes;
 *  - trace show prints the drop under the reason's counter name.
 * The cases are indexed by enum drop_reason: a new reason without one
 * fails the test.
 */
#include <stdio.h>
#include <string.h>
#include <rte_arp.h>
#include <rte_ethdev.h>
#include "conntrack.h"
#include "ct_ipf.h"
#include "unit_test.h"
#include "pipeline_rig.h"
#include "trace_test.h"

struct drop_case {
	/* Arms the trace, sends (the buffers are flushed after) and returns
	 * how many packets the datapath drops for the reason, all traced. */
	unsigned (*send)(void);
	/* The entries of the first traced packet dropped for the reason
	 * (trace_test.h, path_matches). */
	const char *path;
	bool copy;		/* a copy not made: the packet goes on */
	/* more checks of that record, or NULL */
	void (*check)(const struct dp_trace_pkt *r, const char *what);
	/* a reason no case here produces: the test that does, and why */
	const char *covered_by;
};

/* ---- sending ------------------------------------------------------------ */

/* One frame received on in, traced. */
static unsigned
send_traced(struct port *in, struct rte_mbuf *m)
{
	trace_arm(in, 1, NULL);
	rig_burst(in, &m, 1, false);
	return 1;
}

static unsigned
send_vm0_udp(uint16_t dport, uint16_t len)
{
	struct frame_spec s = vm_udp(0, 40000, dport, len);
	struct pkt p;

	return send_traced(rig_vm[0], frame_mbuf(&s, &p));
}

static unsigned
send_vm0_tcp(uint16_t dport, uint8_t flags)
{
	struct frame_spec s = vm_udp(0, 40000, dport, 54);
	struct pkt p;

	s.proto = IPPROTO_TCP;
	s.tcp_flags = flags;
	return send_traced(rig_vm[0], frame_mbuf(&s, &p));
}

/* A VXLAN frame from the remote VTEP, as v says, to VM 1. */
static unsigned
send_vxlan(const struct vxlan_spec *v)
{
	struct frame_spec inner = to_vm_udp(1, 78);
	struct pkt p;

	return send_traced(rig_nic, vxlan_mbuf(v, &inner, &p));
}

static unsigned
send_malformed(void)
{
	struct frame_spec s = vm_udp(0, 40000, DPORT_ENCAP, 78);
	struct pkt p = { .len = 0 };

	put_frame(&p, &s);
	p.b[14] = 0x44;		/* IHL 4: shorter than an IPv4 header */
	return send_traced(rig_vm[0], mbuf_of(&p));
}

static unsigned
send_no_rule(void)
{
	return send_vm0_udp(DPORT_NO_RULE, 78);
}

static unsigned
send_rule_drop(void)
{
	return send_vm0_udp(DPORT_RULE_DROP, 78);
}

/* To our VTEP MAC and IP, UDP, but not to the VXLAN port. */
static unsigned
send_not_vtep(void)
{
	struct vxlan_spec v = vxlan_to_us();

	v.dport = 5000;
	return send_vxlan(&v);
}

static unsigned
send_bad_vxlan(void)
{
	struct vxlan_spec v = vxlan_to_us();

	v.flags = 0;		/* no I flag: no VNI */
	return send_vxlan(&v);
}

#define UNKNOWN_VNI 4242

static unsigned
send_unknown_vni(void)
{
	struct vxlan_spec v = vxlan_to_us();

	v.vni = UNKNOWN_VNI;
	return send_vxlan(&v);
}

static unsigned
send_no_neigh(void)
{
	return send_vm0_udp(DPORT_NO_NEIGH, 78);
}

static unsigned
send_no_route(void)
{
	return send_vm0_udp(DPORT_NO_ROUTE, 78);
}

/* A request for another address on the underlay: not ours to answer. */
static unsigned
send_arp_ignored(void)
{
	static const struct rte_ether_addr bcast = { { 0xff, 0xff, 0xff, 0xff,
						       0xff, 0xff } };
	return send_traced(rig_nic, pipeline_rig_arp(rig_pool, &bcast,
				RTE_ARP_OP_REQUEST, &remote_vtep_mac,
				rte_cpu_to_be_32(IPV4(172, 1, 0, 9)),
				rte_cpu_to_be_32(IPV4(172, 1, 0, 55))));
}

/* To the vhost port no guest ever connected to. */
static unsigned
send_port_down(void)
{
	return send_vm0_udp(DPORT_TO_VHOST, 78);
}

/* Encapsulation with 8 bytes of headroom, as a driver may leave. */
static unsigned
send_no_headroom(void)
{
	struct frame_spec s = vm_udp(0, 40000, DPORT_ENCAP, 78);
	struct pkt p = { .len = 0 };
	struct rte_mbuf *m = rte_pktmbuf_alloc(rig_pool);

	put_frame(&p, &s);
	m->data_off = 8;
	memcpy(rte_pktmbuf_append(m, (uint16_t)p.len), p.b, p.len);
	return send_traced(rig_vm[0], m);
}

/* vm2's guest reads nothing: its ring (the net_ring's, 1023 frames) is
 * full of frames sent before; rig_drain empties it after. */
static unsigned
send_tx_full(void)
{
	struct rte_mbuf *m;
	unsigned filled = 0;

	while ((m = rte_pktmbuf_alloc(rig_pool))) {
		if (rte_eth_tx_burst(rig_vm[2]->eth_port_id, 0, &m, 1) != 1) {
			rte_pktmbuf_free(m);
			break;
		}
		filled++;
	}
	CHECK(filled >= 512, "tx_full: only %u frames fill vm2's ring",
	      filled);
	return send_vm0_udp(DPORT_TO_VM2, 78);
}

/* The megaflow table (max-megaflows 16) filled by 16 foreign MACs on the
 * underlay, each its own megaflow (the MAC decides: in the mask), then a
 * 17th: no room for its megaflow. */
static unsigned
send_upcall_fail(void)
{
	enum { N = 17 };
	struct rte_mbuf *m[N];
	struct frame_spec inner = to_vm_udp(1, 78);
	struct pkt p;

	CHECK(rig_pmd->dp.n_free == rig_pmd->dp.max_flows &&
	      rig_pmd->dp.max_flows == N - 1, "upcall_fail: %u of %u "
	      "megaflows free", rig_pmd->dp.n_free, rig_pmd->dp.max_flows);
	for (int i = 0; i < N; i++) {
		struct vxlan_spec v = vxlan_to_us();
		v.dst_mac = (struct rte_ether_addr){ { 0x02, 0, 0, 0, 1,
						       (uint8_t)i } };
		m[i] = vxlan_mbuf(&v, &inner, &p);
	}
	trace_arm(rig_nic, N, NULL);
	rig_burst(rig_nic, m, N, false);
	return 1;
}

static unsigned
send_loop(void)
{
	return send_vm0_udp(DPORT_LOOP, 78);
}

static unsigned
send_foreign_mac(void)
{
	struct vxlan_spec v = vxlan_to_us();

	v.dst_mac = (struct rte_ether_addr){ { 0x02, 0, 0, 0, 0, 0x99 } };
	return send_vxlan(&v);
}

static unsigned
send_outer_frag(void)
{
	struct vxlan_spec v = vxlan_to_us();

	v.frag = RTE_IPV4_HDR_MF_FLAG;	/* the first of several */
	return send_vxlan(&v);
}

static unsigned
send_arp_bad_op(void)
{
	return send_traced(rig_nic, pipeline_rig_arp(rig_pool, &vtep_mac, 3,
				&remote_vtep_mac,
				rte_cpu_to_be_32(REMOTE_VTEP_IP),
				rte_cpu_to_be_32(VTEP_IP)));
}

/* One byte longer than the underlay's MTU lets out once encapsulated:
 * refused at encap (without DF: not answered, dp_pmtud.h). */
static unsigned
send_mtu_exceeded(void)
{
	CHECK(rig_nic->tx_max_frame == 1514, "phy: longest frame %u",
	      rig_nic->tx_max_frame);
	return send_vm0_udp(DPORT_ENCAP, 1514 - OUTER_LEN + 1);
}

/* output:vm1,output:vm2 with the pool empty: vm1's copy cannot be made,
 * the packet itself goes to vm2. */
static unsigned
send_no_mbuf(void)
{
	static struct rte_mbuf *hoard[4096];
	struct frame_spec s = vm_udp(0, 40000, DPORT_TWO_OUTPUTS, 78);
	struct pkt p;
	struct rte_mbuf *m = frame_mbuf(&s, &p);
	unsigned n = 0;

	while (n < RTE_DIM(hoard) && (hoard[n] = rte_pktmbuf_alloc(rig_pool)))
		n++;
	CHECK(n < RTE_DIM(hoard), "no_mbuf: the pool never emptied");
	send_traced(rig_vm[0], m);
	rte_pktmbuf_free_bulk(hoard, n);
	return 1;
}

/* Two requests for our VTEP with one token in the bucket (1 a second,
 * burst 1: arp-rate and arp-burst at their least): the first answered,
 * the second policed. The policer as the topology set it after. */
static unsigned
send_arp_policed(void)
{
	struct arp_policer *pol = &rig_pmd->dp.arp_policer;
	struct rte_mbuf *m[2];

	for (int i = 0; i < 2; i++)
		m[i] = pipeline_rig_arp(rig_pool, &vtep_mac,
					RTE_ARP_OP_REQUEST, &remote_vtep_mac,
					rte_cpu_to_be_32(REMOTE_VTEP_IP),
					rte_cpu_to_be_32(VTEP_IP));
	arp_policer_init(pol, 1, 1, rte_get_tsc_hz(), rte_rdtsc());
	trace_arm(rig_nic, 2, NULL);
	rig_burst(rig_nic, m, 2, false);
	arp_policer_init(pol, rig_cfg.arp_rate, rig_cfg.arp_burst,
			 rte_get_tsc_hz(), rte_rdtsc());
	CHECK_PATH(&rig_pmd->dp.trace->pkts[0], "rx arp output",
		   "arp_policed: the first request");
	return 1;
}

static unsigned
send_resubmit_limit(void)
{
	return send_vm0_udp(DPORT_RESUBMIT_LOOP, 78);
}

/* A new connection under sg(deny). */
static unsigned
send_sg_deny(void)
{
	return send_vm0_tcp(DPORT_SG_DENY, RTE_TCP_SYN_FLAG);
}

/* A SYN-ACK that opens nothing: +inv. */
static unsigned
send_sg_invalid(void)
{
	return send_vm0_tcp(DPORT_SG_ALLOW,
			    RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG);
}

/* ct(table=0) back into the same rule: recirculated until no pass is
 * left (DP_MAX_RECIRC). */
static unsigned
send_recirc_limit(void)
{
	return send_vm0_udp(DPORT_CT_LOOP, 78);
}

/* Two new connections under sg(allow) in a zone with room for one
 * (dpctl/ct-set-limits zone=5,limit=1): the second is refused. */
static unsigned
send_sg_refused(void)
{
	struct rte_mbuf *m[2];
	struct pkt p;

	for (int i = 0; i < 2; i++) {
		struct frame_spec s = vm_udp(0, (uint16_t)(41000 + i),
					     DPORT_SG_LIMITED, 78);
		m[i] = frame_mbuf(&s, &p);
	}
	conntrack_set_zone_limit(rig_ct, SG_LIMITED_ZONE, 1);
	trace_arm(rig_vm[0], 2, NULL);
	rig_burst(rig_vm[0], m, 2, false);
	conntrack_set_zone_limit(rig_ct, SG_LIMITED_ZONE, 0);
	return 1;
}

/* The first fragment of a datagram, held by sg() for the rest. */
static unsigned
send_held_fragment(uint16_t ip_id)
{
	send_traced(rig_vm[0], held_fragment_mbuf(ip_id));
	struct ct_ipf_status s;
	ct_ipf_get_status(rig_ipf, &s);
	CHECK(s.nfrag == 1, "the fragment not held: %u in the store",
	      s.nfrag);
	return 1;
}

/* The rest never comes: 15 s later the store gives the datagram up and
 * the PMD's housekeeping drops what it held. */
static unsigned
send_ipf_expired(void)
{
	send_held_fragment(77);
	ct_ipf_sweep(rig_ipf, rte_rdtsc() + 16 * rte_get_tsc_hz(), 100);
	dp_ipf_drain(&rig_pmd->dp);
	return 1;
}

/* Flushed (dpctl/flush-conntrack) while held. */
static unsigned
send_ipf_purged(void)
{
	send_held_fragment(78);
	ct_ipf_purge_all(rig_ipf);
	dp_ipf_drain(&rig_pmd->dp);
	return 1;
}

/* ---- more checks of some records ---------------------------------------- */

static void
check_unknown_vni(const struct dp_trace_pkt *r, const char *what)
{
	const struct dp_trace_entry *e = rec_find(r, DP_TRACE_TNL_POP, 0);
	CHECK(e && e->u32 == UNKNOWN_VNI, "%s: tnl_pop vni %u", what,
	      e ? e->u32 : 0);
}

static void
check_upcall_fail(const struct dp_trace_pkt *r, const char *what)
{
	const struct dp_trace_entry *e = rec_find(r, DP_TRACE_UPCALL, 0);
	CHECK(e && e->u64 == 0 && e->key == DP_TRACE_NO_KEY,
	      "%s: the upcall installed a megaflow", what);
}

static void
check_sent_to_vm2(const struct dp_trace_pkt *r, const char *what)
{
	const struct dp_trace_entry *tx = rec_last(r);
	CHECK(tx->port == rig_vm[2]->idx, "%s: the packet not sent to vm2",
	      what);
}

/* The sg entry: zone 1, the tracker's state (+new under deny, +inv) */
static void
check_sg_state(const struct dp_trace_pkt *r, const char *what)
{
	const struct dp_trace_entry *e = rec_find(r, DP_TRACE_SG, 0);
	bool deny = strstr(what, "deny") != NULL;
	uint32_t want = deny ? CS_NEW : CS_INVALID;
	CHECK(e && e->port == 1 && (e->u32 & want) && e->u64 == !deny,
	      "%s: sg zone %u ct_state %#x allow %lu", what, e ? e->port : 0,
	      e ? e->u32 : 0, e ? (unsigned long)e->u64 : 0);
}

/* 8 flow keys (extract, one lookup a pass) for DP_TRACE_MAX_KEYS slots:
 * the last lookups' keys lost, every entry kept */
static void
check_recirc_lost(const struct dp_trace_pkt *r, const char *what)
{
	const struct dp_trace *t = rig_pmd->dp.trace;

	CHECK(r->n_keys == DP_TRACE_MAX_KEYS && r->lost == 8 -
	      DP_TRACE_MAX_KEYS, "%s: %u keys kept, %u lost", what, r->n_keys,
	      r->lost);
	CHECK(trace_shows(t, (uint32_t)(r - t->pkts),
			  "(2 entries or flow keys not kept", "\"lost\":2"),
	      "%s: trace show does not say what was lost", what);
}

/* ---- the cases ---------------------------------------------------------- */

#define LOOKUP_DROP "rx extract hash upcall action drop"
#define RECIRC_PASS(p) p ":hash lookup action ct recirc "

static const struct drop_case cases[DROP_N_REASONS] = {
	[DROP_MALFORMED] = { send_malformed, "rx drop" },
	[DROP_NO_RULE] = { send_no_rule, LOOKUP_DROP },
	[DROP_RULE_DROP] = { send_rule_drop, LOOKUP_DROP },
	[DROP_NOT_VTEP] = { send_not_vtep, LOOKUP_DROP },
	[DROP_BAD_VXLAN] = { send_bad_vxlan, LOOKUP_DROP },
	[DROP_UNKNOWN_VNI] = { send_unknown_vni, "rx extract hash upcall "
			       "action tnl_pop 1:hash? upcall action drop",
			       .check = check_unknown_vni },
	[DROP_NO_NEIGH] = { send_no_neigh, LOOKUP_DROP },
	[DROP_NO_ROUTE] = { send_no_route, LOOKUP_DROP },
	[DROP_ARP_IGNORED] = { send_arp_ignored, "rx drop" },
	[DROP_PORT_DOWN] = { send_port_down,
			     "rx extract hash upcall output drop" },
	[DROP_NO_HEADROOM] = { send_no_headroom, LOOKUP_DROP },
	[DROP_TX_FULL] = { send_tx_full,
			   "rx extract hash upcall output drop" },
	[DROP_UPCALL_FAIL] = { send_upcall_fail,
			       "rx extract hash upcall drop",
			       .check = check_upcall_fail },
	[DROP_LOOP] = { send_loop, LOOKUP_DROP },
	[DROP_FOREIGN_MAC] = { send_foreign_mac, LOOKUP_DROP },
	[DROP_OUTER_FRAG] = { send_outer_frag, LOOKUP_DROP },
	[DROP_ARP_BAD_OP] = { send_arp_bad_op, "rx drop" },
	[DROP_MTU_EXCEEDED] = { send_mtu_exceeded, "rx extract hash upcall "
				"action pmtud drop" },
	/* vm1's copy not made, the packet itself to vm2 */
	[DROP_NO_MBUF] = { send_no_mbuf, "rx extract hash upcall drop output "
			   "tx", .copy = true, .check = check_sent_to_vm2 },
	[DROP_ARP_POLICED] = { send_arp_policed, "rx drop" },
	[DROP_RESUBMIT_LIMIT] = { send_resubmit_limit, LOOKUP_DROP },
	[DROP_SG_DENY] = { send_sg_deny,
			   "rx extract hash upcall action sg drop",
			   .check = check_sg_state },
	[DROP_SG_INVALID] = { send_sg_invalid,
			      "rx extract hash upcall action sg drop",
			      .check = check_sg_state },
	[DROP_RECIRC_LIMIT] = { send_recirc_limit,
				"rx extract hash upcall action ct recirc "
				RECIRC_PASS("2") RECIRC_PASS("3")
				RECIRC_PASS("4") RECIRC_PASS("5")
				RECIRC_PASS("6")
				"7:hash lookup action ct drop",
				.check = check_recirc_lost },
	[DROP_SG_REFUSED] = { send_sg_refused,
			      "rx extract hash lookup action sg drop" },
	[DROP_IPF_EXPIRED] = { send_ipf_expired, "rx extract hash upcall "
			       "action drop" },
	[DROP_IPF_PURGED] = { send_ipf_purged, "rx extract hash upcall "
			      "action drop" },
	/* the rig has no IPv6 underlay: xlate emits no IPv6 pop yet */
	[DROP_UDP6_ZERO_CSUM] = { .covered_by = "test_vxlan decap6_checksum "
				  "and decap6_batch (the stage's verdicts)" },
	/* this rig's VTEP has no IPv6 address, so no ND reaches a responder */
	[DROP_ND_IGNORED] = { .covered_by = "test_nd_responder (an IPv6 VTEP "
			      "address)" },
	[DROP_ND_INVALID] = { .covered_by = "test_nd_responder (an IPv6 VTEP "
			      "address)" },
	[DROP_ND_POLICED] = { .covered_by = "test_nd_responder (an IPv6 VTEP "
			      "address)" },
};

static void
run_case(enum drop_reason why)
{
	const struct drop_case *c = &cases[why];
	const char *name = drop_reason_name(why);

	if (!c->send) {
		CHECK(c->covered_by, "drop reason %s has no case: add one to "
		      "cases[] in %s", name, __FILE__);
		if (c->covered_by)
			printf("drop reason %s: not produced here, covered by "
			       "%s\n", name, c->covered_by);
		return;
	}
	rig_fresh();
	uint64_t before = rig_drops(why);
	unsigned want = c->send();
	dp_tx_flush_all(&rig_pmd->dp);
	const struct dp_trace *t = rig_pmd->dp.trace;
	const struct dp_trace_pkt *first = NULL;
	const struct dp_trace_entry *drop = NULL;
	unsigned traced = 0;

	for (uint32_t i = 0; t && i < trace_taken(t); i++) {
		const struct dp_trace_pkt *r = &t->pkts[i];
		for (uint32_t k = 0; k < r->n; k++) {
			const struct dp_trace_entry *e = &r->e[k];
			if (e->kind != DP_TRACE_DROP || e->port != why)
				continue;
			traced++;
			if (!first) {
				first = r;
				drop = e;
			}
		}
	}
	uint64_t counted = rig_drops(why) - before;
	CHECK(counted == want && traced == want, "%s: %lu counted, %u traced, "
	      "want %u", name, (unsigned long)counted, traced, want);
	if (first) {
		const struct dp_trace_entry *last = rec_last(first);
		if (c->copy)
			CHECK(drop->u32 == 1 && last->kind == DP_TRACE_TX,
			      "%s: not a copy's drop, the packet sent on",
			      name);
		else
			CHECK(last == drop && !drop->u32, "%s: the record does "
			      "not end in the drop", name);
		CHECK_PATH(first, c->path, name);
		char text[64], json[64];
		snprintf(text, sizeof text, "%-9s %s%s", "drop", name,
			 c->copy ? " (a copy)" : "");
		snprintf(json, sizeof json, "\"reason\":\"%s\",\"copy\":%s",
			 name, c->copy ? "true" : "false");
		CHECK(trace_shows(t, (uint32_t)(first - t->pkts), text, json),
		      "%s: trace show does not say '%s'", name, text);
		if (c->check)
			c->check(first, name);
	}
	trace_check_ends(t, name);
	trace_disarm();
	rig_drain();
	rig_balanced(name);
}

void
test_drop_reasons(void)
{
	for (int r = 0; r < DROP_N_REASONS; r++)
		run_case((enum drop_reason)r);
}
