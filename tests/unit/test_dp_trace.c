/* SPDX-License-Identifier: BSD-3-Clause
 * The packet trace (app/datapath/dp_trace.h) in the real pipeline
 * (pipeline_rig.h: config_load, net_ring ports whose tx ring is their rx
 * ring, one PMD driven from this thread), armed as dpif-netdev/trace add
 * arms it, its records read as trace show reads them:
 *  - a VXLAN round trip: a VM's frame encapsulated to the remote VTEP
 *    (extract, hash, upcall, each action, tnl_push with the VNI, outer
 *    destination and UDP source port on the wire, output, and tx only
 *    once the buffers are flushed), and a VXLAN frame from the underlay
 *    decapsulated to a VM (the outer pass, tnl_pop with the VNI and outer
 *    addresses, the inner pass as pass 1, output, tx); the second frame
 *    of each hits the megaflow the first installed; the bytes on the
 *    output rings are the frames;
 *  - a tx entry is in the pass its packet was queued in, even when the
 *    buffer is flushed after a burst of another port;
 *  - a fragment held across a trace clear writes nothing into the next
 *    trace's records when the store gives it up;
 *  - limits and filters: N takes exactly the next N packets of the port,
 *    a filter only those whose headers match it; untraced packets get no
 *    record and carry no trace flag out, a leftover flag included;
 *  - a packet too long for the tunnel: its pmtud entry, its drop, and
 *    the ICMP error's output and tx in its record (with DF);
 *  - a trace for each drop reason (test_dp_trace_drops.c);
 *  - every record of every test ends as a packet ends: each output in
 *    one tx or tx-stage drop, the packet itself in its last output, one
 *    drop, or an ARP reply consumed (trace_test.h, rec_ends_once).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rte_ethdev.h>
#include "config.h"
#include "conntrack.h"
#include "ct_ipf.h"
#include "dp_snapshot.h"
#include "ofproto.h"
#include "unit_test.h"
#include "pipeline_rig.h"
#include "trace_test.h"

unsigned n_passed, n_failed;

struct rte_mempool *rig_pool;
struct pmd *rig_pmd;
struct port *rig_nic, *rig_vm[N_VMS], *rig_vhost;
struct vxs_config rig_cfg;
struct conntrack *rig_ct;
struct ct_ipf *rig_ipf;
uint16_t rig_n_traces;

const struct rte_ether_addr vtep_mac = { { 0x10, 0, 0, 0, 0, 1 } },
	remote_vtep_mac = { { 0x10, 0, 0, 0, 0, 2 } },
	remote_host_mac = { { 0xa0, 0, 0, 0, 0, 2 } };

static char vhost_path[64];

/* The rules each test and drop case relies on (trace_test.h, enum
 * vm0_dport). max-megaflows is small so that the upcall_fail case can
 * fill the table; every test starts with none installed. */
