/* SPDX-License-Identifier: BSD-3-Clause
 * The TCP state machine against what OVS's userspace conntrack does
 * (lib/conntrack-tcp.c, the pf algorithm): handshake, in-window and
 * out-of-window data, retransmitted SYN, simultaneous open, RST exact /
 * out of window, FIN close, window scaling, expiry.
 */
#include <string.h>
#include "ct_test.h"

#define A IP(10, 0, 0, 1)
#define B IP(10, 0, 0, 2)
#define AP 1234
#define BP 80
#define Z 10

/* A->B and B->A segments of the test connection. */
static uint8_t
a2b(struct conntrack *ct, uint8_t f, uint32_t seq, uint32_t ack,
    uint16_t win, int ws, uint16_t len, uint64_t now)
{
	return ct_run(ct, pkt_tcp(A, B, AP, BP, f, seq, ack, win, ws, len), Z,
		      true, NULL, now);
}

static uint8_t
b2a(struct conntrack *ct, uint8_t f, uint32_t seq, uint32_t ack,
    uint16_t win, int ws, uint16_t len, uint64_t now)
{
	return ct_run(ct, pkt_tcp(B, A, BP, AP, f, seq, ack, win, ws, len), Z,
		      true, NULL, now);
}

/* SYN 1000 / SYN-ACK 5000 / ACK: established. */
static void
handshake(struct conntrack *ct, uint64_t now)
{
	CHECK_EXPR(a2b(ct, F_SYN, 1000, 0, 65535, -1, 0, now) == TRK_NEW);
	CHECK_EXPR(b2a(ct, F_SYN | F_ACK, 5000, 1001, 65535, -1, 0, now) ==
		   TRK_RPL);
	CHECK_EXPR(a2b(ct, F_ACK, 1001, 5001, 65535, -1, 0, now) == TRK_EST);
}

static void
test_handshake_and_data(void)
{
	struct conntrack *ct = ct_test_new("ct_hs", 64, NULL);
	struct ct_stats s;

	handshake(ct, 0);
	CHECK(strcmp(ct_first_line(ct, -1),
		     "tcp,orig=(src=10.0.0.1,dst=10.0.0.2,sport=1234,dport=80),"
		     "reply=(src=10.0.0.2,dst=10.0.0.1,sport=80,dport=1234),"
		     "zone=10,protoinfo=(state=ESTABLISHED)") == 0,
	      "dump: %s", ct_first_line(ct, -1));
	/* data both ways, in window */
	CHECK_EXPR(a2b(ct, F_ACK | F_PSH, 1001, 5001, 65535, -1, 100, 1) ==
		   TRK_EST);
	CHECK_EXPR(b2a(ct, F_ACK | F_PSH, 5001, 1101, 65535, -1, 500, 2) ==
		   TRK_RPL);
	/* a retransmission (old data) is still in window */
	CHECK_EXPR(a2b(ct, F_ACK | F_PSH, 1001, 5501, 65535, -1, 100, 3) ==
		   TRK_EST);
	/* far ahead of anything the peer allowed: invalid, not dropped */
	CHECK_EXPR(a2b(ct, F_ACK | F_PSH, 1001 + 10000000, 5501, 65535, -1,
		       100, 4) == TRK_INV);
	/* acking data never sent */
	CHECK_EXPR(b2a(ct, F_ACK, 5501, 1101 + 3000000, 65535, -1, 0, 5) ==
		   TRK_INV);
	/* invalid flag combinations */
	CHECK_EXPR(a2b(ct, F_SYN | F_FIN, 1101, 0, 65535, -1, 0, 6) ==
		   TRK_INV);
	CHECK_EXPR(a2b(ct, 0, 1101, 0, 65535, -1, 0, 6) == TRK_INV);
	conntrack_get_stats(ct, &s);
	CHECK(s.invalid == 4 && s.created == 1 && s.n_conns == 1 &&
	      s.tcp_state[CT_TCPS_ESTABLISHED] == 1,
	      "invalid %lu created %lu n %lu", (unsigned long)s.invalid,
	      (unsigned long)s.created, (unsigned long)s.n_conns);
	/* still established after the invalid ones */
	CHECK_EXPR(a2b(ct, F_ACK, 1101, 5501, 65535, -1, 0, 7) == TRK_EST);
	conntrack_destroy(ct);
}

