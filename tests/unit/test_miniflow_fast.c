/* SPDX-License-Identifier: BSD-3-Clause
 * miniflow_extract_fast against the generic miniflow_extract, as a
 * property: on every input both give the same verdict and the same key,
 * all eight words (w0/w1/w6/w7 untouched by both), whatever garbage the
 * key held before. Inputs: random well-formed fast shapes (eth/ipv4/udp,
 * eth/ipv4/tcp, VXLAN outer and inner), each of them mutated (every one of
 * the first 64 bytes changed, every truncation, IHL, fragments, VLAN, IP
 * options, version, total length, protocol), IPv6's fast shapes
 * (eth/ipv6/udp|tcp|icmpv6; ND must take the generic parser) with every
 * one of their first 70 bytes changed and every truncation, purely
 * random bytes, the
 * same split over several segments (must fall back), and whole batches.
 * Every packet also runs through miniflow_extract_fast_only(), so the test
 * knows the fast path really took the shapes it should, and only those.
 *
 * Single-segment packets sit in an external buffer of exactly their
 * length, so ASan (build-asan) catches any read past pkt_len; pool mbufs
 * with their tailroom changed between runs catch it in the plain build.
 * Fixed seed (MINIFLOW_FAST_SEED overrides), well under a second.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rte_eal.h>
#include <rte_mbuf.h>
#include <rte_mbuf_ptype.h>
#include <rte_mempool.h>

#include "miniflow.h"
#include "unit_test.h"

#define POOL_SIZE 1023
#define PKT_MAX 512
#include "pkt_build.h"

static struct rte_mempool *pool;

/* property counters */
static unsigned n_cases, n_fast_hits, n_good, n_malformed, n_bad, n_printed;

struct shape {
	uint8_t proto;		/* 6 or 17 */
	uint16_t dport;		/* 0: random */
	uint32_t payload;	/* bytes after the L4 header */
	uint32_t padding;	/* link padding after IP total length */
};

/* eth / ipv4 IHL 5 / udp or tcp, everything else random (except what
 * would leave the fast shape: frag bits are DF and the reserved bit
 * only). Appends to p, so it nests (VXLAN inner after the outer). */
static void
put_fast(struct pkt *p, struct shape s, bool outer)
{
	put_rand(p, 12);				/* dst, src MAC */
	put16(p, 0x0800);
	uint32_t ip = p->len;
	put8(p, 0x45);
	put8(p, (uint8_t)rnd());			/* tos, ECN too */
	put16(p, 0);					/* total: below */
	put16(p, (uint16_t)rnd());			/* id */
	put16(p, (uint16_t)(rnd() & 0xc000));		/* DF, reserved */
	put8(p, (uint8_t)rnd());			/* ttl */
	put8(p, s.proto);
	put16(p, (uint16_t)rnd());			/* checksum */
	put32(p, rnd());
	put32(p, rnd());
	uint32_t l4 = p->len;
	put16(p, (uint16_t)rnd());
	put16(p, s.dport ? s.dport : (uint16_t)rnd());
	if (s.proto == 17) {
		put16(p, (uint16_t)(8 + s.payload));
		put16(p, (uint16_t)rnd());
	} else {
		uint8_t doff = (uint8_t)(5 + rnd_below(11));
		put32(p, rnd());
		put32(p, rnd());
		put8(p, (uint8_t)(doff << 4 | (rnd() & 0x0f)));
		put8(p, (uint8_t)rnd());			/* flags */
		put_rand(p, 6);				/* win csum urg */
		put_rand(p, (doff - 5) * 4u);
	}
	put_rand(p, s.payload);
	set16(p->b, ip + 2, (uint16_t)(p->len - ip));
	put_rand(p, s.padding);
	if (outer) {
		p->ip = ip;
		p->l4 = l4;
	}
}

static struct shape
random_shape(void)
{
	return (struct shape){
		.proto = rnd_below(2) ? 17 : 6,
		.payload = rnd_below(4) ? rnd_below(64) : rnd_below(300),
		.padding = rnd_below(3) ? 0 : rnd_below(20),
	};
}