static int
write_topology(char *path, size_t len)
{
	FILE *f = pipeline_rig_topology(path, len, "test_dp_trace",
					"  max-megaflows: 16\n"
					"  emc-insert-inv-prob: 1\n");
	if (!f)
		return -1;
	for (int i = 0; i < N_VMS; i++)
		fprintf(f, "  - {name: vm%d, type: dpdk, "
			   "devargs: net_ring_trvm%d}\n", i, i);
	snprintf(vhost_path, sizeof vhost_path, "/tmp/test_dp_trace-%d.sock",
		 (int)getpid());
	fprintf(f, "  - {name: vhost0, type: dpdkvhostuser, path: %s}\n"
		   "  - {name: vxlan, type: vxlan, options: {remote_ip: flow,"
		   " local_ip: flow, key: flow, vnis: [%d]}}\n"
		   "  - {name: phy, type: dpdk, devargs: net_ring_trphy}\n"
		   "flows:\n", vhost_path, VNI);
	static const struct { int dport; const char *match, *actions; } r[] = {
		{ DPORT_ENCAP, "udp", "set_tunnel:1001,"
		  "set_field:172.1.0.0->tun_dst,"
		  "set_field:172.1.0.100->tun_src,output:vxlan" },
		{ DPORT_RULE_DROP, "udp", "drop" },
		{ DPORT_NO_NEIGH, "udp", "set_tunnel:1001,"
		  "set_field:172.1.0.7->tun_dst,output:vxlan" },
		{ DPORT_NO_ROUTE, "udp", "set_tunnel:1001,"
		  "set_field:10.99.0.1->tun_dst,output:vxlan" },
		{ DPORT_TO_VHOST, "udp", "output:vhost0" },
		{ DPORT_TO_VM2, "udp", "output:vm2" },
		{ DPORT_LOOP, "udp", "output:vm0" },
		{ DPORT_TWO_OUTPUTS, "udp", "output:vm1,output:vm2" },
		{ DPORT_RESUBMIT_LOOP, "udp", "resubmit(,0)" },
		{ DPORT_CT_LOOP, "udp", "ct(zone=3,table=0)" },
		{ DPORT_SG_DENY, "tcp", "sg(deny,zone=1),output:vm1" },
		{ DPORT_SG_ALLOW, "tcp", "sg(allow,zone=1),output:vm1" },
		{ DPORT_SG_LIMITED, "udp", "sg(allow,zone=5),output:vm1" },
		{ DPORT_SG_FRAGS, "udp", "sg(allow,zone=2),output:vm1" },
	};
	for (size_t i = 0; i < RTE_DIM(r); i++)
		fprintf(f, "  - in_port=vm0,%s,tp_dst=%d,actions=%s\n",
			r[i].match, r[i].dport, r[i].actions);
	fprintf(f, "  - in_port=vxlan,ip,nw_dst=192.1.0.1,"
		   "actions=output:vm1\n");
	return fclose(f);
}

/* ---- the VXLAN round trip ---------------------------------------------- */

static uint32_t
be32_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* The one frame the switch sent on p, or NULL (frees the others). */
static struct rte_mbuf *
sent_one(struct port *p)
{
	struct rte_mbuf *out[4];
	uint16_t n = rig_sent(p, out, RTE_DIM(out));

	for (uint16_t i = 1; i < RTE_MIN(n, RTE_DIM(out)); i++)
		rte_pktmbuf_free(out[i]);
	if (n == 1)
		return out[0];
	if (n)
		rte_pktmbuf_free(out[0]);
	return NULL;
}

/* Checks the encapsulation record r of the frame sent (sent.len bytes)
 * against what the NIC sent. */
static void
check_encap(const struct dp_trace_pkt *r, const struct pkt *sent,
	    const char *what)
{
	const struct dp_trace_entry *e = &r->e[0];
	CHECK(r->in_port == rig_vm[0]->idx && r->len == sent->len &&
	      e->port == rig_vm[0]->idx && e->u32 == sent->len &&
	      r->head_len == sent->len && !memcmp(r->head, sent->b, sent->len),
	      "%s: rx: port %u len %u head %u bytes", what, e->port, e->u32,
	      r->head_len);
	const struct flow_key *k = rec_key(r, rec_find(r, DP_TRACE_EXTRACT, 0));
	CHECK(k && k->in_port == rig_vm[0]->ofport &&
	      k->tp_dst == rte_cpu_to_be_16(DPORT_ENCAP) &&
	      k->nw_src == rte_cpu_to_be_32(VM_IP(0)),
	      "%s: extract: not the frame's key", what);
	/* the actions as xlate made them: push, then output to the NIC (an
	 * output's entry is its output entry) */
	const struct dp_trace_entry *push = rec_find(r, DP_TRACE_ACTION, 0);
	CHECK(push && push->port == DP_ACT_TNL_PUSH &&
	      !rec_find(r, DP_TRACE_ACTION, (uint32_t)(push - r->e) + 1),
	      "%s: actions not tnl_push, output:phy", what);
	e = rec_find(r, DP_TRACE_TNL_PUSH, 0);
	CHECK(e && e->u32 == VNI && e->u64 >> 32 == REMOTE_VTEP_IP,
	      "%s: tnl_push vni %u dst %08x", what, e ? e->u32 : 0,
	      e ? (uint32_t)(e->u64 >> 32) : 0);
	const struct dp_trace_entry *o = rec_find(r, DP_TRACE_OUTPUT, 0);
	const struct dp_trace_entry *tx = rec_find(r, DP_TRACE_TX, 0);
	CHECK(o && o->port == rig_nic->idx && tx && tx->port == rig_nic->idx,
	      "%s: not queued for and sent by phy", what);
	/* what the trace says went out is what did */
	struct rte_mbuf *out = sent_one(rig_nic);
	const uint8_t *p = out ? rte_pktmbuf_mtod(out, const uint8_t *) : NULL;
	CHECK(out && out->pkt_len == OUTER_LEN + sent->len &&
	      be32_at(p + 30) == REMOTE_VTEP_IP &&
	      be32_at(p + 46) >> 8 == VNI &&
	      e && (uint16_t)(p[34] << 8 | p[35]) == (e->u64 & 0xffff) &&
	      !memcmp(p + OUTER_LEN, sent->b, sent->len),
	      "%s: the frame on the NIC is not the traced one", what);
	rte_pktmbuf_free(out);
	const struct dp_trace *t = rig_pmd->dp.trace;
	CHECK(trace_shows(t, (uint32_t)(r - t->pkts),
			  "tnl_push  vni 1001 to 172.1.0.0", "\"vni\":1001"),
	      "%s: trace show", what);
}

