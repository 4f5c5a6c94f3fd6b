/* SPDX-License-Identifier: BSD-3-Clause
 * The packet trace's writers (dp_trace.h): the hooks the stages call while
 * a trace is armed. Each looks at the flag of the packets it is given and
 * appends one entry to the record of each traced one.
 */
#include <string.h>
#include <rte_cycles.h>
#include <rte_ip.h>
#include <rte_mbuf_dyn.h>
#include <rte_udp.h>
#include "dp_actions.h"
#include "dp_trace.h"
#include "dpcls.h"
#include "port.h"
#include "vxlan_tnl.h"

uint64_t dp_trace_flag;
int dp_trace_field = -1;

static const char *const kind_names[] = {
#define X(id, name, doc) [DP_TRACE_##id] = name,
	DP_TRACE_KINDS(X)
#undef X
};

const char *
dp_trace_kind_name(enum dp_trace_kind k)
{
	return k < DP_TRACE_N_KINDS ? kind_names[k] : "?";
}

int
dp_trace_register(char *err, size_t errlen)
{
	static const struct rte_mbuf_dynfield field = {
		.name = "vxswitch_dynfield_trace",
		.size = sizeof(uint32_t),
		.align = __alignof__(uint32_t),
	};
	static const struct rte_mbuf_dynflag flag = {
		.name = "vxswitch_dynflag_trace",
	};
	int off = rte_mbuf_dynfield_register(&field);
	int bit = off < 0 ? -1 : rte_mbuf_dynflag_register(&flag);

	if (bit < 0) {
		snprintf(err, errlen, "packet trace: no room for its mbuf "
			 "%s: %s", off < 0 ? "field" : "flag",
			 rte_strerror(rte_errno));
		return -1;
	}
	dp_trace_field = off;
	dp_trace_flag = UINT64_C(1) << bit;
	return 0;
}

/* A traced packet's field: its record's index, its trace's id << 16. */
static inline uint32_t *
field_of(struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, dp_trace_field, uint32_t *);
}

/* Record s, NULL if this trace did not hand it out to this PMD (a
 * leftover flag on a recycled mbuf). */
static struct dp_trace_pkt *
rec_at(struct dp_ctx *ctx, uint16_t s)
{
	struct dp_trace *t = ctx->trace;

	if (s >= __atomic_load_n(&t->n_taken, __ATOMIC_RELAXED) ||
	    t->pkts[s].pmd != ctx->idx)
		return NULL;
	return &t->pkts[s];
}

/* m's record, NULL if m is not traced (by this trace). */
static struct dp_trace_pkt *
rec_of(struct dp_ctx *ctx, struct rte_mbuf *m)
{
	if (!(m->ol_flags & dp_trace_flag))
		return NULL;
	uint32_t f = *field_of(m);
	if (f >> 16 != ctx->trace->id)
		return NULL;
	return rec_at(ctx, (uint16_t)f);
}

static struct dp_trace_entry *
entry_new(struct dp_ctx *ctx, struct dp_trace_pkt *r, enum dp_trace_kind k)
{
	if (r->n >= DP_TRACE_MAX_ENTRIES) {
		r->lost++;
		return NULL;
	}
	struct dp_trace_entry *e = &r->e[r->n];
	memset(e, 0, sizeof *e);
	e->kind = k;
	/* A packet ends (tx, drop) in the pass it was last in: the flush
	 * that sends it, or the fragment store's drain, may come after a
	 * burst of another port, whose pass ctx->trace_pass then is (an
	 * entry is always before: take() wrote the rx one). */
	e->pass = k == DP_TRACE_TX || k == DP_TRACE_DROP ?
		  r->e[r->n - 1].pass : ctx->trace_pass;
	e->key = DP_TRACE_NO_KEY;
	return e;
}

static inline void
entry_publish(struct dp_trace_pkt *r)
{
	__atomic_store_n(&r->n, r->n + 1, __ATOMIC_RELEASE);
}

/* Keeps key (and mask: NULL for an exact key) in r: its slot. */
static uint8_t
key_keep(struct dp_trace_pkt *r, const struct flow_key *key,
	 const struct flow_key *mask)
{
	if (r->n_keys >= DP_TRACE_MAX_KEYS) {
		r->lost++;
		return DP_TRACE_NO_KEY;
	}
	r->keys[r->n_keys].key = *key;
	if (mask)
		r->keys[r->n_keys].mask = *mask;
	else
		memset(&r->keys[r->n_keys].mask, 0xff, sizeof(*mask));
	return r->n_keys++;
}