/* One of: eth/ipv4/udp, eth/ipv4/tcp, VXLAN outer with a random inner
 * fast shape, or the inner frame alone (what decap leaves). */
static struct pkt
random_fast(void)
{
	struct pkt p = { .len = 0 };
	uint32_t kind = rnd_below(4);

	if (kind < 2) {
		put_fast(&p, random_shape(), true);
	} else if (kind == 2) {
		struct pkt inner = { .len = 0 };
		struct shape in = random_shape();
		in.payload = rnd_below(128);
		in.padding = 0;
		put_fast(&inner, in, true);
		struct shape out = { .proto = 17, .dport = 4789,
				     .payload = 8 + inner.len,
				     .padding = rnd_below(4) ? 0 : 6 };
		/* put_fast fills the payload with random bytes; write the
		 * VXLAN header and the inner frame over them */
		put_fast(&p, out, true);
		uint8_t *vx = p.b + p.l4 + 8;
		vx[0] = 0x08;
		vx[1] = vx[2] = vx[3] = 0;
		vx[4] = (uint8_t)rnd();
		vx[5] = (uint8_t)rnd();
		vx[6] = (uint8_t)rnd();
		vx[7] = 0;
		memcpy(vx + 8, inner.b, inner.len);
	} else {
		struct shape in = random_shape();
		in.padding = 0;
		put_fast(&p, in, true);
	}
	return p;
}

/* ---- mbufs ---- */

static void
ext_free(void *addr, void *opaque)
{
	free(addr);
	free(opaque);
}

/* A segment whose buffer ends exactly at its last byte. */
static struct rte_mbuf *
tight_seg(const uint8_t *d, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *buf = malloc(len ? len : 1);
	struct rte_mbuf_ext_shared_info *sh = malloc(sizeof *sh);
	if (m == NULL || buf == NULL || sh == NULL) {
		printf("out of memory\n");
		exit(2);
	}
	sh->free_cb = ext_free;
	sh->fcb_opaque = sh;
	rte_mbuf_ext_refcnt_set(sh, 1);
	rte_pktmbuf_attach_extbuf(m, buf, rte_mem_virt2iova(buf),
				  (uint16_t)len, sh);
	if (len)
		memcpy(buf, d, len);
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	return m;
}

/* An ordinary pool mbuf (with tailroom). */
static struct rte_mbuf *
pool_seg(const uint8_t *d, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	char *x = m ? rte_pktmbuf_append(m, (uint16_t)len) : NULL;
	if (x == NULL) {
		printf("mbuf alloc/append %u failed\n", len);
		exit(2);
	}
	if (len)
		memcpy(x, d, len);
	return m;
}

/* d split at n sorted cuts into tight segments. */
static struct rte_mbuf *
split(const uint8_t *d, uint32_t len, const uint32_t *cuts, int n)
{
	struct rte_mbuf *head = NULL;
	uint32_t start = 0;
	for (int i = 0; i <= n; i++) {
		uint32_t end = i < n ? cuts[i] : len;
		struct rte_mbuf *s = tight_seg(d + start, end - start);
		if (head == NULL)
			head = s;
		else if (rte_pktmbuf_chain(head, s) != 0) {
			printf("chain failed\n");
			exit(2);
		}
		start = end;
	}
	return head;
}

/* The NIC's classification: none, right, wrong, or noise. */
static uint32_t
random_ptype(void)
{
	static const uint32_t pt[] = {
		0, 0, 0,
		RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_UDP,
		RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_TCP,
		RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4_EXT_UNKNOWN |
			RTE_PTYPE_L4_UDP,
		RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_UDP |
			RTE_PTYPE_TUNNEL_VXLAN | RTE_PTYPE_INNER_L2_ETHER,
		RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV6 | RTE_PTYPE_L4_UDP,
		RTE_PTYPE_L2_ETHER_VLAN | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_TCP,
		RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_FRAG,
		RTE_PTYPE_L2_ETHER_ARP,
	};
	if (rnd_below(8) == 0)
		return rnd();
	return pt[rnd_below(RTE_DIM(pt))];
}

/* ---- the property ---- */

