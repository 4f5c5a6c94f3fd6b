/* SPDX-License-Identifier: BSD-3-Clause
 * dpbench --churn N[,all]: forwarding while the rules of a table the
 * traffic never looks up (table 200) are rewritten, one replacing
 * add-flow (a publish) every N measured bursts. The publish is the
 * control thread's and is not measured; what the PMD loop does on a new
 * generation (take the snapshot, dp_revalidate) is, in the same cycles
 * as the packets. With ",all" the PMD revalidates every megaflow on each
 * publish, as it did before revalidation by table (a missed generation
 * forces it), for the side-by-side.
 */
#include <stdio.h>
#include <rte_cycles.h>
#include "dp_snapshot.h"
#include "dpbench.h"
#include "ofproto.h"
#include "pmd.h"

uint64_t
dpbench_churn(struct pmd *pmd, uint64_t k, bool all)
{
	char flow[128], err[256];
	const char *f = flow;
	int bad;

	snprintf(flow, sizeof flow, "table=200,priority=1,ip,"
		 "nw_dst=10.200.0.%u,actions=load:%u->NXM_NX_REG0[]",
		 (unsigned)(k % 256), (unsigned)(k & 0xffff));
	if (ofproto_add_flows(&f, 1, &bad, err, sizeof err)) {
		fprintf(stderr, "dpbench --churn: %s\n", err);
		return 0;
	}
	uint64_t t0 = rte_rdtsc();
	pmd->dp.snap = dp_snapshot_get();
	if (all)		/* not the next generation: everything */
		pmd->dp.seen_gen = pmd->dp.snap->gen - 2;
	dp_revalidate(&pmd->dp);
	pmd->dp.seen_gen = pmd->dp.snap->gen;
	return rte_rdtsc() - t0;
}
