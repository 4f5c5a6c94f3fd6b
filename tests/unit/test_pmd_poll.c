/* SPDX-License-Identifier: BSD-3-Clause
 * The PMD's poll scheduler (app/pmd/pmd_poll.h), round by round, against a
 * model of rx rings: each queue has a backlog that arrivals add to before
 * a round, and a poll takes up to a burst (32) of it, as rx_burst does.
 *
 * Proves: with the option off every queue is polled every round; a busy
 * queue is polled every round; an idle queue, once backed off, exactly
 * once per PMD_POLL_THRESH_MAX + 1 rounds; a queue that wakes up is polled
 * within PMD_POLL_THRESH_MAX + 1 rounds of its first packet, whatever its
 * history, and climbs back to every round; 32 queues of mixed activity
 * share the rounds by activity with none starved; the idle back-off.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pmd_poll.h"
#include "unit_test.h"

#define BURST 32
#define BOUND (PMD_POLL_THRESH_MAX + 1)



static uint64_t rng_state = 0x5eedf00dull;

static uint64_t
rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* A queue and its ring. wait_since: the round the oldest packet not yet
 * seen by a poll arrived in (-1: none); max_wait: the most rounds from a
 * packet's arrival round to the poll that saw it, counting both. */
struct simq {
	struct pmd_poll_q q;
	uint64_t backlog;
	int64_t wait_since;
	int64_t max_wait;
	uint64_t served;
	int64_t last_poll;
};

static void
simq_init(struct simq *s, bool adaptive)
{
	memset(s, 0, sizeof *s);
	pmd_poll_q_init(&s->q, adaptive);
	s->wait_since = -1;
	s->last_poll = -1;
}

static void
arrive(struct simq *s, uint64_t n, int64_t round)
{
	if (n && s->wait_since < 0)
		s->wait_since = round;
	s->backlog += n;
}

/* One round for s; returns whether it was polled. */
static bool
round_(struct simq *s, bool adaptive, int64_t round)
{
	uint16_t n;

	if (!pmd_poll_due(&s->q, adaptive))
		return false;
	n = s->backlog < BURST ? (uint16_t)s->backlog : BURST;
	s->backlog -= n;
	s->served += n;
	pmd_poll_done(&s->q, n, BURST);
	if (s->wait_since >= 0) {
		int64_t w = round - s->wait_since + 1;
		if (w > s->max_wait)
			s->max_wait = w;
		/* what is left was seen by this poll: it waits from now */
		s->wait_since = s->backlog ? round + 1 : -1;
	}
	s->last_poll = round;
	return true;
}

static void
test_option_off(void)
{
	struct simq qs[33];
	const int rounds = 20000;

	for (int i = 0; i < 33; i++)
		simq_init(&qs[i], i != 32);	/* 32: the NIC */
	for (int r = 0; r < rounds; r++)
		for (int i = 0; i < 33; i++) {
			/* queues 0..7 busy, 8..15 sparse, the rest idle */
			uint64_t n = i < 8 ? rnd() % 40
				   : i < 16 ? (rnd() % 50 == 0) : 0;
			arrive(&qs[i], n, r);
			CHECK(round_(&qs[i], false, r),
			      "option off: queue %d skipped in round %d", i, r);
		}
	for (int i = 0; i < 33; i++)
		CHECK(qs[i].q.polls == (uint64_t)rounds,
		      "queue %d: %" PRIu64 " polls in %d rounds", i,
		      qs[i].q.polls, rounds);
	CHECK(qs[20].q.empty_polls == (uint64_t)rounds, "idle: all empty");
}

static void
test_nic_always_polled(void)
{
	struct simq s;

	simq_init(&s, false);
	for (int r = 0; r < 5000; r++)
		CHECK(round_(&s, true, r), "non-adaptive queue skipped in %d",
		      r);
	CHECK(s.q.empty_polls == 5000 && s.q.threshold == PMD_POLL_THRESH_MAX,
	      "counts (threshold is tracked but not used)");
}

