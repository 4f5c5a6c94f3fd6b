/* SPDX-License-Identifier: BSD-3-Clause
 * IPv4 and IPv6 fragments through sg() and ct() in the real pipeline
 * (pipeline_rig.h: config_load, ports on net_ring, one PMD driven from
 * this thread), the store as the daemon has it (dp_ipf.h):
 *  - sg(allow): fragments held until the datagram is whole, then all of
 *    them sent, unchanged and in order, one burst or many, any order;
 *  - sg(deny): a new datagram's fragments all dropped (sg_deny), a
 *    reply's all let by (the session the other way);
 *  - ct(commit,table=1): every fragment of a 64 KB datagram (45, more
 *    than a burst) recirculated with the reassembled packet's ct_state
 *    (table 1 marks +new and +est+rpl in dl_src), both ways;
 *  - refused (too small) and invalid (overlap) fragments: +inv, dropped
 *    by sg() (sg_invalid); expired ones dropped by the PMD's drain
 *    (ipf_expired), purged ones (flush) as ipf_purged; reassembly off:
 *    every fragment +inv, as before;
 *  - IPv6 (the same rules for ipv6): the same through sg() and
 *    ct(table=) (a 64 KB datagram, 54 fragments, each recirculated with
 *    its own key: nw_proto 44 past the first), too small and overlap
 *    +inv, expired, IPv6 reassembly off while IPv4's is on; an atomic
 *    fragment (offset 0, M clear) is no fragment: never held; a
 *    fragment going on gets the key the flow extract gives it (nw_frag,
 *    nw_proto, ports), both families;
 *  - after every step: received + copies = sent + consumed + dropped +
 *    in flight + held (dp_stats.h), held the store's count.
 */
#include <stdio.h>
#include <string.h>
#include <rte_ethdev.h>
#include "conntrack.h"
#include "ct_ipf.h"
#include "dp_ipf.h"
#include "dp_stages.h"
#include "miniflow.h"
#include "unit_test.h"
#include "pipeline_rig.h"
#include "frag_build.h"

#define N_VMS 4
#define A 0x0a000001u	/* vm0 and vm2's address */
#define B 0x0a000002u	/* vm1 and vm3's */
static const uint8_t A6[16] = { 0xfd, [15] = 1 };
static const uint8_t B6[16] = { 0xfd, [15] = 2 };
#define PIECE6 1232	/* 1280 - 40 - 8 */

static struct rte_mempool *pool;
static struct port *nic, *vm[N_VMS];
static struct pmd *pmd;
static struct ct_ipf *ipf;

static const struct rte_ether_addr new_mark = { { 2, 0, 0, 0, 0, 1 } },
	est_mark = { { 2, 0, 0, 0, 0, 2 } };

static int
write_topology(char *path, size_t len)
{
	FILE *f = pipeline_rig_topology(path, len, "test_dp_ipf", "");
	static const char *const flows[] = {
		"table=0,priority=10,ip,in_port=vm0,"
		"actions=sg(allow,zone=1),output:vm1",
		"table=0,priority=10,ip,in_port=vm1,"
		"actions=sg(deny,zone=1),output:vm0",
		"table=0,priority=10,ip,in_port=vm2,"
		"actions=ct(commit,zone=2,table=1)",
		"table=0,priority=10,ip,in_port=vm3,"
		"actions=ct(commit,zone=2,table=1)",
		"table=1,priority=100,ct_state=+trk+new,ip,in_port=vm2,"
		"actions=mod_dl_src:02:00:00:00:00:01,output:vm3",
		"table=1,priority=100,ct_state=+trk+est+rpl,ip,in_port=vm3,"
		"actions=mod_dl_src:02:00:00:00:00:02,output:vm2",
		"table=0,priority=10,ipv6,in_port=vm0,"
		"actions=sg(allow,zone=1),output:vm1",
		"table=0,priority=10,ipv6,in_port=vm1,"
		"actions=sg(deny,zone=1),output:vm0",
		"table=0,priority=10,ipv6,in_port=vm2,"
		"actions=ct(commit,zone=2,table=1)",
		"table=0,priority=10,ipv6,in_port=vm3,"
		"actions=ct(commit,zone=2,table=1)",
		"table=1,priority=100,ct_state=+trk+new,ipv6,in_port=vm2,"
		"actions=mod_dl_src:02:00:00:00:00:01,output:vm3",
		"table=1,priority=100,ct_state=+trk+est+rpl,ipv6,in_port=vm3,"
		"actions=mod_dl_src:02:00:00:00:00:02,output:vm2",
		"table=1,priority=10,actions=drop",
	};

	return pipeline_rig_finish(f, "dpipf", N_VMS, flows, RTE_DIM(flows));
}