static void
test_syn_ack_cannot_create(void)
{
	struct conntrack *ct = ct_test_new("ct_sa", 64, NULL);

	CHECK_EXPR(b2a(ct, F_SYN | F_ACK, 5000, 1001, 65535, -1, 0, 0) ==
		   TRK_INV);
	/* an ACK mid-stream may (OVS picks up established streams) */
	CHECK_EXPR(a2b(ct, F_ACK, 1001, 5001, 65535, -1, 0, 0) == TRK_NEW);
	CHECK_EXPR(b2a(ct, F_ACK, 5001, 1001, 65535, -1, 10, 0) == TRK_RPL);
	CHECK_EXPR(conntrack_get_nconns(ct) == 1);
	conntrack_destroy(ct);
}

static void
test_retransmitted_syn(void)
{
	struct conntrack *ct = ct_test_new("ct_rsyn", 64, NULL);

	CHECK_EXPR(a2b(ct, F_SYN, 1000, 0, 65535, -1, 0, 0) == TRK_NEW);
	CHECK_EXPR(a2b(ct, F_SYN, 1000, 0, 65535, -1, 0, SEC(1)) == TRK_NEW);
	CHECK_EXPR(a2b(ct, F_SYN, 1000, 0, 65535, -1, 0, SEC(3)) == TRK_NEW);
	CHECK_EXPR(conntrack_get_nconns(ct) == 1);
	CHECK_EXPR(b2a(ct, F_SYN | F_ACK, 5000, 1001, 65535, -1, 0, SEC(3)) ==
		   TRK_RPL);
	/* a retransmitted SYN-ACK is fine too */
	CHECK_EXPR(b2a(ct, F_SYN | F_ACK, 5000, 1001, 65535, -1, 0, SEC(4)) ==
		   TRK_RPL);
	CHECK_EXPR(a2b(ct, F_ACK, 1001, 5001, 65535, -1, 0, SEC(4)) ==
		   TRK_EST);
	conntrack_destroy(ct);
}

static void
test_simultaneous_open(void)
{
	struct conntrack *ct = ct_test_new("ct_simo", 64, NULL);

	CHECK_EXPR(a2b(ct, F_SYN, 1000, 0, 65535, -1, 0, 0) == TRK_NEW);
	/* OVS 3.1: a bare SYN from an end that has sent nothing else is
	 * +new, from either side (it was +est+rpl here: past deny rules) */
	CHECK_EXPR(b2a(ct, F_SYN, 9000, 0, 65535, -1, 0, 0) == TRK_NEW);
	CHECK_EXPR(a2b(ct, F_SYN | F_ACK, 1000, 9001, 65535, -1, 0, 0) ==
		   TRK_EST);
	CHECK_EXPR(b2a(ct, F_SYN | F_ACK, 9000, 1001, 65535, -1, 0, 0) ==
		   TRK_RPL);
	CHECK(strstr(ct_first_line(ct, Z), "state=ESTABLISHED") != NULL,
	      "%s", ct_first_line(ct, Z));
	CHECK_EXPR(conntrack_get_nconns(ct) == 1);
	conntrack_destroy(ct);
}

/* Tracks a B->A or A->B segment without committing (a deny policy's
 * ct()), with the session's reference in *ref when given. */
static uint8_t
seg_nocommit(bool from_b, uint8_t f, uint32_t seq, uint32_t ack,
	     struct conntrack *ct, uint64_t now, struct ct_conn_ref *ref)
{
	struct rte_mbuf *m = from_b ? pkt_tcp(B, A, BP, AP, f, seq, ack, 65535,
					      -1, 0)
				    : pkt_tcp(A, B, AP, BP, f, seq, ack, 65535,
					      -1, 0);
	struct ct_pkt_meta mt;
	uint8_t st = 0xff;