static void
test_busy_polled_every_round(void)
{
	struct simq s;

	/* partial bursts every round: threshold stays 0 */
	simq_init(&s, true);
	for (int r = 0; r < 10000; r++) {
		arrive(&s, 1 + rnd() % 20, r);
		CHECK(round_(&s, true, r), "busy queue skipped in round %d",
		      r);
		CHECK(s.q.threshold == 0, "threshold %u", s.q.threshold);
	}
	CHECK(s.q.empty_polls == 0, "no empty poll");

	/* backed off, then a full-burst flood: every round at once */
	simq_init(&s, true);
	int r = 0;
	for (; r < 1000; r++)
		round_(&s, true, r);
	CHECK(s.q.threshold == PMD_POLL_THRESH_MAX, "backed off: %u",
	      s.q.threshold);
	int64_t first = -1;
	for (; r < 3000; r++) {
		arrive(&s, 64, r);
		bool polled = round_(&s, true, r);
		if (polled && first < 0)
			first = r;
		if (first >= 0)
			CHECK(polled, "flooded queue skipped in round %d "
			      "(first poll %" PRId64 ")", r, first);
	}
	CHECK(first >= 1000 && first < 1000 + BOUND, "first poll %" PRId64,
	      first);
}

static void
test_idle_backed_off(void)
{
	struct simq s;
	int r, warm = 0;

	simq_init(&s, true);
	/* the back-off: 1 + 2 + ... + THRESH_MAX rounds to reach the cap */
	for (r = 0; s.q.threshold < PMD_POLL_THRESH_MAX; r++)
		round_(&s, true, r);
	for (int t = 1; t <= PMD_POLL_THRESH_MAX; t++)
		warm += t;
	CHECK(r == warm, "reached the cap after %d rounds, expected %d", r,
	      warm);
	/* then: exactly one poll in every BOUND consecutive rounds */
	int64_t last = s.last_poll;
	uint64_t polls0 = s.q.polls;
	const int rounds = 100 * BOUND * 17;
	for (int k = 0; k < rounds; k++, r++) {
		if (round_(&s, true, r)) {
			CHECK(r - last == BOUND, "idle poll gap %" PRId64
			      " rounds, expected %d", r - last, BOUND);
			last = r;
		}
		CHECK(r - last <= BOUND, "idle queue unpolled for %" PRId64
		      " rounds", r - last);
	}
	CHECK(s.q.polls - polls0 == (uint64_t)rounds / BOUND,
	      "%" PRIu64 " polls in %d rounds", s.q.polls - polls0, rounds);
	CHECK(s.q.threshold == PMD_POLL_THRESH_MAX, "stays capped");
}

/* Idle for a long time, then a packet before round `at`: polled by round
 * at + THRESH_MAX, for every phase of the back-off cycle. */
static void
test_wakeup_bound(void)
{
	int64_t worst = 0;

	for (int phase = 0; phase < 3 * BOUND; phase++) {
		struct simq s;
		int64_t r, at = 5000 + phase;

		simq_init(&s, true);
		for (r = 0; r < at; r++)
			round_(&s, true, r);
		arrive(&s, 1, at);
		for (r = at; s.backlog; r++)
			round_(&s, true, r);
		CHECK(s.max_wait <= BOUND, "phase %d: waited %" PRId64
		      " rounds", phase, s.max_wait);
		if (s.max_wait > worst)
			worst = s.max_wait;
	}
	/* the bound is tight: some phase waits exactly BOUND rounds */
	CHECK(worst == BOUND, "worst wake-up wait %" PRId64 ", expected %d",
	      worst, BOUND);

	/* whatever the history: random traffic of every kind, the wait
	 * never exceeds the bound */
	for (int trial = 0; trial < 200; trial++) {
		struct simq s;
		unsigned mode = trial % 4;

		simq_init(&s, true);
		for (int64_t r = 0; r < 20000; r++) {
			uint64_t x = rnd(), n = 0;
			switch (mode) {
			case 0: n = x % 1000 == 0; break;	/* sparse */
			case 1: n = (r / 3000) % 2 ? x % 40 : 0; break;
			case 2: n = x % 7 == 0 ? x % 70 : 0; break;
			case 3: n = (x % 100 == 0) * 100; break;
			}
			arrive(&s, n, r);
			round_(&s, true, r);
		}
		CHECK(s.max_wait <= BOUND, "trial %d (mode %u): a packet "
		      "waited %" PRId64 " rounds", trial, mode, s.max_wait);
	}

	/* after it sees packets, its rate climbs back: one packet a round
	 * (partial bursts) from the cap: gaps shrink by one each poll, and
	 * after 17 + 16 + ... + 1 rounds it is polled every round */
	struct simq s;
	int64_t r, every_from = -1, bound_rounds = 0;
	simq_init(&s, true);
	for (r = 0; r < 2000; r++)
		round_(&s, true, r);
	int64_t start = r, last = s.last_poll, prev_gap = BOUND + 1;
	for (int t = 1; t <= BOUND; t++)
		bound_rounds += t;
	for (; r < start + 1000; r++) {
		arrive(&s, 1, r);
		if (round_(&s, true, r)) {
			int64_t gap = r - last;
			if (r > start + BOUND)
				CHECK(gap == 1 || gap < prev_gap,
				      "gap %" PRId64 " after %" PRId64, gap,
				      prev_gap);
			prev_gap = gap;
			last = r;
			if (s.q.threshold == 0 && every_from < 0)
				every_from = r + 1;
		}
		if (every_from >= 0)
			CHECK(s.last_poll == r, "skipped round %" PRId64
			      " after climbing back", r);
	}
	CHECK(every_from >= 0 && every_from - start <= bound_rounds,
	      "every round again after %" PRId64 " rounds (bound %" PRId64
	      ")", every_from - start, bound_rounds);
	CHECK(s.backlog <= BOUND, "backlog %" PRIu64 " after catching up",
	      s.backlog);
}

