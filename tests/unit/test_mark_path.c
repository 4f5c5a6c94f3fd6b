/* SPDX-License-Identifier: BSD-3-Clause
 * The NIC-mark path (app/datapath/dp_offload.c) in the real pipeline: config_load,
 * ports, a PMD driven from this thread (as perf/dpbench does), the real
 * offload thread and the software Flow Director model marking frames as
 * the E810 would. The VMs are net_ring ports, whose tx ring is their rx
 * ring, so what the switch sent each VM is read back byte for byte.
 *
 * A mark is only a hint. Frames the model marked take the mark path and
 * come out exactly as the full path makes them; frames with an unknown,
 * stale, out-of-range or reserved mark, or a known mark on a frame its
 * megaflow does not match (another VM's address, bad VXLAN flags, a bad
 * outer checksum, a malformed inner packet, trailing bytes, a VLAN tag),
 * go to the full path and meet exactly the fate they meet unmarked:
 * delivered to the right VM byte for byte, or dropped under the right
 * reason. Nothing leaks. Under weight admission an evicted rule stays on
 * the NIC until the PMD has cleared its mark entry, and a frame marked
 * with it before goes to its own VM by the full path.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_udp.h>
#include "config.h"
#include "dp_offload.h"
#include "dp_snapshot.h"
#include "dp_trace.h"
#include "fdir_model.h"
#include "offload_mgr.h"
#include "ofproto.h"
#include "pmd.h"
#include "seed_flows.h"
#include "port.h"
#include "unit_test.h"
#include "pipeline_rig.h"

#define N_VMS 4
#define VNI 1001
#define INNER_LEN 78			/* eth + ipv4 + udp + 36 bytes */
#define OUTER_LEN 50
/* RTE_IPV4 shifts an int: 172 << 24 overflows (UBSan) */
#define IPV4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | \
			  (uint32_t)(c) << 8 | (uint32_t)(d))

static struct rte_mempool *pool;
static struct port *nic, *vm_port[N_VMS];
static struct pmd *pmd;
static struct fdir_model_pool *model_pool;
static struct fdir_model *model;
static struct offload_mgr *mgr;

/* ---- topology ---------------------------------------------------------- */

static int
write_topology(char *path, size_t len)
{
	FILE *f = pipeline_rig_topology(path, len, "test_mark_path",
					"  emc-insert-inv-prob: 1\n");
	if (!f)
		return -1;
	for (int i = 0; i < N_VMS; i++)
		fprintf(f, "  - {name: vm%d, type: dpdk, "
			   "devargs: net_ring_mpvm%d}\n", i, i);
	fprintf(f, "  - {name: vxlan, type: vxlan, options: {remote_ip: flow,"
		   " local_ip: flow, key: flow, vnis: [%d]}}\n"
		   "  - {name: phy, type: 'null'}\n"
		   "flows:\n", VNI);
	for (int i = 0; i < N_VMS; i++)
		fprintf(f, "  - in_port=vxlan,ip,nw_dst=192.1.0.%d,"
			   "actions=output:vm%d\n", i, i);
	return fclose(f);
}

/* ---- frames ------------------------------------------------------------ */

enum variant {
	V_GOOD,
	V_BAD_FLAGS,		/* VXLAN flags without I */
	V_BAD_OUTER_CSUM,
	V_BAD_INNER_IHL,	/* inner IPv4 IHL 4: malformed */
	V_TRAILER,		/* 4 bytes past the UDP datagram */
	V_OUTER_VLAN,		/* 802.1Q-tagged outer */
	V_ICMP,			/* inner ICMP: not a fast shape */
};

static void
ip_hdr(uint8_t *p, uint16_t len, uint8_t proto, uint32_t src, uint32_t dst)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)p;
	memset(ip, 0, sizeof *ip);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(len);
	ip->time_to_live = 64;
	ip->next_proto_id = proto;
	ip->src_addr = rte_cpu_to_be_32(src);
	ip->dst_addr = rte_cpu_to_be_32(dst);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

