/* SPDX-License-Identifier: BSD-3-Clause
 * Reading the counters the PMDs own, for the reports (commands,
 * telemetry): the PMDs write them as they go, so the control and
 * telemetry threads load them relaxed. Port counters are summed over the
 * PMDs, field by field from PORT_STATS (dp_stats.h). */
#ifndef VXS_STATS_READ_H
#define VXS_STATS_READ_H

#include <stdint.h>
#include <string.h>
#include "pmd.h"
#include "pmd_reconf.h"

static inline uint64_t
counter_ld(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_RELAXED);
}

/* Port 'idx''s counters, summed over every PMD. */
static inline void
port_stats_sum(uint16_t idx, struct pmd_port_stats *sum)
{
	memset(sum, 0, sizeof *sum);
	for (int i = -1; i < (int)n_pmds; i++) {
		/* -1: PMDs that set-pmd-cores replaced (pmd_reconf.h) */
		const struct pmd_port_stats *s =
			i < 0 ? (pmd_retired_port_stats
				 ? &pmd_retired_port_stats[idx] : NULL)
			      : &pmds[i].port_stats[idx];
		if (!s)
			continue;
#define X(field) sum->field += counter_ld(&s->field);
		PORT_STATS(X)
#undef X
	}
}

#endif
