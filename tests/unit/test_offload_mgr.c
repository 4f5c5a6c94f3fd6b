/* SPDX-License-Identifier: BSD-3-Clause
 * The offload manager (drivers/offload/offload_mgr.c) on the software Flow
 * Director model: a fake PMD in the test thread asks for the seed's per-VM
 * decap megaflows, gets distinct marks back, and the model marks crafted
 * packets with them; non-canonical megaflows and capacity exhaustion fail
 * by reason with no mark used; DEL stops the marking and recycles the mark;
 * with a rate limit the busiest pending flows go first; a full request
 * ring never blocks.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>
#include <rte_version.h>
#include "fdir_model.h"
#include "offload_mgr.h"
#include "seed_flows.h"
#include "unit_test.h"

static struct rte_mempool *pool;


#define IP SEED_IP4
#define VTEP IP(172, 1, 0, 100)
#define NIC_PORT 1
#define VXLAN_OFPORT 100
#define VNI 1001

static void
outer_flow(struct flow_key *k, struct flow_key *m)
{
	seed_outer_flow(k, m, NIC_PORT, VTEP, 4789);
}

static void
inner_flow(struct flow_key *k, struct flow_key *m, rte_be32_t dst)
{
	seed_inner_flow(k, m, VXLAN_OFPORT, VNI, dst);
}

static int
add_vm(struct offload_mgr *m, uint16_t pmd, uint64_t id, unsigned vm,
       uint64_t pkts)
{
	struct flow_key ok, om, ik, im;

	outer_flow(&ok, &om);
	inner_flow(&ik, &im, IP(192, 1, (vm >> 8) & 0xff, vm & 0xff));
	return offload_mgr_request_add(m, pmd, id, &ok, &om, &ik, &im, pkts);
}

/* waits for exactly want completions on pmd (2 s at most) */
static unsigned
wait_compl(struct offload_mgr *m, uint16_t pmd, struct offload_completion *c,
	   unsigned want)
{
	unsigned got = 0;
	uint64_t end = rte_get_tsc_cycles() + 2 * rte_get_tsc_hz();

	while (got < want && rte_get_tsc_cycles() < end) {
		unsigned n = offload_mgr_poll_completions(m, pmd, c + got,
							  want - got);
		got += n;
		if (!n)
			usleep(200);
	}
	return got;
}

/* ---- packets ---- */

static uint32_t
put_eth(uint8_t *p)
{
	struct rte_ether_hdr *e = (struct rte_ether_hdr *)p;

	memset(e, 0, sizeof *e);
	e->dst_addr.addr_bytes[0] = 0x02;
	e->src_addr.addr_bytes[0] = 0x04;
	e->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	return sizeof *e;
}

static uint32_t
put_ipv4(uint8_t *p, rte_be32_t src, rte_be32_t dst, uint16_t payload)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)p;

	memset(ip, 0, sizeof *ip);
	ip->version_ihl = 0x45;
	ip->total_length = rte_cpu_to_be_16(20 + payload);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = src;
	ip->dst_addr = dst;
	return 20;
}

static struct rte_mbuf *
vxlan_pkt(rte_be32_t inner_dst)
{
	uint8_t b[256];
	uint32_t off = 0, inner = 8 + 14 + 20 + 18;

	off += put_eth(b + off);
	off += put_ipv4(b + off, IP(172, 1, 0, 1), VTEP, 8 + inner);
	struct rte_udp_hdr *u = (struct rte_udp_hdr *)(b + off);
	u->src_port = RTE_BE16(5555);
	u->dst_port = RTE_BE16(4789);
	u->dgram_len = rte_cpu_to_be_16(8 + inner);
	u->dgram_cksum = 0;
	off += 8;
	struct rte_vxlan_hdr *v = (struct rte_vxlan_hdr *)(b + off);
	v->vx_flags = RTE_BE32(0x08000000);
	v->vx_vni = rte_cpu_to_be_32(VNI << 8);
	off += 8;
	off += put_eth(b + off);
	off += put_ipv4(b + off, IP(10, 0, 0, 1), inner_dst, 18);
	memset(b + off, 0xab, 18);
	off += 18;

	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	if (m)
		memcpy(rte_pktmbuf_append(m, off), b, off);
	return m;
}