/* The inner frame VM vm receives for flow k. */
static void
inner_frame(uint8_t *p, int vm, uint16_t k, bool icmp)
{
	static const uint8_t vm_mac[6] = { 0x52, 0x54, 0, 0, 0, 0 },
			     remote_mac[6] = { 0xa0, 0, 0, 0, 0, 2 };
	memcpy(p, vm_mac, 6);
	p[5] = (uint8_t)vm;
	memcpy(p + 6, remote_mac, 6);
	p[12] = 0x08;
	p[13] = 0x00;
	ip_hdr(p + 14, INNER_LEN - 14, icmp ? IPPROTO_ICMP : IPPROTO_UDP,
	       IPV4(192, 2, 0, 1), IPV4(192, 1, 0, vm));
	uint8_t *l4 = p + 34;
	for (int i = 0; i < INNER_LEN - 34; i++)
		l4[i] = (uint8_t)(k * 7 + i);
	if (icmp) {
		l4[0] = 8;
		l4[1] = 0;
	} else {
		struct rte_udp_hdr *u = (struct rte_udp_hdr *)l4;
		u->src_port = rte_cpu_to_be_16(40000 + k);
		u->dst_port = rte_cpu_to_be_16(5001);
		u->dgram_len = rte_cpu_to_be_16(INNER_LEN - 34);
		u->dgram_cksum = 0;
	}
}

/* A VXLAN frame from the remote VTEP carrying inner_frame(vm, k), with
 * *want (if given) the bytes VM vm should receive. */
static struct rte_mbuf *
decap_frame(int vm, uint16_t k, enum variant v, uint8_t *want)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	if (!m)
		return NULL;
	uint16_t vlan = v == V_OUTER_VLAN ? 4 : 0;
	uint16_t trailer = v == V_TRAILER ? 4 : 0;
	uint16_t len = OUTER_LEN + vlan + INNER_LEN + trailer;
	uint8_t *p = (uint8_t *)rte_pktmbuf_append(m, len);
	static const uint8_t vtep_mac[6] = { 0x10, 0, 0, 0, 0, 1 },
			     remote_vtep[6] = { 0x10, 0, 0, 0, 0, 2 };
	memcpy(p, vtep_mac, 6);
	memcpy(p + 6, remote_vtep, 6);
	uint8_t *l3 = p + 14 + vlan;
	if (vlan) {
		p[12] = 0x81; p[13] = 0x00; p[14] = 0; p[15] = 7;
	}
	l3[-2] = 0x08;
	l3[-1] = 0x00;
	ip_hdr(l3, 20 + 8 + 8 + INNER_LEN, IPPROTO_UDP, IPV4(172, 1, 0, 0),
	       IPV4(172, 1, 0, 100));
	if (v == V_BAD_OUTER_CSUM)
		l3[10] ^= 0x5a;
	struct rte_udp_hdr *u = (struct rte_udp_hdr *)(l3 + 20);
	u->src_port = rte_cpu_to_be_16(49152 + k);
	u->dst_port = RTE_BE16(4789);
	u->dgram_len = rte_cpu_to_be_16(8 + 8 + INNER_LEN);
	u->dgram_cksum = 0;
	uint8_t *vx = l3 + 28;
	memset(vx, 0, 8);
	vx[0] = v == V_BAD_FLAGS ? 0x00 : 0x08;
	vx[4] = VNI >> 16;
	vx[5] = (VNI >> 8) & 0xff;
	vx[6] = VNI & 0xff;
	inner_frame(vx + 8, vm, k, v == V_ICMP);
	if (v == V_BAD_INNER_IHL)
		vx[8 + 14] = 0x44;
	if (trailer)
		memset(vx + 8 + INNER_LEN, 0xee, trailer);
	if (want)
		memcpy(want, vx + 8, INNER_LEN);
	return m;
}

static void
set_mark(struct rte_mbuf *m, uint32_t mark)
{
	m->ol_flags |= RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID;
	m->hash.fdir.hi = mark;
}

/* ---- the PMD, one iteration at a time ---------------------------------- */

static void
pmd_run(struct rte_mbuf **pkts, uint16_t n)
{
	struct pkt_batch b;
	b.n = n;
	memcpy(b.pkts, pkts, n * sizeof pkts[0]);
	dp_process_burst(&pmd->dp, nic, &b);
	dp_tx_flush_all(&pmd->dp);
	dp_offload_poll(&pmd->dp);
}

/* What VM vm received since the last call: compared with want[0..n-1]
 * in order; returns how many matched byte for byte. */