static void
set_metadata(struct flow_key *k, uint8_t fill)
{
	memset(k, fill, sizeof *k);
	k->in_port = 7;
	k->ct_label_bits = 0x1234;
	k->tun_id = 5001;
	k->tun_src = RTE_BE32(0xc6336401);
	k->tun_dst = RTE_BE32(0xc6336402);
	k->w[6] = 0x6666666666666666ull;
	/* ext_line (w7's low byte) clear: an IPv4 key, one line */
	k->w[7] = 0x7777777777777700ull;
}

static void
report(const char *why, const char *what, const uint8_t *d, uint32_t len,
       const struct flow_key *g, int rc_g, const struct flow_key *f,
       int rc_f)
{
	n_bad++;
	if (n_printed++ >= 10)
		return;
	printf("MISMATCH (%s) %s: len %u, generic rc %d, fast rc %d\n", why,
	       what, len, rc_g, rc_f);
	for (int i = 0; i < FLOW_KEY_WORDS; i++)
		printf("    w%d generic %016llx fast %016llx\n", i,
		       (unsigned long long)g->w[i],
		       (unsigned long long)f->w[i]);
	printf("    bytes:");
	for (uint32_t i = 0; i < len && i < 80; i++)
		printf(" %02x", d[i]);
	printf("\n");
}

enum fast_want { MAY_HIT, MUST_HIT, MUST_MISS };

/* Runs both extractors (and the fast path alone) on m, which holds d,
 * then frees m. tailroom: m is a single pool segment whose tailroom may
 * be changed. */
static void
compare_mbuf(const char *what, struct rte_mbuf *m, const uint8_t *d,
	     uint32_t len, enum fast_want want, bool tailroom)
{
	struct flow_key g, f, f2, o, o_before;
	n_cases++;
	m->packet_type = random_ptype();

	if (tailroom)
		memset(rte_pktmbuf_mtod_offset(m, uint8_t *, m->data_len),
		       0x00, rte_pktmbuf_tailroom(m));
	set_metadata(&g, 0xa5);
	int rc_g = miniflow_extract(m, &g);
	set_metadata(&f, 0xa5);
	int rc_f = miniflow_extract_fast(m, &f);
	if (rc_g < 0)
		n_malformed++;
	else
		n_good++;
	if (rc_f != rc_g || !flow_key_equal(&g, &f))
		report("fast vs generic", what, d, len, &g, rc_g, &f, rc_f);

	/* nothing depends on what the key held before */
	set_metadata(&f2, 0x5a);
	int rc_f2 = miniflow_extract_fast(m, &f2);
	if (rc_f2 != rc_g || (rc_g >= 0 && !flow_key_equal(&g, &f2)))
		report("garbage in key", what, d, len, &g, rc_g, &f2, rc_f2);

	/* the fast path alone: a hit is the generic answer, a miss leaves
	 * the key alone */
	set_metadata(&o, 0x3c);
	o_before = o;
	bool hit = miniflow_extract_fast_only(m, &o);
	if (hit) {
		n_fast_hits++;
		if (rc_g < 0 || !flow_key_equal(&g, &o))
			report("fast hit", what, d, len, &g, rc_g, &o, 0);
	} else if (!flow_key_equal(&o, &o_before)) {
		report("fast miss wrote key", what, d, len, &o_before, -1, &o,
		       -1);
	}
	if ((want == MUST_HIT && !hit) || (want == MUST_MISS && hit))
		report(hit ? "fast path taken" : "fast path not taken", what,
		       d, len, &g, rc_g, &o, hit ? 0 : -1);

	/* bytes past the end (plain build; ASan sees the tight buffers) */
	if (tailroom) {
		memset(rte_pktmbuf_mtod_offset(m, uint8_t *, m->data_len),
		       0xff, rte_pktmbuf_tailroom(m));
		set_metadata(&f2, 0xa5);
		rc_f2 = miniflow_extract_fast(m, &f2);
		if (rc_f2 != rc_f || !flow_key_equal(&f, &f2))
			report("read past pkt_len", what, d, len, &f, rc_f,
			       &f2, rc_f2);
	}
	rte_pktmbuf_free(m);
}