/* the mark the model gives a packet to VM vm: 0 = none */
static uint32_t
mark_of(struct fdir_model *md, unsigned vm)
{
	struct rte_mbuf *p = vxlan_pkt(IP(192, 1, 0, vm));
	uint32_t mark = 0;

	if (!p)
		return UINT32_MAX;
	fdir_model_rx_mark(md, 0, &p, 1);
	if ((p->ol_flags & (RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID)) ==
	    (RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID))
		mark = p->hash.fdir.hi;
	rte_pktmbuf_free(p);
	return mark;
}

static struct fdir_model *
model(uint32_t guar, uint32_t pool_size, struct fdir_model_pool **pp)
{
	struct fdir_model_limits lim = { .guar = guar, .n_rxq = 8 };

	*pp = fdir_model_pool_create(pool_size);
	lim.pool = *pp;
	return fdir_model_create(UINT16_MAX, &lim, NULL);
}

static struct offload_mgr *
mgr(struct fdir_model *md, uint32_t max_marks, uint32_t rate,
    uint32_t ring, uint16_t n_pmds)
{
	struct offload_mgr_params p = {
		.name = "test",
		.engine = OFFLOAD_ENGINE_MODEL,
		.eth_port_id = UINT16_MAX,
		.model = md,
		.abi = RTE_VERSION >= RTE_VERSION_NUM(23, 11, 0, 0) ?
		       ICE_FDIR_DPDK_2311 : ICE_FDIR_DPDK_2211,
		.max_marks = max_marks,
		.max_inserts_per_sec = rate,
		.req_ring_size = ring,
		.compl_ring_size = 64,
		.n_pmds = n_pmds,
	};
	return offload_mgr_create(&p);
}

/* ---- tests ---- */

