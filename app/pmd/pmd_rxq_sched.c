/* SPDX-License-Identifier: BSD-3-Clause
 * OVS's rx queue scheduling (pmd_rxq_sched.h), pure: arrays in, arrays
 * and log lines out. The structure follows lib/dpif-netdev.c v3.1 so that
 * the two can be read side by side: PMDs grouped by NUMA node and sorted
 * by core (sched_numa_list_populate), pinned queues first, the rest
 * sorted (cycles, group) and handed out per node (sched_pmd_next).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ds.h"
#include "pmd_rxq_sched.h"

const char *
rxq_sched_assign_name(enum cfg_rxq_assign a)
{
	switch (a) {
	case CFG_RXQ_ASSIGN_ROUNDROBIN: return "roundrobin";
	case CFG_RXQ_ASSIGN_CYCLES: return "cycles";
	case CFG_RXQ_ASSIGN_GROUP: return "group";
	}
	return "unknown";
}

/* One NUMA node's PMDs (indexes into the caller's array, by core) and its
 * round-robin cursor (OVS struct sched_numa). */
struct numa {
	int id;
	size_t n_pmds, n_isolated;
	size_t *pmds;
	size_t rr_cur;
	bool rr_up;
};

struct sched {
	struct rxq_sched_pmd *pmd;
	size_t n_pmd;
	struct numa *numas;		/* by node id, ascending */
	size_t n_numas;
	size_t *pmd_slots;		/* storage for every numa's pmds[] */
	enum cfg_rxq_assign assign;
	bool isolate;
	struct ds *log;
};

