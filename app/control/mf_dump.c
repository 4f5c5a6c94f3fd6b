/* SPDX-License-Identifier: BSD-3-Clause
 * Copying a PMD's megaflows out of its classifier, in the PMD (mf_dump.h). */
#include <stdlib.h>
#include <string.h>
#include "dp_offload.h"
#include "dpcls.h"
#include "mf_dump.h"

static void
dump_one(struct megaflow *f, void *aux)
{
	struct mf_dump_req *r = aux;
	if (r->n == r->cap)
		return;
	struct mf_dump *d = &r->v[r->n++];
	d->key = f->key;
	d->mask = *megaflow_mask(f);	/* in the classifier (foreach) */
	d->actions = f->actions;
	d->n_packets = f->n_packets;
	d->n_bytes = f->n_bytes;
	d->used_tsc = f->used_tsc;
	d->id = f->id;
	d->rule_uid = f->rule_uid;
	d->mark = f->offload == MF_OFFLOAD_INSTALLED ? f->mark : 0;
}

static void
pmd_dump_flows(struct pmd_request *req)
{
	struct mf_dump_req *r = req->arg;
	r->cap = dpcls_count(req->pmd->dp.cls);
	r->v = malloc((r->cap ? r->cap : 1) * sizeof *r->v);
	if (!r->v)
		r->cap = 0;
	dpcls_foreach(req->pmd->dp.cls, dump_one, r);
}

int
collect_flows(struct pmd *pmd, struct mf_dump_req *r, struct ds *out)
{
	memset(r, 0, sizeof *r);
	if (pmd_call(pmd, pmd_dump_flows, r)) {
		ds_put_format(out, "pmd on core %u did not answer", pmd->lcore);
		return -1;
	}
	return 0;
}