static void
test_seed_vms(void)
{
	struct fdir_model_pool *pp;
	struct fdir_model *md = model(64, 64, &pp);
	struct offload_mgr *m = mgr(md, 1024, 0, 64, 2);
	struct offload_completion c[16];
	uint32_t mark[8] = { 0 };
	struct offload_mgr_stats st;

	CHECK(md && m, "create");
	if (!md || !m)
		return;
	/* VMs 1..4 from two PMDs: megaflow id 100 + vm on pmd vm % 2 */
	for (unsigned vm = 1; vm <= 4; vm++)
		CHECK(add_vm(m, vm % 2, 100 + vm, vm, 10 * vm) == 0, "add %u",
		      vm);
	for (uint16_t pmd = 0; pmd < 2; pmd++) {
		unsigned n = wait_compl(m, pmd, c, 2);
		CHECK(n == 2, "pmd %u: %u completions", pmd, n);
		for (unsigned i = 0; i < n; i++) {
			unsigned vm = (unsigned)(c[i].megaflow_id - 100);
			CHECK(vm >= 1 && vm <= 4 && vm % 2 == pmd,
			      "pmd %u got megaflow %lu", pmd,
			      (unsigned long)c[i].megaflow_id);
			CHECK(c[i].op == OFFLOAD_OP_ADD &&
			      c[i].result == OFFLOAD_OK && c[i].pmd == pmd,
			      "vm %u: op %u result %s", vm, c[i].op,
			      offload_result_name(c[i].result));
			CHECK(c[i].mark != 0 &&
			      c[i].mark != ICE_FDIR_MARK_INVALID,
			      "mark %u", c[i].mark);
			if (vm >= 1 && vm <= 4)
				mark[vm] = c[i].mark;
		}
	}
	for (unsigned a = 1; a <= 4; a++)
		for (unsigned b = a + 1; b <= 4; b++)
			CHECK(mark[a] != mark[b], "marks %u %u equal", a, b);
	/* the model marks each VM's packets with exactly its mark */
	for (unsigned vm = 1; vm <= 4; vm++)
		CHECK(mark_of(md, vm) == mark[vm], "vm %u marked %u want %u",
		      vm, mark_of(md, vm), mark[vm]);
	CHECK(mark_of(md, 9) == 0, "unknown VM marked");

	/* not canonical: inner nw_dst /24 */
	struct flow_key ok, om, ik, im;
	outer_flow(&ok, &om);
	inner_flow(&ik, &im, IP(192, 1, 0, 0));
	im.nw_dst = RTE_BE32(0xffffff00);
	CHECK(offload_mgr_request_add(m, 0, 200, &ok, &om, &ik, &im, 1000) ==
	      0, "add /24");
	CHECK(wait_compl(m, 0, c, 1) == 1 && c[0].megaflow_id == 200 &&
	      c[0].result == OFFLOAD_FAIL_NOT_CANONICAL && c[0].mark == 0,
	      "/24: result %s mark %u", offload_result_name(c[0].result),
	      c[0].mark);
	offload_mgr_get_stats(m, &st);
	CHECK(st.marks_in_use == 4 && st.installed == 4,
	      "after /24: marks %u installed %lu", st.marks_in_use,
	      (unsigned long)st.installed);
	CHECK(st.failed[OFFLOAD_FAIL_NOT_CANONICAL] == 1, "not canonical %lu",
	      (unsigned long)st.failed[OFFLOAD_FAIL_NOT_CANONICAL]);

	/* DEL VM 1 (pmd 1): the model stops marking, the mark comes back */
	CHECK(offload_mgr_request_del(m, 1, 101, mark[1]) == 0, "del");
	CHECK(wait_compl(m, 1, c, 1) == 1 && c[0].op == OFFLOAD_OP_DEL &&
	      c[0].megaflow_id == 101 && c[0].mark == mark[1],
	      "del completion");
	CHECK(mark_of(md, 1) == 0, "vm 1 still marked after DEL");
	CHECK(mark_of(md, 2) == mark[2], "vm 2 lost its mark");
	/* freed marks queue up behind the never-used ones (FIFO): the mark
	 * just freed is not handed straight to another flow */
	CHECK(add_vm(m, 0, 105, 5, 1) == 0, "add vm 5");
	uint32_t mark5 = 0;
	CHECK(wait_compl(m, 0, c, 1) == 1 && c[0].result == OFFLOAD_OK &&
	      (mark5 = c[0].mark) != 0 && mark5 != mark[1] &&
	      mark5 != mark[2] && mark5 != mark[3] && mark5 != mark[4],
	      "vm 5: %s mark %u, want a fresh one (not %u)",
	      offload_result_name(c[0].result), c[0].mark, mark[1]);
	CHECK(mark_of(md, 5) == mark5, "vm 5 not marked with %u", mark5);

	/* DEL with the mark not known yet (0): found by megaflow id */
	CHECK(offload_mgr_request_del(m, 0, 105, 0) == 0, "del by id");
	CHECK(wait_compl(m, 0, c, 1) == 1 && c[0].op == OFFLOAD_OP_DEL &&
	      c[0].mark == mark5, "del by id completion");
	CHECK(mark_of(md, 5) == 0, "vm 5 still marked");

	offload_mgr_get_stats(m, &st);
	CHECK(st.installed == 3 && st.marks_in_use == 3 &&
	      st.destroyed == 2 && st.queue_depth == 0,
	      "stats: installed %lu marks %u destroyed %lu depth %u",
	      (unsigned long)st.installed, st.marks_in_use,
	      (unsigned long)st.destroyed, st.queue_depth);
	CHECK(st.lat_samples == 5 && st.lat_p50_us <= st.lat_p99_us &&
	      st.lat_p99_us <= st.lat_max_us && st.lat_max_us > 0,
	      "latency n %lu p50 %.2f p99 %.2f max %.2f",
	      (unsigned long)st.lat_samples, st.lat_p50_us, st.lat_p99_us,
	      st.lat_max_us);
	printf("seed: marks %u %u %u %u, insert p50 %.2f us p99 %.2f us "
	       "max %.2f us\n", mark[1], mark[2], mark[3], mark[4],
	       st.lat_p50_us, st.lat_p99_us, st.lat_max_us);

	/* destroy removes every rule */
	offload_mgr_destroy(m);
	struct fdir_model_stats ms;
	fdir_model_get_stats(md, &ms);
	CHECK(ms.installed == 0, "model still has %u rules", ms.installed);
	CHECK(mark_of(md, 2) == 0, "marked after destroy");
	fdir_model_free(md);
	fdir_model_pool_free(pp);
}

