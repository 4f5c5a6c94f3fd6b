/* SPDX-License-Identifier: BSD-3-Clause
 * Admission: the candidate set, its ranking, the token bucket and, in
 * weight mode, eviction (offload_admit.h).
 */
#include "offload_admit.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <rte_common.h>
#include <rte_cycles.h>

#define DEFAULT_HYSTERESIS_PCT 200
/* evict_threshold(): standard deviations of evidence, the PMDs' saving per
 * packet on the mark path (perf/README.md, NIC-marked mode: 100-160 cycles
 * at 64k-1M flows; the lower end, so that the payback is not overrated),
 * the time an eviction has to pay for itself in, and what an E810 spends
 * programming one rule (ice's busy-wait bound). */
#define EVICT_Z 4
#define ADMIT_MARK_SAVING_CYCLES 150
#define EVICT_PAYBACK_MS 10000
#define E810_PROGRAM_US 10000
#define DEFAULT_MIN_RESIDENT_MS 1000
/* How often the coldest rules are looked for while the table is full and
 * nothing is being evicted: the threshold PMDs read is this fresh. */
#define SCAN_INTERVAL_MS 10
#define SORT_US 5000

#define ST_ADD(x, v) __atomic_fetch_add(&(x), (v), __ATOMIC_RELAXED)
#define ST_SET(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

int
admit_init(struct offload_admit *a, const struct offload_mgr_params *p,
	   unsigned cap, const struct admit_ops *ops, void *mgr)
{
	memset(a, 0, sizeof *a);
	a->mode = p->admission;
	a->ops = *ops;
	a->mgr = mgr;
	a->cap = cap;
	a->cand = calloc(cap, sizeof *a->cand);
	a->scratch = calloc(cap, sizeof *a->scratch);
	a->order = calloc(cap, sizeof *a->order);
	a->tsc_hz = rte_get_tsc_hz();
	a->per_sec = p->max_inserts_per_sec;
	a->burst = p->insert_burst ? p->insert_burst : 1;
	a->tokens = a->burst;
	a->last_refill = rte_rdtsc();
	a->max_marks = p->max_marks;
	a->hysteresis_pct = p->evict_hysteresis_pct ?
			    p->evict_hysteresis_pct : DEFAULT_HYSTERESIS_PCT;
	a->min_resident_tsc = a->tsc_hz / 1000 *
			      (p->evict_min_resident_ms ?
			       p->evict_min_resident_ms :
			       DEFAULT_MIN_RESIDENT_MS);
	/* a destroy and an insert, on an E810 (ethdev); the model's cost
	 * nothing worth counting */
	if (p->engine == OFFLOAD_ENGINE_ETHDEV)
		a->evict_min_gain_pps = 2.0 * E810_PROGRAM_US * 1e-6 *
					(double)a->tsc_hz /
					(ADMIT_MARK_SAVING_CYCLES *
					 EVICT_PAYBACK_MS / 1000.0);
	a->installed_tsc = calloc((size_t)a->max_marks + 1,
				  sizeof *a->installed_tsc);
	a->evicting = calloc((size_t)a->max_marks + 1, 1);
	if (!a->cand || !a->scratch || !a->order || !a->installed_tsc ||
	    !a->evicting) {
		admit_fini(a);
		return -ENOMEM;
	}
	return 0;
}

void
admit_fini(struct offload_admit *a)
{
	free(a->cand);
	free(a->scratch);
	free(a->order);
	free(a->installed_tsc);
	free(a->evicting);
	a->cand = a->scratch = NULL;
	a->order = NULL;
	a->installed_tsc = NULL;
	a->evicting = NULL;
}

/* ---- the candidate set ---- */

void
admit_push(struct offload_admit *a, const struct offload_req *r,
	   uint32_t mark, bool unclaimed)
{
	struct offload_req *q = &a->cand[a->n++];

	*q = *r;
	q->mark = mark;
	q->deferred = 0;
	q->unclaimed = unclaimed;
	a->dirty = true;
}

int
admit_find(const struct offload_admit *a, uint32_t mark, uint16_t pmd,
	   uint64_t megaflow_id)
{
	for (unsigned i = 0; i < a->n; i++) {
		const struct offload_req *q = &a->cand[i];
		if (q->mark == mark && (mark || (q->pmd == pmd &&
						 q->megaflow_id == megaflow_id)))
			return (int)i;
	}
	return -1;
}

/* Keeps the order: the admission loop walks the set from the top while
 * it removes. */
