/* SPDX-License-Identifier: BSD-3-Clause
 * The stage names of PMD_STAGES (dp_stats.h), for the reports. */
#include "dp_stats.h"

const char *
pmd_stage_name(enum pmd_stage s)
{
	static const char *const names[PMD_N_STAGES] = {
#define X(id, name) [PMD_STAGE_##id] = name,
		PMD_STAGES(X)
#undef X
	};
	return (unsigned)s < PMD_N_STAGES ? names[s] : "?";
}
