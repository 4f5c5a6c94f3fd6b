/* SPDX-License-Identifier: BSD-3-Clause
 * test_miniflow, randomized: mutated packets never crash the extractor,
 * segmentation never changes its answer, every mbuf comes back.
 */
#include "miniflow_test.h"

/* ---- randomized ---- */

/* A plausible packet, so the mutations reach the deeper parsers. */
static struct pkt
random_template(void)
{
	static const uint16_t types[] = { 0x0800, 0x0800, 0x0800, 0x0806,
					  0x86dd, 0x8100, 0x88a8, 0x0042 };
	static const uint8_t protos[] = { 6, 17, 1, 47, 6, 17 };
	struct pkt p = { .len = 0 };
	uint16_t type = types[rnd_below(8)];

	put_eth(&p, type);
	if (type == 0x8100 || type == 0x88a8) {
		type = rnd_below(4) ? 0x0800 : 0x8100;
		put_vlan(&p, (uint16_t)rnd(), type);
	}
	if (type == 0x0806) {
		put_arp(&p, 1, 0x0800, (uint16_t)rnd_below(3));
	} else if (type == 0x0800) {
		uint8_t proto = protos[rnd_below(6)];
		uint16_t frag = rnd_below(4) ? 0 : (uint16_t)rnd();
		uint32_t ip = put_ipv4(&p, (struct ip4){
			.ihl = (uint8_t)(5 + rnd_below(11)), .ttl = 64,
			.proto = proto, .frag = frag });
		if (proto == 6)
			put_tcp(&p, 1, 2, (uint8_t)(5 + rnd_below(11)), 40);
		else
			put_udp(&p, 1, 2, rnd_below(16));
		ip_set_total(&p, ip);
	}
	put_zeros(&p, rnd_below(32));
	return p;
}

static struct pkt
random_packet(void)
{
	struct pkt p;
	if (rnd_below(8) == 0) {
		p.len = rnd_below(PKT_MAX);
		for (uint32_t i = 0; i < p.len; i++)
			p.b[i] = (uint8_t)rnd();
		return p;
	}
	p = random_template();
	/* flip a few bytes, biased to the headers */
	for (uint32_t n = rnd_below(4); n > 0 && p.len; n--)
		p.b[rnd_below(RTE_MIN(p.len, 80u))] = (uint8_t)rnd();
	if (rnd_below(3) == 0)
		p.len = rnd_below(p.len + 1);
	return p;
}

static struct rte_mbuf *
random_mbuf(const struct pkt *p)
{
	uint32_t cuts[3];
	int n = (int)rnd_below(4);
	for (int i = 0; i < n; i++)
		cuts[i] = rnd_below(p->len + 1);
	/* sort the cuts so the segments are in order */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && cuts[j] < cuts[j - 1]; j--) {
			uint32_t t = cuts[j];
			cuts[j] = cuts[j - 1];
			cuts[j - 1] = t;
		}
	return mbuf_split(p->b, p->len, cuts, n);
}

/* ASan cannot see past a packet inside its mbuf (the pool is one
 * allocation), so reads beyond pkt_len are caught by changing what is there
 * and checking the answer does not move. */
static void
fill_tailroom(struct rte_mbuf *m, uint8_t v)
{
	memset(rte_pktmbuf_mtod_offset(m, uint8_t *, m->data_len), v,
	       rte_pktmbuf_tailroom(m));
}