static void
run_on(struct port *in, struct rte_mbuf **pkts, uint16_t n)
{
	for (uint16_t base = 0; base < n; base += BATCH_MAX) {
		struct pkt_batch b = { .n = RTE_MIN(n - base, BATCH_MAX) };
		memcpy(b.pkts, pkts + base, b.n * sizeof pkts[0]);
		dp_process_burst(&pmd->dp, in, &b);
	}
	dp_tx_flush_all(&pmd->dp);
}

/* What the switch sent on p since the last call, into got[] (the caller
 * frees); returns how many. */
static uint16_t
sent_on(struct port *p, struct rte_mbuf *got[], uint16_t max)
{
	uint16_t n = 0, k;

	while (n < max &&
	       (k = rte_eth_rx_burst(p->eth_port_id, 0, got + n,
				     RTE_MIN(max - n, 32))))
		n += k;
	return n;
}

static void
free_sent(struct port *p)
{
	struct rte_mbuf *got[64];
	uint16_t n;

	while ((n = sent_on(p, got, 64)))
		rte_pktmbuf_free_bulk(got, n);
}

static uint64_t
drops(enum drop_reason r)
{
	return pmd->stats.drops[r];
}

static uint32_t
held_now(void)
{
	struct ct_ipf_status s;
	ct_ipf_get_status(ipf, &s);
	return s.nfrag;
}

/* The equation, with the store's count as the PMD's held term. */
static void
balanced(const char *where)
{
	struct pmd_accounting a;
	pmd_accounting_read(pmd, &a);
	CHECK(pmd_accounting_balanced(&a) && a.held == (int64_t)held_now(),
	      "%s: received %lu + copies %lu != sent %lu + consumed %lu + "
	      "dropped %lu + in flight %lu + held %ld (store: %u)", where,
	      a.received, a.copies, a.sent, a.consumed, a.dropped,
	      a.in_flight, (long)a.held, held_now());
}

static void
dgram(struct frag_dgram *d, uint32_t src, uint32_t dst, uint16_t sp,
      uint16_t dp, uint16_t id, uint32_t len)
{
	frag_dgram_udp(d, src, dst, sp, dp, id, len);
	d->src_mac = (struct rte_ether_addr){ { 2, 0xaa, 0, 0, 0, 1 } };
	d->dst_mac = (struct rte_ether_addr){ { 2, 0xbb, 0, 0, 0, 2 } };
}

/* got[0..n) are d's fragments, whole, unchanged but for dl_src (mark:
 * NULL unchanged); freed. */
static bool
got_dgram(struct rte_mbuf *got[], uint16_t n, const struct frag_dgram *d,
	  const struct rte_ether_addr *mark, const char *what)
{
	uint8_t *l4 = malloc(d->l4_len);
	struct rte_ipv4_hdr h;
	bool ok = frag_glue(got, n, l4, d->l4_len, &h) &&
		  !memcmp(l4, d->ip + 20, d->l4_len);

	CHECK(ok, "%s: %u fragments do not make the datagram", what, n);
	for (uint16_t i = 0; mark && i < n; i++) {
		const struct rte_ether_hdr *e = rte_pktmbuf_mtod(got[i],
					const struct rte_ether_hdr *);
		if (!rte_is_same_ether_addr(&e->src_addr, mark)) {
			CHECK(false, "%s: fragment %u without the state's "
			      "mark", what, i);
			ok = false;
			break;
		}
	}
	free(l4);
	rte_pktmbuf_free_bulk(got, n);
	return ok;
}