static void
test_encap(void)
{
	struct pkt sent[2];
	struct rte_mbuf *m;
	struct frame_spec s = vm_udp(0, 40000, DPORT_ENCAP, 78);
	struct dp_trace *t = trace_arm(rig_vm[0], 2, NULL);

	m = frame_mbuf(&s, &sent[0]);
	rig_burst(rig_vm[0], &m, 1, false);
	const struct dp_trace_pkt *r = &t->pkts[0];
	CHECK_EXPR(trace_taken(t) == 1);
	/* queued, not sent: no tx entry before the flush */
	CHECK_PATH(r, "rx extract hash upcall action tnl_push output",
		   "encap, buffered");
	dp_tx_flush_all(&rig_pmd->dp);
	CHECK_PATH(r, "rx extract hash upcall action tnl_push output tx",
		   "encap");
	check_encap(r, &sent[0], "encap");

	/* the next one hits the megaflow the first installed */
	s.sport = 40001;
	m = frame_mbuf(&s, &sent[1]);
	rig_burst(rig_vm[0], &m, 1, true);
	const struct dp_trace_pkt *r2 = &t->pkts[1];
	CHECK_PATH(r2, "rx extract hash lookup action tnl_push output "
		   "tx", "encap, second");
	const struct dp_trace_entry *up = rec_find(r, DP_TRACE_UPCALL, 0);
	const struct dp_trace_entry *hit = &r2->e[3];
	CHECK(up && up->u64 && hit->kind != DP_TRACE_UPCALL &&
	      hit->u64 == up->u64, "encap: second not a hit of the first's "
	      "megaflow");
	check_encap(r2, &sent[1], "encap, second");
	trace_check_ends(t, __func__);
	trace_disarm();
}

static void
check_decap(const struct dp_trace_pkt *r, const struct pkt *sent,
	    const char *what)
{
	const struct dp_trace_entry *pop = rec_find(r, DP_TRACE_ACTION, 0);

	CHECK(pop && pop->port == DP_ACT_TNL_POP, "%s: no tnl_pop action",
	      what);
	const struct dp_trace_entry *e = rec_find(r, DP_TRACE_TNL_POP, 0);
	CHECK(e && e->pass == 0 && e->u32 == VNI &&
	      e->u64 == ((uint64_t)REMOTE_VTEP_IP << 32 | VTEP_IP),
	      "%s: tnl_pop vni %u addresses %016lx", what, e ? e->u32 : 0,
	      e ? (unsigned long)e->u64 : 0);
	/* the inner pass looks the inner frame up as from the tunnel */
	const struct dp_trace_entry *look = e;
	while (look && look->kind != DP_TRACE_EMC &&
	       look->kind != DP_TRACE_DPCLS && look->kind != DP_TRACE_UPCALL)
		look = look + 1 < r->e + r->n ? look + 1 : NULL;
	const struct flow_key *k = rec_key(r, look);
	const struct port *vxlan = port_by_name("vxlan");
	CHECK(look && look->pass == 1 && k && vxlan &&
	      k->in_port == vxlan->ofport && k->tun_id == VNI &&
	      k->nw_dst == rte_cpu_to_be_32(VM_IP(1)),
	      "%s: the inner lookup is not the inner frame's", what);
	e = rec_find(r, DP_TRACE_OUTPUT, 0);
	const struct dp_trace_entry *tx = rec_find(r, DP_TRACE_TX, 0);
	CHECK(e && e->port == rig_vm[1]->idx && tx &&
	      tx->port == rig_vm[1]->idx && tx->pass == 1,
	      "%s: not sent to vm1 in the inner pass", what);
	struct rte_mbuf *out = sent_one(rig_vm[1]);
	CHECK(out && out->pkt_len == sent->len - OUTER_LEN &&
	      !memcmp(rte_pktmbuf_mtod(out, uint8_t *), sent->b + OUTER_LEN,
		      sent->len - OUTER_LEN),
	      "%s: vm1 did not get the inner frame", what);
	rte_pktmbuf_free(out);
	CHECK(trace_shows(rig_pmd->dp.trace,
			  (uint32_t)(r - rig_pmd->dp.trace->pkts),
			  "outer    tnl_pop   vni 1001 from 172.1.0.0 to "
			  "172.1.0.100", "\"pass\":\"inner\""),
	      "%s: trace show", what);
}