	if (ct_pkt_meta_parse(m, &mt) == 0)
		st = conntrack_execute_one(ct, m, &mt, Z, false, NULL, now,
					   ref);
	rte_pktmbuf_free(m);
	return st;
}

/* FIN/ACK, ACK, FIN/ACK, ACK after handshake(): both ends FIN_WAIT_2. */
static void
fin_close(struct conntrack *ct, uint64_t now)
{
	CHECK_EXPR(a2b(ct, F_FIN | F_ACK, 1001, 5001, 65535, -1, 0, now) ==
		   TRK_EST);
	CHECK_EXPR(b2a(ct, F_ACK, 5001, 1002, 65535, -1, 0, now) == TRK_RPL);
	CHECK_EXPR(b2a(ct, F_FIN | F_ACK, 5001, 1002, 65535, -1, 0, now) ==
		   TRK_RPL);
	CHECK_EXPR(a2b(ct, F_ACK, 1002, 5002, 65535, -1, 0, now) == TRK_EST);
}

/* Issue 23's bypass of sg(deny): a closed session was replaced only when
 * the SYN that found it committed, so under a deny policy it stayed, both
 * ends CLOSED, and the old responder's next SYN took the first-packet
 * path: +est+rpl, through every deny rule, with the whole handshake
 * after it. OVS ends the session at the first SYN, committed or not. */
static void
test_closed_session_reopened_by_responder(void)
{
	struct conntrack *ct = ct_test_new("ct_zombie", 64, NULL);

	handshake(ct, 0);
	fin_close(ct, SEC(1));
	CHECK_EXPR(seg_nocommit(true, F_SYN, 7000, 0, ct, SEC(2), NULL) ==
		   TRK_NEW);
	CHECK_EXPR(conntrack_get_nconns(ct) == 0);
	CHECK_EXPR(seg_nocommit(true, F_SYN, 7000, 0, ct, SEC(3), NULL) ==
		   TRK_NEW);
	/* nor can the answer or the rest of the handshake pass */
	CHECK_EXPR(seg_nocommit(false, F_SYN | F_ACK, 3000, 7001, ct, SEC(3),
				NULL) == TRK_INV);
	CHECK_EXPR(seg_nocommit(true, F_ACK, 7001, 3001, ct, SEC(3), NULL) ==
		   TRK_NEW);
	CHECK_EXPR(conntrack_get_nconns(ct) == 0);
	conntrack_destroy(ct);
}

/* The same-direction variant: a new connection on the 5-tuple of a
 * closed one is a new session, not the old one with its mark. */
static void
test_closed_session_reopened_keeps_nothing(void)
{
	struct conntrack *ct = ct_test_new("ct_zombie2", 64, NULL);
	struct ct_conn_ref ref = { 0 };

	handshake(ct, 0);
	CHECK_EXPR(seg_nocommit(false, F_ACK, 1001, 5001, ct, SEC(1), &ref) ==
		   TRK_EST && ref.conn);
	ct_conn_set_mark(ref.conn, 1, 1);	/* Neutron: ct_mark=1, dropped */
	fin_close(ct, SEC(1));
	/* a new SYN, not committed: +new, and the old session is gone */
	memset(&ref, 0, sizeof ref);
	CHECK_EXPR(seg_nocommit(false, F_SYN, 20000, 0, ct, SEC(2), &ref) ==
		   TRK_NEW && !ref.conn);
	/* committed: a session of its own, without the old mark */
	CHECK_EXPR(a2b(ct, F_SYN, 20000, 0, 65535, -1, 0, SEC(2)) == TRK_NEW);
	memset(&ref, 0, sizeof ref);
	CHECK_EXPR(seg_nocommit(true, F_SYN | F_ACK, 9000, 20001, ct, SEC(2),
				&ref) == TRK_RPL && ref.conn);
	CHECK(ref.mark == 0, "mark %u", ref.mark);
	CHECK_EXPR(conntrack_get_nconns(ct) == 1);
	conntrack_destroy(ct);
}

/* OVS 3.1: a SYN with a new ISN on an unanswered attempt is +new (no
 * window check), and the answer to it is accepted. */