static unsigned
received(int vm, uint8_t want[][INNER_LEN], unsigned n, unsigned *got)
{
	struct rte_mbuf *rx[64];
	uint16_t k = rte_eth_rx_burst(vm_port[vm]->eth_port_id, 0, rx, 64);
	unsigned same = 0;

	for (uint16_t i = 0; i < k; i++) {
		const uint8_t *d = rte_pktmbuf_mtod(rx[i], const uint8_t *);
		if (i < n && rte_pktmbuf_pkt_len(rx[i]) == INNER_LEN &&
		    rx[i]->nb_segs == 1 && !memcmp(d, want[i], INNER_LEN))
			same++;
		rte_pktmbuf_free(rx[i]);
	}
	*got = k;
	return same;
}

static uint32_t
mark_of_vm(int vm)
{
	for (uint32_t i = 1; i <= pmd->dp.max_marks; i++) {
		const struct megaflow *f = pmd->dp.mark_table[i];
		if (f && f->key.nw_dst == rte_cpu_to_be_32(IPV4(192, 1, 0,
								   vm)))
			return i;
	}
	return 0;
}

static uint64_t
drops(enum drop_reason r)
{
	return pmd->stats.drops[r];
}

/* Waits for every VM's decap megaflow to be on the "NIC". */
static bool
wait_offloaded(void)
{
	uint64_t end = rte_get_tsc_cycles() + 3 * rte_get_tsc_hz();
	while (rte_get_tsc_cycles() < end) {
		dp_offload_poll(&pmd->dp);
		int n = 0;
		for (int vm = 0; vm < N_VMS; vm++)
			n += mark_of_vm(vm) != 0;
		if (n == N_VMS)
			return true;
		usleep(500);
	}
	return false;
}

/* Frames to every VM, none marked: megaflows made, offloads asked. */
static void
warm_up(void)
{
	struct rte_mbuf *m[N_VMS];
	for (int vm = 0; vm < N_VMS; vm++)
		m[vm] = decap_frame(vm, 0, V_GOOD, NULL);
	pmd_run(m, N_VMS);
	for (int vm = 0; vm < N_VMS; vm++) {
		unsigned got;
		received(vm, NULL, 0, &got);
	}
}

/* ---- tests ------------------------------------------------------------- */

/* The model marks every VM's frames; all take the mark path and come out
 * as the inner frames. */
static void
test_marked(void)
{
	struct rte_mbuf *m[32];
	uint8_t want[N_VMS][8][INNER_LEN];
	uint64_t hits0 = pmd->stats.mark_hits, fb0 = pmd->stats.mark_fallbacks;
	uint64_t mf0 = pmd->stats.megaflow_hits + pmd->stats.emc_hits;

	for (int i = 0; i < 32; i++)
		m[i] = decap_frame(i % N_VMS, (uint16_t)(i / N_VMS), V_GOOD,
				   want[i % N_VMS][i / N_VMS]);
	fdir_model_rx_mark(model, 0, m, 32);
	unsigned n_marked = 0;
	for (int i = 0; i < 32; i++)
		n_marked += (m[i]->ol_flags & RTE_MBUF_F_RX_FDIR_ID) &&
			    m[i]->hash.fdir.hi == mark_of_vm(i % N_VMS);
	CHECK(n_marked == 32, "model marked %u of 32 with their VM's mark",
	      n_marked);
	pmd_run(m, 32);
	CHECK(pmd->stats.mark_hits - hits0 == 32 &&
	      pmd->stats.mark_fallbacks == fb0,
	      "mark hits %lu fallbacks %lu",
	      (unsigned long)(pmd->stats.mark_hits - hits0),
	      (unsigned long)(pmd->stats.mark_fallbacks - fb0));
	CHECK(pmd->stats.megaflow_hits + pmd->stats.emc_hits == mf0,
	      "marked frames were looked up");
	for (int vm = 0; vm < N_VMS; vm++) {
		unsigned got, same = received(vm, want[vm], 8, &got);
		CHECK(got == 8 && same == 8, "vm %d: %u frames, %u identical",
		      vm, got, same);
	}
}

/* A traced frame on the mark path (dp_trace.h): rx as received, then its
 * mark naming its VM's megaflow, the output and tx, those three in the
 * inner pass (the NIC did the outer one); a stale mark's frame: the mark
 * not taken, in the outer pass, and the full path's lookups after it. */
