/* SPDX-License-Identifier: BSD-3-Clause
 * Reading the counters the PMDs own, for the reports (commands,
 * telemetry): the PMDs write them as they go, so the control and
 * telemetry threads load them relaxed. Port counters are summed over the
 * PMDs, field by field from PORT_STATS (pmd.h). */
#ifndef VXS_STATS_READ_H
#define VXS_STATS_READ_H

#include <stdint.h>
#include <string.h>
#include "pmd.h"

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
	for (uint16_t i = 0; i < n_pmds; i++) {
		const struct pmd_port_stats *s = &pmds[i].port_stats[idx];
#define X(field) sum->field += counter_ld(&s->field);
		PORT_STATS(X)
#undef X
	}
}

#endif