/* 32 vhost queues of mixed activity and the NIC, 200k rounds. */
static void
test_fairness_32(void)
{
	enum { HEAVY, MEDIUM, LIGHT, IDLE, N_KIND };
	static const char *kind_name[] = { "heavy", "medium", "light",
					   "idle" };
	struct simq qs[33];
	uint64_t arrived[33] = { 0 };
	const int64_t rounds = 200000;
	uint64_t polls_by_kind[N_KIND] = { 0 }, n_by_kind[N_KIND] = { 0 };
	uint64_t total_polls = 0;

	for (int i = 0; i < 33; i++)
		simq_init(&qs[i], i < 32);
	for (int64_t r = 0; r < rounds; r++) {
		for (int i = 0; i < 33; i++) {
			uint64_t x = rnd(), n;
			int kind = i % N_KIND;
			if (i == 32)
				n = x % 64;			/* the NIC */
			else if (kind == HEAVY)
				n = 10 + x % 30;		/* 24.5 a round */
			else if (kind == MEDIUM)
				n = x % 4 == 0 ? 1 + x % 8 : 0;
			else if (kind == LIGHT)
				n = x % 50 == 0;
			else
				n = 0;
			arrived[i] += n;
			arrive(&qs[i], n, r);
			total_polls += round_(&qs[i], true, r);
		}
	}
	for (int i = 0; i < 33; i++) {
		const struct simq *s = &qs[i];
		CHECK(s->max_wait <= BOUND, "queue %d waited %" PRId64, i,
		      s->max_wait);
		CHECK(s->served + s->backlog == arrived[i], "queue %d lost "
		      "packets", i);
		if (i == 32) {
			CHECK(s->q.polls == (uint64_t)rounds, "NIC polls %"
			      PRIu64, s->q.polls);
			continue;
		}
		int kind = i % N_KIND;
		polls_by_kind[kind] += s->q.polls;
		n_by_kind[kind]++;
		/* none falls behind: the backlog is what a few rounds bring */
		CHECK(s->backlog <= 2 * BURST, "queue %d (%s) backlog %" PRIu64,
		      i, kind_name[kind], s->backlog);
		if (kind == IDLE)
			CHECK(s->q.polls <= (uint64_t)rounds / BOUND + 20,
			      "idle queue %d: %" PRIu64 " polls", i,
			      s->q.polls);
		if (kind == HEAVY)
			CHECK(s->q.polls >= (uint64_t)rounds * 99 / 100,
			      "heavy queue %d: %" PRIu64 " polls", i,
			      s->q.polls);
	}
	double avg[N_KIND];
	for (int k = 0; k < N_KIND; k++) {
		avg[k] = (double)polls_by_kind[k] / n_by_kind[k] / rounds;
		printf("  %-6s queues: polled in %5.1f%% of rounds\n",
		       kind_name[k], 100 * avg[k]);
	}
	CHECK(avg[HEAVY] > avg[MEDIUM] && avg[MEDIUM] > avg[LIGHT] &&
	      avg[LIGHT] > avg[IDLE], "weight follows activity");
	printf("  polls per round: %.2f of 33 (round robin: 33)\n",
	       (double)total_polls / rounds);
	CHECK(total_polls < (uint64_t)rounds * 33 / 2,
	      "%.2f polls per round", (double)total_polls / rounds);
}