static void
test_sg_allow(void)
{
	struct frag_dgram d;
	struct rte_mbuf *f[FRAG_MAX], *got[64];
	uint64_t stored = pmd->stats.ipf_stored;

	dgram(&d, A, B, 5000, 53, 1, 4000);
	uint16_t n = frag_cut(&d, pool, 1480, f);
	/* one burst each: nothing leaves before the last */
	run_on(vm[0], &f[0], 1);
	run_on(vm[0], &f[2], 1);
	CHECK_EXPR(sent_on(vm[1], got, 64) == 0);
	CHECK_EXPR(held_now() == 2);
	balanced("two held");
	run_on(vm[0], &f[1], 1);
	uint16_t k = sent_on(vm[1], got, 64);
	CHECK(k == n, "sent %u of %u", k, n);
	got_dgram(got, k, &d, NULL, "sg(allow), bursts");
	CHECK_EXPR(pmd->stats.ipf_stored - stored == n);
	balanced("sg(allow) done");

	/* all in one burst, reversed */
	n = frag_cut(&d, pool, 1480, f);
	struct rte_mbuf *rev[FRAG_MAX];
	for (uint16_t i = 0; i < n; i++)
		rev[i] = f[n - 1 - i];
	run_on(vm[0], rev, n);
	k = sent_on(vm[1], got, 64);
	CHECK(k == n, "one burst: sent %u of %u", k, n);
	got_dgram(got, k, &d, NULL, "sg(allow), one burst");
	balanced("one burst");
	frag_dgram_free(&d);
}

static void
test_sg_deny(void)
{
	struct frag_dgram d;
	struct rte_mbuf *f[FRAG_MAX], *got[64];
	uint64_t deny = drops(DROP_SG_DENY);

	/* vm1 opens nothing under sg(deny): every fragment dropped */
	dgram(&d, B, A, 6000, 53, 2, 4000);
	uint16_t n = frag_cut(&d, pool, 1480, f);
	run_on(vm[1], f, n);
	CHECK_EXPR(sent_on(vm[0], got, 64) == 0);
	CHECK(drops(DROP_SG_DENY) - deny == n, "sg_deny %lu",
	      drops(DROP_SG_DENY) - deny);
	balanced("sg(deny) new");
	frag_dgram_free(&d);

	/* the answer to vm0's datagram (5000 -> 53) passes, fragmented */
	dgram(&d, B, A, 53, 5000, 3, 3000);
	n = frag_cut(&d, pool, 1480, f);
	run_on(vm[1], f, n);
	uint16_t k = sent_on(vm[0], got, 64);
	CHECK(k == n, "reply: sent %u of %u", k, n);
	got_dgram(got, k, &d, NULL, "sg(deny), reply");
	balanced("sg(deny) reply");
	frag_dgram_free(&d);
}

/* 64 KB each way through ct(commit,table=1): 45 fragments recirculated
 * with the state of the whole: +new one way, +est+rpl back. */
static void
test_ct_recirc(void)
{
	struct frag_dgram d;
	struct rte_mbuf *f[FRAG_MAX], *got[64];

	dgram(&d, A, B, 7000, 9, 4, 65507);
	uint16_t n = frag_cut(&d, pool, 1480, f);
	CHECK_EXPR(n == 45);
	run_on(vm[2], f, n);
	uint16_t k = sent_on(vm[3], got, 64);
	CHECK(k == n, "ct: sent %u of %u", k, n);
	got_dgram(got, k, &d, &new_mark, "ct(table=) +new");
	balanced("ct +new");
	frag_dgram_free(&d);

	dgram(&d, B, A, 9, 7000, 5, 65507);
	n = frag_cut(&d, pool, 1480, f);
	run_on(vm[3], f, n);
	k = sent_on(vm[2], got, 64);
	CHECK(k == n, "ct reply: sent %u of %u", k, n);
	got_dgram(got, k, &d, &est_mark, "ct(table=) +est+rpl");
	balanced("ct +est+rpl");
	frag_dgram_free(&d);
}

