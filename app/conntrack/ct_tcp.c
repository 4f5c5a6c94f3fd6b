/* SPDX-License-Identifier: BSD-3-Clause
 * TCP state tracking with window checks: the algorithm of pf, as OVS's
 * lib/conntrack-tcp.c runs it (Guido van Rooij's sequence tracking: each
 * peer's highest sequence sent and the highest the other end may send,
 * window scaling from the SYN options). A packet outside the windows is
 * invalid (+inv, never dropped here); a SYN on a closed session asks for
 * a new one. Called under the session's lock.
 */
#include <rte_tcp.h>
#include "ct_private.h"

#define TCP_MAX_WSCALE 14
/* How far an ACK may skew (1500: a fudge factor, as pf). */
#define MAX_ACK_WINDOW (0xffff + 1500)

#define SEQ_LT(a, b)  ((int32_t)((a) - (b)) < 0)
#define SEQ_GT(a, b)  ((int32_t)((a) - (b)) > 0)
#define SEQ_GEQ(a, b) ((int32_t)((a) - (b)) >= 0)

const char *const ct_tcp_state_names[CT_TCPS_N] = {
	"CLOSED", "LISTEN", "SYN_SENT", "SYN_RECV", "ESTABLISHED",
	"CLOSE_WAIT", "FIN_WAIT_1", "CLOSING", "LAST_ACK", "FIN_WAIT_2",
	"TIME_WAIT",
};

struct tcp_view {
	uint32_t seq, ack;
	uint32_t payload;
	uint16_t win;
	uint8_t flags;
	const struct rte_tcp_hdr *h;
};

static void
tcp_view(const struct rte_mbuf *m, const struct ct_pkt_meta *mt,
	 struct tcp_view *v)
{
	/* ct_key_extract checked the header fits. */
	v->h = rte_pktmbuf_mtod_offset(m, const struct rte_tcp_hdr *,
				       mt->l4_ofs);
	v->seq = rte_be_to_cpu_32(v->h->sent_seq);
	v->ack = rte_be_to_cpu_32(v->h->recv_ack);
	v->win = rte_be_to_cpu_16(v->h->rx_win);
	v->flags = v->h->tcp_flags;
	v->payload = mt->l4_len - (v->h->data_off >> 4) * 4u;
}

/* pf_normalize_tcp's sanity checks, as OVS. */
static bool
tcp_invalid_flags(uint8_t f)
{
	if (f & RTE_TCP_SYN_FLAG) {
		if (f & (RTE_TCP_RST_FLAG | RTE_TCP_FIN_FLAG))
			return true;
	} else if (!(f & (RTE_TCP_ACK_FLAG | RTE_TCP_RST_FLAG))) {
		return true;
	}
	if (!(f & RTE_TCP_ACK_FLAG) &&
	    (f & (RTE_TCP_FIN_FLAG | RTE_TCP_PSH_FLAG | RTE_TCP_URG_FLAG)))
		return true;
	return false;
}

/* The window scale option of a SYN: CT_WSCALE_FLAG | factor, or 0. */
static uint8_t
tcp_wscale(const struct rte_tcp_hdr *h)
{
	int len = (h->data_off >> 4) * 4 - (int)sizeof *h;
	const uint8_t *opt = (const uint8_t *)(h + 1);
	uint8_t ws = 0;

	while (len >= 3) {
		if (opt[0] == 0)	/* EOL */
			break;
		if (opt[0] == 1) {	/* NOP */
			opt++;
			len--;
			continue;
		}
		if (opt[0] == 3)	/* window scale */
			ws = RTE_MIN(opt[2], TCP_MAX_WSCALE) | CT_WSCALE_FLAG;
		uint8_t olen = opt[1] < 2 ? 2 : opt[1];
		len -= olen;
		opt += olen;
	}
	return ws;
}

bool
ct_tcp_valid_new(const struct rte_mbuf *m, const struct ct_pkt_meta *mt)
{
	struct tcp_view v;

	tcp_view(m, mt, &v);
	if (tcp_invalid_flags(v.flags))
		return false;
	/* A SYN-ACK may not create a session: new (SYN) or already
	 * established (picked up mid-stream) only. */
	return (v.flags & (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG)) !=
	       (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG);
}

/* The peers' seqlock (ct_conn.tcp_wseq), written under the session's
 * lock: odd while they change, so that the lane's lock-free read
 * (ct_tcp_lane) sees both peers as one packet left them or tries again
 * under the lock. */