/* Single segment, both kinds of buffer. */
static void
compare(const char *what, const uint8_t *d, uint32_t len, enum fast_want w)
{
	compare_mbuf(what, tight_seg(d, len), d, len, w, false);
	if (n_cases % 4 == 0)
		compare_mbuf(what, pool_seg(d, len), d, len, w, true);
}

static void
compare_pkt(const char *what, const struct pkt *p, enum fast_want w)
{
	compare(what, p->b, p->len, w);
}

/* ---- the inputs ---- */

static void
test_well_formed(void)
{
	unsigned before = n_cases, hits = n_fast_hits;
	for (int i = 0; i < 10000; i++) {
		struct pkt p = random_fast();
		compare_pkt("well-formed", &p, MUST_HIT);
	}
	CHECK(n_fast_hits - hits == n_cases - before,
	      "fast path took %u of %u well-formed fast shapes",
	      n_fast_hits - hits, n_cases - before);
}

/* Writes p's IP header with IHL ihl (options of random bytes; NOPs would
 * do as well: the extractors skip options unread). */
static struct pkt
with_ihl(const struct pkt *p, uint8_t ihl)
{
	struct pkt q = *p;
	uint32_t opt = ihl > 5 ? (ihl - 5) * 4u : 0;
	q.len = p->l4;
	q.b[p->ip] = (uint8_t)(0x40 | ihl);
	put_rand(&q, opt);
	memcpy(q.b + q.len, p->b + p->l4, p->len - p->l4);
	q.len += p->len - p->l4;
	set16(q.b, p->ip + 2, (uint16_t)(get16(p->b, p->ip + 2) + opt));
	return q;
}

static struct pkt
with_vlan(const struct pkt *p)
{
	struct pkt q = { .len = 0 };
	memcpy(q.b, p->b, 12);
	q.len = 12;
	put16(&q, rnd_below(2) ? 0x8100 : 0x88a8);
	put16(&q, (uint16_t)rnd());
	memcpy(q.b + q.len, p->b + 12, p->len - 12);
	q.len += p->len - 12;
	return q;
}

