/* SPDX-License-Identifier: BSD-3-Clause
 * The PMD's poll scheduler: which rx queue is polled this round, and when
 * the PMD may sleep. Pure logic (no DPDK), so tests/unit/test_pmd_poll.c
 * drives it round by round.
 *
 * Adaptive polling (the seed's "adaptive polling instead of round robin",
 * dp_opts.h ADAPTIVE_POLLING). Each adaptive queue has {credit, threshold}.
 * Every PMD round:
 *
 *     credit++;  if (credit > threshold) { credit = 0; poll; }  else skip;
 *
 * and after a poll the threshold moves:
 *   - a full burst (n == burst size):  threshold = 0. The ring held at
 *     least a burst more than we took, so the queue is under-served: go
 *     straight back to polling it every round. Stepping down by one from
 *     PMD_POLL_THRESH_MAX would take 17+16+...+1 = 153 rounds, enough for a
 *     VM sending at line rate to overflow its 256-entry virtqueue.
 *   - a partial burst (0 < n < burst): threshold - 1 (floor 0), the seed's
 *     step: the queue keeps up, poll it a little more often.
 *   - an empty poll:                   threshold + 1 (cap THRESH_MAX), the
 *     seed's step: backing off slowly means a queue that pauses briefly
 *     between bursts is not starved; an idle queue reaches the cap after
 *     1+2+...+16 = 136 rounds.
 * A partial-burst queue so settles where about half its polls find packets.
 *
 * Bound: the threshold only changes right after a poll, when credit is 0,
 * and it never exceeds PMD_POLL_THRESH_MAX. After a poll the queue is
 * polled again exactly threshold+1 rounds later. So a packet that arrives
 * on an adaptive queue before round r is polled in one of the rounds
 * r .. r + PMD_POLL_THRESH_MAX: within PMD_POLL_THRESH_MAX + 1 = 17 rounds,
 * whatever the queue did before. An idle queue costs 1/17 of a poll per
 * round.
 *
 * Only queues marked adaptive are scheduled (vhost queues); the others
 * (the NIC: the hot one, whose rx descriptors must be refilled) are polled
 * every round, and so is every queue while the option is off.
 *
 * Idle back-off (dp_opts.h IDLE_BACKOFF): once PMD_POLL_IDLE_ROUNDS
 * consecutive rounds found no packet on any queue, the PMD sleeps
 * idle_backoff_us after each round, until a round finds a packet. A count
 * of rounds rather than a TSC interval: with the scheduler above, 1000
 * rounds means every queue, backed off or not, has been polled and found
 * empty at least 1000/17 = 58 times, whatever a round costs; an idle round
 * costs well under a microsecond, so it is also only ~0.1-1 ms of polling.
 * Woken by traffic, it waits PMD_POLL_IDLE_ROUNDS_AFTER_WAKE empty rounds
 * before sleeping again (see there).
 * While sleeping, every queue is polled every round (adaptive polling is
 * suspended): the sleep dwarfs a round's cost, and a waking vhost queue
 * then waits one sleep, not 17 of them.
 */
#ifndef VXS_PMD_POLL_H
#define VXS_PMD_POLL_H

#include <stdbool.h>
#include <stdint.h>

#define PMD_POLL_THRESH_MAX 16
#define PMD_POLL_ASK_START 8	/* vhost-rx-ask, see pmd_poll_ask_next */
#define PMD_POLL_ASK_MIN 4
#define PMD_POLL_IDLE_ROUNDS 1000
/* After traffic woke a sleeping PMD, it polls this many empty rounds
 * (tens of milliseconds) before sleeping again: a VM answering a burst
 * (ping, request/response) must find the PMD awake, or its ring overflows
 * while the PMD drains 32 packets per sleep. */
#define PMD_POLL_IDLE_ROUNDS_AFTER_WAKE 200000

struct pmd_poll_q {
	uint8_t credit;
	uint8_t threshold;		/* 0: every round .. THRESH_MAX */
	bool adaptive;			/* scheduled; else polled every round */
	/* vhost-rx-ask: the burst asked of a packed-ring guest next time
	 * (pmd_poll_ask_next) */
	uint8_t ask;
	uint64_t polls;			/* rx bursts tried */
	uint64_t empty_polls;		/* of which got nothing */
};

struct pmd_backoff {
	uint32_t empty_rounds;		/* consecutive rounds with no packet */
	bool sleeping;
	bool woken;			/* traffic ended the last sleep */
};

static inline void
pmd_poll_q_init(struct pmd_poll_q *q, bool adaptive)
{
	*q = (struct pmd_poll_q){ .adaptive = adaptive,
				  .ask = PMD_POLL_ASK_START };
}

/* Whether q is polled this round; adaptive: the option is on. */
static inline bool
pmd_poll_due(struct pmd_poll_q *q, bool adaptive)
{
	if (!adaptive || !q->adaptive)
		return true;
	if (++q->credit <= q->threshold)
		return false;
	q->credit = 0;
	return true;
}

/* After polling q: got n packets of a burst of at most burst. */
void pmd_poll_done(struct pmd_poll_q *q, uint16_t n, uint16_t burst);

/* vhost-rx-ask. rte_vhost 22.11's packed-ring dequeue allocates the whole
 * ask from the pool before it looks at the ring, and frees what it did not
 * fill (lib/vhost/virtio_net.c virtio_dev_tx_packed; split rings look
 * first): an empty or short poll of 32 costs 32 mbuf allocs and frees.
 * So a packed queue is asked for about what it gave last time: a full
 * answer doubles the ask (up to max), else the ask is what came rounded up
 * to 4 (the ring's batch) plus 4 of headroom, never under 4. An ask of 8
 * that comes back full goes to 16 then 32 within two polls. The poll
 * schedule (pmd_poll_done) still counts against the full burst: a full
 * small ask resetting the threshold made the queue polled every round and
 * its bursts smaller (5 packets a call instead of 14, 32 VMs). */
void pmd_poll_ask_next(struct pmd_poll_q *q, uint16_t got, uint16_t max);

void pmd_poll_q_clear_stats(struct pmd_poll_q *q);

/* After a round that got `got` packets: whether the PMD sleeps before the
 * next round (enabled: the IDLE_BACKOFF option). The first round with a
 * packet ends the back-off. */
bool pmd_backoff_round(struct pmd_backoff *b, uint32_t got, bool enabled);

#endif