static void
test_marked_traced(void)
{
	struct dp_trace *t = rte_zmalloc("trace", sizeof *t,
					 RTE_CACHE_LINE_SIZE);
	uint8_t want[2][INNER_LEN];
	static const uint8_t path[][2] = {	/* kind, pass */
		{ DP_TRACE_RX, 0 }, { DP_TRACE_MARK, 1 },
		{ DP_TRACE_OUTPUT, 1 }, { DP_TRACE_TX, 1 },
	};

	CHECK(t != NULL, "trace records");
	if (!t)
		return;
	t->in_port = nic->idx;
	t->id = 1;
	t->limit = 2;
	t->tsc_hz = rte_get_tsc_hz();
	pmd->dp.trace = t;
	struct rte_mbuf *m[2] = {
		decap_frame(1, 0, V_GOOD, want[0]),
		decap_frame(1, 1, V_GOOD, want[1]),
	};
	fdir_model_rx_mark(model, 0, &m[0], 1);
	pmd_run(&m[0], 1);
	set_mark(m[1], pmd->dp.max_marks);	/* never allocated */
	pmd_run(&m[1], 1);
	pmd->dp.trace = NULL;

	const struct dp_trace_pkt *r = &t->pkts[0];
	bool same = t->n_taken == 2 && r->n == RTE_DIM(path);
	for (unsigned i = 0; same && i < RTE_DIM(path); i++)
		same = r->e[i].kind == path[i][0] && r->e[i].pass == path[i][1];
	CHECK(same, "marked: %u records, %u entries, not rx mark output tx",
	      t->n_taken, r->n);
	CHECK(r->n > 2 && r->e[1].u32 == mark_of_vm(1) && r->e[1].u64 &&
	      r->e[2].port == vm_port[1]->idx,
	      "marked: mark %u ufid %lu output %u", r->e[1].u32,
	      (unsigned long)r->e[1].u64, r->e[2].port);
	r = &t->pkts[1];
	CHECK(r->n > 3 && r->e[1].kind == DP_TRACE_MARK && !r->e[1].u64 &&
	      r->e[1].pass == 0 && r->e[2].kind == DP_TRACE_EXTRACT &&
	      r->e[r->n - 1].kind == DP_TRACE_TX && r->e[r->n - 1].pass == 1,
	      "stale mark: %u entries, not mark (not taken), extract ... tx",
	      r->n);
	unsigned got, ok = received(1, want, 2, &got);
	CHECK(got == 2 && ok == 2, "vm 1: %u frames, %u identical", got, ok);
	rte_free(t);
}

struct bogus {
	const char *what;
	int vm;			/* the frame's VM */
	enum variant v;
	int mark_vm;		/* use this VM's mark; -1: .mark */
	uint32_t mark;
	enum drop_reason drop;	/* DROP_N_REASONS: delivered */
	bool hit;		/* takes the mark path after all */
};

/* Each frame is sent twice, unmarked and then marked: same fate, same
 * bytes, and the marked one counted as a fallback (or, for the one good
 * frame here, as a mark hit). */