static void
test_resent_syn_new_isn(void)
{
	struct conntrack *ct = ct_test_new("ct_isn", 64, NULL);

	CHECK_EXPR(a2b(ct, F_SYN, 1000, 0, 65535, -1, 0, 0) == TRK_NEW);
	CHECK_EXPR(a2b(ct, F_SYN, 3000000000u, 0, 65535, -1, 0, SEC(1)) ==
		   TRK_NEW);
	CHECK_EXPR(b2a(ct, F_SYN | F_ACK, 5000, 3000000001u, 65535, -1, 0,
		       SEC(1)) == TRK_RPL);
	CHECK_EXPR(conntrack_get_nconns(ct) == 1);
	conntrack_destroy(ct);
}

static void
test_rst(void)
{
	struct conntrack *ct = ct_test_new("ct_rst", 64, NULL);
	struct ct_stats s;

	handshake(ct, 0);
	/* out of window: ignored (invalid), the session stays */
	CHECK_EXPR(b2a(ct, F_RST, 5001 + 5000000, 0, 0, -1, 0, 1) ==
		   TRK_INV);
	/* in window but not the exact next sequence: invalid (OVS) */
	CHECK_EXPR(b2a(ct, F_RST, 5001 + 100, 0, 0, -1, 0, 1) == TRK_INV);
	CHECK(strstr(ct_first_line(ct, Z), "state=ESTABLISHED") != NULL,
	      "%s", ct_first_line(ct, Z));
	/* exact: closes */
	CHECK_EXPR(b2a(ct, F_RST, 5001, 0, 0, -1, 0, 2) == TRK_RPL);
	CHECK(strstr(ct_first_line(ct, Z), "state=TIME_WAIT") != NULL,
	      "%s", ct_first_line(ct, Z));
	/* a new SYN on the closed session replaces it */
	CHECK_EXPR(a2b(ct, F_SYN, 77000, 0, 65535, -1, 0, SEC(1)) == TRK_NEW);
	conntrack_get_stats(ct, &s);
	CHECK(s.created == 2 && s.n_conns == 1 &&
	      s.tcp_state[CT_TCPS_SYN_SENT] == 1, "created %lu n %lu",
	      (unsigned long)s.created, (unsigned long)s.n_conns);
	/* TIME_WAIT lasts tcp_close (30 s) from the RST, not 24 h */
	conntrack_destroy(ct);

	ct = ct_test_new("ct_rst2", 64, NULL);
	handshake(ct, 0);
	CHECK_EXPR(b2a(ct, F_RST | F_ACK, 5001, 1001, 0, -1, 0, 0) == TRK_RPL);
	CHECK_EXPR(conntrack_sweep(ct, SEC(29), 100) == 0);
	CHECK_EXPR(conntrack_sweep(ct, SEC(31), 100) == 1);
	CHECK_EXPR(conntrack_get_nconns(ct) == 0);
	conntrack_destroy(ct);
}

static void
test_fin_close(void)
{
	struct conntrack *ct = ct_test_new("ct_fin", 64, NULL);

	handshake(ct, 0);
	CHECK_EXPR(a2b(ct, F_FIN | F_ACK, 1001, 5001, 65535, -1, 0, 1) ==
		   TRK_EST);
	CHECK(strstr(ct_first_line(ct, Z),
		     "state=CLOSING") != NULL,
	      "%s", ct_first_line(ct, Z));
	CHECK_EXPR(b2a(ct, F_ACK, 5001, 1002, 65535, -1, 0, 2) == TRK_RPL);
	CHECK_EXPR(b2a(ct, F_FIN | F_ACK, 5001, 1002, 65535, -1, 0, 3) ==
		   TRK_RPL);
	CHECK_EXPR(a2b(ct, F_ACK, 1002, 5002, 65535, -1, 0, 4) == TRK_EST);
	/* both FINs acked: both peers FIN_WAIT_2 (pf enters TIME_WAIT on
	 * RST only), with the tcp_close timeout; OVS's dump without -m
	 * prints that as TIME_WAIT (coalesce_tcp_state) */
	CHECK(strstr(ct_first_line(ct, Z), "state=TIME_WAIT") != NULL,
	      "%s", ct_first_line(ct, Z));
	CHECK_EXPR(conntrack_sweep(ct, SEC(29), 100) == 0);
	CHECK_EXPR(conntrack_sweep(ct, SEC(31), 100) == 1);
	/* after expiry the next packet is new again */
	CHECK_EXPR(a2b(ct, F_ACK, 1002, 5002, 65535, -1, 0, SEC(32)) ==
		   TRK_NEW);
	conntrack_destroy(ct);
}