static inline void
tcp_write_begin(struct ct_conn *c)
{
	__atomic_store_n(&c->tcp_wseq, c->tcp_wseq + 1, __ATOMIC_RELAXED);
	rte_smp_wmb();
}

static inline void
tcp_write_end(struct ct_conn *c)
{
	rte_smp_wmb();
	__atomic_store_n(&c->tcp_wseq, c->tcp_wseq + 1, __ATOMIC_RELAXED);
}

static void tcp_new(struct conntrack *ct, struct ct_conn *c,
		    const struct rte_mbuf *m, const struct ct_pkt_meta *mt,
		    uint64_t now);

void
ct_tcp_new(struct conntrack *ct, struct ct_conn *c, const struct rte_mbuf *m,
	   const struct ct_pkt_meta *mt, uint64_t now)
{
	tcp_write_begin(c);
	tcp_new(ct, c, m, mt, now);
	tcp_write_end(c);
}

static void
tcp_new(struct conntrack *ct, struct ct_conn *c, const struct rte_mbuf *m,
	const struct ct_pkt_meta *mt, uint64_t now)
{
	struct ct_tcp_peer *src = &c->p.tcp[0], *dst = &c->p.tcp[1];
	struct tcp_view v;

	tcp_view(m, mt, &v);
	src->seqlo = v.seq;
	src->seqhi = v.seq + v.payload + 1;
	if (v.flags & RTE_TCP_SYN_FLAG) {
		src->seqhi++;
		src->wscale = tcp_wscale(v.h);
	} else {
		/* Picked up mid-stream: scaling unknown, be liberal. */
		src->wscale = CT_WSCALE_UNKNOWN;
		dst->wscale = CT_WSCALE_UNKNOWN;
	}
	src->max_win = RTE_MAX(v.win, 1);
	if (src->wscale & CT_WSCALE_MASK) {
		uint8_t sws = src->wscale & CT_WSCALE_MASK;
		src->max_win = (uint16_t)(((uint32_t)src->max_win +
					   (1u << sws) - 1) >> sws);
	}
	if (v.flags & RTE_TCP_FIN_FLAG)
		src->seqhi++;
	dst->seqhi = 1;
	dst->max_win = 1;
	src->state = CT_TCPS_SYN_SENT;
	dst->state = CT_TCPS_CLOSED;
	ct_conn_update_expiration(ct, c, CT_TM_TCP_FIRST_PACKET, now);
}

/* The timeout class for the two peers' states, as OVS. */
static enum ct_tm
tcp_tm(const struct ct_tcp_peer *src, const struct ct_tcp_peer *dst)
{
	if (src->state >= CT_TCPS_FIN_WAIT_2 &&
	    dst->state >= CT_TCPS_FIN_WAIT_2)
		return CT_TM_TCP_CLOSED;
	if (src->state >= CT_TCPS_CLOSING && dst->state >= CT_TCPS_CLOSING)
		return CT_TM_TCP_FIN_WAIT;
	if (src->state < CT_TCPS_ESTABLISHED ||
	    dst->state < CT_TCPS_ESTABLISHED)
		return CT_TM_TCP_OPENING;
	if (src->state >= CT_TCPS_CLOSING || dst->state >= CT_TCPS_CLOSING)
		return CT_TM_TCP_CLOSING;
	return CT_TM_TCP_ESTABLISHED;
}

/* Both window updates of an accepted packet. */
static void
tcp_slide(struct ct_tcp_peer *src, struct ct_tcp_peer *dst, uint32_t end,
	  uint32_t ack, uint32_t win, uint8_t sws)
{
	if (src->max_win < win)
		src->max_win = (uint16_t)win;
	if (SEQ_GT(end, src->seqlo))
		src->seqlo = end;
	if (SEQ_GEQ(ack + (win << sws), dst->seqhi))
		dst->seqhi = ack + RTE_MAX(win << sws, 1u);
}

/* Whether tcp_slide() would change anything. */
static inline bool
tcp_slide_changes(const struct ct_tcp_peer *src, const struct ct_tcp_peer *dst,
		  uint32_t end, uint32_t ack, uint32_t win, uint8_t sws)
{
	return src->max_win < win || SEQ_GT(end, src->seqlo) ||
	       (SEQ_GEQ(ack + (win << sws), dst->seqhi) &&
		dst->seqhi != ack + RTE_MAX(win << sws, 1u));
}

/* The window scale factors of a packet without SYN: both ends' when both
 * offered scaling, the largest when the session was picked up mid-stream
 * (scaling unknown), else none. */