/* What any successful extraction must look like, whatever the input. */
static int
key_invariants_hold(const struct flow_key *k, uint32_t port)
{
	struct flow_key meta;
	set_metadata(&meta, port);
	if (k->w[0] != meta.w[0] || k->w[1] != meta.w[1] ||
	    k->w[6] != meta.w[6] || k->w[7] != meta.w[7])
		return 0;
	uint16_t t = rte_be_to_cpu_16(k->dl_type);
	if (t != 0x0800 && t != 0x0806 && (k->w[4] || k->w[5]))
		return 0;
	if (t == 0x0806 && (k->nw_tos || k->nw_ttl || k->nw_frag ||
			    k->tp_src || k->tp_dst))
		return 0;
	if ((k->nw_frag & FLOW_NW_FRAG_LATER) &&
	    (!(k->nw_frag & FLOW_NW_FRAG_ANY) || k->tp_src || k->tp_dst))
		return 0;
	if (k->nw_tos & 0x03)
		return 0;
	if (k->vlan_tci && !(k->vlan_tci & RTE_BE16(FLOW_VLAN_CFI)))
		return 0;
	return 1;
}

void
test_random(void)
{
	const char *seed_env = getenv("MINIFLOW_SEED");
	if (seed_env)
		rng_state = strtoull(seed_env, NULL, 0);
	if (rng_state == 0)
		rng_state = 1;	/* xorshift's one dead state */
	printf("random seed 0x%llx\n", (unsigned long long)rng_state);

	unsigned before = rte_mempool_avail_count(pool);
	int differ = 0, broken = 0, batch_bad = 0, overread = 0;
	unsigned n_ok = 0, n_malformed = 0;

	for (int round = 0; round < 1000; round++) {
		struct pkt_batch b, mal;
		struct flow_key keys[BATCH_MAX], lin[BATCH_MAX];
		int lin_rc[BATCH_MAX];
		pkt_batch_init(&b);
		pkt_batch_init(&mal);

		uint32_t n = 1 + rnd_below(BATCH_MAX);
		for (uint32_t i = 0; i < n; i++) {
			struct pkt p = random_packet();
			/* the linear answer is the reference; it must not
			 * depend on the bytes past the packet's end */
			struct flow_key tail_key;
			struct rte_mbuf *m = mbuf_pkt(&p);
			fill_tailroom(m, 0x00);
			lin_rc[i] = extract_dirty(m, &lin[i], i);
			fill_tailroom(m, 0xff);
			int tail_rc = extract_dirty(m, &tail_key, i);
			rte_pktmbuf_free(m);
			if (tail_rc != lin_rc[i] ||
			    (tail_rc == 0 && !flow_key_equal(&tail_key, &lin[i])))
				overread++;
			if (lin_rc[i] == 0 && !key_invariants_hold(&lin[i], i))
				broken++;
			if (lin_rc[i])
				n_malformed++;
			else
				n_ok++;

			pkt_batch_add(&b, random_mbuf(&p));
			memset(&keys[i], 0x5a, sizeof keys[i]);
			set_metadata(&keys[i], i);
		}

		uint32_t want_bad = 0;
		for (uint32_t i = 0; i < n; i++)
			want_bad += lin_rc[i] != 0;
		uint16_t moved = miniflow_extract_batch(&b, keys, &mal, false);
		if (moved != want_bad || b.n + mal.n != n)
			batch_bad++;
		/* survivors, in order, carry the linear key of their packet */
		for (uint32_t i = 0, j = 0; i < n && j < b.n; i++) {
			if (lin_rc[i])
				continue;
			if (keys[j].in_port != i || !flow_key_equal(&keys[j], &lin[i]))
				differ++;
			j++;
		}
		pkt_batch_free(&b);
		pkt_batch_free(&mal);
	}
	CHECK(broken == 0, "%d keys break the invariants", broken);
	CHECK(batch_bad == 0, "%d batches moved the wrong count", batch_bad);
	CHECK(overread == 0, "%d keys depend on bytes past pkt_len", overread);
	CHECK(differ == 0, "%d segmented keys differ from linear", differ);
	CHECK(n_ok > 1000 && n_malformed > 1000,
	      "coverage: %u ok, %u malformed", n_ok, n_malformed);
	CHECK(rte_mempool_avail_count(pool) == before,
	      "pool leaked: %u before, %u after", before,
	      rte_mempool_avail_count(pool));
	printf("random: %u ok, %u malformed\n", n_ok, n_malformed);
}
