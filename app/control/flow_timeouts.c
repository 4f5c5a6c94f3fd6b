/* SPDX-License-Identifier: BSD-3-Clause
 * OpenFlow rule timeouts (ovs-ofctl idle_timeout=, hard_timeout=), run by
 * the control loop once a second, as OVS's revalidators expire rules:
 * a rule goes when its hard timeout has passed since it was added or last
 * modified, or when no packet has hit it for its idle timeout. The PMDs'
 * live megaflows hold the latest hits; asking every PMD for them costs a
 * pmd_call each, so it is done only when some rule may be idle past its
 * timeout by what the control side knows already (retired megaflows'
 * reports), and then decides. */
#include "clock.h"
#include <stdlib.h>
#include "ds.h"
#include "flow_timeouts.h"
#include "mf_dump.h"
#include "ofproto.h"
#include "pmd.h"
#include "state.h"

#define FLOW_TIMEOUTS_PERIOD_MS 1000

/* Takes the PMDs' live megaflows' last hits into their rules'. */
static void
note_live_use(void)
{
	struct ds err = DS_EMPTY_INITIALIZER;

	for (uint16_t i = 0; i < n_pmds; i++) {
		struct mf_dump_req r = { 0 };
		if (collect_flows(&pmds[i], &r, &err) == 0)
			for (uint32_t k = 0; k < r.n; k++)
				if (r.v[k].rule_uid && r.v[k].used_tsc)
					ofproto_note_used(r.v[k].rule_uid,
						pmd_tsc_to_ms(r.v[k].used_tsc));
		free(r.v);
	}
	ds_destroy(&err);
}

void
flow_timeouts_tick(void)
{
	static uint64_t last_ms;
	uint64_t now = vxs_now_ms();

	if (now - last_ms < FLOW_TIMEOUTS_PERIOD_MS)
		return;
	last_ms = now;
	if (ofproto_idle_candidates(now)) {
		ctl_events_process();
		note_live_use();
	}
	if (ofproto_expire_rules(now))
		state_changed();
}