static inline void
tcp_scales(const struct ct_tcp_peer *src, const struct ct_tcp_peer *dst,
	   uint8_t *sws, uint8_t *dws)
{
	if ((src->wscale & CT_WSCALE_FLAG) && (dst->wscale & CT_WSCALE_FLAG)) {
		*sws = src->wscale & CT_WSCALE_MASK;
		*dws = dst->wscale & CT_WSCALE_MASK;
	} else if ((src->wscale & CT_WSCALE_UNKNOWN) &&
		   (dst->wscale & CT_WSCALE_UNKNOWN)) {
		*sws = *dws = TCP_MAX_WSCALE;
	}
}

/* pf's window check, as OVS: an ACK-less packet's ack and an empty
 * segment's sequence eased first (*seq, *end, *ack are what the caller
 * goes on with); true if the packet is in window. */
static inline bool
tcp_window_ok(const struct ct_tcp_peer *src, const struct ct_tcp_peer *dst,
	      uint8_t f, uint32_t *seq, uint32_t *end, uint32_t *ack,
	      uint8_t sws, uint8_t dws, bool check_ackskew)
{
	uint32_t orig_seq = *seq;

	if (!(f & RTE_TCP_ACK_FLAG))
		*ack = dst->seqlo;	/* passes the ack skew check */
	else if (*ack == 0 && (f & RTE_TCP_RST_FLAG))
		*ack = dst->seqlo;	/* broken stacks: RST|ACK with ack 0 */
	if (*seq == *end) {
		/* No data: ease the sequence checks. */
		*seq = src->seqlo;
		*end = *seq;
	}
	int32_t ackskew = check_ackskew ? (int32_t)(dst->seqlo - *ack) : 0;
	bool rst_ok = !(f & RTE_TCP_RST_FLAG) || orig_seq == src->seqlo ||
		      orig_seq == src->seqlo + 1 || orig_seq + 1 == src->seqlo;
	return SEQ_GEQ(src->seqhi, *end) &&
	       SEQ_GEQ(*seq, src->seqlo - ((uint32_t)dst->max_win << dws)) &&
	       ackskew >= -MAX_ACK_WINDOW &&
	       ackskew <= (MAX_ACK_WINDOW << sws) && rst_ok;
}