/* B advertises a window of 1000 (x128 with scale 7); A sends 100 kB
 * ahead: in window only when both ends negotiated the scale. */
static uint8_t
scaled_send(int ws)
{
	struct conntrack *ct = ct_test_new("ct_ws", 64, NULL);
	uint8_t st;

	CHECK_EXPR(a2b(ct, F_SYN, 1000, 0, 65535, ws, 0, 0) == TRK_NEW);
	CHECK_EXPR(b2a(ct, F_SYN | F_ACK, 5000, 1001, 1000, ws, 0, 0) ==
		   TRK_RPL);
	CHECK_EXPR(a2b(ct, F_ACK, 1001, 5001, 65535, -1, 0, 0) == TRK_EST);
	CHECK_EXPR(b2a(ct, F_ACK, 5001, 1001, 1000, -1, 0, 0) == TRK_RPL);
	st = a2b(ct, F_ACK | F_PSH, 1001 + 100000, 5001, 512, -1, 100, 0);
	conntrack_destroy(ct);
	return st;
}

static void
test_window_scaling(void)
{
	CHECK_EXPR(scaled_send(7) == TRK_EST);
	CHECK_EXPR(scaled_send(-1) == TRK_INV);
}

static void
test_expired_is_new(void)
{
	struct conntrack *ct = ct_test_new("ct_exp", 64, NULL);
	struct ct_stats s;

	CHECK_EXPR(a2b(ct, F_SYN, 1000, 0, 65535, -1, 0, 0) == TRK_NEW);
	/* tcp_syn_sent: 30 s */
	CHECK_EXPR(a2b(ct, F_SYN, 1000, 0, 65535, -1, 0, SEC(29)) ==
		   TRK_NEW);
	CHECK_EXPR(b2a(ct, F_SYN | F_ACK, 5000, 1001, 65535, -1, 0, SEC(60)) ==
		   TRK_INV);	/* no session any more, SYN-ACK can't open */
	CHECK_EXPR(a2b(ct, F_SYN, 1000, 0, 65535, -1, 0, SEC(61)) == TRK_NEW);
	conntrack_get_stats(ct, &s);
	CHECK(s.created == 2 && s.expired == 1 && s.n_conns == 1,
	      "created %lu expired %lu", (unsigned long)s.created,
	      (unsigned long)s.expired);
	/* established: 24 h */
	CHECK_EXPR(b2a(ct, F_SYN | F_ACK, 5000, 1001, 65535, -1, 0, SEC(61)) ==
		   TRK_RPL);
	CHECK_EXPR(a2b(ct, F_ACK, 1001, 5001, 65535, -1, 0, SEC(61)) ==
		   TRK_EST);
	CHECK_EXPR(conntrack_sweep(ct, SEC(61 + 86399), 100) == 0);
	CHECK_EXPR(a2b(ct, F_ACK, 1001, 5001, 65535, -1, 0,
		       SEC(61 + 86399)) == TRK_EST);
	CHECK_EXPR(conntrack_sweep(ct, SEC(61 + 86399 + 86401), 100) == 1);
	CHECK_EXPR(conntrack_get_nconns(ct) == 0);
	conntrack_destroy(ct);
}

int
main(void)
{
	if (ct_test_init("test_ct_tcp") < 0)
		return 1;
	test_handshake_and_data();
	test_syn_ack_cannot_create();
	test_retransmitted_syn();
	test_simultaneous_open();
	test_closed_session_reopened_by_responder();
	test_closed_session_reopened_keeps_nothing();
	test_resent_syn_new_isn();
	test_rst();
	test_fin_close();
	test_window_scaling();
	test_expired_is_new();
	return unit_test_report();
}