/* One entry in record r (NULL: none). */
static void
put_rec(struct dp_ctx *ctx, struct dp_trace_pkt *r, enum dp_trace_kind k,
	uint16_t port, uint32_t u32, uint64_t u64, const struct flow_key *key,
	const struct flow_key *mask)
{
	struct dp_trace_entry *e = r ? entry_new(ctx, r, k) : NULL;

	if (!e)
		return;
	e->port = port;
	e->u32 = u32;
	e->u64 = u64;
	if (key)
		e->key = key_keep(r, key, mask);
	entry_publish(r);
}

/* One entry in m's record, if m is traced. */
static inline void
put(struct dp_ctx *ctx, struct rte_mbuf *m, enum dp_trace_kind k,
    uint16_t port, uint32_t u32, uint64_t u64, const struct flow_key *key,
    const struct flow_key *mask)
{
	if (m->ol_flags & dp_trace_flag)
		put_rec(ctx, rec_of(ctx, m), k, port, u32, u64, key, mask);
}

/* A record for m, if the trace has one left: m flagged. */
static bool
take(struct dp_ctx *ctx, const struct port *in, struct rte_mbuf *m)
{
	struct dp_trace *t = ctx->trace;
	uint32_t s = __atomic_load_n(&t->n_taken, __ATOMIC_RELAXED);

	do {
		if (s >= __atomic_load_n(&t->limit, __ATOMIC_RELAXED))
			return false;
	} while (!__atomic_compare_exchange_n(&t->n_taken, &s, s + 1, false,
					      __ATOMIC_ACQ_REL,
					      __ATOMIC_RELAXED));
	struct dp_trace_pkt *r = &t->pkts[s];
	r->lost = 0;
	r->n_keys = 0;
	r->pmd = ctx->idx;
	r->in_port = in->idx;
	r->len = rte_pktmbuf_pkt_len(m);
	r->tsc = rte_rdtsc();
	r->head_len = (uint8_t)RTE_MIN(r->len, (uint32_t)DP_TRACE_HEAD);
	const void *h = rte_pktmbuf_read(m, 0, r->head_len, r->head);
	if (h != r->head)
		memcpy(r->head, h, r->head_len);
	*field_of(m) = s | (uint32_t)t->id << 16;
	m->ol_flags |= dp_trace_flag;
	/* the RX entry, published with everything above it */
	struct dp_trace_entry *e = &r->e[0];
	memset(e, 0, sizeof *e);
	e->kind = DP_TRACE_RX;
	e->key = DP_TRACE_NO_KEY;
	e->port = in->idx;
	e->u32 = r->len;
	__atomic_store_n(&r->n, 1, __ATOMIC_RELEASE);
	return true;
}

void
dp_trace_rx(struct dp_ctx *ctx, const struct port *in, struct pkt_batch *b)
{
	struct dp_trace *t = ctx->trace;
	bool mine = t->in_port == in->idx && !t->has_filter;

	ctx->trace_pass = 0;
	for (uint16_t i = 0; i < b->n; i++) {
		struct rte_mbuf *m = b->pkts[i];
		m->ol_flags &= ~dp_trace_flag;
		if (mine && !take(ctx, in, m))
			mine = false;
	}
}

void
dp_trace_extract(struct dp_ctx *ctx, const struct port *in,
		 const struct pkt_batch *b, const struct flow_key keys[])
{
	struct dp_trace *t = ctx->trace;
	bool filter = t->in_port == in->idx && t->has_filter;

	for (uint16_t i = 0; i < b->n; i++) {
		struct rte_mbuf *m = b->pkts[i];
		if (filter && flow_key_match(&keys[i], &t->filter_key,
					     &t->filter_mask))
			filter = take(ctx, in, m);
		put(ctx, m, DP_TRACE_EXTRACT, 0, 0, 0, &keys[i], NULL);
	}
}

void
dp_trace_hash(struct dp_ctx *ctx, const struct pkt_batch *b,
	      const uint32_t hashes[], bool from_nic)
{
	for (uint16_t i = 0; i < b->n; i++) {
		struct rte_mbuf *m = b->pkts[i];
		put(ctx, m, DP_TRACE_HASH,
		    from_nic && (m->ol_flags & RTE_MBUF_F_RX_RSS_HASH),
		    hashes[i], 0, NULL, NULL);
	}
}