static void
test_bogus_marks(void)
{
	const struct bogus cases[] = {
		{ "mark 0 with the FDIR flag", 1, V_GOOD, -1, 0,
		  DROP_N_REASONS, false },
		{ "never-allocated mark", 1, V_GOOD, -1, 0, DROP_N_REASONS, false },
		{ "mark above max_marks", 2, V_GOOD, -1, 0, DROP_N_REASONS, false },
		{ "0xFFFFFFFF (E810: no match)", 3, V_GOOD, -1, 0xffffffffu,
		  DROP_N_REASONS, false },
		{ "VM 1's mark on VM 2's frame", 2, V_GOOD, 1, 0,
		  DROP_N_REASONS, false },
		{ "bad VXLAN flags", 0, V_BAD_FLAGS, 0, 0, DROP_BAD_VXLAN, false },
		{ "bad outer IPv4 checksum", 0, V_BAD_OUTER_CSUM, 0, 0,
		  DROP_BAD_VXLAN, false },
		{ "malformed inner IPv4", 1, V_BAD_INNER_IHL, 1, 0,
		  DROP_MALFORMED, false },
		{ "bytes past the datagram", 2, V_TRAILER, 2, 0,
		  DROP_N_REASONS, false },
		{ "VLAN-tagged outer", 3, V_OUTER_VLAN, 3, 0,
		  DROP_N_REASONS, false },
		/* not a fast shape, but well formed and VM 3's: the mark
		 * path takes it, through the generic inner parse */
		{ "inner ICMP", 3, V_ICMP, 3, 0, DROP_N_REASONS, true },
	};
	for (size_t c = 0; c < RTE_DIM(cases); c++) {
		const struct bogus *t = &cases[c];
		uint32_t mark = t->mark_vm >= 0 ? mark_of_vm(t->mark_vm)
						: t->mark;
		if (c == 1)		/* one no megaflow holds */
			for (mark = pmd->dp.max_marks; mark &&
			     pmd->dp.mark_table[mark]; mark--)
				;
		if (c == 2)
			mark = pmd->dp.max_marks + 1;
		uint64_t before[2] = { 0 }, fb[2], hits[2];
		uint8_t want[2][1][INNER_LEN];
		unsigned got[2], same[2];

		for (int marked = 0; marked < 2; marked++) {
			struct rte_mbuf *m = decap_frame(t->vm, (uint16_t)c,
							 t->v, want[marked][0]);
			if (marked)
				set_mark(m, mark);
			before[marked] = t->drop < DROP_N_REASONS ?
					 drops(t->drop) : 0;
			fb[marked] = pmd->stats.mark_fallbacks;
			hits[marked] = pmd->stats.mark_hits;
			pmd_run(&m, 1);
			same[marked] = received(t->vm, want[marked], 1,
						&got[marked]);
			fb[marked] = pmd->stats.mark_fallbacks - fb[marked];
			hits[marked] = pmd->stats.mark_hits - hits[marked];
			if (t->drop < DROP_N_REASONS)
				before[marked] = drops(t->drop) -
						 before[marked];
		}
		CHECK(hits[1] == t->hit && fb[1] == !t->hit && fb[0] == 0 &&
		      hits[0] == 0,
		      "%s: mark hits %lu fallbacks %lu", t->what,
		      (unsigned long)hits[1], (unsigned long)fb[1]);
		if (t->drop == DROP_N_REASONS)
			CHECK(got[0] == 1 && same[0] == 1 && got[1] == 1 &&
			      same[1] == 1, "%s: vm %d got %u/%u, identical "
			      "%u/%u", t->what, t->vm, got[0], got[1],
			      same[0], same[1]);
		else
			CHECK(got[0] == 0 && got[1] == 0 && before[0] == 1 &&
			      before[1] == 1, "%s: delivered %u/%u, dropped "
			      "%lu/%lu as %s", t->what, got[0], got[1],
			      (unsigned long)before[0],
			      (unsigned long)before[1],
			      drop_reason_name(t->drop));
		/* nobody else got it */
		for (int vm = 0; vm < N_VMS; vm++) {
			if (vm == t->vm)
				continue;
			unsigned g;
			received(vm, NULL, 0, &g);
			CHECK(g == 0, "%s: vm %d got %u frames", t->what, vm, g);
		}
	}
}

/* A megaflow leaves (rules flushed): its mark is cleared from the table at
 * once, so a frame the NIC still marks with it takes the full path; the
 * NIC rule goes, and the new megaflow gets a fresh mark (FIFO), not the
 * one packets in flight may still carry. */
static void
test_stale_mark(void)
{
	uint32_t old[N_VMS];
	for (int vm = 0; vm < N_VMS; vm++)
		old[vm] = mark_of_vm(vm);
	pmd_flush_flows(pmd);
	for (int vm = 0; vm < N_VMS; vm++)
		CHECK(mark_of_vm(vm) == 0 && !pmd->dp.mark_table[old[vm]],
		      "vm %d: mark %u still in the table", vm, old[vm]);

	uint8_t want[1][INNER_LEN];
	uint64_t fb = pmd->stats.mark_fallbacks, up = pmd->stats.upcalls;
	struct rte_mbuf *m = decap_frame(0, 99, V_GOOD, want[0]);
	set_mark(m, old[0]);
	pmd_run(&m, 1);
	unsigned got, same = received(0, want, 1, &got);
	CHECK(got == 1 && same == 1 && pmd->stats.mark_fallbacks == fb + 1 &&
	      pmd->stats.upcalls > up,
	      "stale mark: got %u identical %u fallbacks %lu upcalls %lu",
	      got, same, (unsigned long)(pmd->stats.mark_fallbacks - fb),
	      (unsigned long)(pmd->stats.upcalls - up));

	/* the DELs reach the model: it stops marking with the old marks */
	uint64_t end = rte_get_tsc_cycles() + 2 * rte_get_tsc_hz();
	struct fdir_model_stats ms;
	do {
		dp_offload_poll(&pmd->dp);
		fdir_model_get_stats(model, &ms);
		if (ms.installed <= 1)	/* VM 0's new one, maybe */
			break;
		usleep(500);
	} while (rte_get_tsc_cycles() < end);
	CHECK(ms.installed <= 1, "model still has %u rules", ms.installed);

	warm_up();
	CHECK(wait_offloaded(), "not offloaded again");
	for (int vm = 0; vm < N_VMS; vm++)
		for (int j = 0; j < N_VMS; j++)
			CHECK(mark_of_vm(vm) != old[j],
			      "vm %d got recycled mark %u at once", vm,
			      old[j]);
	test_marked();
}