static void
test_decap(void)
{
	struct pkt sent[2];
	struct frame_spec inner = to_vm_udp(1, 78);
	struct vxlan_spec vx = vxlan_to_us();
	struct dp_trace *t = trace_arm(rig_nic, 2, NULL);
	struct rte_mbuf *m = vxlan_mbuf(&vx, &inner, &sent[0]);

	rig_burst(rig_nic, &m, 1, true);
	const struct dp_trace_pkt *r = &t->pkts[0];
	CHECK_PATH(r, "rx extract hash upcall action tnl_pop "
		   "1:hash? upcall output tx", "decap");
	check_decap(r, &sent[0], "decap");

	inner.sport = 40001;
	m = vxlan_mbuf(&vx, &inner, &sent[1]);
	rig_burst(rig_nic, &m, 1, true);
	const struct dp_trace_pkt *r2 = &t->pkts[1];
	CHECK_PATH(r2, "rx extract hash lookup action tnl_pop "
		   "1:hash? lookup output tx", "decap, second");
	for (uint32_t i = 0; i < r2->n; i++)
		CHECK(r2->e[i].kind != DP_TRACE_UPCALL, "decap, second: an "
		      "upcall at entry %u", i);
	check_decap(r2, &sent[1], "decap, second");
	trace_check_ends(t, __func__);
	trace_disarm();
}

/* A packet queued in the inner pass and flushed after a burst of another
 * port (in the PMD loop: the NIC's burst, then a VM's, then the flush):
 * its tx entry is still in its own pass. */
static void
test_tx_pass(void)
{
	struct pkt sent;
	struct frame_spec inner = to_vm_udp(1, 78);
	struct frame_spec from_vm = vm_udp(0, 40000, DPORT_ENCAP, 78);
	struct vxlan_spec vx = vxlan_to_us();
	struct dp_trace *t = trace_arm(rig_nic, 1, NULL);
	struct rte_mbuf *m = vxlan_mbuf(&vx, &inner, &sent);

	rig_burst(rig_nic, &m, 1, false);
	m = frame_mbuf(&from_vm, &sent);
	rig_burst(rig_vm[0], &m, 1, true);
	const struct dp_trace_entry *tx = rec_last(&t->pkts[0]);
	CHECK(tx && tx->kind == DP_TRACE_TX && tx->pass == 1,
	      "tx after another port's burst: pass %u, want 1",
	      tx ? tx->pass : 0);
	trace_check_ends(t, __func__);
	trace_disarm();
	rig_drain();
}

/* A fragment held across a trace clear (dpif-netdev/trace clear, then
 * add): when the store gives it up, its drop is counted, and written into
 * no record of the new trace (whose records reuse the old one's slots). */