static enum ct_update
tcp_update(struct conntrack *ct, struct ct_conn *c, const struct rte_mbuf *m,
	   const struct ct_pkt_meta *mt, bool reply, uint64_t now)
{
	struct ct_tcp_peer *src = &c->p.tcp[reply ? 1 : 0];
	struct ct_tcp_peer *dst = &c->p.tcp[reply ? 0 : 1];
	struct tcp_view v;
	uint8_t sws = 0, dws = 0;
	bool check_ackskew = true;

	tcp_view(m, mt, &v);
	uint8_t f = v.flags;
	uint32_t win = v.win;
	if (tcp_invalid_flags(f))
		return CT_UPDATE_INVALID;

	/* A bare SYN, as OVS 3.1 (conntrack-tcp.c): on a session both ends
	 * closed, a new connection (the caller ends this one, committed or
	 * not); from an end that has sent nothing but SYNs (a retransmission,
	 * a new ISN on an unanswered attempt, the other end of a
	 * simultaneous open), +new with no window check and nothing else
	 * learnt from it. */
	if ((f & (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG)) == RTE_TCP_SYN_FLAG) {
		if (dst->state >= CT_TCPS_FIN_WAIT_2 &&
		    src->state >= CT_TCPS_FIN_WAIT_2) {
			src->state = dst->state = CT_TCPS_CLOSED;
			return CT_UPDATE_NEW;
		}
		if (src->state <= CT_TCPS_SYN_SENT) {
			src->state = CT_TCPS_SYN_SENT;
			ct_conn_update_expiration(ct, c,
						  CT_TM_TCP_FIRST_PACKET, now);
			return CT_UPDATE_VALID_NEW;
		}
	}

	if (!(f & RTE_TCP_SYN_FLAG))
		tcp_scales(src, dst, &sws, &dws);

	uint32_t seq = v.seq, ack = v.ack;
	uint32_t end = seq + v.payload;
	if (f & RTE_TCP_SYN_FLAG)
		end++;
	if (f & RTE_TCP_FIN_FLAG)
		end++;

	if (src->state < CT_TCPS_SYN_SENT) {
		/* This end's first packet. */
		if ((f & RTE_TCP_SYN_FLAG) && (dst->wscale & CT_WSCALE_FLAG)) {
			src->wscale = tcp_wscale(v.h);
			if (src->wscale & CT_WSCALE_FLAG) {
				sws = src->wscale & CT_WSCALE_MASK;
				win = (win + (1u << sws) - 1) >> sws;
				dws = dst->wscale & CT_WSCALE_MASK;
			} else {
				/* The other end offered scaling, this one
				 * did not: neither scales. */
				dst->max_win <<= dst->wscale & CT_WSCALE_MASK;
				dst->wscale = 0;
			}
		}
		src->seqlo = seq;
		src->state = CT_TCPS_SYN_SENT;
		uint32_t w = RTE_MAX((uint32_t)dst->max_win << dws, 1u);
		if (src->seqhi == 1 || SEQ_GEQ(end + w, src->seqhi)) {
			src->seqhi = end + w;
			/* A new or picked-up connection: no ack skew yet. */
			check_ackskew = false;
		}
		if (win > src->max_win)
			src->max_win = (uint16_t)win;
	}

	if (tcp_window_ok(src, dst, f, &seq, &end, &ack, sws, dws,
			  check_ackskew)) {
		/* In window. */
		tcp_slide(src, dst, end, ack, win, sws);
		if ((f & RTE_TCP_FIN_FLAG) && src->state < CT_TCPS_CLOSING)
			src->state = CT_TCPS_CLOSING;
		if (f & RTE_TCP_ACK_FLAG) {
			if (dst->state == CT_TCPS_SYN_SENT)
				dst->state = CT_TCPS_ESTABLISHED;
			else if (dst->state == CT_TCPS_CLOSING)
				dst->state = CT_TCPS_FIN_WAIT_2;
		}
		if (f & RTE_TCP_RST_FLAG)
			src->state = dst->state = CT_TCPS_TIME_WAIT;
		ct_conn_update_expiration(ct, c, tcp_tm(src, dst), now);
		return CT_UPDATE_VALID;
	}
	if ((dst->state < CT_TCPS_SYN_SENT ||
	     dst->state >= CT_TCPS_FIN_WAIT_2 ||
	     src->state >= CT_TCPS_FIN_WAIT_2) &&
	    SEQ_GEQ(src->seqhi + MAX_ACK_WINDOW, end) &&
	    SEQ_GEQ(seq, src->seqlo - MAX_ACK_WINDOW)) {
		/* Shotgunned SYNs before the peer answers, a picked-up
		 * stream, stray packets right after a close: accepted, but
		 * the timeout is not refreshed (a flood must not keep the
		 * session alive). */
		tcp_slide(src, dst, end, ack, win, sws);
		if ((f & RTE_TCP_FIN_FLAG) && src->state < CT_TCPS_CLOSING)
			src->state = CT_TCPS_CLOSING;
		if (f & RTE_TCP_RST_FLAG)
			src->state = dst->state = CT_TCPS_TIME_WAIT;
		return CT_UPDATE_VALID;
	}
	return CT_UPDATE_INVALID;
}

enum ct_update
ct_tcp_update(struct conntrack *ct, struct ct_conn *c,
	      const struct rte_mbuf *m, const struct ct_pkt_meta *mt,
	      bool reply, uint64_t now)
{
	tcp_write_begin(c);
	enum ct_update r = tcp_update(ct, c, m, mt, reply, now);
	tcp_write_end(c);
	return r;
}

/* The established lane's TCP part (ct_est.h): a segment of a session
 * both ends have ESTABLISHED, not NATed, with ACK and nothing else that
 * can change a state (PSH, ECE, CWR aside).
 *
 * The peers are read without the lock, as one writer left them (the
 * seqlock), and pf's window check is run on them as ct_tcp_update()
 * would: for such a segment that is all it does. If the segment is in
 * window and moves nothing (no new data, no larger window, no further
 * ack: a duplicate ACK, a retransmission, a keepalive), the check is its
 * whole verdict, and all it writes is the expiration, as the UDP lane: no
 * lock. One that moves a window takes the session's lock and, if no
 * writer came between (the seqlock unchanged), applies what it computed;
 * else it runs ct_tcp_update() on the peers as they are now. Either way
 * the windows stay exactly OVS's: the two directions may be on two PMDs,
 * and their updates (each side's seqlo and the other's seqhi) must be
 * ordered, as OVS's conn->lock and Linux's ct->lock order them. What the
 * lane saves is the key extraction, the table probe, the full path's call
 * chain and, under the lock, everything but the slide.
 *
 * Returns the packet's ct_state, or 0 (the full path takes it). */