void
admit_remove(struct offload_admit *a, int i)
{
	if (i < 0 || (unsigned)i >= a->n)
		return;
	memmove(&a->cand[i], &a->cand[i + 1],
		(a->n - (unsigned)i - 1) * sizeof *a->cand);
	a->n--;
}

void
admit_set_weight(struct offload_admit *a, int i, uint64_t weight)
{
	if (i >= 0 && a->cand[i].weight != weight) {
		a->cand[i].weight = weight;
		a->dirty = true;
	}
}

static int
by_weight_asc(const void *x_, const void *y_)
{
	const struct offload_req *x = *(const struct offload_req *const *)x_,
				 *y = *(const struct offload_req *const *)y_;
	/* ascending, so the heaviest is last (taken from the end) */
	if (x->weight != y->weight)
		return x->weight < y->weight ? -1 : 1;
	/* equal: older megaflow ids first, i.e. last */
	return x->megaflow_id > y->megaflow_id ? -1 :
	       x->megaflow_id < y->megaflow_id ? 1 : 0;
}

/* Sorted by pointer, then moved once: the entries are large (four flow
 * keys), and swapping them in place would stream megabytes through the
 * cache the PMDs share, every sort. */
static void
sort_cand(struct offload_admit *a)
{
	for (unsigned i = 0; i < a->n; i++)
		a->order[i] = &a->cand[i];
	qsort(a->order, a->n, sizeof *a->order, by_weight_asc);
	for (unsigned i = 0; i < a->n; i++)
		a->scratch[i] = *a->order[i];
	struct offload_req *t = a->cand;
	a->cand = a->scratch;
	a->scratch = t;
}

/* ---- token bucket ---- */

static void
refill(struct offload_admit *a)
{
	if (!a->per_sec)
		return;
	uint64_t now = rte_rdtsc();
	a->tokens += (double)(now - a->last_refill) * a->per_sec /
		     (double)a->tsc_hz;
	a->last_refill = now;
	if (a->tokens > a->burst)
		a->tokens = a->burst;
}

static bool
take_token(struct offload_admit *a)
{
	if (!a->per_sec)
		return true;
	if (a->tokens >= 1.0) {
		a->tokens -= 1.0;
		return true;
	}
	return false;
}

/* Out of tokens: every waiting candidate counts once as deferred. */
static void
defer_all(struct offload_admit *a)
{
	for (unsigned i = 0; i < a->n; i++)
		if (!a->cand[i].deferred) {
			a->cand[i].deferred = 1;
			ST_ADD(a->deferred, 1);
		}
}

/* ---- the manager's news ---- */

void
admit_on_installed(struct offload_admit *a, uint32_t mark)
{
	if (mark && mark <= a->max_marks) {
		if (!a->installed_tsc[mark])
			a->n_rules++;
		a->installed_tsc[mark] = rte_rdtsc();
		a->evicting[mark] = 0;
	}
}

void
admit_on_freed(struct offload_admit *a, uint32_t mark)
{
	if (!mark || mark > a->max_marks)
		return;
	if (a->evicting[mark]) {
		a->evicting[mark] = 0;
		a->n_evicting--;
	}
	if (a->installed_tsc[mark])
		a->n_rules--;
	a->installed_tsc[mark] = 0;
	a->nic_full = false;
}

void
admit_on_nic_full(struct offload_admit *a)
{
	a->nic_full = true;
	a->nic_cap = a->n_rules;
	a->nic_cap_tsc = rte_rdtsc();
}

/* No room on the NIC for one more rule, as far as it has told us. */
static bool
nic_no_room(struct offload_admit *a, uint64_t now)
{
	if (a->nic_full)
		return true;
	if (!a->nic_cap)
		return false;
	if (now - a->nic_cap_tsc > a->tsc_hz * ADMIT_NIC_RELEARN_MS / 1000) {
		a->nic_cap = 0;		/* ask the NIC again */
		return false;
	}
	return a->n_rules >= a->nic_cap;
}

bool
admit_is_evicting(const struct offload_admit *a, uint32_t mark)
{
	return mark && mark <= a->max_marks && a->evicting[mark];
}

/* ---- weight mode: the coldest installed rules ---- */