static void
test_held_across_clear(void)
{
	struct frame_spec s = vm_udp(0, 40000, DPORT_ENCAP, 78);
	struct pkt p;
	struct rte_mbuf *m = held_fragment_mbuf(90);
	uint64_t expired = rig_drops(DROP_IPF_EXPIRED);

	trace_arm(rig_vm[0], 1, NULL);
	rig_burst(rig_vm[0], &m, 1, true);
	trace_disarm();
	struct dp_trace *t = trace_arm(rig_vm[0], 1, NULL);
	m = frame_mbuf(&s, &p);
	rig_burst(rig_vm[0], &m, 1, true);
	ct_ipf_sweep(rig_ipf, rte_rdtsc() + 16 * rte_get_tsc_hz(), 100);
	dp_ipf_drain(&rig_pmd->dp);
	CHECK_EXPR(rig_drops(DROP_IPF_EXPIRED) - expired == 1);
	CHECK_PATH(&t->pkts[0], "rx extract hash upcall action tnl_push "
		   "output tx", "a new trace's record");
	trace_check_ends(t, __func__);
	trace_disarm();
}

/* ---- limits and filters ------------------------------------------------ */

/* How many of the frames sent on p carry the trace flag (n: how many
 * were sent); first_flagged: the flagged ones are the first ones. */
static unsigned
flagged_on(struct port *p, unsigned *n, bool *first_flagged)
{
	struct rte_mbuf *out[32];
	unsigned k = rig_sent(p, out, RTE_DIM(out)), flagged = 0;

	*first_flagged = true;
	for (unsigned i = 0; i < k && i < RTE_DIM(out); i++) {
		bool f = dp_trace_traced(out[i]);
		if (f && flagged != i)
			*first_flagged = false;
		flagged += f;
		rte_pktmbuf_free(out[i]);
	}
	*n = k;
	return flagged;
}

static void
send_encap(unsigned n, uint16_t first_sport)
{
	struct rte_mbuf *m[32];
	struct pkt p;

	for (unsigned i = 0; i < n; i++) {
		struct frame_spec s = vm_udp(0, (uint16_t)(first_sport + i),
					     DPORT_ENCAP, 78);
		m[i] = frame_mbuf(&s, &p);
	}
	rig_burst(rig_vm[0], m, (uint16_t)n, true);
}

static void
test_limit(void)
{
	struct dp_trace *t = trace_arm(rig_vm[0], 3, NULL);
	unsigned n;
	bool first;

	send_encap(5, 100);
	CHECK(trace_taken(t) == 3, "limit 3: %u taken", trace_taken(t));
	for (uint32_t i = 0; i < 3; i++) {
		const struct dp_trace_pkt *r = &t->pkts[i];
		CHECK_PATH(r, "rx extract hash lookup action tnl_push output "
			   "tx", "limit 3");
		const struct flow_key *k = rec_key(r, &r->e[1]);
		CHECK(k && k->tp_src == rte_cpu_to_be_16(100 + i),
		      "limit 3: record %u is not packet %u", i, i);
	}
	CHECK(flagged_on(rig_nic, &n, &first) == 3 && n == 5 && first,
	      "limit 3: %u sent, the first 3 not the traced ones", n);
	/* the limit reached: nothing more taken, no record grows */
	uint32_t entries = t->pkts[0].n + t->pkts[1].n + t->pkts[2].n;
	send_encap(4, 200);
	CHECK(trace_taken(t) == 3 && t->pkts[3].n == 0 &&
	      t->pkts[0].n + t->pkts[1].n + t->pkts[2].n == entries,
	      "past the limit: %u taken", trace_taken(t));
	CHECK(flagged_on(rig_nic, &n, &first) == 0 && n == 4,
	      "past the limit: traced frames sent");
	/* trace add N more on the same trace: the next N */
	__atomic_store_n(&t->limit, 4, __ATOMIC_RELEASE);
	send_encap(2, 300);
	CHECK(trace_taken(t) == 4 && t->pkts[4].n == 0,
	      "one more: %u taken", trace_taken(t));
	CHECK(flagged_on(rig_nic, &n, &first) == 1 && n == 2 && first,
	      "one more: not the first frame traced");
	trace_check_ends(t, __func__);
	trace_disarm();
}