void
dp_trace_lookup(struct dp_ctx *ctx, const struct pkt_batch *b,
		struct megaflow *const flows[], uint32_t emc, uint32_t upcall)
{
	for (uint16_t i = 0; i < b->n; i++) {
		const struct megaflow *f = flows[i];
		enum dp_trace_kind k = (emc >> i) & 1 ? DP_TRACE_EMC :
				       (upcall >> i) & 1 ? DP_TRACE_UPCALL :
				       DP_TRACE_DPCLS;
		/* a transient megaflow (upcall.c, refused by the
		 * classifier) has no mask: its key is not shown either, as
		 * it would read as an exact match */
		const struct flow_key *fm = f ? megaflow_mask(f) : NULL;
		put(ctx, b->pkts[i], k, 0, 0, f ? f->id : 0,
		    fm ? &f->key : NULL, fm);
	}
}

void
dp_trace_sg(struct dp_ctx *ctx, struct rte_mbuf *const pkts[], uint16_t n,
	    const uint8_t state[], const uint16_t zones[], uint16_t zone,
	    const uint64_t allow_bits[], bool allow)
{
	for (uint16_t i = 0; i < n; i++) {
		bool a = allow_bits ? (allow_bits[i / 64] >> (i % 64)) & 1
				    : allow;
		put(ctx, pkts[i], DP_TRACE_SG, zones ? zones[i] : zone,
		    state[i], a, NULL, NULL);
	}
}

void
dp_trace_ct(struct dp_ctx *ctx, const struct pkt_batch *b,
	    const uint8_t state[], uint16_t zone, bool commit)
{
	for (uint16_t i = 0; i < b->n; i++)
		put(ctx, b->pkts[i], DP_TRACE_CT, zone, state[i], commit,
		    NULL, NULL);
}

void
dp_trace_action(struct dp_ctx *ctx, const struct pkt_batch *b,
		const struct dp_action *a)
{
	if (a->type == DP_ACT_OUTPUT)	/* dp_tx_enqueue's output entry */
		return;
	for (uint16_t i = 0; i < b->n; i++)
		put(ctx, b->pkts[i], DP_TRACE_ACTION, a->type, a->port,
		    a->type == DP_ACT_DROP || a->type == DP_ACT_DROP_COPY ?
		    a->reason : a->slot, NULL, NULL);
}

void
dp_trace_tnl_pop(struct dp_ctx *ctx, const struct pkt_batch *b,
		 const struct flow_key keys[])
{
	/* An IPv6 underlay's addresses do not fit the entry: the inner key,
	 * which has them (tun_ipv6_src/dst), is kept instead. */
	for (uint16_t i = 0; i < b->n; i++)
		put(ctx, b->pkts[i], DP_TRACE_TNL_POP, 0, keys[i].tun_id,
		    (uint64_t)rte_be_to_cpu_32(keys[i].tun_src) << 32 |
		    rte_be_to_cpu_32(keys[i].tun_dst),
		    flow_key_has_line3(&keys[i]) ? &keys[i] : NULL, NULL);
}

/* After encap: what the outer headers say (vxlan_encap.c wrote them). */
void
dp_trace_tnl_push(struct dp_ctx *ctx, const struct pkt_batch *b)
{
	for (uint16_t i = 0; i < b->n; i++) {
		struct rte_mbuf *m = b->pkts[i];
		if (!(m->ol_flags & dp_trace_flag) ||
		    rte_pktmbuf_data_len(m) < VXLAN_TNL_HDR_LEN)
			continue;
		const uint8_t *p = rte_pktmbuf_mtod(m, const uint8_t *);
		/* An IPv6 underlay (70-byte header): its addresses do not
		 * fit the entry, and go in a key as tun_ipv6_src/dst. */
		const bool v6 = p[12] == 0x86 && p[13] == 0xdd &&
				rte_pktmbuf_data_len(m) >= VXLAN_TNL6_HDR_LEN;
		const int udp_off = v6 ? VXLAN_TNL6_UDP_OFF : VXLAN_TNL_UDP_OFF;
		const struct rte_ipv4_hdr *ip =
			(const struct rte_ipv4_hdr *)(p + VXLAN_TNL_IP_OFF);
		const struct rte_udp_hdr *udp =
			(const struct rte_udp_hdr *)(p + udp_off);
		const uint8_t *vx = p + udp_off + 8;
		uint32_t vni = (uint32_t)vx[4] << 16 | vx[5] << 8 | vx[6];
		uint32_t dst = v6 ? 0 : rte_be_to_cpu_32(ip->dst_addr);
		struct flow_key ends;
		if (v6) {
			const struct rte_ipv6_hdr *ip6 =
				(const struct rte_ipv6_hdr *)
				(p + VXLAN_TNL_IP_OFF);
			memset(&ends, 0, sizeof ends);
			ends.tun_id = vni;
			ends.ext_line = FLOW_EXT_TUN6;
			memcpy(ends.tun_ipv6_src.a, ip6->src_addr, 16);
			memcpy(ends.tun_ipv6_dst.a, ip6->dst_addr, 16);
		}
		put(ctx, m, DP_TRACE_TNL_PUSH, 0, vni,
		    (uint64_t)dst << 32 |
		    rte_be_to_cpu_16(udp->src_port), v6 ? &ends : NULL, NULL);
	}
}