/* What the store refuses or gives up: +inv under sg(), or dropped. */
static void
test_refused_expired(void)
{
	struct frag_dgram d;
	struct rte_mbuf *f[FRAG_MAX], *m;
	uint64_t inv = drops(DROP_SG_INVALID), exp = drops(DROP_IPF_EXPIRED);
	uint64_t pur = drops(DROP_IPF_PURGED);

	dgram(&d, A, B, 8000, 53, 6, 4000);
	/* too small: +inv */
	m = frag_piece(&d, pool, 0, 600, true);
	run_on(vm[0], &m, 1);
	CHECK_EXPR(drops(DROP_SG_INVALID) - inv == 1);
	/* [0,1480) held, then [8,1488): the datagram is invalid, both +inv */
	m = frag_piece(&d, pool, 0, 1480, true);
	run_on(vm[0], &m, 1);
	m = frag_piece(&d, pool, 8, 1480, true);
	run_on(vm[0], &m, 1);
	CHECK(drops(DROP_SG_INVALID) - inv == 3, "sg_invalid %lu",
	      drops(DROP_SG_INVALID) - inv);
	balanced("invalid");

	/* a datagram never finished: expired, dropped by the PMD */
	uint16_t n = frag_cut(&d, pool, 1480, f);
	run_on(vm[0], f, 2);
	CHECK_EXPR(held_now() == 2);
	ct_ipf_sweep(ipf, rte_rdtsc() + 16 * rte_get_tsc_hz(), 100);
	dp_ipf_drain(&pmd->dp);
	CHECK(drops(DROP_IPF_EXPIRED) - exp == 2, "ipf_expired %lu",
	      drops(DROP_IPF_EXPIRED) - exp);
	CHECK_EXPR(held_now() == 0);
	balanced("expired");
	/* purged (flush-conntrack): ipf_purged */
	run_on(vm[0], &f[2], 1);
	ct_ipf_purge_all(ipf);
	dp_ipf_drain(&pmd->dp);
	CHECK_EXPR(drops(DROP_IPF_PURGED) - pur == 1 && held_now() == 0);
	balanced("purged");
	/* reassembly off: fragments are +inv, as before */
	ct_ipf_set_enabled(ipf, false, false);
	inv = drops(DROP_SG_INVALID);
	n = frag_cut(&d, pool, 1480, f);
	run_on(vm[0], f, n);
	CHECK_EXPR(drops(DROP_SG_INVALID) - inv == n && held_now() == 0);
	ct_ipf_set_enabled(ipf, false, true);
	free_sent(vm[1]);
	balanced("disabled");
	frag_dgram_free(&d);
}

/* ---- IPv6 ---------------------------------------------------------------- */

static void
dgram6(struct frag6_dgram *d, const uint8_t src[16], const uint8_t dst[16],
       uint16_t sp, uint16_t dp, uint32_t id, uint32_t len, bool hop)
{
	frag6_dgram_udp(d, src, dst, sp, dp, id, len, hop);
	d->src_mac = (struct rte_ether_addr){ { 2, 0xaa, 0, 0, 0, 1 } };
	d->dst_mac = (struct rte_ether_addr){ { 2, 0xbb, 0, 0, 0, 2 } };
}

/* got[0..n) are d's fragments, whole, unchanged but for dl_src (mark:
 * NULL unchanged); freed. */
static bool
got_dgram6(struct rte_mbuf *got[], uint16_t n, const struct frag6_dgram *d,
	   const struct rte_ether_addr *mark, const char *what)
{
	uint8_t *l4 = malloc(d->l4_len);
	bool ok = frag6_glue(d, got, n, l4) &&
		  !memcmp(l4, d->ip + 40 + d->ext_len, d->l4_len);

	CHECK(ok, "%s: %u fragments do not make the datagram", what, n);
	for (uint16_t i = 0; mark && i < n; i++) {
		const struct rte_ether_hdr *e = rte_pktmbuf_mtod(got[i],
					const struct rte_ether_hdr *);
		if (!rte_is_same_ether_addr(&e->src_addr, mark)) {
			CHECK(false, "%s: fragment %u without the state's "
			      "mark", what, i);
			ok = false;
			break;
		}
	}
	free(l4);
	rte_pktmbuf_free_bulk(got, n);
	return ok;
}

/* sg(allow): held until whole (a hop-by-hop header before the Fragment
 * header), then all sent; one burst, reversed; sg(deny): a new
 * datagram's fragments dropped, the reply's let by. */