static void
test_filter(void)
{
	static const uint16_t dports[] = { DPORT_ENCAP, DPORT_RULE_DROP,
					   DPORT_ENCAP, DPORT_RULE_DROP,
					   DPORT_ENCAP, DPORT_RULE_DROP };
	char match[64];
	struct rte_mbuf *m[RTE_DIM(dports)];
	struct pkt p;
	unsigned n;
	bool first;

	snprintf(match, sizeof match, "udp,tp_dst=%d", DPORT_RULE_DROP);
	for (uint32_t limit = 2; limit <= 10; limit += 8) {
		struct dp_trace *t = trace_arm(rig_vm[0], limit, match);
		uint64_t drops = rig_drops(DROP_RULE_DROP);
		for (size_t i = 0; i < RTE_DIM(dports); i++) {
			struct frame_spec s = vm_udp(0, (uint16_t)(400 + i),
						     dports[i], 78);
			m[i] = frame_mbuf(&s, &p);
		}
		rig_burst(rig_vm[0], m, RTE_DIM(m), true);
		uint32_t want = RTE_MIN(limit, 3u);
		CHECK(trace_taken(t) == want, "filter, limit %u: %u taken",
		      limit, trace_taken(t));
		for (uint32_t i = 0; i < trace_taken(t); i++) {
			const struct dp_trace_pkt *r = &t->pkts[i];
			const struct flow_key *k = rec_key(r, &r->e[1]);
			CHECK(k && k->tp_dst ==
				   rte_cpu_to_be_16(DPORT_RULE_DROP) &&
			      k->tp_src == rte_cpu_to_be_16(401 + 2 * i),
			      "filter: record %u is not matching packet %u",
			      i, i);
			CHECK_PATH(r, "rx extract hash lookup action drop",
				   "filter");
		}
		CHECK_EXPR(rig_drops(DROP_RULE_DROP) - drops == 3);
		/* the encapsulated ones matched nothing: no flag out */
		CHECK(flagged_on(rig_nic, &n, &first) == 0 && n == 3,
		      "filter: %u sent, some traced", n);
		trace_check_ends(t, __func__);
		trace_disarm();
	}
}

/* A trace of another port takes nothing here, and a packet received with
 * a leftover flag (a recycled mbuf's, or one set by anyone) leaves
 * without it. */
static void
test_other_port(void)
{
	struct dp_trace *t = trace_arm(rig_vm[1], 5, NULL);
	struct frame_spec s = vm_udp(0, 500, DPORT_ENCAP, 78);
	struct pkt p;
	struct rte_mbuf *m = frame_mbuf(&s, &p);
	unsigned n;
	bool first;

	m->ol_flags |= dp_trace_flag;
	*RTE_MBUF_DYNFIELD(m, dp_trace_field, uint32_t *) =
		(uint32_t)t->id << 16;	/* record 0 of vm1's trace */
	rig_burst(rig_vm[0], &m, 1, true);
	CHECK(trace_taken(t) == 0 && t->pkts[0].n == 0,
	      "vm1's trace took a vm0 packet");
	CHECK(flagged_on(rig_nic, &n, &first) == 0 && n == 1,
	      "a leftover flag went out");
	trace_disarm();
}

/* Too long for the tunnel with DF (dp_pmtud.h): the pmtud entry says
 * answered, the packet is dropped, and the ICMP error it was made into
 * writes its output and tx into the same record, back on vm0; without DF
 * the record ends in the drop. */
static void
test_pmtud(void)
{
	struct dp_trace *t = trace_arm(rig_vm[0], 2, NULL);
	struct frame_spec s = vm_udp(0, 40000, DPORT_ENCAP, 1514);
	struct rte_mbuf *m[2], *got[4];
	struct pkt p;

	s.frag = 0x4000;			/* DF */
	m[0] = frame_mbuf(&s, &p);
	s.frag = 0;
	m[1] = frame_mbuf(&s, &p);
	rig_burst(rig_vm[0], m, 2, true);
	CHECK_PATH(&t->pkts[0], "rx extract hash upcall action pmtud "
		   "drop output tx", "DF");
	const struct dp_trace_entry *e = rec_find(&t->pkts[0], DP_TRACE_PMTUD,
						  0);
	CHECK(e && e->u64 == DP_PMTUD_FRAG_NEEDED && e->u32 == 1450 &&
	      e->port == rig_vm[0]->idx, "DF: pmtud entry");
	CHECK_PATH(&t->pkts[1], "rx extract hash dpcls action pmtud drop",
		   "no DF");
	e = rec_find(&t->pkts[1], DP_TRACE_PMTUD, 0);
	CHECK(e && e->u64 == DP_PMTUD_NO_DF, "no DF: pmtud entry");
	CHECK(trace_shows(t, 0, "answered: ICMP fragmentation needed, to "
			  "vm0", "\"verdict\":\"frag_needed\""),
	      "pmtud: trace show");
	uint16_t n = rig_sent(rig_vm[0], got, 4);
	CHECK(n == 1 && rte_pktmbuf_pkt_len(got[0]) == 590,
	      "%u frames back on vm0", n);
	for (uint16_t i = 0; i < n; i++)
		rte_pktmbuf_free(got[i]);
	trace_check_ends(t, __func__);
	trace_disarm();
	rig_drain();
}