/* The least rate that evicts a rule of cold_rate pps: what beats() asks.
 *
 * - Hysteresis: x hysteresis_pct / 100 (2x), so that two flows of about
 *   the same rate do not take the rule from each other in turn.
 * - Evidence: the PMDs' rates (dp_offload.c) are counts over about
 *   ADMIT_RATE_WINDOW_MS, Poisson: a rate r is known to +-sqrt(r / W)
 *   (W in s). The candidate must beat the rule by EVICT_Z standard
 *   deviations of the difference: (c - v)^2 W >= z^2 (c + v), i.e.
 *   c >= v + z^2 / 2W + sqrt(8 W z^2 v + z^4) / 2W. At the tail of
 *   dpbench --zipf (v ~ 5 pps, 0.5 packets per 100 ms sweep) that is
 *   21 pps: with 16K rules and 2K candidates the coldest rule's and the
 *   hottest candidate's noise alone reach +-3-4 sigma, which the 2x of
 *   the hysteresis does not cover below 30 pps. For v = 0: 10 pps.
 * - Payback: an eviction costs the offload thread a destroy and an insert
 *   (evict_cost_cycles); what it moves to the mark path saves the PMDs
 *   ADMIT_MARK_SAVING_CYCLES per packet; the saving over EVICT_PAYBACK_MS
 *   must cover the cost: c - v >= cost / (saving x payback). An E810
 *   programs a rule synchronously, up to ~10 ms each (ICE_FDIR_MAX_WAIT_US,
 *   ice_rxtx.c:4559 at v22.11): 2 x 10 ms x 2.6 GHz = 52M cycles, i.e.
 *   ~35000 pps over 10 s at 150 cycles a packet: on ice only elephants
 *   evict. The model's are microseconds of software: 0 here. */
static uint64_t
evict_threshold(const struct offload_admit *a, uint64_t cold_rate)
{
	const double w = ADMIT_RATE_WINDOW_MS / 1000.0, z2 = EVICT_Z * EVICT_Z;
	double v = (double)cold_rate;
	double hyst = v * a->hysteresis_pct / 100.0;
	double x = 8 * w * z2 * v + z2 * z2, root = x;

	for (int i = 0; i < 64; i++)	/* Newton's sqrt: no libm here */
		root = (root + x / root) / 2;
	double noise = v + z2 / (2 * w) + root / (2 * w);
	double payback = v + a->evict_min_gain_pps;
	double t = RTE_MAX(hyst, RTE_MAX(noise, payback));

	return (uint64_t)t + ((double)(uint64_t)t < t);	/* ceil */
}

static bool
beats(const struct offload_admit *a, uint64_t weight, uint64_t cold_rate)
{
	return weight >= evict_threshold(a, cold_rate);
}

/* The ADMIT_N_COLD coldest rules that may be evicted (installed, not
 * already going, resident long enough), ascending; and the threshold. */
static void
scan_cold(struct offload_admit *a, uint64_t now)
{
	uint64_t coldest_any = UINT64_MAX;

	a->n_cold = a->cold_pos = 0;
	for (uint32_t mark = 1; mark <= a->max_marks; mark++) {
		if (a->evicting[mark] || !a->installed_tsc[mark] ||
		    !a->ops.installed(a->mgr, mark))
			continue;
		uint64_t rate = a->ops.rule_rate(a->mgr, mark);
		coldest_any = RTE_MIN(coldest_any, rate);
		/* (now may predate an install of this round) */
		if (now < a->installed_tsc[mark] + a->min_resident_tsc)
			continue;
		if (a->n_cold == ADMIT_N_COLD &&
		    rate >= a->cold[ADMIT_N_COLD - 1].rate)
			continue;
		/* insertion into the sorted list */
		unsigned j = a->n_cold < ADMIT_N_COLD ? a->n_cold++ :
			     ADMIT_N_COLD - 1;
		while (j > 0 && a->cold[j - 1].rate > rate) {
			a->cold[j] = a->cold[j - 1];
			j--;
		}
		a->cold[j].mark = mark;
		a->cold[j].rate = rate;
	}
	uint64_t base = a->n_cold ? a->cold[0].rate :
			coldest_any == UINT64_MAX ? 0 : coldest_any;
	/* never 0 while full: 0 tells the PMDs there is room */
	ST_SET(a->threshold, RTE_MAX(evict_threshold(a, base), (uint64_t)1));
	a->next_scan_tsc = now + a->tsc_hz / 1000 * SCAN_INTERVAL_MS;
}