static void
test_mutations(void)
{
	static const uint8_t xors[] = { 0x01, 0x02, 0x04, 0x08, 0x10, 0x20,
					0x40, 0x80, 0xff };
	unsigned before = n_cases;

	for (int base = 0; base < 120; base++) {
		struct pkt p = random_fast();
		if (p.len + 64 > PKT_MAX)	/* room for VLAN, options */
			continue;
		compare_pkt("base", &p, MUST_HIT);

		/* every byte of the first 64, a few ways */
		for (uint32_t i = 0; i < 64 && i < p.len; i++) {
			for (size_t x = 0; x < RTE_DIM(xors); x++) {
				struct pkt q = p;
				q.b[i] ^= xors[x];
				compare_pkt("byte flip", &q, MAY_HIT);
			}
			struct pkt q = p;
			q.b[i] = (uint8_t)rnd();
			compare_pkt("byte random", &q, MAY_HIT);
		}

		/* every truncation */
		for (uint32_t l = 0; l < p.len; l++) {
			struct pkt q = p;
			q.len = l;
			/* short of the IP total length: malformed */
			compare_pkt("truncated", &q,
				    l < p.ip + get16(p.b, p.ip + 2) ? MUST_MISS
								    : MAY_HIT);
		}

		/* IHL: every other value, with real options when > 5 */
		for (uint8_t ihl = 0; ihl < 16; ihl++) {
			if (ihl == 5)
				continue;
			struct pkt q = ihl > 5 ? with_ihl(&p, ihl) : p;
			if (ihl < 5)
				q.b[p.ip] = (uint8_t)(0x40 | ihl);
			compare_pkt("ihl", &q, MUST_MISS);
		}

		/* version */
		for (uint8_t v = 0; v < 16; v++) {
			if (v == 4)
				continue;
			struct pkt q = p;
			q.b[p.ip] = (uint8_t)(v << 4 | 5);
			compare_pkt("version", &q, MUST_MISS);
		}

		/* fragments: MF, offsets, both; DF and reserved alone stay
		 * fast */
		static const uint16_t frags[] = { 0x2000, 0x0001, 0x1fff,
						  0x2001, 0x6000, 0xa010,
						  0x0100, 0x3fff };
		for (size_t i = 0; i < RTE_DIM(frags); i++) {
			struct pkt q = p;
			set16(q.b, p.ip + 6,
			      (uint16_t)(frags[i] | (rnd() & 0xc000)));
			compare_pkt("fragment", &q, MUST_MISS);
		}
		for (uint16_t fl = 0; fl < 4; fl++) {
			struct pkt q = p;
			set16(q.b, p.ip + 6, (uint16_t)(fl << 14));
			compare_pkt("df/reserved", &q, MUST_HIT);
		}

		/* VLAN tag, one and two */
		struct pkt v = with_vlan(&p);
		compare_pkt("vlan", &v, MUST_MISS);
		if (v.len + 4 <= PKT_MAX) {
			struct pkt vv = with_vlan(&v);
			compare_pkt("qinq", &vv, MUST_MISS);
		}

		/* total length: every value near the right one, and random */
		uint16_t total = get16(p.b, p.ip + 2);
		for (int d = -30; d <= 30; d++) {
			struct pkt q = p;
			set16(q.b, p.ip + 2, (uint16_t)(total + d));
			compare_pkt("total length", &q, MAY_HIT);
		}
		for (int i = 0; i < 8; i++) {
			struct pkt q = p;
			set16(q.b, p.ip + 2, (uint16_t)rnd());
			compare_pkt("total length random", &q, MAY_HIT);
		}

		/* every protocol */
		for (uint32_t proto = 0; proto < 256; proto++) {
			struct pkt q = p;
			q.b[p.ip + 9] = (uint8_t)proto;
			compare_pkt("proto", &q,
				    proto == 6 || proto == 17 ? MAY_HIT
							      : MUST_MISS);
		}

		/* every TCP data offset */
		if (p.b[p.ip + 9] == 6) {
			for (uint8_t doff = 0; doff < 16; doff++) {
				struct pkt q = p;
				q.b[p.l4 + 12] = (uint8_t)(doff << 4 |
							   (q.b[p.l4 + 12] &
							    0x0f));
				compare_pkt("tcp doff", &q, MAY_HIT);
			}
		}

		/* a few random multi-byte mutations of the headers */
		for (int i = 0; i < 16; i++) {
			struct pkt q = p;
			for (uint32_t n = 1 + rnd_below(4); n; n--)
				q.b[rnd_below(RTE_MIN(q.len, 64u))] =
					(uint8_t)rnd();
			compare_pkt("multi flip", &q, MAY_HIT);
		}
	}
	printf("mutations: %u cases\n", n_cases - before);
}

/* eth/ipv6 then UDP, TCP, ICMPv6 (echo, an error) or ND (NS/NA with an
 * option: generic only), random otherwise */
static struct pkt
random_fast6(bool *nd)
{
	struct pkt p = { .len = 0 };
	static const uint8_t protos[] = { 17, 6, 58, 58 };
	uint8_t proto = protos[rnd_below(4)];

	put_rand(&p, 12);
	put16(&p, 0x86dd);
	put32(&p, 6u << 28 | (rnd() & 0x0fffffff));
	put16(&p, 0);				/* payload length: below */
	put8(&p, proto);
	put8(&p, (uint8_t)rnd());		/* hop limit */
	put_rand(&p, 32);
	*nd = false;
	if (proto == 17) {
		put_rand(&p, 4);
		put16(&p, 8);
		put16(&p, (uint16_t)rnd());
	} else if (proto == 6) {
		uint8_t doff = (uint8_t)(5 + rnd_below(11));
		put_rand(&p, 12);
		put8(&p, (uint8_t)(doff << 4));
		put_rand(&p, 7 + (doff - 5) * 4u);
	} else {
		static const uint8_t types[] = { 128, 129, 1, 135, 136 };
		uint8_t type = types[rnd_below(5)];
		*nd = type >= 135;
		put8(&p, type);
		put8(&p, 0);
		put_rand(&p, 6);
		if (*nd) {
			put_rand(&p, 16);		/* target */
			put8(&p, type == 135 ? 1 : 2);
			put8(&p, 1);
			put_rand(&p, 6);
		}
	}
	put_rand(&p, rnd_below(40));
	set16(p.b, 18, (uint16_t)(p.len - 54));
	put_rand(&p, rnd_below(3) ? 0 : rnd_below(20));	/* padding */
	return p;
}