void
dp_trace_recirc(struct dp_ctx *ctx, struct rte_mbuf *m,
		const struct flow_key *k)
{
	put(ctx, m, DP_TRACE_RECIRC, k->recirc_id, k->ct_state, 0, NULL,
	    NULL);
}

void
dp_trace_pmtud(struct dp_ctx *ctx, struct rte_mbuf *m, unsigned verdict,
	       uint32_t mtu, uint16_t port_idx)
{
	put(ctx, m, DP_TRACE_PMTUD, port_idx, mtu, verdict, NULL, NULL);
}

void
dp_trace_arp(struct dp_ctx *ctx, struct rte_mbuf *m, enum dp_trace_arp what)
{
	put(ctx, m, DP_TRACE_ARP, 0, what, 0, NULL, NULL);
}

void
dp_trace_mark(struct dp_ctx *ctx, struct rte_mbuf *m, uint32_t mark,
	      const struct megaflow *f)
{
	/* taken: in the inner pass, as what the mark path runs (the NIC did
	 * the outer one); not taken: the outer pass goes on */
	uint8_t pass = ctx->trace_pass;

	ctx->trace_pass = f ? 1 : 0;
	put(ctx, m, DP_TRACE_MARK, 0, mark, f ? f->id : 0,
	    f ? &f->key : NULL, f ? megaflow_mask(f) : NULL);
	ctx->trace_pass = pass;
}

void
dp_trace_output(struct dp_ctx *ctx, struct rte_mbuf *const pkts[], uint16_t n,
		uint16_t port_idx, enum dp_trace_kind kind)
{
	for (uint16_t i = 0; i < n; i++)
		put(ctx, pkts[i], kind, port_idx, 0, 0, NULL, NULL);
}

void
dp_trace_drop(struct dp_ctx *ctx, struct rte_mbuf *const pkts[], uint16_t n,
	      enum drop_reason why, bool copy)
{
	for (uint16_t i = 0; i < n; i++)
		put(ctx, pkts[i], DP_TRACE_DROP, why, copy, 0, NULL, NULL);
}

bool
dp_trace_slots(struct dp_ctx *ctx, struct rte_mbuf *const pkts[], uint16_t n,
	       uint16_t slots[])
{
	bool any = false;

	for (uint16_t i = 0; i < n; i++) {
		slots[i] = rec_of(ctx, pkts[i]) ? (uint16_t)*field_of(pkts[i])
						 : DP_TRACE_NO_SLOT;
		any |= slots[i] != DP_TRACE_NO_SLOT;
	}
	return any;
}

void
dp_trace_sent(struct dp_ctx *ctx, const uint16_t slots[], uint16_t n,
	      uint16_t sent, uint16_t port_idx)
{
	for (uint16_t i = 0; i < n; i++) {
		if (slots[i] == DP_TRACE_NO_SLOT)
			continue;
		struct dp_trace_pkt *r = rec_at(ctx, slots[i]);
		if (i < sent)
			put_rec(ctx, r, DP_TRACE_TX, port_idx, 0, 0, NULL,
				NULL);
		else
			put_rec(ctx, r, DP_TRACE_DROP, DROP_TX_FULL, 0, 0,
				NULL, NULL);
	}
}