/* The coldest evictable rule that weight beats, or 0. */
static uint32_t
pick_victim(struct offload_admit *a, uint64_t weight, uint64_t now)
{
	if (a->cold_pos >= a->n_cold && now >= a->next_scan_tsc)
		scan_cold(a, now);
	while (a->cold_pos < a->n_cold) {
		uint32_t mark = a->cold[a->cold_pos].mark;
		if (a->evicting[mark] || !a->ops.installed(a->mgr, mark) ||
		    now < a->installed_tsc[mark] + a->min_resident_tsc) {
			a->cold_pos++;	/* gone (or its mark reused) since */
			continue;
		}
		/* its rate now, not at the scan: the sorted list is a hint */
		if (!beats(a, weight, a->ops.rule_rate(a->mgr, mark)))
			return 0;
		a->cold_pos++;
		return mark;
	}
	return 0;
}

/* The set is full of candidates nobody can place: the coldest quarter of
 * the unclaimed ones go (their PMDs may offer them again). */
static void
shed(struct offload_admit *a)
{
	unsigned want = a->cap / 4, done = 0, kept = 0;

	/* one compacting pass from the coldest: the set keeps its order */
	for (unsigned i = 0; i < a->n; i++) {
		if (done < want && a->cand[i].unclaimed) {
			a->ops.shed(a->mgr, &a->cand[i]);
			done++;
		} else if (kept++ != i) {
			a->cand[kept - 1] = a->cand[i];
		}
	}
	a->n = kept;
}

/* ---- one round ---- */

static bool
run_fifo(struct offload_admit *a)
{
	bool busy = false;

	while (a->n) {
		if (!take_token(a)) {
			defer_all(a);
			break;
		}
		struct offload_req top = a->cand[--a->n];
		a->ops.insert(a->mgr, &top);
		busy = true;
		/* let DELs and busier ADDs in between inserts */
		if (a->ops.ring_busy(a->mgr))
			break;
	}
	return busy;
}

static bool
run_weight(struct offload_admit *a)
{
	uint64_t now = rte_rdtsc();
	uint32_t covered = a->n_evicting;	/* marks coming free */
	bool busy = false, full = false;

	for (int i = (int)a->n - 1; i >= 0; i--) {
		struct offload_req *r = &a->cand[i];

		if (r->unclaimed) {
			/* no free mark: no claim (it builds the rule and
			 * looks its pattern up, each round); a pattern that
			 * another PMD's megaflow put on the NIC meanwhile is
			 * joined once there is room */
			enum admit_claim c = nic_no_room(a, now) ||
					     !a->ops.has_room(a->mgr) ?
					     ADMIT_NO_ROOM :
					     a->ops.claim(a->mgr, r);
			if (c == ADMIT_JOINED) {
				admit_remove(a, i);
				busy = true;
				continue;
			}
			if (c == ADMIT_NO_ROOM) {
				full = true;
				if (covered) {	/* an eviction is for it */
					covered--;
					continue;
				}
				uint32_t victim = pick_victim(a, r->weight,
							      now);
				if (!victim)
					break;	/* nor anyone colder */
				if (!take_token(a)) {
					a->cold_pos--;	/* next time */
					defer_all(a);
					break;
				}
				a->evicting[victim] = 1;
				a->n_evicting++;
				ST_ADD(a->evictions, 1);
				a->ops.evict(a->mgr, victim);
				busy = true;
				continue;
			}
			r->unclaimed = 0;	/* claimed: a mark, pending */
		}
		if (!take_token(a)) {
			defer_all(a);
			break;
		}
		struct offload_req top = *r;
		admit_remove(a, i);
		a->ops.insert(a->mgr, &top);
		busy = true;
		if (a->ops.ring_busy(a->mgr))
			break;
	}
	if (full || nic_no_room(a, now) || !a->ops.has_room(a->mgr)) {
		if (now >= a->next_scan_tsc)
			scan_cold(a, now);
		if (admit_full(a))
			shed(a);
	} else if (a->threshold) {
		ST_SET(a->threshold, 0);	/* room again */
	}
	return busy;
}

bool
admit_run(struct offload_admit *a)
{
	refill(a);
	/* re-ranked (a refresh, a new ADD): sorted again when its order is
	 * about to be used, a token in hand, at most every SORT_US (the
	 * PMDs' refreshes arrive in a stream; the entries are large) */
	uint64_t now = rte_rdtsc();
	if (a->dirty && (!a->per_sec || a->tokens >= 1.0) &&
	    now >= a->next_sort_tsc) {
		sort_cand(a);
		a->dirty = false;
		a->next_sort_tsc = now + a->tsc_hz / 1000000 * SORT_US;
	}
	return a->mode == OFFLOAD_ADMIT_WEIGHT ? run_weight(a) : run_fifo(a);
}