static void
test_sg6(void)
{
	struct frag6_dgram d;
	struct rte_mbuf *f[FRAG_MAX], *rev[FRAG_MAX], *got[64];
	uint64_t stored = pmd->stats.ipf_stored;
	uint64_t deny = drops(DROP_SG_DENY);

	dgram6(&d, A6, B6, 5000, 53, 1, 3000, true);
	uint16_t n = frag6_cut(&d, pool, PIECE6, f);
	CHECK_EXPR(n == 3);
	run_on(vm[0], &f[0], 1);
	run_on(vm[0], &f[2], 1);
	CHECK_EXPR(sent_on(vm[1], got, 64) == 0 && held_now() == 2);
	balanced("v6: two held");
	run_on(vm[0], &f[1], 1);
	uint16_t k = sent_on(vm[1], got, 64);
	CHECK(k == n, "v6: sent %u of %u", k, n);
	got_dgram6(got, k, &d, NULL, "v6 sg(allow), bursts");
	CHECK_EXPR(pmd->stats.ipf_stored - stored == n);
	n = frag6_cut(&d, pool, PIECE6, f);
	for (uint16_t i = 0; i < n; i++)
		rev[i] = f[n - 1 - i];
	run_on(vm[0], rev, n);
	k = sent_on(vm[1], got, 64);
	CHECK(k == n, "v6 one burst: sent %u of %u", k, n);
	got_dgram6(got, k, &d, NULL, "v6 sg(allow), one burst");
	balanced("v6 sg(allow)");
	frag6_dgram_free(&d);

	dgram6(&d, B6, A6, 6000, 53, 2, 3000, false);
	n = frag6_cut(&d, pool, PIECE6, f);
	run_on(vm[1], f, n);
	CHECK_EXPR(sent_on(vm[0], got, 64) == 0);
	CHECK(drops(DROP_SG_DENY) - deny == n, "v6 sg_deny %lu",
	      drops(DROP_SG_DENY) - deny);
	frag6_dgram_free(&d);
	dgram6(&d, B6, A6, 53, 5000, 3, 2500, false);
	n = frag6_cut(&d, pool, PIECE6, f);
	run_on(vm[1], f, n);
	k = sent_on(vm[0], got, 64);
	CHECK(k == n, "v6 reply: sent %u of %u", k, n);
	got_dgram6(got, k, &d, NULL, "v6 sg(deny), reply");
	balanced("v6 sg(deny)");
	frag6_dgram_free(&d);
}

/* Each fragment's key (dp_ipf_frag_key, from the whole's) is the flow
 * extract's: nw_frag, nw_proto (IPv6: 44 past the first), ports. */
static void
frag_keys_check(struct rte_mbuf *f[], uint16_t n, const char *what)
{
	struct flow_key whole, want, k;

	CHECK_EXPR(miniflow_extract(f[0], &whole) >= 0);
	whole.nw_frag = 0;
	for (uint16_t i = 0; i < n; i++) {
		CHECK_EXPR(miniflow_extract(f[i], &want) >= 0);
		dp_ipf_frag_key(&k, &whole, f[i]);
		CHECK(k.nw_frag == want.nw_frag &&
		      k.nw_proto == want.nw_proto &&
		      k.tp_src == want.tp_src && k.tp_dst == want.tp_dst,
		      "%s: fragment %u keyed frag %u proto %u, extract %u %u",
		      what, i, k.nw_frag, k.nw_proto, want.nw_frag,
		      want.nw_proto);
	}
	rte_pktmbuf_free_bulk(f, n);
}

static void
test_frag_keys(void)
{
	struct frag6_dgram d;
	struct frag_dgram d4;
	struct rte_mbuf *f[FRAG_MAX];

	dgram6(&d, A6, B6, 7001, 9, 9, 3000, true);
	frag_keys_check(f, frag6_cut(&d, pool, PIECE6, f), "v6");
	frag6_dgram_free(&d);
	dgram(&d4, A, B, 7001, 9, 9, 3000);
	frag_keys_check(f, frag_cut(&d4, pool, 1480, f), "v4");
	frag_dgram_free(&d4);
}

/* 64 KB each way through ct(commit,table=1): 54 fragments recirculated
 * with the state of the whole. */
static void
test_ct_recirc6(void)
{
	struct frag6_dgram d;
	struct rte_mbuf *f[FRAG_MAX], *got[64];

	dgram6(&d, A6, B6, 7000, 9, 4, 65527, false);
	uint16_t n = frag6_cut(&d, pool, PIECE6, f);
	CHECK_EXPR(n == 54);
	run_on(vm[2], f, n);
	uint16_t k = sent_on(vm[3], got, 64);
	CHECK(k == n, "v6 ct: sent %u of %u", k, n);
	got_dgram6(got, k, &d, &new_mark, "v6 ct(table=) +new");
	balanced("v6 ct +new");
	frag6_dgram_free(&d);

	dgram6(&d, B6, A6, 9, 7000, 5, 65527, false);
	n = frag6_cut(&d, pool, PIECE6, f);
	run_on(vm[3], f, n);
	k = sent_on(vm[2], got, 64);
	CHECK(k == n, "v6 ct reply: sent %u of %u", k, n);
	got_dgram6(got, k, &d, &est_mark, "v6 ct(table=) +est+rpl");
	balanced("v6 ct +est+rpl");
	frag6_dgram_free(&d);
}

/* Too small and overlap: +inv; expired; IPv6 reassembly off (IPv4's on):
 * +inv; an atomic fragment: never held, tracked as any packet. */
