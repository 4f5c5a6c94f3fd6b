/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>
#include "dp_opts.h"

static const struct {
	const char *name;
	bool def;
} opts[DP_N_OPTS] = {
#define X(id, name, def) [DP_OPT_##id] = { name, def },
	DP_OPTS(X)
#undef X
};

uint32_t
dp_opts_default(void)
{
	uint32_t bits = 0;
	for (int o = 0; o < DP_N_OPTS; o++)
		if (opts[o].def)
			bits |= DP_OPT_BIT(o);
	return bits;
}

const char *
dp_opt_name(enum dp_opt o)
{
	return (unsigned)o < DP_N_OPTS ? opts[o].name : "?";
}

int
dp_opt_by_name(const char *name)
{
	for (int o = 0; o < DP_N_OPTS; o++)
		if (!strcmp(opts[o].name, name))
			return o;
	return -1;
}