static void
test_capacity(void)
{
	struct fdir_model_pool *pp;
	/* 2 guaranteed + 1 in the shared pool */
	struct fdir_model *md = model(2, 1, &pp);
	struct offload_mgr *m = mgr(md, 1024, 0, 64, 1);
	struct offload_completion c[16];
	struct offload_mgr_stats st;
	struct fdir_model_stats ms;

	CHECK(md && m, "create");
	if (!md || !m)
		return;
	for (unsigned vm = 1; vm <= 6; vm++)
		add_vm(m, 0, vm, vm, 100 - vm);	/* installed in vm order */
	unsigned n = wait_compl(m, 0, c, 6), ok = 0, cap = 0;
	CHECK(n == 6, "%u completions", n);
	for (unsigned i = 0; i < n; i++) {
		if (c[i].result == OFFLOAD_OK)
			ok++;
		else if (c[i].result == OFFLOAD_FAIL_CAPACITY && !c[i].mark)
			cap++;
	}
	CHECK(ok == 3 && cap == 3, "ok %u capacity %u", ok, cap);
	fdir_model_get_stats(md, &ms);
	offload_mgr_get_stats(m, &st);
	CHECK(ms.installed == 3 && st.installed == 3 && st.marks_in_use == 3,
	      "model %u mgr %lu marks %u", ms.installed,
	      (unsigned long)st.installed, st.marks_in_use);
	CHECK(st.failed[OFFLOAD_FAIL_CAPACITY] == 3, "capacity %lu",
	      (unsigned long)st.failed[OFFLOAD_FAIL_CAPACITY]);
	for (unsigned vm = 4; vm <= 6; vm++)
		CHECK(mark_of(md, vm) == 0, "vm %u marked beyond capacity", vm);
	offload_mgr_destroy(m);
	fdir_model_free(md);
	fdir_model_pool_free(pp);

	/* mark ids exhausted: capacity too, nothing installed beyond */
	md = model(64, 64, &pp);
	m = mgr(md, 2, 0, 64, 1);
	for (unsigned vm = 1; vm <= 3; vm++)
		add_vm(m, 0, vm, vm, 100 - vm);
	n = wait_compl(m, 0, c, 3);
	/* a mark is taken when the ADD is queued: the third is refused
	 * before the first two are installed */
	ok = cap = 0;
	for (unsigned i = 0; i < n; i++) {
		if (c[i].result == OFFLOAD_OK && c[i].megaflow_id <= 2)
			ok++;
		else if (c[i].result == OFFLOAD_FAIL_CAPACITY &&
			 c[i].mark == 0 && c[i].megaflow_id == 3)
			cap++;
	}
	CHECK(n == 3 && ok == 2 && cap == 1,
	      "max_marks 2: %u completions, ok %u capacity %u", n, ok, cap);
	fdir_model_get_stats(md, &ms);
	CHECK(ms.installed == 2, "model has %u", ms.installed);
	offload_mgr_destroy(m);
	fdir_model_free(md);
	fdir_model_pool_free(pp);
}