/* The request ring full when megaflows leave: their DELs are refused,
 * queued by the PMD and retried from dp_offload_poll() until the NIC rules
 * are gone (a lost DEL would leave the rule and its mark for good). The
 * ring is filled with ADDs the rate limit holds back (non-canonical: they
 * fail once a token lets them through, installing nothing). */
static void
test_full_ring_dels(void)
{
	struct flow_key ok, om, ik, im;
	struct fdir_model_stats ms;
	unsigned n_fill = 0;

	seed_outer_flow(&ok, &om, 1, SEED_IP4(172, 1, 0, 100), 4789);
	seed_inner_flow(&ik, &im, 100, VNI, SEED_IP4(192, 1, 9, 0));
	im.nw_dst = RTE_BE32(0xffffff00);	/* a prefix: not canonical */
	/* full, and staying full: the thread has stopped draining it (its
	 * pending set is full too), not just been slow to run */
	for (int refused_at_once = 0; refused_at_once < 3 && n_fill < 1000;) {
		bool added = false;
		while (n_fill < 1000 && offload_mgr_request_add(
				mgr, 0, UINT64_MAX - n_fill, &ok, &om, &ik, &im,
				1) == 0) {
			n_fill++;
			added = true;
		}
		refused_at_once = added ? 0 : refused_at_once + 1;
		usleep(2000);
	}
	CHECK(n_fill < 1000, "the request ring never filled");
	fdir_model_get_stats(model, &ms);
	unsigned installed = ms.installed;
	pmd_flush_flows(pmd);
	CHECK(installed == N_VMS && pmd->dp.n_del_retry > 0,
	      "%u rules, %u DELs queued after the flush (ring full)",
	      installed, pmd->dp.n_del_retry);
	uint64_t end = rte_get_tsc_cycles() + 5 * rte_get_tsc_hz();
	do {
		dp_offload_poll(&pmd->dp);
		fdir_model_get_stats(model, &ms);
		usleep(1000);
	} while ((ms.installed || pmd->dp.n_del_retry) &&
		 rte_get_tsc_cycles() < end);
	CHECK(ms.installed == 0 && pmd->dp.n_del_retry == 0 &&
	      pmd->stats.offload_dels_lost == 0,
	      "after retries: %u rules left, %u DELs queued, %lu lost",
	      ms.installed, pmd->dp.n_del_retry,
	      (unsigned long)pmd->stats.offload_dels_lost);
	struct offload_mgr_stats st;
	offload_mgr_get_stats(mgr, &st);
	CHECK(st.marks_in_use == 0, "%u marks still in use", st.marks_in_use);
}

/* A frame with a good mark (the NIC rule does not match the outer MAC)
 * but addressed to another MAC: full path, dropped as foreign_mac, as
 * unmarked; never decapsulated. */
static void
test_foreign_mac_marked(void)
{
	struct rte_mbuf *m[2];
	uint32_t mark = mark_of_vm(1);
	uint64_t fm = drops(DROP_FOREIGN_MAC), hits = pmd->stats.mark_hits;
	unsigned got;

	CHECK(mark != 0, "vm1 not offloaded");
	for (int i = 0; i < 2; i++) {
		m[i] = decap_frame(1, 700 + i, V_GOOD, NULL);
		uint8_t *d = rte_pktmbuf_mtod(m[i], uint8_t *);
		d[0] = i ? 0xff : 0x02;		/* broadcast / foreign */
		if (i)
			memset(d, 0xff, 6);
		set_mark(m[i], mark);
	}
	pmd_run(m, 2);
	CHECK(drops(DROP_FOREIGN_MAC) - fm == 2, "foreign_mac %lu, want 2",
	      drops(DROP_FOREIGN_MAC) - fm);
	CHECK_EXPR(pmd->stats.mark_hits == hits);
	received(1, NULL, 0, &got);
	CHECK(got == 0, "vm1 got %u foreign-MAC frames", got);
}

