/* SPDX-License-Identifier: BSD-3-Clause
 * What the parts of test_dp_trace share (test_dp_trace.c: the rig, the
 * VXLAN round trip, filters and limits, main; test_dp_trace_drops.c: a
 * trace for each drop reason): the rig's ports and PMD, the frames the
 * tests send, arming a trace as dpif-netdev/trace add does, and reading
 * its records.
 *
 * Include after unit_test.h and pipeline_rig.h, with UNIT_TEST_PARTS.
 */
#ifndef VXS_TEST_TRACE_TEST_H
#define VXS_TEST_TRACE_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include "ct_ipf.h"
#include "dp_pmtud.h"
#include "dp_stages.h"
#include "dp_trace.h"
#include "ofp_rule.h"
#include "pmd.h"
#include "port.h"
#include "trace_format.h"

#define PKT_MAX 2048
#include "pkt_build.h"
#include "frag_build.h"

/* RTE_IPV4 shifts an int: 172 << 24 overflows it (UBSan) */
#define IPV4(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | \
			  (uint32_t)(c) << 8 | (uint32_t)(d))

#define N_VMS 4
#define VNI 1001
#define VTEP_IP IPV4(172, 1, 0, 100)
#define REMOTE_VTEP_IP IPV4(172, 1, 0, 0)
#define REMOTE_HOST_IP IPV4(192, 2, 0, 1)
#define VM_IP(i) IPV4(192, 1, 0, (i))
#define VXLAN_PORT 4789
#define OUTER_LEN 50		/* eth + ipv4 + udp + vxlan */

/* test_dp_trace.c: the rig (pipeline_rig.h) */
extern struct rte_mempool *rig_pool;
extern struct pmd *rig_pmd;
extern struct port *rig_nic, *rig_vm[N_VMS], *rig_vhost;
extern struct vxs_config rig_cfg;
extern struct conntrack *rig_ct;
extern struct ct_ipf *rig_ipf;
extern uint16_t rig_n_traces;		/* traces armed: the next one's id */

/* test_dp_trace_drops.c */
void test_drop_reasons(void);

extern const struct rte_ether_addr vtep_mac, remote_vtep_mac,
	remote_host_mac;

static inline struct rte_ether_addr
vm_mac(int vm)
{
	return (struct rte_ether_addr){ { 0x52, 0x54, 0, 0, 0,
					  (uint8_t)vm } };
}

/* ---- frames ------------------------------------------------------------ */

/* An Ethernet + IPv4 + UDP/TCP frame of len bytes (addresses and ports
 * host order). */
struct frame_spec {
	struct rte_ether_addr dst_mac, src_mac;
	uint32_t src_ip, dst_ip;
	uint8_t proto;			/* IPPROTO_UDP or IPPROTO_TCP */
	uint16_t sport, dport;
	uint8_t tcp_flags;
	uint16_t frag;			/* IPv4 flags + offset, host order */
	uint16_t len;
};

static inline void
put_frame(struct pkt *p, const struct frame_spec *s)
{
	uint16_t l4_len = (uint16_t)(s->len - 34);

	put(p, &s->dst_mac, 6);
	put(p, &s->src_mac, 6);
	put16(p, RTE_ETHER_TYPE_IPV4);
	p->ip = p->len;
	put8(p, 0x45);
	put8(p, 0);
	put16(p, (uint16_t)(20 + l4_len));
	put16(p, 0x1234);
	put16(p, s->frag);
	put8(p, 64);
	put8(p, s->proto);
	put16(p, 0);
	put32(p, s->src_ip);
	put32(p, s->dst_ip);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(p->b + p->ip);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	p->l4 = p->len;
	put16(p, s->sport);
	put16(p, s->dport);
	if (s->proto == IPPROTO_TCP) {
		put32(p, 1000);			/* seq */
		put32(p, s->tcp_flags & RTE_TCP_ACK_FLAG ? 2000 : 0);
		put8(p, 0x50);			/* 20-byte header */
		put8(p, s->tcp_flags);
		put16(p, 65535);		/* window */
		put32(p, 0);			/* checksum, urgent */
	} else {
		put16(p, l4_len);
		put16(p, 0);			/* no checksum */
	}
	for (uint32_t i = p->len - p->l4; i < l4_len; i++)
		put8(p, (uint8_t)(i * 7));
	if (s->proto == IPPROTO_TCP) {
		uint16_t c = rte_ipv4_udptcp_cksum(ip, p->b + p->l4);
		memcpy(p->b + p->l4 + 16, &c, 2);
	}
}