static void
test_priority(void)
{
	struct fdir_model_pool *pp;
	struct fdir_model *md = model(64, 64, &pp);
	/* 20 inserts/s, burst 1: one every 50 ms */
	struct offload_mgr *m = mgr(md, 1024, 20, 64, 1);
	struct offload_completion c[16];
	struct offload_mgr_stats st;

	CHECK(md && m, "create");
	if (!md || !m)
		return;
	/* a first flow takes the bucket's only token */
	add_vm(m, 0, 1, 1, 1);
	CHECK(wait_compl(m, 0, c, 1) == 1 && c[0].result == OFFLOAD_OK,
	      "blocker");
	/* 10 flows with different packet counts, in a scrambled order */
	for (unsigned i = 0; i < 10; i++) {
		uint64_t pk = ((i * 7) % 10 + 1) * 100;
		CHECK(add_vm(m, 0, 10 + i, 10 + i, pk) == 0, "add %u", i);
	}
	unsigned n = wait_compl(m, 0, c, 10);
	CHECK(n == 10, "%u completions", n);
	uint64_t prev = UINT64_MAX;
	bool ordered = true;
	for (unsigned i = 0; i < n; i++) {
		unsigned k = (unsigned)(c[i].megaflow_id - 10);
		uint64_t pk = ((k * 7) % 10 + 1) * 100;
		if (pk > prev || c[i].result != OFFLOAD_OK)
			ordered = false;
		prev = pk;
	}
	CHECK(ordered, "not busiest first");
	offload_mgr_get_stats(m, &st);
	CHECK(st.rate_deferred >= 9, "deferred %lu",
	      (unsigned long)st.rate_deferred);
	CHECK(st.installed == 11, "installed %lu", (unsigned long)st.installed);

	/* asked for at their first packet (count 1 each, as a PMD's upcall
	 * does), then refreshed with what they carried since: the order
	 * follows the refreshed counts */
	add_vm(m, 0, 2, 2, 1);
	CHECK(wait_compl(m, 0, c, 1) == 1 && c[0].result == OFFLOAD_OK,
	      "blocker 2");
	for (unsigned i = 0; i < 8; i++)
		CHECK(add_vm(m, 0, 30 + i, 30 + i, 1) == 0, "add %u", i);
	for (unsigned i = 0; i < 8; i++)
		CHECK(offload_mgr_request_refresh(m, 0, 30 + i,
						  ((i * 5) % 8 + 1) * 10) == 0,
		      "refresh %u", i);
	CHECK(offload_mgr_queue_depth(m) > 0, "no backlog seen");
	/* a refresh for a megaflow with no pending ADD changes nothing */
	CHECK(offload_mgr_request_refresh(m, 0, 999, 1000000) == 0,
	      "refresh unknown");
	n = wait_compl(m, 0, c, 8);
	CHECK(n == 8, "%u completions after refresh", n);
	prev = UINT64_MAX;
	ordered = true;
	for (unsigned i = 0; i < n; i++) {
		unsigned k = (unsigned)(c[i].megaflow_id - 30);
		uint64_t pk = ((k * 5) % 8 + 1) * 10;
		if (k >= 8 || pk > prev || c[i].result != OFFLOAD_OK)
			ordered = false;
		prev = pk;
	}
	CHECK(ordered, "refreshed counts not busiest first");
	CHECK(wait_compl(m, 0, c, 1) == 0, "refresh made a completion");
	offload_mgr_get_stats(m, &st);
	CHECK(st.installed == 20, "installed %lu", (unsigned long)st.installed);
	offload_mgr_destroy(m);
	fdir_model_free(md);
	fdir_model_pool_free(pp);
}