static void
test_ipv6(void)
{
	static const uint8_t xors[] = { 0x01, 0x10, 0x80, 0xff };
	bool nd;

	/* MUST_HIT / MUST_MISS: each case a mismatch (n_bad) if not */
	for (int i = 0; i < 3000; i++) {
		struct pkt p = random_fast6(&nd);
		compare_pkt("ipv6", &p, nd ? MUST_MISS : MUST_HIT);
	}
	for (int base = 0; base < 40; base++) {
		struct pkt p = random_fast6(&nd);
		for (uint32_t i = 0; i < 70 && i < p.len; i++)
			for (size_t x = 0; x < RTE_DIM(xors); x++) {
				struct pkt q = p;
				q.b[i] ^= xors[x];
				compare_pkt("ipv6 byte flip", &q, MAY_HIT);
			}
		for (uint32_t l = 0; l < p.len; l++) {
			struct pkt q = p;
			q.len = l;
			compare_pkt("ipv6 truncated", &q,
				    l < 54u + get16(p.b, 18) ? MUST_MISS
							    : MAY_HIT);
		}
	}
}

static void
test_random_bytes(void)
{
	for (int i = 0; i < 8000; i++) {
		struct pkt p;
		p.len = rnd_below(200);
		for (uint32_t j = 0; j < p.len; j++)
			p.b[j] = (uint8_t)rnd();
		/* half of them start like a fast shape, so they get past
		 * the first checks */
		if (i & 1 && p.len >= 24) {
			p.b[12] = 0x08;
			p.b[13] = 0x00;
			p.b[14] = 0x45;
			if (rnd_below(2)) {
				p.b[20] &= 0xc0;
				p.b[21] = 0;
			}
			if (rnd_below(2))
				p.b[23] = rnd_below(2) ? 6 : 17;
			if (rnd_below(2) && p.len >= 34)
				set16(p.b, 16, (uint16_t)(20 + rnd_below(
						       p.len - 14 + 4)));
		}
		compare_pkt("random bytes", &p, MAY_HIT);
	}
}

static void
test_multiseg(void)
{
	unsigned hits = n_fast_hits, split_data = 0;
	for (int i = 0; i < 3000; i++) {
		struct pkt p = random_fast();
		uint32_t cuts[3];
		int n = 1 + (int)rnd_below(3);
		for (int c = 0; c < n; c++)
			cuts[c] = rnd_below(p.len + 1);
		/* often one cut past the fixed headers: the headers are
		 * contiguous, the packet is not */
		if (rnd_below(2))
			cuts[0] = p.l4 + 8 + rnd_below(p.len - p.l4 - 8);
		for (int a = 1; a < n; a++)
			for (int b = a; b > 0 && cuts[b] < cuts[b - 1]; b--) {
				uint32_t t = cuts[b];
				cuts[b] = cuts[b - 1];
				cuts[b - 1] = t;
			}
		/* only when every cut is at the end (empty trailing
		 * segments) is the packet still contiguous */
		bool contiguous = cuts[0] == p.len;
		split_data += !contiguous;
		compare_mbuf("multi-segment", split(p.b, p.len, cuts, n), p.b,
			     p.len, contiguous ? MAY_HIT : MUST_MISS, false);
	}
	CHECK(split_data > 2500, "only %u packets really split", split_data);
	printf("multi-segment: %u split, %u contiguous (fast hits %u)\n",
	       split_data, 3000 - split_data, n_fast_hits - hits);
}

/* miniflow_extract_batch(fast) against (generic): same survivors, same
 * order, same keys, same malformed list. */