/* A model mark on VM vm's frame: 0 = none. */
static uint32_t
model_mark(int vm)
{
	struct rte_mbuf *m = decap_frame(vm, 0, V_GOOD, NULL);
	uint32_t mark = 0;

	fdir_model_rx_mark(model, 0, &m, 1);
	if (m->ol_flags & RTE_MBUF_F_RX_FDIR_ID)
		mark = m->hash.fdir.hi;
	rte_pktmbuf_free(m);
	return mark;
}

/* n frames to vm, unmarked (the model is asked only when it matters) */
static void
send_vm(int vm, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		struct rte_mbuf *m = decap_frame(vm, (uint16_t)i, V_GOOD, NULL);
		struct pkt_batch b = { .n = 1, .pkts = { m } };
		dp_process_burst(&pmd->dp, nic, &b);	/* no completions */
		dp_tx_flush_all(&pmd->dp);
		unsigned got;
		received(vm, NULL, 0, &got);
	}
}

/* Weight admission, a 2-rule NIC: VM 2's hot megaflow evicts VM 0's cold
 * rule. The thread asks (EVICT) and waits: until the PMD has read it, VM
 * 0's rule is still on the NIC and still in the PMD's mark table; the PMD
 * clears its entry, then its DEL lets the rule go, and VM 2's rule takes
 * the freed mark. A frame to VM 0 the NIC marked with it before takes the
 * full path to VM 0, never VM 2's actions. */
static void
test_eviction_clears_first(void)
{
	pmd_flush_flows(pmd);
	while (offload_mgr_queue_depth(mgr) || pmd->dp.n_del_retry) {
		dp_offload_poll(&pmd->dp);
		usleep(1000);
	}
	dp_offload_detach(&pmd->dp);
	offload_mgr_destroy(mgr);
	fdir_model_free(model);
	struct fdir_model_limits lim = { .guar = 2, .n_ports = 1,
					 .n_rxq = 1, .pool = model_pool };
	model = fdir_model_create(UINT16_MAX, &lim, NULL);
	if (model && fdir_model_udp_tunnel_port_add(model, 4789)) {
		fdir_model_free(model);
		model = NULL;
	}
	struct offload_mgr_params mp = {
		.name = "test_evict", .engine = OFFLOAD_ENGINE_MODEL,
		.model = model, .n_pmds = 1, .max_marks = 2,
		.target = { .tunnel_port = ICE_FDIR_VXLAN_PORT },
		.admission = OFFLOAD_ADMIT_WEIGHT,
		.evict_min_resident_ms = 50,
	};
	mgr = model ? offload_mgr_create(&mp) : NULL;
	CHECK(mgr && dp_offload_attach(&pmd->dp, mgr) == 0, "weight manager");
	if (!mgr)
		return;
	send_vm(0, 1);
	send_vm(1, 1);
	uint64_t end = rte_get_tsc_cycles() + 2 * rte_get_tsc_hz();
	while ((!mark_of_vm(0) || !mark_of_vm(1)) &&
	       rte_get_tsc_cycles() < end) {
		dp_offload_poll(&pmd->dp);
		usleep(500);
	}
	uint32_t m0 = mark_of_vm(0);
	CHECK(m0 && mark_of_vm(1), "vm 0/1 not offloaded: %u %u", m0,
	      mark_of_vm(1));
	usleep(60 * 1000);	/* both rules past their minimum residency */
	send_vm(1, 20);
	send_vm(2, 200);	/* made, not offered: the table is full */
	CHECK(mark_of_vm(2) == 0, "vm 2 offloaded at its upcall");
	dp_expire_idle(&pmd->dp, rte_rdtsc());	/* rates; vm 2 offered */

	struct offload_mgr_stats st;
	end = rte_get_tsc_cycles() + 2 * rte_get_tsc_hz();
	do {
		offload_mgr_get_stats(mgr, &st);
		usleep(500);
	} while (!st.evictions && rte_get_tsc_cycles() < end);
	usleep(20 * 1000);
	CHECK(st.evictions == 1, "evictions %lu", (unsigned long)st.evictions);
	struct megaflow *f0 = pmd->dp.mark_table[m0];
	CHECK(f0 && model_mark(0) == m0,
	      "vm 0's rule (mark %u) gone before the PMD let go: table %p, "
	      "model marks %u", m0, (void *)f0, model_mark(0));

	dp_offload_poll(&pmd->dp);	/* EVICT: entry cleared, DEL sent */
	CHECK(!pmd->dp.mark_table[m0] && mark_of_vm(0) == 0,
	      "mark %u still mapped after the EVICT", m0);
	end = rte_get_tsc_cycles() + 2 * rte_get_tsc_hz();
	while (!mark_of_vm(2) && rte_get_tsc_cycles() < end) {
		dp_offload_poll(&pmd->dp);
		usleep(500);
	}
	CHECK(mark_of_vm(2) == m0 && model_mark(2) == m0 &&
	      model_mark(0) == 0, "vm 2: mark %u (model %u), want %u; vm 0 "
	      "model mark %u", mark_of_vm(2), model_mark(2), m0,
	      model_mark(0));

	/* VM 0's frame with the mark the NIC gave it before the destroy */
	uint8_t want[1][INNER_LEN];
	uint64_t fb = pmd->stats.mark_fallbacks, hits = pmd->stats.mark_hits;
	struct rte_mbuf *m = decap_frame(0, 7, V_GOOD, want[0]);
	set_mark(m, m0);
	pmd_run(&m, 1);
	unsigned got0, got2, same = received(0, want, 1, &got0);
	received(2, NULL, 0, &got2);
	CHECK(got0 == 1 && same == 1 && got2 == 0 &&
	      pmd->stats.mark_fallbacks == fb + 1 &&
	      pmd->stats.mark_hits == hits,
	      "stale mark: vm0 got %u (identical %u), vm2 got %u, fallbacks "
	      "%lu hits %lu", got0, same, got2,
	      (unsigned long)(pmd->stats.mark_fallbacks - fb),
	      (unsigned long)(pmd->stats.mark_hits - hits));
	/* and VM 2's, marked by the model, takes the mark path */
	m = decap_frame(2, 8, V_GOOD, want[0]);
	fdir_model_rx_mark(model, 0, &m, 1);
	pmd_run(&m, 1);
	same = received(2, want, 1, &got2);
	CHECK(got2 == 1 && same == 1 && pmd->stats.mark_hits == hits + 1,
	      "vm 2 marked: got %u identical %u hits %lu", got2, same,
	      (unsigned long)(pmd->stats.mark_hits - hits));
}