static void
test_idle_backoff(void)
{
	struct pmd_backoff b = { 0 };
	int r;

	/* off: never sleeps */
	for (r = 0; r < 5 * PMD_POLL_IDLE_ROUNDS; r++)
		CHECK(!pmd_backoff_round(&b, 0, false), "slept while off");
	/* on: after PMD_POLL_IDLE_ROUNDS empty rounds, not before */
	for (r = 1; r < PMD_POLL_IDLE_ROUNDS; r++)
		CHECK(!pmd_backoff_round(&b, 0, true), "slept after %d", r);
	CHECK(pmd_backoff_round(&b, 0, true) && b.sleeping,
	      "sleeps after %d empty rounds", PMD_POLL_IDLE_ROUNDS);
	for (r = 0; r < 10000; r++)
		CHECK(pmd_backoff_round(&b, 0, true), "keeps sleeping");
	/* the first packet: busy polling at once, and having been woken by
	 * traffic it stays awake much longer (the answer to that traffic
	 * must find it polling) before it sleeps again */
	CHECK(!pmd_backoff_round(&b, 1, true) && !b.sleeping, "woke up");
	for (r = 1; r < PMD_POLL_IDLE_ROUNDS_AFTER_WAKE; r++)
		CHECK(!pmd_backoff_round(&b, 0, true), "slept again after %d",
		      r);
	CHECK(pmd_backoff_round(&b, 0, true), "sleeps again");
	/* every wake-up by traffic starts a new hold, which ends in sleep */
	CHECK(!pmd_backoff_round(&b, 1, true), "woke up again");
	CHECK(b.woken, "woken by traffic");
	for (r = 1; r < PMD_POLL_IDLE_ROUNDS_AFTER_WAKE; r++)
		pmd_backoff_round(&b, 0, true);
	CHECK(pmd_backoff_round(&b, 0, true) && !b.woken, "asleep, hold over");
	/* a packet now and then keeps it awake (the first one wakes it, and
	 * from then on the packets come while it is awake) */
	for (r = 0; r < 10 * PMD_POLL_IDLE_ROUNDS; r++)
		CHECK(!pmd_backoff_round(&b, r % (PMD_POLL_IDLE_ROUNDS / 2)
						   == 0, true),
		      "slept with traffic, round %d", r);
	/* switched off while sleeping: awake at once */
	for (r = 0; r < PMD_POLL_IDLE_ROUNDS_AFTER_WAKE; r++)
		pmd_backoff_round(&b, 0, true);
	CHECK(b.sleeping, "asleep");
	CHECK(!pmd_backoff_round(&b, 0, false) && !b.sleeping, "off wakes");
}

/* vhost-rx-ask: the ask follows what the ring gives (start 8, doubling on
 * a full answer up to 32, else roundup4(got) + 4, never under 4), and a
 * ring with a standing backlog is drained at the full 32 within two polls:
 * a modelled ring never holds more than it would with a fixed ask of 32
 * plus the two polls of ramp-up. */
static void
test_rx_ask(void)
{
	struct pmd_poll_q q;
	static const struct { uint16_t got, want; } steps[] = {
		{ 8, 16 }, { 16, 32 }, { 32, 32 }, { 5, 12 }, { 0, 4 },
		{ 0, 4 }, { 4, 8 }, { 1, 8 }, { 7, 12 }, { 12, 24 },
		{ 24, 32 }, { 31, 36 > BURST ? BURST : 36 }, { 9, 16 },
	};

	pmd_poll_q_init(&q, true);
	CHECK(q.ask == PMD_POLL_ASK_START && q.ask == 8, "starts at 8");
	for (unsigned i = 0; i < sizeof steps / sizeof steps[0]; i++) {
		uint16_t got = steps[i].got > q.ask ? q.ask : steps[i].got;
		pmd_poll_ask_next(&q, got, BURST);
		CHECK(q.ask == steps[i].want, "step %u: got %u -> ask %u, "
		      "want %u", i, got, q.ask, steps[i].want);
	}
	/* a ring filled at 20 packets a round, from an idle ask of 4 */
	uint32_t backlog = 0, worst = 0;
	pmd_poll_q_init(&q, true);
	pmd_poll_ask_next(&q, 0, BURST);
	for (int r = 0; r < 1000; r++) {
		backlog += 20;
		uint16_t got = backlog < q.ask ? backlog : q.ask;
		backlog -= got;
		pmd_poll_ask_next(&q, got, BURST);
		if (backlog > worst)
			worst = backlog;
	}
	CHECK(worst <= 20 + 12 + 4, "backlog at most %u (got %u)",
	      20 + 12 + 4, worst);
	CHECK(backlog <= 20, "drained: %u left", backlog);
}

int
main(void)
{
	printf("PMD_POLL_THRESH_MAX %d: wake-up bound %d rounds\n",
	       PMD_POLL_THRESH_MAX, BOUND);
	test_option_off();
	test_nic_always_polled();
	test_busy_polled_every_round();
	test_idle_backed_off();
	test_wakeup_bound();
	test_fairness_32();
	test_idle_backoff();
	test_rx_ask();
	return unit_test_report();
}
