/* SPDX-License-Identifier: BSD-3-Clause
 * The PMD's poll scheduler (see pmd_poll.h for the rules and the bound).
 */
#include "pmd_poll.h"

void
pmd_poll_done(struct pmd_poll_q *q, uint16_t n, uint16_t burst)
{
	q->polls++;
	if (!n) {
		q->empty_polls++;
		if (q->threshold < PMD_POLL_THRESH_MAX)
			q->threshold++;
	} else if (n >= burst) {
		q->threshold = 0;
	} else if (q->threshold) {
		q->threshold--;
	}
}

void
pmd_poll_ask_next(struct pmd_poll_q *q, uint16_t got, uint16_t max)
{
	uint32_t ask;

	if (got >= q->ask)
		ask = 2u * q->ask;
	else
		ask = ((got + 3u) & ~3u) + 4;
	if (ask < PMD_POLL_ASK_MIN)
		ask = PMD_POLL_ASK_MIN;
	q->ask = ask > max ? max : ask;
}

void
pmd_poll_q_clear_stats(struct pmd_poll_q *q)
{
	q->polls = q->empty_polls = 0;
}

bool
pmd_backoff_round(struct pmd_backoff *b, uint32_t got, bool enabled)
{
	uint32_t need = b->woken ? PMD_POLL_IDLE_ROUNDS_AFTER_WAKE
				 : PMD_POLL_IDLE_ROUNDS;

	if (got || !enabled) {
		b->woken = b->sleeping && got;
		b->empty_rounds = 0;
		b->sleeping = false;
		return false;
	}
	if (b->empty_rounds < need)
		b->empty_rounds++;
	b->sleeping = b->empty_rounds >= need;
	if (b->sleeping)
		b->woken = false;
	return b->sleeping;
}
