/* SPDX-License-Identifier: BSD-3-Clause
 * IPv4 and IPv6 fragments through sg() and ct() in the real pipeline
 * (pipeline_rig.h: config_load, ports on net_ring, one PMD driven from
 * this thread), the store as the daemon has it (dp_ipf.h):
 * each family (the same rules for ip and ipv6):
 *  - sg(allow): fragments held until the datagram is whole, then all of
 *    them sent, unchanged and in order, one burst or many, any order;
 *  - sg(deny): a new datagram's fragments all dropped (sg_deny), a
 *    reply's all let by (the session the other way);
 *  - ct(commit,table=1): every fragment of a 64 KB datagram (45, IPv6
 *    54: more than a burst) recirculated with the reassembled packet's
 *    ct_state (table 1 marks +new and +est+rpl in dl_src), both ways;
 *  - refused (too small) and invalid (overlap) fragments: +inv, dropped
 *    by sg() (sg_invalid); expired ones dropped by the PMD's drain
 *    (ipf_expired), purged ones (flush) as ipf_purged; the family's
 *    reassembly off: its fragments +inv, as before, the other family's
 *    still held;
 *  - a fragment going on gets the key the flow extract gives it
 *    (nw_frag, nw_proto: IPv6's 44 past the first, ports);
 * and IPv6's own: a hop-by-hop header before the Fragment header; an
 * atomic fragment (offset 0, M clear) is no fragment: never held;
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

/* A datagram of either family (frag_build.h), for the tests both run:
 * UDP, from A (vm0/vm2) to B or back, hop: IPv6 with a hop-by-hop header
 * before the Fragment header. */
struct dgram {
	bool v6;
	struct frag_dgram d4;
	struct frag6_dgram d6;
};

#define PIECE4 1480	/* 1500 - 20 */
#define PIECE6 1232	/* 1280 - 40 - 8 */
#define MAX_LEN(v6) ((v6) ? 65527u : 65507u)	/* the largest UDP data */

static void
dgram(struct dgram *x, bool v6, bool from_a, uint16_t sp, uint16_t dp,
      uint32_t id, uint32_t len, bool hop)
{
	static const struct rte_ether_addr src = { { 2, 0xaa, 0, 0, 0, 1 } },
		dst = { { 2, 0xbb, 0, 0, 0, 2 } };

	x->v6 = v6;
	if (v6) {
		frag6_dgram_udp(&x->d6, from_a ? A6 : B6, from_a ? B6 : A6, sp,
				dp, id, len, hop);
		x->d6.src_mac = src;
		x->d6.dst_mac = dst;
	} else {
		frag_dgram_udp(&x->d4, from_a ? A : B, from_a ? B : A, sp, dp,
			       (uint16_t)id, len);
		x->d4.src_mac = src;
		x->d4.dst_mac = dst;
	}
}

static void
dgram_free(struct dgram *x)
{
	if (x->v6)
		frag6_dgram_free(&x->d6);
	else
		frag_dgram_free(&x->d4);
}

/* x cut as a sender cuts it (pieces of PIECE4 or PIECE6 bytes) */
static uint16_t
dgram_cut(const struct dgram *x, struct rte_mbuf *f[])
{
	return x->v6 ? frag6_cut(&x->d6, pool, PIECE6, f)
		     : frag_cut(&x->d4, pool, PIECE4, f);
}

/* x's L4 bytes [off, off + len) as one fragment (more: not the last) */
static struct rte_mbuf *
dgram_piece(const struct dgram *x, uint32_t off, uint32_t len, bool more)
{
	return x->v6 ? frag6_piece(&x->d6, pool, off, len, more)
		     : frag_piece(&x->d4, pool, off, len, more);
}

static uint32_t
piece_of(const struct dgram *x)
{
	return x->v6 ? PIECE6 : PIECE4;
}

/* got[0..n) are x's fragments, whole, unchanged but for dl_src (mark:
 * NULL unchanged); freed. */