/* UDP of len bytes that VM vm sends to the remote host. */
static inline struct frame_spec
vm_udp(int vm, uint16_t sport, uint16_t dport, uint16_t len)
{
	return (struct frame_spec){ .dst_mac = remote_host_mac,
				    .src_mac = vm_mac(vm),
				    .src_ip = VM_IP(vm),
				    .dst_ip = REMOTE_HOST_IP,
				    .proto = IPPROTO_UDP, .sport = sport,
				    .dport = dport, .len = len };
}

/* UDP of len bytes the remote host sends VM vm (through the tunnel). */
static inline struct frame_spec
to_vm_udp(int vm, uint16_t len)
{
	return (struct frame_spec){ .dst_mac = vm_mac(vm),
				    .src_mac = remote_host_mac,
				    .src_ip = REMOTE_HOST_IP,
				    .dst_ip = VM_IP(vm),
				    .proto = IPPROTO_UDP, .sport = 40000,
				    .dport = 5001, .len = len };
}

/* The outer headers of a VXLAN frame from the remote VTEP. */
struct vxlan_spec {
	struct rte_ether_addr dst_mac;
	uint16_t dport;			/* VXLAN_PORT */
	uint16_t frag;			/* outer IPv4 flags + offset */
	uint8_t flags;			/* 0x08: the I flag */
	uint32_t vni;
};

static inline struct vxlan_spec
vxlan_to_us(void)
{
	return (struct vxlan_spec){ .dst_mac = vtep_mac, .dport = VXLAN_PORT,
				    .flags = 0x08, .vni = VNI };
}

/* v's outer headers, then inner (a whole frame). */
static inline void
put_vxlan(struct pkt *p, const struct vxlan_spec *v, const struct pkt *inner)
{
	struct frame_spec outer = {
		.dst_mac = v->dst_mac, .src_mac = remote_vtep_mac,
		.src_ip = REMOTE_VTEP_IP, .dst_ip = VTEP_IP,
		.proto = IPPROTO_UDP, .sport = 49152, .dport = v->dport,
		.frag = v->frag, .len = (uint16_t)(OUTER_LEN + inner->len),
	};
	put_frame(p, &outer);		/* its payload: the VXLAN header on */
	p->len = 42;
	put8(p, v->flags);
	put_zeros(p, 3);
	put8(p, (uint8_t)(v->vni >> 16));
	put8(p, (uint8_t)(v->vni >> 8));
	put8(p, (uint8_t)v->vni);
	put8(p, 0);
	put(p, inner->b, inner->len);
}

/* p as an mbuf of rig_pool (NULL when the pool is empty). */
static inline struct rte_mbuf *
mbuf_of(const struct pkt *p)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(rig_pool);
	void *d = m ? rte_pktmbuf_append(m, (uint16_t)p->len) : NULL;

	if (d)
		memcpy(d, p->b, p->len);
	return m;
}

static inline struct rte_mbuf *
frame_mbuf(const struct frame_spec *s, struct pkt *p)
{
	p->len = 0;
	put_frame(p, s);
	return mbuf_of(p);
}

/* A VXLAN frame carrying inner into an mbuf; its bytes in p. */
static inline struct rte_mbuf *
vxlan_mbuf(const struct vxlan_spec *v, const struct frame_spec *inner,
	   struct pkt *p)
{
	struct pkt in = { .len = 0 };

	put_frame(&in, inner);
	p->len = 0;
	put_vxlan(p, v, &in);
	return mbuf_of(p);
}

/* What vm0's UDP (or TCP) destination port selects among the topology's
 * rules (test_dp_trace.c write_topology); no rule takes DPORT_NO_RULE. */
enum vm0_dport {
	DPORT_ENCAP = 5001,	/* VNI 1001 to the remote VTEP */
	DPORT_RULE_DROP,	/* actions=drop */
	DPORT_NO_NEIGH,		/* to a VTEP with no ARP entry */
	DPORT_NO_ROUTE,		/* to a VTEP no route reaches */
	DPORT_TO_VHOST,		/* output:vhost0, no guest */
	DPORT_TO_VM2,		/* output:vm2 */
	DPORT_LOOP,		/* output:vm0, its in_port */
	DPORT_TWO_OUTPUTS,	/* output:vm1,output:vm2 */
	DPORT_RESUBMIT_LOOP,	/* resubmit(,0) to itself */
	DPORT_CT_LOOP,		/* ct(table=0) to itself */
	DPORT_SG_DENY,		/* TCP: sg(deny,zone=1),output:vm1 */
	DPORT_SG_ALLOW,		/* TCP: sg(allow,zone=1),output:vm1 */
	DPORT_SG_LIMITED,	/* sg(allow,zone=5): zone limit 1 */
	DPORT_SG_FRAGS,		/* sg(allow,zone=2): fragments held */
	DPORT_NO_RULE = 5099,
};
#define SG_LIMITED_ZONE 5