static void
logf_(struct ds *log, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
logf_(struct ds *log, const char *fmt, ...)
{
	va_list args;

	if (!log)
		return;
	va_start(args, fmt);
	ds_put_vformat(log, fmt, args);
	va_end(args);
	ds_put_char(log, '\n');
}

/* PMD a before b: by node, then by core. */
static bool
pmd_before(const struct rxq_sched_pmd *a, const struct rxq_sched_pmd *b)
{
	return a->numa != b->numa ? a->numa < b->numa : a->lcore < b->lcore;
}

/* Groups the PMDs by node, each node's by core, and clears the outputs. */
static int
sched_init(struct sched *s, struct rxq_sched_pmd *pmd, size_t n_pmd,
	   const struct rxq_sched_opts *opts, struct ds *log)
{
	memset(s, 0, sizeof *s);
	s->pmd = pmd;
	s->n_pmd = n_pmd;
	s->assign = opts->assign;
	s->log = log;
	s->isolate = opts->isolate;
	if (!opts->isolate && opts->assign != CFG_RXQ_ASSIGN_GROUP) {
		logf_(log, "pmd-rxq-isolate can only be set false when using "
		      "pmd-rxq-assign=group");
		s->isolate = true;
	}
	s->numas = calloc(n_pmd ? n_pmd : 1, sizeof *s->numas);
	s->pmd_slots = calloc(n_pmd ? n_pmd : 1, sizeof *s->pmd_slots);
	if (!s->numas || !s->pmd_slots) {
		free(s->numas);
		free(s->pmd_slots);
		return -1;
	}
	for (size_t i = 0; i < n_pmd; i++) {
		pmd[i].isolated = false;
		pmd[i].n_rxqs = 0;
		pmd[i].load = 0;
		s->pmd_slots[i] = i;
	}
	/* Slots sorted by (node, core), so that each node's PMDs are a run
	 * in core order (a few hundred at most: insertion sort). */
	for (size_t i = 1; i < n_pmd; i++) {
		size_t v = s->pmd_slots[i], j = i;
		for (; j > 0 && pmd_before(&pmd[v], &pmd[s->pmd_slots[j - 1]]);
		     j--)
			s->pmd_slots[j] = s->pmd_slots[j - 1];
		s->pmd_slots[j] = v;
	}
	for (size_t i = 0; i < n_pmd; i++) {
		int id = pmd[s->pmd_slots[i]].numa;
		if (!s->n_numas || s->numas[s->n_numas - 1].id != id)
			s->numas[s->n_numas++] = (struct numa){
				.id = id, .pmds = &s->pmd_slots[i],
				.rr_up = true };
		s->numas[s->n_numas - 1].n_pmds++;
	}
	return 0;
}

static void
sched_fini(struct sched *s)
{
	free(s->numas);
	free(s->pmd_slots);
}

static struct numa *
numa_lookup(struct sched *s, int id)
{
	for (size_t i = 0; i < s->n_numas; i++)
		if (s->numas[i].id == id)
			return &s->numas[i];
	return NULL;
}

static struct numa *
numa_of_pmd(struct sched *s, size_t p)
{
	return numa_lookup(s, s->pmd[p].numa);
}

static int
pmd_by_lcore(const struct sched *s, int lcore)
{
	for (size_t i = 0; i < s->n_pmd; i++)
		if ((int)s->pmd[i].lcore == lcore)
			return (int)i;
	return -1;
}

static size_t
noniso_count(const struct numa *n)
{
	return n->n_pmds > n->n_isolated ? n->n_pmds - n->n_isolated : 0;
}

static void
add_rxq(struct sched *s, struct rxq_sched_q *q, size_t p)
{
	q->pmd = (int)p;
	s->pmd[p].n_rxqs++;
	s->pmd[p].load += q->load;
}

/* OVS sched_pmd_next_rr: 1,2,3,1,2,3... or, up and down, 1,2,3,3,2,1,1... */
static size_t
next_rr(struct numa *n, bool updown)
{
	size_t cur = n->rr_cur;

	if (n->rr_up) {
		if (n->rr_cur == n->n_pmds - 1) {
			if (updown)
				n->rr_up = false;
			else
				n->rr_cur = 0;
		} else {
			n->rr_cur++;
		}
	} else if (n->rr_cur == 0) {
		n->rr_up = true;
	} else {
		n->rr_cur--;
	}
	return n->pmds[cur];
}

static int
next_noniso_rr(struct sched *s, struct numa *n, bool updown)
{
	/* next_rr() may repeat a PMD before it has given every one: 2n
	 * tries see them all. */
	for (size_t i = 0; i < n->n_pmds * 2; i++) {
		size_t p = next_rr(n, updown);
		if (!s->pmd[p].isolated)
			return (int)p;
	}
	return -1;
}

/* OVS sched_pmd_get_lowest: by load when the queue has a measured load,
 * else by queue count; the first in core order on ties. */
static int
lowest(struct sched *s, struct numa *n, bool by_load)
{
	int best = -1;

	for (size_t i = 0; i < n->n_pmds; i++) {
		const struct rxq_sched_pmd *p = &s->pmd[n->pmds[i]];
		if (p->isolated)
			continue;
		if (best < 0 || (by_load ? p->load < s->pmd[best].load
					 : p->n_rxqs < s->pmd[best].n_rxqs))
			best = (int)n->pmds[i];
	}
	return best;
}

static int
next_pmd(struct sched *s, struct numa *n, bool has_load)
{
	if (s->assign == CFG_RXQ_ASSIGN_GROUP)
		return lowest(s, n, has_load);
	return next_noniso_rr(s, n, s->assign == CFG_RXQ_ASSIGN_CYCLES);
}

/* " (measured processing cycles N)", but for roundrobin */
static const char *
cycles_text(const struct sched *s, uint64_t load, char *buf, size_t len)
{
	if (s->assign == CFG_RXQ_ASSIGN_ROUNDROBIN)
		buf[0] = '\0';
	else
		snprintf(buf, len, " (measured processing cycles %" PRIu64 ")",
			 load);
	return buf;
}

/* Highest load first; equal loads by port number, then queue id. */
static int
cmp_rxq_load(const void *a_, const void *b_)
{
	const struct rxq_sched_q *a = *(struct rxq_sched_q *const *)a_;
	const struct rxq_sched_q *b = *(struct rxq_sched_q *const *)b_;

	if (a->load != b->load)
		return a->load < b->load ? 1 : -1;
	if (a->port != b->port)
		return a->port > b->port ? 1 : -1;
	return (int)a->qid - (int)b->qid;
}

/* Pins what can be pinned; returns the rest, in the order given. */
static size_t
place_pinned(struct sched *s, struct rxq_sched_q *q, size_t n_q,
	     struct rxq_sched_q **rest)
{
	size_t n_rest = 0;
	char cyc[64];

	for (size_t i = 0; i < n_q; i++) {
		q[i].pmd = -1;
		q[i].pinned = false;
		if (q[i].pinned_lcore < 0) {
			rest[n_rest++] = &q[i];
			continue;
		}
		int p = pmd_by_lcore(s, q[i].pinned_lcore);
		if (p < 0) {
			logf_(s->log, "Core %2d cannot be pinned with port '%s'"
			      " rx queue %u. Use pmd-cpu-mask to enable a pmd "
			      "on core %d. An alternative core will be "
			      "assigned.", q[i].pinned_lcore, q[i].name,
			      q[i].qid, q[i].pinned_lcore);
			rest[n_rest++] = &q[i];
			continue;
		}
		if (s->isolate && !s->pmd[p].isolated) {
			s->pmd[p].isolated = true;
			numa_of_pmd(s, (size_t)p)->n_isolated++;
		}
		logf_(s->log, "Core %2u on numa node %d is pinned with port "
		      "'%s' rx queue %u%s", s->pmd[p].lcore, s->pmd[p].numa,
		      q[i].name, q[i].qid,
		      cycles_text(s, q[i].load, cyc, sizeof cyc));
		q[i].pinned = true;
		add_rxq(s, &q[i], (size_t)p);
	}
	return n_rest;
}

/* The node for an unpinned queue: its own if that has a non-isolated
 * PMD, else the next node that has one, in turn (OVS last_cross_numa). */
static struct numa *
pick_numa(struct sched *s, int want, size_t *last_cross)
{
	struct numa *n = numa_lookup(s, want);

	if (n && noniso_count(n))
		return n;
	for (size_t j = 0; j < s->n_numas; j++) {
		*last_cross = (*last_cross + 1) % s->n_numas;
		n = &s->numas[*last_cross];
		if (noniso_count(n))
			return n;
	}
	return NULL;
}

static void
place_rest(struct sched *s, struct rxq_sched_q **rest, size_t n_rest)
{
	size_t last_cross = s->n_numas - 1;	/* the first try is node 0 */
	char cyc[64];

	if (n_rest > 1 && s->assign != CFG_RXQ_ASSIGN_ROUNDROBIN) {
		qsort(rest, n_rest, sizeof *rest, cmp_rxq_load);
	}
	if (n_rest)
		logf_(s->log, "Performing pmd to rx queue assignment using %s "
		      "algorithm.", rxq_sched_assign_name(s->assign));
	for (size_t i = 0; i < n_rest; i++) {
		struct rxq_sched_q *q = rest[i];
		struct numa *n = s->n_numas ? pick_numa(s, q->numa, &last_cross)
					    : NULL;
		int p = n ? next_pmd(s, n, q->load != 0) : -1;

		cycles_text(s, q->load, cyc, sizeof cyc);
		if (p < 0) {
			logf_(s->log, "No non-isolated pmd on any numa available"
			      " for port '%s' rx queue %u%s. This rx queue will"
			      " not be polled.", q->name, q->qid, cyc);
			continue;
		}
		if (q->numa >= 0 && n->id != q->numa)
			logf_(s->log, "There's no available (non-isolated) pmd "
			      "thread on numa node %d. Port '%s' rx queue %u "
			      "will be assigned to a pmd on numa node %d. This "
			      "may lead to reduced performance.", q->numa,
			      q->name, q->qid, n->id);
		logf_(s->log, "Core %2u on numa node %d assigned port '%s' rx "
		      "queue %u%s.", s->pmd[p].lcore, s->pmd[p].numa, q->name,
		      q->qid, cyc);
		add_rxq(s, q, (size_t)p);
	}
}

static int
schedule(struct rxq_sched_q *q, size_t n_q, struct rxq_sched_pmd *pmd,
	 size_t n_pmd, const struct rxq_sched_opts *opts, struct ds *log,
	 struct sched *s)
{
	struct rxq_sched_q **rest = malloc((n_q ? n_q : 1) * sizeof *rest);

	if (!rest || sched_init(s, pmd, n_pmd, opts, log)) {
		free(rest);
		return -1;
	}
	place_rest(s, rest, place_pinned(s, q, n_q, rest));
	free(rest);
	return 0;
}

int
rxq_sched_assign(struct rxq_sched_q *q, size_t n_q,
		 struct rxq_sched_pmd *pmd, size_t n_pmd,
		 const struct rxq_sched_opts *opts, struct ds *log)
{
	struct sched s;

	if (schedule(q, n_q, pmd, n_pmd, opts, log, &s))
		return -ENOMEM;
	sched_fini(&s);
	return 0;
}

/* ---- pmd-auto-lb ---- */

uint64_t
rxq_sched_variance(const uint64_t *a, size_t n)
{
	uint64_t sum = 0, mean, sq = 0;

	if (!n)
		return 0;
	for (size_t i = 0; i < n; i++)
		sum += a[i];
	if (!sum)
		return 0;
	mean = sum / n;
	for (size_t i = 0; i < n; i++) {
		/* OVS computes in uint64_t: a value under the mean wraps, and
		 * its square wraps back to the same result. */
		uint64_t d = a[i] - mean;
		sq += d * d;
	}
	return sq / n;
}

/* The variance of a node's non-isolated PMDs' busy percentages. */
static uint64_t
numa_variance(const struct numa *n, const struct rxq_sched_pmd *pmd,
	      uint64_t *scratch)
{
	size_t k = 0;

	for (size_t i = 0; i < n->n_pmds; i++) {
		const struct rxq_sched_pmd *p = &pmd[n->pmds[i]];
		if (p->isolated)
			continue;
		scratch[k++] = p->window_cycles ? p->load * 100 /
							  p->window_cycles
						: 0;
	}
	return rxq_sched_variance(scratch, k);
}

/* The current assignment as the scheduler's outputs (OVS
 * sched_numa_list_assignments): loads, counts, and a PMD polling a queue
 * pinned to it is isolated. */
static void
current_assignment(struct sched *s, const struct rxq_sched_q *q, size_t n_q)
{
	for (size_t i = 0; i < n_q; i++) {
		int p = q[i].cur_pmd;
		if (p < 0 || (size_t)p >= s->n_pmd)
			continue;
		s->pmd[p].n_rxqs++;
		s->pmd[p].load += q[i].load;
		if (s->isolate && q[i].pinned_lcore == (int)s->pmd[p].lcore &&
		    !s->pmd[p].isolated) {
			s->pmd[p].isolated = true;
			numa_of_pmd(s, (size_t)p)->n_isolated++;
		}
	}
}

/* OVS pmd_rebalance_dry_run_needed: not roundrobin, and 2 or more
 * non-isolated PMDs, one of which polls more than one queue. */
static bool
worth_trying(const struct sched *s)
{
	size_t noniso = 0;
	bool multi = false;

	if (s->assign == CFG_RXQ_ASSIGN_ROUNDROBIN)
		return false;
	for (size_t i = 0; i < s->n_pmd; i++) {
		if (s->pmd[i].isolated)
			continue;
		noniso++;
		multi |= s->pmd[i].n_rxqs > 1;
	}
	return noniso >= 2 && multi;
}

/* OVS sched_numa_list_cross_numa_polling: an unpinned queue of a known
 * node on another node's non-isolated PMD. */
static bool
cross_numa(const struct rxq_sched_q *q, size_t n_q,
	   const struct rxq_sched_pmd *pmd)
{
	for (size_t i = 0; i < n_q; i++)
		if (q[i].pmd >= 0 && !q[i].pinned && q[i].numa >= 0 &&
		    !pmd[q[i].pmd].isolated && pmd[q[i].pmd].numa != q[i].numa)
			return true;
	return false;
}

static void
compare_variances(struct sched *cur, struct sched *est,
		  const struct rxq_sched_alb_params *alb,
		  struct rxq_sched_dry_run *out, uint64_t *scratch,
		  struct ds *log)
{
	bool first = true;

	for (size_t i = 0; i < cur->n_numas; i++) {
		struct numa *nc = &cur->numas[i];
		struct numa *ne = numa_lookup(est, nc->id);
		uint64_t cv, ev, imp = 0;

		if (!ne)
			continue;
		cv = numa_variance(nc, cur->pmd, scratch);
		ev = numa_variance(ne, est->pmd, scratch);
		if (ev < cv)
			imp = (cv - ev) * 100 / cv;
		logf_(log, "Numa node %d. Current variance %" PRIu64
		      " Estimated variance %" PRIu64 ". Variance improvement "
		      "%" PRIu64 "%%.", nc->id, cv, ev, imp);
		if (first || imp > out->improvement) {
			out->numa = nc->id;
			out->cur_variance = cv;
			out->est_variance = ev;
			out->improvement = imp;
			first = false;
		}
	}
	out->rebalance = !first &&
			 out->improvement >= alb->improvement_threshold;
	logf_(log, "PMD load variance improvement threshold %u%% is %s.",
	      alb->improvement_threshold, out->rebalance ? "met" : "not met");
}

int
rxq_sched_dry_run(const struct rxq_sched_q *q, size_t n_q,
		  const struct rxq_sched_pmd *pmd, size_t n_pmd,
		  const struct rxq_sched_opts *opts,
		  const struct rxq_sched_alb_params *alb,
		  struct rxq_sched_dry_run *out, struct ds *log)
{
	size_t qsz = (n_q ? n_q : 1) * sizeof *q;
	size_t psz = (n_pmd ? n_pmd : 1) * sizeof *pmd;
	struct rxq_sched_q *eq = malloc(qsz);
	struct rxq_sched_pmd *cp = malloc(psz), *ep = malloc(psz);
	uint64_t *scratch = malloc((n_pmd ? n_pmd : 1) * sizeof *scratch);
	struct sched cur, est;
	int rc = -ENOMEM;

	memset(out, 0, sizeof *out);
	out->numa = -1;
	if (!eq || !cp || !ep || !scratch)
		goto out;
	memcpy(eq, q, n_q * sizeof *q);
	memcpy(cp, pmd, n_pmd * sizeof *pmd);
	memcpy(ep, pmd, n_pmd * sizeof *pmd);
	if (sched_init(&cur, cp, n_pmd, opts, NULL))
		goto out;
	current_assignment(&cur, q, n_q);
	for (size_t i = 0; i < n_pmd; i++)
		out->overloaded |= pmd[i].overloaded && !cp[i].isolated;
	out->worth_trying = worth_trying(&cur);
	if (out->overloaded && out->worth_trying) {
		logf_(log, "PMD auto load balance performing dry run.");
		if (schedule(eq, n_q, ep, n_pmd, opts, NULL, &est)) {
			sched_fini(&cur);
			goto out;
		}
		out->cross_numa = cross_numa(eq, n_q, ep) && est.n_numas > 1;
		if (out->cross_numa)
			logf_(log, "PMD auto load balance detected cross-numa "
			      "polling with multiple numa nodes. Unable to "
			      "accurately estimate.");
		else
			compare_variances(&cur, &est, alb, out, scratch, log);
		sched_fini(&est);
	} else {
		logf_(log, "PMD auto load balance nothing to do, %s.",
		      !out->overloaded ? "no PMD over the load threshold for "
					 "the whole window"
				       : opts->assign == CFG_RXQ_ASSIGN_ROUNDROBIN
				       ? "pmd-rxq-assign=roundrobin assignment "
					 "type configured"
				       : "not enough non-isolated PMDs or RxQs");
	}
	sched_fini(&cur);
	rc = 0;
out:
	free(eq);
	free(cp);
	free(ep);
	free(scratch);
	return rc;
}

unsigned
rxq_sched_overload_update(struct rxq_sched_overload *o, uint64_t busy,
			  uint64_t total, unsigned load_threshold)
{
	unsigned pct = total && busy ? (unsigned)(busy * 100 / total) : 0;

	if (pct >= load_threshold)
		o->intervals++;
	else
		o->intervals = 0;
	return pct;
}

bool
rxq_sched_timer_due(struct rxq_sched_timer *t, uint64_t now_ms,
		    uint64_t interval_ms)
{
	if (!t->last_ms) {
		t->last_ms = now_ms ? now_ms : 1;
		return false;
	}
	if (t->last_ms + interval_ms < now_ms) {
		t->last_ms = now_ms;
		return true;
	}
	return false;
}

/* ---- the window ---- */

void
rxq_sched_hist_push(struct rxq_sched_hist *h, uint64_t v)
{
	uint32_t i = __atomic_fetch_add(&h->idx, 1, __ATOMIC_RELAXED);

	__atomic_store_n(&h->v[i % RXQ_SCHED_INTERVAL_MAX], v,
			 __ATOMIC_RELAXED);
}

uint64_t
rxq_sched_hist_sum(const struct rxq_sched_hist *h, unsigned n)
{
	uint32_t i = __atomic_load_n(&h->idx, __ATOMIC_RELAXED) %
		     RXQ_SCHED_INTERVAL_MAX;
	uint64_t sum = 0;

	if (n > RXQ_SCHED_INTERVAL_MAX)
		n = RXQ_SCHED_INTERVAL_MAX;
	for (unsigned k = 0; k < n; k++) {
		i = i ? i - 1 : RXQ_SCHED_INTERVAL_MAX - 1;
		sum += __atomic_load_n(&h->v[i], __ATOMIC_RELAXED);
	}
	return sum;
}