/* The VTEP's ARP: a request answered (the reply sent back), a reply to
 * our own request consumed; neither reaches extract. */
static void
test_arp(void)
{
	struct dp_trace *t = trace_arm(rig_nic, 2, NULL);
	struct rte_mbuf *m[2] = {
		pipeline_rig_arp(rig_pool, &vtep_mac, RTE_ARP_OP_REQUEST,
				 &remote_vtep_mac,
				 rte_cpu_to_be_32(REMOTE_VTEP_IP),
				 rte_cpu_to_be_32(VTEP_IP)),
		pipeline_rig_arp(rig_pool, &vtep_mac, RTE_ARP_OP_REPLY,
				 &remote_vtep_mac,
				 rte_cpu_to_be_32(REMOTE_VTEP_IP),
				 rte_cpu_to_be_32(VTEP_IP)),
	};
	uint64_t consumed = rig_pmd->stats.arp_consumed;

	rig_burst(rig_nic, m, 2, true);
	CHECK_PATH(&t->pkts[0], "rx arp output tx", "ARP request");
	CHECK_EXPR(t->pkts[0].e[1].u32 == DP_TRACE_ARP_REPLY);
	CHECK_PATH(&t->pkts[1], "rx arp", "ARP reply");
	CHECK_EXPR(t->pkts[1].e[1].u32 == DP_TRACE_ARP_CONSUMED);
	CHECK_EXPR(rig_pmd->stats.arp_consumed - consumed == 1);
	CHECK(trace_shows(t, 1, "reply to our request: learned",
			  "\"result\":\"learned\""), "ARP: trace show");
	trace_check_ends(t, __func__);
	trace_disarm();
	rig_drain();
}

int
main(void)
{
	static void (*const tests[])(void) = {
		test_encap, test_decap, test_tx_pass, test_held_across_clear,
		test_limit, test_filter, test_other_port, test_arp,
		test_pmtud, test_drop_reasons,
	};
	static const char *const names[] = {
		"encap", "decap", "tx pass", "held across a clear", "limit",
		"filter", "other port", "arp", "pmtud", "drop reasons",
	};

	if (pipeline_rig_up("test_dp_trace", write_topology, &rig_cfg,
			    &rig_pool, &rig_pmd, &rig_nic, rig_vm, N_VMS))
		return 1;
	rig_vhost = port_by_name("vhost0");
	/* the tracker and fragment store the daemon gives every PMD */
	struct ct_params cp = { .max_conns = 1024, .socket_id = SOCKET_ID_ANY,
				.name = "trace_ct" };
	rig_pmd->dp.ct = pmd_conntrack = rig_ct = conntrack_create(&cp);
	rig_pmd->dp.ipf = pmd_ipf = rig_ipf = ct_ipf_create(SOCKET_ID_ANY, 0);
	CHECK_EXPR(rig_vhost && rig_ct && rig_ipf);
	if (!rig_vhost || !rig_ct || !rig_ipf)
		return unit_test_report();

	RTE_BUILD_BUG_ON(RTE_DIM(tests) != RTE_DIM(names));
	for (size_t i = 0; i < RTE_DIM(tests); i++) {
		rig_fresh();
		tests[i]();
		rig_drain();
		rig_balanced(names[i]);
	}

	pmd_flush_flows(rig_pmd);
	dp_tx_flush_all(&rig_pmd->dp);
	rig_drain();
	ct_ipf_destroy(rig_ipf);
	rig_pmd->dp.ipf = pmd_ipf = NULL;
	conntrack_destroy(rig_ct);
	rig_pmd->dp.ct = pmd_conntrack = NULL;
	pipeline_rig_down(&rig_cfg, rig_pool);
	unlink(vhost_path);	/* the rig stops no port: its socket stays */
	return unit_test_report();
}