/* The first 1480 bytes of a 3000-byte UDP datagram vm0 sends to
 * DPORT_SG_FRAGS (IP id ip_id): sg() holds it for the rest. */
static inline struct rte_mbuf *
held_fragment_mbuf(uint16_t ip_id)
{
	struct frag_dgram d;

	frag_dgram_udp(&d, VM_IP(0), REMOTE_HOST_IP, 40000, DPORT_SG_FRAGS,
		       ip_id, 3000);
	d.src_mac = vm_mac(0);
	d.dst_mac = remote_host_mac;
	struct rte_mbuf *m = frag_piece(&d, rig_pool, 0, 1480, true);
	frag_dgram_free(&d);
	return m;
}

/* ---- the PMD ----------------------------------------------------------- */

/* pkts received on in, one burst; then the tx buffers flushed. */
static inline void
rig_burst(struct port *in, struct rte_mbuf **pkts, uint16_t n, bool flush)
{
	struct pkt_batch b = { .n = n };

	memcpy(b.pkts, pkts, n * sizeof pkts[0]);
	dp_process_burst(&rig_pmd->dp, in, &b);
	if (flush)
		dp_tx_flush_all(&rig_pmd->dp);
}

/* Frames the switch sent on port p since the last call: up to max into
 * got[] (the caller frees them), the rest freed; returns how many. */
static inline uint16_t
rig_sent(struct port *p, struct rte_mbuf *got[], uint16_t max)
{
	struct rte_mbuf *rx[32];
	uint16_t n = 0, k;

	while ((k = rte_eth_rx_burst(p->eth_port_id, 0, rx, RTE_DIM(rx)))) {
		for (uint16_t i = 0; i < k; i++) {
			if (n < max)
				got[n] = rx[i];
			else
				rte_pktmbuf_free(rx[i]);
			n++;
		}
	}
	return n;
}

static inline void
rig_drain(void)
{
	rig_sent(rig_nic, NULL, 0);
	for (int i = 0; i < N_VMS; i++)
		rig_sent(rig_vm[i], NULL, 0);
}

static inline uint64_t
rig_drops(enum drop_reason r)
{
	return rig_pmd->stats.drops[r];
}

/* Before each test: no megaflow (each first packet is an upcall), nothing
 * left on the rings. */
static inline void
rig_fresh(void)
{
	pmd_flush_flows(rig_pmd);
	dp_tx_flush_all(&rig_pmd->dp);
	rig_drain();
}

static inline void
rig_balanced(const char *where)
{
	struct pmd_accounting a;
	struct ct_ipf_status s;

	ct_ipf_get_status(rig_ipf, &s);
	pmd_accounting_read(rig_pmd, &a);
	CHECK(pmd_accounting_balanced(&a) && a.held == (int64_t)s.nfrag,
	      "%s: received %lu + copies %lu != sent %lu + consumed %lu + "
	      "dropped %lu + in flight %lu + held %ld (store: %u)", where,
	      a.received, a.copies, a.sent, a.consumed, a.dropped,
	      a.in_flight, (long)a.held, s.nfrag);
}

/* ---- the trace --------------------------------------------------------- */

/* A trace of the next limit packets received on in (matching match, an
 * ovs-ofctl match, if not NULL), armed on the PMD as dpif-netdev/trace
 * add arms it (cmd_trace.c). */
static inline struct dp_trace *
trace_arm(const struct port *in, uint32_t limit, const char *match)
{
	struct dp_trace *t = rte_zmalloc("test_trace", sizeof *t,
					 RTE_CACHE_LINE_SIZE);
	if (!t)
		return NULL;
	t->in_port = in->idx;
	t->id = ++rig_n_traces;	/* as cmd_trace.c numbers them */
	t->tsc_hz = rte_get_tsc_hz();
	t->limit = limit;
	if (match) {
		struct ofp_rule filter;
		char err[256];
		if (ofp_parse_flow(match, OFP_PARSE_MATCH, ports_ofp_map(),
				   &filter, err, sizeof err)) {
			printf("trace filter '%s': %s\n", match, err);
			rte_free(t);
			return NULL;
		}
		t->has_filter = true;
		t->filter_key = filter.match;
		t->filter_mask = filter.mask;
		t->filter_key.in_port = t->filter_mask.in_port = 0;
	}
	rig_pmd->dp.trace = t;
	return t;
}