static void
test_refused6(void)
{
	struct frag6_dgram d;
	struct rte_mbuf *f[FRAG_MAX], *m, *got[64];
	uint64_t inv = drops(DROP_SG_INVALID), exp = drops(DROP_IPF_EXPIRED);

	dgram6(&d, A6, B6, 8000, 53, 6, 3000, false);
	m = frag6_piece(&d, pool, 0, 600, true);
	run_on(vm[0], &m, 1);
	CHECK_EXPR(drops(DROP_SG_INVALID) - inv == 1);
	m = frag6_piece(&d, pool, 0, PIECE6, true);
	run_on(vm[0], &m, 1);
	m = frag6_piece(&d, pool, 8, PIECE6, true);
	run_on(vm[0], &m, 1);
	CHECK(drops(DROP_SG_INVALID) - inv == 3, "v6 sg_invalid %lu",
	      drops(DROP_SG_INVALID) - inv);
	balanced("v6 invalid");

	uint16_t n = frag6_cut(&d, pool, PIECE6, f);
	run_on(vm[0], f, 2);
	CHECK_EXPR(held_now() == 2);
	ct_ipf_sweep(ipf, rte_rdtsc() + 16 * rte_get_tsc_hz(), 100);
	dp_ipf_drain(&pmd->dp);
	CHECK_EXPR(drops(DROP_IPF_EXPIRED) - exp == 2 && held_now() == 0);
	rte_pktmbuf_free(f[2]);
	balanced("v6 expired");

	ct_ipf_set_enabled(ipf, true, false);
	inv = drops(DROP_SG_INVALID);
	n = frag6_cut(&d, pool, PIECE6, f);
	run_on(vm[0], f, n);
	CHECK_EXPR(drops(DROP_SG_INVALID) - inv == n && held_now() == 0);
	/* IPv4's still held */
	struct frag_dgram d4;
	struct rte_mbuf *f4[FRAG_MAX];
	dgram(&d4, A, B, 8001, 53, 7, 3000);
	uint16_t n4 = frag_cut(&d4, pool, 1480, f4);
	run_on(vm[0], f4, n4);
	CHECK_EXPR(sent_on(vm[1], got, 64) == n4 && held_now() == 0);
	rte_pktmbuf_free_bulk(got, n4);
	frag_dgram_free(&d4);
	ct_ipf_set_enabled(ipf, true, true);
	balanced("v6 disabled");
	frag6_dgram_free(&d);

	/* an atomic fragment: the whole datagram, offset 0, M clear */
	uint64_t stored = pmd->stats.ipf_stored;
	dgram6(&d, A6, B6, 8002, 53, 8, 500, false);
	m = frag6_piece(&d, pool, 0, d.l4_len, false);
	run_on(vm[0], &m, 1);
	CHECK_EXPR(sent_on(vm[1], got, 64) == 1);
	rte_pktmbuf_free(got[0]);
	CHECK_EXPR(pmd->stats.ipf_stored == stored && held_now() == 0);
	balanced("v6 atomic");
	frag6_dgram_free(&d);
}

int
main(void)
{
	struct vxs_config cfg;

	if (pipeline_rig_up("test_dp_ipf", write_topology, &cfg, &pool, &pmd,
			    &nic, vm, N_VMS))
		return 1;
	struct ct_params p = { .max_conns = 1024, .socket_id = SOCKET_ID_ANY,
			       .name = "dpipf_ct" };
	pmd->dp.ct = pmd_conntrack = conntrack_create(&p);
	pmd->dp.ipf = pmd_ipf = ipf = ct_ipf_create(SOCKET_ID_ANY, 0);
	CHECK_EXPR(pmd_conntrack && ipf);
	if (!pmd_conntrack || !ipf)
		return unit_test_report();

	test_sg_allow();
	test_sg_deny();
	test_ct_recirc();
	test_refused_expired();
	test_sg6();
	test_ct_recirc6();
	test_refused6();
	test_frag_keys();

	pmd_flush_flows(pmd);
	dp_tx_flush_all(&pmd->dp);
	for (int i = 0; i < N_VMS; i++)
		free_sent(vm[i]);
	free_sent(nic);
	ct_ipf_destroy(ipf);
	pmd->dp.ipf = pmd_ipf = NULL;
	conntrack_destroy(pmd_conntrack);
	pmd->dp.ct = pmd_conntrack = NULL;
	pipeline_rig_down(&cfg, pool);
	return unit_test_report();
}
