/* SPDX-License-Identifier: BSD-3-Clause
 * The packet accounting equation's terms (dp_stats.h, struct pmd_stats). */
#include "ds.h"
#include "json_out.h"
#include "pmd.h"
#include "pmd_reconf.h"

static uint64_t
ld(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

void
pmd_accounting_peek_stats(const struct pmd_stats *s, struct pmd_accounting *a)
{
	*a = (struct pmd_accounting){
		.received = ld(&s->packets),
		.copies = ld(&s->copies),
		.sent = ld(&s->tx_packets),
		.consumed = ld(&s->arp_consumed) + ld(&s->nd_consumed),
		.held = (int64_t)(ld(&s->ipf_stored) - ld(&s->ipf_released)),
	};
	for (int r = 0; r < DROP_N_REASONS; r++)
		a->dropped += ld(&s->drops[r]);
}

void
pmd_accounting_peek(const struct pmd *pmd, struct pmd_accounting *a)
{
	pmd_accounting_peek_stats(&pmd->stats, a);
	for (uint16_t i = 0; i < n_ports; i++)	/* empty slots: 0 */
		a->in_flight += __atomic_load_n(&pmd->dp.txbufs[i].n,
						__ATOMIC_RELAXED);
}

static void
accounting_req(struct pmd_request *req)
{
	pmd_accounting_peek(req->pmd, req->arg);
}

int
pmd_accounting_read(struct pmd *pmd, struct pmd_accounting *a)
{
	int rc = pmd_call(pmd, accounting_req, a);

	if (rc)
		pmd_accounting_peek(pmd, a);	/* PMD stuck: best effort */
	return rc;
}

/* exact: read by the PMD between bursts; else as last seen from here, a
 * PMD not answering (pmd_watch.h) */
static void
put_json(struct ds *out, const struct pmd_accounting *a, bool exact)
{
	jw_key(out, "accounting");
	jw_begin_object(out);
	jw_key(out, "received"); jw_u64(out, a->received);
	jw_key(out, "copies"); jw_u64(out, a->copies);
	jw_key(out, "sent"); jw_u64(out, a->sent);
	jw_key(out, "consumed"); jw_u64(out, a->consumed);
	jw_key(out, "dropped"); jw_u64(out, a->dropped);
	jw_key(out, "in_flight"); jw_u64(out, a->in_flight);
	jw_key(out, "held"); jw_i64(out, a->held);
	jw_key(out, "balanced"); jw_bool(out, pmd_accounting_balanced(a));
	jw_key(out, "exact"); jw_bool(out, exact);
	jw_end_object(out);
}

void
pmd_accounting_json(struct ds *out, struct pmd *pmd)
{
	struct pmd_accounting a;
	bool exact = !pmd_accounting_read(pmd, &a);

	put_json(out, &a, exact);
}

void
pmd_accounting_json_all(struct ds *out)
{
	struct pmd_accounting sum = { 0 }, a;
	bool exact = true;

	for (int i = -1; i < (int)n_pmds; i++) {
		/* -1: the PMDs set-pmd-cores replaced, none in flight */
		if (i < 0)
			pmd_accounting_peek_stats(&pmd_retired_stats, &a);
		else if (pmd_accounting_read(&pmds[i], &a))
			exact = false;
		sum.received += a.received;
		sum.copies += a.copies;
		sum.sent += a.sent;
		sum.consumed += a.consumed;
		sum.dropped += a.dropped;
		sum.in_flight += a.in_flight;
		sum.held += a.held;
	}
	put_json(out, &sum, exact);
}

void
pmd_accounting_text(struct ds *out, struct pmd *pmd)
{
	struct pmd_accounting a;
	bool exact = !pmd_accounting_read(pmd, &a);

	ds_put_format(out, "  accounting: received %lu + copies %lu = sent %lu"
		      " + consumed %lu + dropped %lu + in flight %lu + held %ld"
		      " (%s)\n", a.received, a.copies, a.sent, a.consumed,
		      a.dropped, a.in_flight, (long)a.held, !exact ? "as last seen: not answering"
		      : pmd_accounting_balanced(&a) ? "balanced" : "MISMATCH");
}