uint8_t
ct_tcp_lane(struct conntrack *ct, struct ct_conn *c, bool reply,
	    const struct rte_mbuf *m, uint16_t l4_ofs, uint16_t l4_len,
	    uint64_t now)
{
	const struct rte_tcp_hdr *h = rte_pktmbuf_mtod_offset(m,
					const struct rte_tcp_hdr *, l4_ofs);
	const uint8_t quiet = RTE_TCP_PSH_FLAG | RTE_TCP_ECE_FLAG |
			      RTE_TCP_CWR_FLAG;
	uint8_t f = h->tcp_flags;
	uint8_t est = CS_TRACKED | CS_ESTABLISHED | (reply ? CS_REPLY_DIR : 0);

	if ((f & ~quiet) != RTE_TCP_ACK_FLAG || c->nat)
		return 0;

	uint32_t wseq = __atomic_load_n(&c->tcp_wseq, __ATOMIC_ACQUIRE);
	struct ct_tcp_peer p[2];
	memcpy(p, c->p.tcp, sizeof p);
	rte_smp_rmb();
	uint64_t exp = __atomic_load_n(&c->expiration, __ATOMIC_RELAXED);
	if ((wseq & 1) ||
	    __atomic_load_n(&c->tcp_wseq, __ATOMIC_RELAXED) != wseq)
		return 0;	/* a writer is at it: the full path */
	const struct ct_tcp_peer *src = &p[reply], *dst = &p[!reply];
	if (src->state != CT_TCPS_ESTABLISHED ||
	    dst->state != CT_TCPS_ESTABLISHED || now >= exp)
		return 0;

	uint8_t sws = 0, dws = 0;
	tcp_scales(src, dst, &sws, &dws);
	uint32_t seq = rte_be_to_cpu_32(h->sent_seq);
	uint32_t ack = rte_be_to_cpu_32(h->recv_ack);
	uint32_t win = rte_be_to_cpu_16(h->rx_win);
	uint32_t end = seq + l4_len - (h->data_off >> 4) * 4u;
	if (!tcp_window_ok(src, dst, f, &seq, &end, &ack, sws, dws, true))
		return 0;	/* the full path says what it is */
	if (!tcp_slide_changes(src, dst, end, ack, win, sws)) {
		uint64_t next = now + ct_conn_timeout_tsc(ct, c,
						CT_TM_TCP_ESTABLISHED);
		if (next > exp + ct->refresh_slack_tsc)
			__atomic_store_n(&c->expiration, next,
					 __ATOMIC_RELAXED);
		return est;
	}

	enum ct_update r = CT_UPDATE_VALID;
	rte_spinlock_lock(&c->lock);
	if (c->dead || ct_conn_expired(c, now)) {
		rte_spinlock_unlock(&c->lock);
		return 0;
	}
	tcp_write_begin(c);
	if (c->tcp_wseq == wseq + 1) {
		/* the peers are still the snapshot: its verdict stands */
		tcp_slide(&c->p.tcp[reply], &c->p.tcp[!reply], end, ack, win,
			  sws);
		ct_conn_update_expiration(ct, c, CT_TM_TCP_ESTABLISHED, now);
	} else if (c->p.tcp[0].state == CT_TCPS_ESTABLISHED &&
		   c->p.tcp[1].state == CT_TCPS_ESTABLISHED) {
		const struct ct_pkt_meta mt = { .l4_ofs = l4_ofs,
						.l4_len = l4_len };
		r = tcp_update(ct, c, m, &mt, reply, now);
	} else {
		r = CT_UPDATE_NEW;	/* not ours any more */
	}
	tcp_write_end(c);
	rte_spinlock_unlock(&c->lock);
	if (r == CT_UPDATE_NEW)
		return 0;	/* nothing written: the full path */
	ct_counters(ct)->lane_tcp_locked++;
	/* no SYN: neither VALID_NEW nor NEW from tcp_update */
	if (r == CT_UPDATE_VALID)
		return est;
	ct_counters(ct)->invalid++;
	return CS_TRACKED | CS_INVALID;
}

enum ct_tcp_state
ct_tcp_coalesced(uint8_t orig, uint8_t reply)
{
	uint8_t s = RTE_MAX(orig, reply);

	if (s == CT_TCPS_FIN_WAIT_2)
		return CT_TCPS_TIME_WAIT;
	if (s == CT_TCPS_SYN_RECV)
		return CT_TCPS_ESTABLISHED;
	return s;
}

enum ct_tcp_state
ct_tcp_show_state(const struct ct_conn *c)
{
	return ct_tcp_coalesced(c->p.tcp[0].state, c->p.tcp[1].state);
}