int
main(void)
{
	struct vxs_config cfg;

	if (pipeline_rig_up("test_mark_path", write_topology, &cfg, &pool,
			    &pmd, &nic, vm_port, N_VMS))
		return 1;

	/* the offload side as offload_init() sets it up for a model port,
	 * with no port: fdir_model_rx_mark() is called on crafted frames */
	struct fdir_model_limits lim = { .guar = 512, .n_ports = 1,
					 .n_rxq = 1 };
	model_pool = fdir_model_pool_create(0);
	lim.pool = model_pool;
	model = model_pool ? fdir_model_create(UINT16_MAX, &lim, NULL) : NULL;
	CHECK(model && !fdir_model_udp_tunnel_port_add(model, 4789), "tnl port");
	struct offload_mgr_params mp = { .name = "test_mark_path",
					 .engine = OFFLOAD_ENGINE_MODEL,
					 .model = model, .n_pmds = 1,
					 .target = { .tunnel_port =
						     ICE_FDIR_VXLAN_PORT },
					 .max_marks = 64,
					 /* a ring that test_full_ring_dels
					  * can fill */
					 .req_ring_size = 8,
					 .max_inserts_per_sec = 20 };
	mgr = model ? offload_mgr_create(&mp) : NULL;
	CHECK(mgr != NULL, "offload manager");

	if (!mgr)
		return unit_test_report();
	CHECK(dp_offload_attach(&pmd->dp, mgr) == 0 && pmd->dp.max_marks == 64,
	      "attach: max_marks %u", pmd->dp.max_marks);

	warm_up();
	CHECK(wait_offloaded(), "megaflows not offloaded");
	test_marked();
	test_marked_traced();
	test_bogus_marks();
	test_stale_mark();
	test_foreign_mac_marked();
	test_full_ring_dels();
	test_eviction_clears_first();

	pmd_flush_flows(pmd);
	while (mgr && offload_mgr_queue_depth(mgr))
		usleep(1000);
	dp_offload_detach(&pmd->dp);
	offload_mgr_destroy(mgr);
	fdir_model_free(model);
	fdir_model_pool_free(model_pool);
	dp_tx_flush_all(&pmd->dp);
	pipeline_rig_down(&cfg, pool);
	return unit_test_report();
}