static inline void
trace_disarm(void)
{
	rte_free(rig_pmd->dp.trace);
	rig_pmd->dp.trace = NULL;
}

static inline uint32_t
trace_taken(const struct dp_trace *t)
{
	return __atomic_load_n(&t->n_taken, __ATOMIC_ACQUIRE);
}

static inline const struct dp_trace_entry *
rec_last(const struct dp_trace_pkt *r)
{
	return r->n ? &r->e[r->n - 1] : NULL;
}

/* The first entry of kind k in r from entry from on, or NULL. */
static inline const struct dp_trace_entry *
rec_find(const struct dp_trace_pkt *r, enum dp_trace_kind k, uint32_t from)
{
	for (uint32_t i = from; i < r->n; i++)
		if (r->e[i].kind == k)
			return &r->e[i];
	return NULL;
}

static inline const struct flow_key *
rec_key(const struct dp_trace_pkt *r, const struct dp_trace_entry *e)
{
	return e && e->key < r->n_keys ? &r->keys[e->key].key : NULL;
}

/* r's entries as "pass:kind ..." (the drop reason after a drop), for
 * messages. */
static inline const char *
rec_path(const struct dp_trace_pkt *r, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (uint32_t i = 0; i < r->n && at < len; i++) {
		const struct dp_trace_entry *e = &r->e[i];
		at += (size_t)snprintf(buf + at, len - at, "%s%u:%s%s%s",
				       i ? " " : "", e->pass,
				       dp_trace_kind_name(e->kind),
				       e->kind == DP_TRACE_DROP ? "=" : "",
				       e->kind == DP_TRACE_DROP ?
				       drop_reason_name(e->port) : "");
	}
	return buf;
}

/* ---- the path a record reads ------------------------------------------- */

/* A pattern is tokens separated by spaces, each [P:]KIND[?]: KIND a kind's
 * name (dp_trace_kind_name) or "lookup" (emc, dpcls or upcall), P the
 * pass its entry is made in (else the previous token's; 0 at first), ?
 * for an entry that may be missing (the inner pass hashes only if it
 * needs to, emc_bypass.h). */
struct path_token {
	uint8_t pass;
	bool optional, lookup;
	enum dp_trace_kind kind;
};

#define PATH_MAX_TOKENS 64

static inline int
path_parse(const char *pattern, struct path_token tok[])
{
	char word[32];
	int n = 0, used;
	uint8_t pass = 0;

	while (n < PATH_MAX_TOKENS &&
	       sscanf(pattern, " %31s%n", word, &used) == 1) {
		pattern += used;
		char *kind = word, *colon = strchr(word, ':');
		if (colon) {
			pass = (uint8_t)atoi(word);
			kind = colon + 1;
		}
		size_t l = strlen(kind);
		struct path_token *t = &tok[n++];
		*t = (struct path_token){ .pass = pass };
		if (l && kind[l - 1] == '?') {
			t->optional = true;
			kind[l - 1] = '\0';
		}
		t->lookup = !strcmp(kind, "lookup");
		t->kind = DP_TRACE_N_KINDS;
		for (int k = 0; k < DP_TRACE_N_KINDS && !t->lookup; k++)
			if (!strcmp(kind, dp_trace_kind_name(k)))
				t->kind = k;
		if (!t->lookup && t->kind == DP_TRACE_N_KINDS) {
			printf("path pattern: no kind '%s'\n", kind);
			return -1;
		}
	}
	return n;
}

static inline bool
path_token_is(const struct path_token *t, const struct dp_trace_entry *e)
{
	if (t->pass != e->pass)
		return false;
	if (t->lookup)
		return e->kind == DP_TRACE_EMC || e->kind == DP_TRACE_DPCLS ||
		       e->kind == DP_TRACE_UPCALL;
	return e->kind == t->kind;
}

static inline bool
path_match_from(const struct dp_trace_pkt *r, const struct path_token tok[],
		int n_tok, int ti, uint32_t ei)
{
	if (ti == n_tok)
		return ei == r->n;
	if (tok[ti].optional &&
	    path_match_from(r, tok, n_tok, ti + 1, ei))
		return true;
	return ei < r->n && path_token_is(&tok[ti], &r->e[ei]) &&
	       path_match_from(r, tok, n_tok, ti + 1, ei + 1);
}

/* Does r read pattern, entry for token, nothing more? */
static inline bool
path_matches(const struct dp_trace_pkt *r, const char *pattern)
{
	struct path_token tok[PATH_MAX_TOKENS];
	int n = path_parse(pattern, tok);

	return n >= 0 && path_match_from(r, tok, n, 0, 0);
}