static void
test_batch(void)
{
	int bad = 0;
	for (int round = 0; round < 300; round++) {
		struct pkt_batch b[2], mal[2];
		struct flow_key keys[2][BATCH_MAX];
		uint32_t n = rnd_below(BATCH_MAX + 1);
		uint16_t moved[2];

		for (int v = 0; v < 2; v++) {
			pkt_batch_init(&b[v]);
			pkt_batch_init(&mal[v]);
		}
		for (uint32_t i = 0; i < n; i++) {
			struct pkt p = random_fast();
			uint32_t r = rnd_below(4);
			if (r == 0)
				p.len = rnd_below(p.len);
			else if (r == 1)
				p.b[rnd_below(64)] ^= (uint8_t)(1 + rnd_below(
								   255));
			uint32_t ptype = random_ptype();
			for (int v = 0; v < 2; v++) {
				struct rte_mbuf *m = tight_seg(p.b, p.len);
				m->packet_type = ptype;
				/* tag the mbuf so order can be checked */
				m->hash.rss = i;
				pkt_batch_add(&b[v], m);
				set_metadata(&keys[v][i], (uint8_t)(0x11 * v));
				keys[v][i].in_port = i;
			}
		}
		for (int v = 0; v < 2; v++)
			moved[v] = miniflow_extract_batch(&b[v], keys[v], &mal[v],
							  v == 1);
		n_cases += n;
		if (moved[0] != moved[1] || b[0].n != b[1].n ||
		    mal[0].n != mal[1].n || b[0].n + mal[0].n != n)
			bad++;
		else {
			for (uint16_t j = 0; j < b[0].n; j++)
				if (b[0].pkts[j]->hash.rss !=
					    b[1].pkts[j]->hash.rss ||
				    !flow_key_equal(&keys[0][j], &keys[1][j]) ||
				    keys[1][j].in_port !=
					    b[1].pkts[j]->hash.rss)
					bad++;
			for (uint16_t j = 0; j < mal[0].n; j++)
				if (mal[0].pkts[j]->hash.rss !=
				    mal[1].pkts[j]->hash.rss)
					bad++;
		}
		for (int v = 0; v < 2; v++) {
			pkt_batch_free(&b[v]);
			pkt_batch_free(&mal[v]);
		}
	}
	CHECK(bad == 0, "%d batch differences fast vs generic", bad);
}

int
main(int argc, char **argv)
{
	(void)argc, (void)argv;
	if (unit_test_eal_init("test_mf_fast", "128"))
		return 1;
	pool = rte_pktmbuf_pool_create("mf_fast_test", POOL_SIZE, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (pool == NULL) {
		printf("pool create failed\n");
		return 2;
	}
	const char *seed = getenv("MINIFLOW_FAST_SEED");
	if (seed)
		rng_state = strtoull(seed, NULL, 0);
	if (rng_state == 0)
		rng_state = 1;
	printf("seed 0x%llx\n", (unsigned long long)rng_state);

	test_well_formed();
	test_mutations();
	test_ipv6();
	test_random_bytes();
	test_multiseg();
	test_batch();

	CHECK(n_bad == 0, "%u mismatches (first ones printed above)", n_bad);
	CHECK(n_cases >= 20000, "only %u cases", n_cases);
	CHECK(n_good > 5000 && n_malformed > 5000 && n_fast_hits > 5000,
	      "coverage: %u good, %u malformed, %u fast hits", n_good,
	      n_malformed, n_fast_hits);
	CHECK(rte_mempool_avail_count(pool) == POOL_SIZE,
	      "pool not full at exit: %u of %u",
	      rte_mempool_avail_count(pool), POOL_SIZE);
	printf("%u cases: %u good, %u malformed, %u fast hits\n", n_cases,
	       n_good, n_malformed, n_fast_hits);

	char runtime_dir[PATH_MAX];
	snprintf(runtime_dir, sizeof runtime_dir, "%s",
		 rte_eal_get_runtime_dir());
	rte_mempool_free(pool);
	rte_eal_cleanup();
	rmdir(runtime_dir);
	return unit_test_report();
}