static bool
got_dgram(struct rte_mbuf *got[], uint16_t n, const struct dgram *x,
	  const struct rte_ether_addr *mark, const char *what)
{
	uint32_t l4_len = x->v6 ? x->d6.l4_len : x->d4.l4_len;
	const uint8_t *want = x->v6 ? x->d6.ip + 40 + x->d6.ext_len
				    : x->d4.ip + 20;
	uint8_t *l4 = malloc(l4_len);
	struct rte_ipv4_hdr h;
	bool ok = (x->v6 ? frag6_glue(&x->d6, got, n, l4)
			 : frag_glue(got, n, l4, l4_len, &h)) &&
		  !memcmp(l4, want, l4_len);

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

static const char *
fam(bool v6)
{
	return v6 ? "v6" : "v4";
}

/* sg(allow): held until whole, then all sent; one burst, reversed. */
static void
test_sg_allow(bool v6)
{
	struct dgram d;
	struct rte_mbuf *f[FRAG_MAX], *got[64];
	uint64_t stored = pmd->stats.ipf_stored;

	dgram(&d, v6, true, 5000, 53, 1, 3000, false);
	uint16_t n = dgram_cut(&d, f);
	CHECK_EXPR(n == 3);
	/* one burst each: nothing leaves before the last */
	run_on(vm[0], &f[0], 1);
	run_on(vm[0], &f[2], 1);
	CHECK_EXPR(sent_on(vm[1], got, 64) == 0);
	CHECK_EXPR(held_now() == 2);
	balanced(fam(v6));
	run_on(vm[0], &f[1], 1);
	uint16_t k = sent_on(vm[1], got, 64);
	CHECK(k == n, "%s: sent %u of %u", fam(v6), k, n);
	got_dgram(got, k, &d, NULL, "sg(allow), bursts");
	CHECK_EXPR(pmd->stats.ipf_stored - stored == n);
	balanced(fam(v6));

	/* all in one burst, reversed */
	n = dgram_cut(&d, f);
	struct rte_mbuf *rev[FRAG_MAX];
	for (uint16_t i = 0; i < n; i++)
		rev[i] = f[n - 1 - i];
	run_on(vm[0], rev, n);
	k = sent_on(vm[1], got, 64);
	CHECK(k == n, "%s one burst: sent %u of %u", fam(v6), k, n);
	got_dgram(got, k, &d, NULL, "sg(allow), one burst");
	balanced(fam(v6));
	dgram_free(&d);
}

/* sg(deny): a new datagram's fragments dropped, the reply's let by. */
static void
test_sg_deny(bool v6)
{
	struct dgram d;
	struct rte_mbuf *f[FRAG_MAX], *got[64];
	uint64_t deny = drops(DROP_SG_DENY);

	/* vm1 opens nothing under sg(deny): every fragment dropped */
	dgram(&d, v6, false, 6000, 53, 2, 4000, false);
	uint16_t n = dgram_cut(&d, f);
	run_on(vm[1], f, n);
	CHECK_EXPR(sent_on(vm[0], got, 64) == 0);
	CHECK(drops(DROP_SG_DENY) - deny == n, "%s sg_deny %lu", fam(v6),
	      drops(DROP_SG_DENY) - deny);
	balanced(fam(v6));
	dgram_free(&d);

	/* the answer to vm0's datagram (5000 -> 53) passes, fragmented */
	dgram(&d, v6, false, 53, 5000, 3, 3000, false);
	n = dgram_cut(&d, f);
	run_on(vm[1], f, n);
	uint16_t k = sent_on(vm[0], got, 64);
	CHECK(k == n, "%s reply: sent %u of %u", fam(v6), k, n);
	got_dgram(got, k, &d, NULL, "sg(deny), reply");
	balanced(fam(v6));
	dgram_free(&d);
}

/* 64 KB each way through ct(commit,table=1): 45 fragments (IPv6: 54)
 * recirculated with the state of the whole: +new one way, +est+rpl
 * back. */
static void
test_ct_recirc(bool v6)
{
	struct dgram d;
	struct rte_mbuf *f[FRAG_MAX], *got[64];

	dgram(&d, v6, true, 7000, 9, 4, MAX_LEN(v6), false);
	uint16_t n = dgram_cut(&d, f);
	CHECK_EXPR(n == (v6 ? 54 : 45));
	run_on(vm[2], f, n);
	uint16_t k = sent_on(vm[3], got, 64);
	CHECK(k == n, "%s ct: sent %u of %u", fam(v6), k, n);
	got_dgram(got, k, &d, &new_mark, "ct(table=) +new");
	balanced(fam(v6));
	dgram_free(&d);

	dgram(&d, v6, false, 9, 7000, 5, MAX_LEN(v6), false);
	n = dgram_cut(&d, f);
	run_on(vm[3], f, n);
	k = sent_on(vm[2], got, 64);
	CHECK(k == n, "%s ct reply: sent %u of %u", fam(v6), k, n);
	got_dgram(got, k, &d, &est_mark, "ct(table=) +est+rpl");
	balanced(fam(v6));
	dgram_free(&d);
}

/* What the store refuses or gives up: +inv under sg(), or dropped. */
static void
test_refused_expired(bool v6)
{
	struct dgram d;
	struct rte_mbuf *f[FRAG_MAX], *m;
	uint64_t inv = drops(DROP_SG_INVALID), exp = drops(DROP_IPF_EXPIRED);
	uint64_t pur = drops(DROP_IPF_PURGED);

	dgram(&d, v6, true, 8000, 53, 6, 4000, false);
	/* too small: +inv */
	m = dgram_piece(&d, 0, 600, true);
	run_on(vm[0], &m, 1);
	CHECK_EXPR(drops(DROP_SG_INVALID) - inv == 1);
	/* [0,P) held, then [8,P+8): the datagram is invalid, both +inv */
	m = dgram_piece(&d, 0, piece_of(&d), true);
	run_on(vm[0], &m, 1);
	m = dgram_piece(&d, 8, piece_of(&d), true);
	run_on(vm[0], &m, 1);
	CHECK(drops(DROP_SG_INVALID) - inv == 3, "%s sg_invalid %lu",
	      fam(v6), drops(DROP_SG_INVALID) - inv);
	balanced(fam(v6));

	/* a datagram never finished: expired, dropped by the PMD */
	uint16_t n = dgram_cut(&d, f);
	run_on(vm[0], f, 2);
	CHECK_EXPR(held_now() == 2);
	ct_ipf_sweep(ipf, rte_rdtsc() + 16 * rte_get_tsc_hz(), 100);
	dp_ipf_drain(&pmd->dp);
	CHECK(drops(DROP_IPF_EXPIRED) - exp == 2, "%s ipf_expired %lu",
	      fam(v6), drops(DROP_IPF_EXPIRED) - exp);
	CHECK_EXPR(held_now() == 0);
	balanced(fam(v6));
	/* purged (flush-conntrack): ipf_purged */
	run_on(vm[0], &f[2], 1);
	for (uint16_t i = 3; i < n; i++)
		rte_pktmbuf_free(f[i]);
	ct_ipf_purge_all(ipf);
	dp_ipf_drain(&pmd->dp);
	CHECK_EXPR(drops(DROP_IPF_PURGED) - pur == 1 && held_now() == 0);
	balanced(fam(v6));
	/* this family's reassembly off: fragments are +inv, as before */
	ct_ipf_set_enabled(ipf, v6, false);
	inv = drops(DROP_SG_INVALID);
	n = dgram_cut(&d, f);
	run_on(vm[0], f, n);
	CHECK_EXPR(drops(DROP_SG_INVALID) - inv == n && held_now() == 0);
	/* the other family's still held and let by */
	struct dgram o;
	struct rte_mbuf *got[64];
	dgram(&o, !v6, true, 8001, 53, 7, 3000, false);
	n = dgram_cut(&o, f);
	run_on(vm[0], f, n);
	CHECK_EXPR(sent_on(vm[1], got, 64) == n && held_now() == 0);
	got_dgram(got, n, &o, NULL, "the other family");
	dgram_free(&o);
	ct_ipf_set_enabled(ipf, v6, true);
	free_sent(vm[1]);
	balanced(fam(v6));
	dgram_free(&d);
}

/* ---- IPv6 alone ------------------------------------------------------------ */

/* A hop-by-hop header before the Fragment header: held and sent the
 * same; an atomic fragment (offset 0, M clear) is no fragment: never
 * held, tracked as any packet. */
static void
test_v6_headers(void)
{
	struct dgram d;
	struct rte_mbuf *f[FRAG_MAX], *got[64], *m;
	uint64_t stored = pmd->stats.ipf_stored;

	dgram(&d, true, true, 5010, 53, 11, 3000, true);
	uint16_t n = dgram_cut(&d, f);
	run_on(vm[0], f, n);
	uint16_t k = sent_on(vm[1], got, 64);
	CHECK(k == n, "hop-by-hop: sent %u of %u", k, n);
	got_dgram(got, k, &d, NULL, "sg(allow), hop-by-hop");
	CHECK_EXPR(pmd->stats.ipf_stored - stored == n);
	balanced("v6 hop-by-hop");
	dgram_free(&d);

	stored = pmd->stats.ipf_stored;
	dgram(&d, true, true, 8002, 53, 8, 500, false);
	m = dgram_piece(&d, 0, d.d6.l4_len, false);
	run_on(vm[0], &m, 1);
	CHECK_EXPR(sent_on(vm[1], got, 64) == 1);
	rte_pktmbuf_free(got[0]);
	CHECK_EXPR(pmd->stats.ipf_stored == stored && held_now() == 0);
	balanced("v6 atomic");
	dgram_free(&d);
}

/* Each fragment's key (dp_ipf_frag_key, from the whole's) is the flow
 * extract's: nw_frag, nw_proto (IPv6: 44 past the first), ports. */
static void
test_frag_keys(bool v6)
{
	struct dgram d;
	struct rte_mbuf *f[FRAG_MAX];
	struct flow_key whole, want, k;

	dgram(&d, v6, true, 7001, 9, 9, 3000, v6);
	uint16_t n = dgram_cut(&d, f);
	CHECK_EXPR(miniflow_extract(f[0], &whole) >= 0);
	whole.nw_frag = 0;
	for (uint16_t i = 0; i < n; i++) {
		CHECK_EXPR(miniflow_extract(f[i], &want) >= 0);
		dp_ipf_frag_key(&k, &whole, f[i]);
		CHECK(k.nw_frag == want.nw_frag &&
		      k.nw_proto == want.nw_proto &&
		      k.tp_src == want.tp_src && k.tp_dst == want.tp_dst,
		      "%s: fragment %u keyed frag %u proto %u, extract %u %u",
		      fam(v6), i, k.nw_frag, k.nw_proto, want.nw_frag,
		      want.nw_proto);
	}
	rte_pktmbuf_free_bulk(f, n);
	dgram_free(&d);
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

	for (int v6 = 0; v6 < 2; v6++) {
		test_sg_allow(v6);
		test_sg_deny(v6);
		test_ct_recirc(v6);
		test_refused_expired(v6);
		test_frag_keys(v6);
	}
	test_v6_headers();

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