static void
test_full_ring(void)
{
	struct fdir_model_pool *pp;
	struct fdir_model *md = model(64, 64, &pp);
	/* 1 insert/s and a ring of 4: the thread's pending set fills, then
	 * the ring, then requests are dropped */
	struct offload_mgr *m = mgr(md, 1024, 1, 4, 1);
	struct offload_mgr_stats st;
	unsigned dropped = 0, other = 0;

	CHECK(md && m, "create");
	if (!md || !m)
		return;
	uint64_t t0 = rte_get_tsc_cycles();
	for (unsigned i = 0; i < 300; i++) {
		int rc = add_vm(m, 0, 1000 + i, 1 + i, i);
		if (rc == -ENOBUFS)
			dropped++;
		else if (rc != 0)
			other++;
	}
	double ms = (rte_get_tsc_cycles() - t0) * 1000.0 / rte_get_tsc_hz();
	offload_mgr_get_stats(m, &st);
	CHECK(other == 0, "%u unexpected errors", other);
	CHECK(dropped > 0 && st.dropped_requests == dropped,
	      "dropped %u, counted %lu", dropped,
	      (unsigned long)st.dropped_requests);
	CHECK(st.requests + st.dropped_requests == 300, "requests %lu",
	      (unsigned long)st.requests);
	CHECK(ms < 500, "300 requests took %.1f ms", ms);
	CHECK(st.queue_depth > 0 && st.installed <= 2,
	      "depth %u installed %lu", st.queue_depth,
	      (unsigned long)st.installed);
	printf("full ring: %u of 300 dropped in %.2f ms, queue depth %u\n",
	       dropped, ms, st.queue_depth);
	/* the thread moves the ring into its pending set (2 x ring size),
	 * so more fit after a while, and no more than that */
	unsigned acc = 0;
	for (unsigned r = 0; r < 20; r++) {
		usleep(2000);
		for (unsigned i = 0; i < 10; i++)
			acc += add_vm(m, 0, 2000 + r * 10 + i, 1 + i, i) == 0;
	}
	offload_mgr_get_stats(m, &st);
	CHECK(acc > 4 && st.queue_depth > 4 && st.queue_depth <= 32 + 4,
	      "after drain: %u accepted, depth %u", acc, st.queue_depth);
	t0 = rte_get_tsc_cycles();
	offload_mgr_destroy(m);	/* does not wait for the rate limit */
	ms = (rte_get_tsc_cycles() - t0) * 1000.0 / rte_get_tsc_hz();
	CHECK(ms < 500, "destroy took %.1f ms", ms);
	fdir_model_free(md);
	fdir_model_pool_free(pp);
}

static void
test_cancel(void)
{
	struct fdir_model_pool *pp;
	struct fdir_model *md = model(64, 64, &pp);
	struct offload_mgr *m = mgr(md, 1024, 1, 64, 1);
	struct offload_completion c[4];
	struct fdir_model_stats ms;

	CHECK(md && m, "create");
	if (!md || !m)
		return;
	add_vm(m, 0, 1, 1, 1);		/* takes the token */
	CHECK(wait_compl(m, 0, c, 1) == 1, "first");
	add_vm(m, 0, 2, 2, 1);		/* waits ~1 s for a token */
	CHECK(offload_mgr_request_del(m, 0, 2, 0) == 0, "del pending");
	CHECK(wait_compl(m, 0, c, 1) == 1 && c[0].megaflow_id == 2 &&
	      c[0].result == OFFLOAD_FAIL_CANCELLED, "cancelled: %s",
	      offload_result_name(c[0].result));
	fdir_model_get_stats(md, &ms);
	CHECK(ms.installed == 1, "model has %u", ms.installed);
	offload_mgr_destroy(m);
	fdir_model_free(md);
	fdir_model_pool_free(pp);
}

int
main(int argc, char **argv)
{
	(void)argc, (void)argv;
	if (unit_test_eal_init("test_offload_mgr", "128"))
		return 1;
	pool = rte_pktmbuf_pool_create("ofl_test", 256, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (!pool) {
		printf("pool create failed\n0 passed, 1 failed\n");
		return 1;
	}
	test_seed_vms();
	test_capacity();
	test_priority();
	test_full_ring();
	test_cancel();
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return unit_test_report();
}
