/* SPDX-License-Identifier: BSD-3-Clause
 * A copy of one PMD's megaflows, taken by the PMD between two bursts
 * (pmd_call), for the commands that list them (dpctl/dump-flows) or add
 * their live counters to their rules' (dump-flows). */
#ifndef VXS_MF_DUMP_H
#define VXS_MF_DUMP_H

#include <stdint.h>
#include "dp_actions.h"
#include "ds.h"
#include "flow_key.h"
#include "pmd.h"

struct mf_dump {
	struct flow_key key, mask;
	struct dp_actions actions;
	uint64_t n_packets, n_bytes, used_tsc, id;
	uint32_t rule_uid;
	uint32_t mark;			/* NIC mark while offloaded, else 0 */
};

struct mf_dump_req {
	struct mf_dump *v;		/* malloc'ed: the caller frees it */
	uint32_t n, cap;
};

/* Fills 'r' with 'pmd''s megaflows. Returns 0, or -1 with a message in
 * 'out' if the PMD did not answer. */
int collect_flows(struct pmd *pmd, struct mf_dump_req *r, struct ds *out);

#endif