#define CHECK_PATH(r, pattern, what)                                           \
	do {                                                                   \
		char path_buf_[1024];                                          \
		CHECK(path_matches((r), (pattern)), "%s: path '%s', want "     \
		      "'%s'", (what), rec_path((r), path_buf_,                 \
					       sizeof path_buf_), (pattern));  \
	} while (0)

/* ---- every record ------------------------------------------------------- */

/* Drops made by the tx stage, of a packet queued for a port. */
static inline bool
drop_at_tx(enum drop_reason why)
{
	return why == DROP_TX_FULL || why == DROP_PORT_DOWN ||
	       why == DROP_MTU_EXCEEDED;
}

/* Does r end as a packet ends? Each output (the packet itself, or a copy
 * of it) ends in exactly one tx or tx-stage drop; the packet itself
 * either left by its last output or ended once (a drop, or an ARP reply
 * to us consumed), after which only its copies' sends follow, and the
 * output of the ICMP error a pmtud entry said was sent (dp_pmtud.h: made
 * from the packet, which is then dropped); a copy not made is a drop
 * marked as a copy; passes never go back; the last entry is tx, drop or
 * that ARP. Empty when it does, else why not. */
static inline const char *
rec_ends_once(const struct dp_trace_pkt *r)
{
	uint32_t outputs = 0, ended_outputs = 0, errors = 0;
	bool gone = false;

	if (r->n < 1 || r->e[0].kind != DP_TRACE_RX)
		return "no rx entry first";
	for (uint32_t i = 0; i < r->n; i++) {
		const struct dp_trace_entry *e = &r->e[i];
		bool tx_end = e->kind == DP_TRACE_TX ||
			      (e->kind == DP_TRACE_DROP && !e->u32 &&
			       drop_at_tx(e->port) &&
			       outputs > ended_outputs);
		if (i && e->pass < r->e[i - 1].pass)
			return "a pass goes back";
		if (e->kind == DP_TRACE_PMTUD &&
		    (e->u64 == DP_PMTUD_FRAG_NEEDED ||
		     e->u64 == DP_PMTUD_TOO_BIG))
			errors++;
		if (gone && e->kind == DP_TRACE_OUTPUT && errors) {
			errors--;	/* the ICMP error's */
			outputs++;
			continue;
		}
		if (gone && !tx_end)
			return "an entry after the packet's end";
		if (e->kind == DP_TRACE_OUTPUT)
			outputs++;
		else if (tx_end)
			ended_outputs++;
		else if (e->kind == DP_TRACE_DROP && !e->u32)
			gone = true;
		else if (e->kind == DP_TRACE_ARP &&
			 e->u32 == DP_TRACE_ARP_CONSUMED)
			gone = true;
		if (ended_outputs > outputs)
			return "more sends than outputs";
	}
	if (ended_outputs != outputs)
		return "an output never sent nor dropped";
	if (!gone && !outputs)
		return "neither sent nor dropped";
	const struct dp_trace_entry *last = rec_last(r);
	if (last->kind != DP_TRACE_TX && last->kind != DP_TRACE_DROP &&
	    !(last->kind == DP_TRACE_ARP &&
	      last->u32 == DP_TRACE_ARP_CONSUMED))
		return "the last entry is not tx, drop or arp (consumed)";
	return "";
}

/* Every record of t ends as a packet ends (what: the test). */
static inline void
trace_check_ends(const struct dp_trace *t, const char *what)
{
	for (uint32_t i = 0; t && i < trace_taken(t); i++) {
		const struct dp_trace_pkt *r = &t->pkts[i];
		const char *why = rec_ends_once(r);
		char buf[1024];
		CHECK(!*why, "%s: record %u: %s (%s)", what, i, why,
		      rec_path(r, buf, sizeof buf));
	}
}

/* Record i of t as trace show prints it, in text (with -m) and in JSON:
 * does each hold want (for the JSON, json_want)? */
static inline bool
trace_shows(const struct dp_trace *t, uint32_t i, const char *want,
	    const char *json_want)
{
	struct ds text, json;

	ds_init(&text);
	ds_init(&json);
	trace_format_pkt_text(&text, t, i, true);
	trace_format_pkt_json(&json, t, i);
	bool ok = strstr(ds_cstr(&text), want) &&
		  strstr(ds_cstr(&json), json_want);
	if (!ok)
		printf("trace show, packet %u:\n%s%s\n", i + 1, ds_cstr(&text),
		       ds_cstr(&json));
	ds_destroy(&text);
	ds_destroy(&json);
	return ok;
}

#endif
