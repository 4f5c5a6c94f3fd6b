/* SPDX-License-Identifier: BSD-3-Clause
 * Which cores: eal lcores (the EAL's --lcores), the main lcore and the pmd cores, and
 * the checks between them once both sections are read. A core list is
 * "1-3,5" or, for pmd-cores, also a YAML list of numbers.
 */
#include "config_loader.h"
#include "core_list.h"

/* ---- core lists ---- */

/* core_list.h; seen[] must start all false. */
static int
parse_core_list(struct loader *ld, const yaml_node_t *node, const char *s,
		uint16_t *cores, uint16_t *n, bool *seen)
{
	unsigned twice;

	switch (core_list_parse(s, CFG_MAX_CORES, cores, n, seen, &twice)) {
	case CORE_LIST_OK:
		return 0;
	case CORE_LIST_TWICE:
		return fail(ld, node, "core listed twice '%u'", twice);
	default:
		return fail(ld, node, "bad core list '%s'", s);
	}
}

/* "0-1,4" style, from a set; fails only if dst is too small. */
static int
format_core_list(const bool *set, char *dst, size_t size)
{
	size_t len = 0;
	dst[0] = '\0';
	for (unsigned c = 0; c < CFG_MAX_CORES; c++) {
		if (!set[c])
			continue;
		unsigned hi = c;
		while (hi + 1 < CFG_MAX_CORES && set[hi + 1])
			hi++;
		int n = hi == c ? snprintf(dst + len, size - len, "%s%u",
					   len ? "," : "", c)
				: snprintf(dst + len, size - len, "%s%u-%u",
					   len ? "," : "", c, hi);
		if (n < 0 || (size_t)n >= size - len)
			return -1;
		len += n;
		c = hi;
	}
	return 0;
}

/* ---- the keys ---- */

int
eal_lcores(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct vxs_config *cfg = obj;
	bool cpus[CFG_MAX_CORES] = { false };
	unsigned first;

	ld->lcores_node = v;
	if (get_string(ld, v, "lcores", cfg->eal_lcores,
		       sizeof cfg->eal_lcores) < 0)
		return -1;
	if (core_list_parse_lcores(cfg->eal_lcores, CFG_MAX_CORES, ld->lcores,
				   cpus, &first))
		return fail(ld, v, "bad lcore list (the EAL's --lcores "
			    "syntax, e.g. 0-2 or 0,(1-4)@1) '%s'",
			    cfg->eal_lcores);
	return 0;
}

int
pmd_cores(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct vxs_config *cfg = obj;
	bool seen[CFG_MAX_CORES] = { false };

	cfg->n_pmd_cores = 0;
	if (v->type != YAML_SEQUENCE_NODE) {
		const char *s = scalar(ld, v, "pmd-cores");
		if (s == NULL || parse_core_list(ld, v, s, cfg->pmd_cores,
						 &cfg->n_pmd_cores, seen) < 0)
			return -1;
		for (unsigned i = 0; i < cfg->n_pmd_cores; i++)
			ld->pmd_core_node[i] = v;
		return cfg->n_pmd_cores ? 0
		       : fail(ld, v, "no cores in '%s'", "pmd-cores");
	}
	if (seq_len(v) == 0 || seq_len(v) > CFG_MAX_CORES)
		return fail(ld, v, "pmd-cores needs 1..%d cores '%zu'",
			    CFG_MAX_CORES, seq_len(v));
	for (size_t i = 0; i < seq_len(v); i++) {
		const yaml_node_t *item = seq_item(ld, v, i);
		uint64_t core;
		if (get_uint(ld, item, "pmd core", 0, CFG_MAX_CORES - 1,
			     &core) < 0)
			return -1;
		if (seen[core])
			return fail(ld, item, "core listed twice '%u'",
				    (unsigned)core);
		seen[core] = true;
		ld->pmd_core_node[cfg->n_pmd_cores] = item;
		cfg->pmd_cores[cfg->n_pmd_cores++] = (uint16_t)core;
	}
	return 0;
}

/* ---- the checks, after eal and datapath ---- */

/* The core EAL will run the main thread on: the explicit one, else the
 * first of -l (EAL's rule), else 0 (our default -l starts with it). */
static unsigned
main_lcore(const struct loader *ld)
{
	if (ld->cfg->eal_main_lcore >= 0)
		return (unsigned)ld->cfg->eal_main_lcore;
	for (unsigned c = 0; c < CFG_MAX_CORES; c++)
		if (ld->lcores[c])
			return c;
	return 0;
}

static int
check_pmd_core(struct loader *ld, unsigned i, unsigned main_core)
{
	unsigned core = ld->cfg->pmd_cores[i];
	const yaml_node_t *at = ld->pmd_core_node[i];

	if (core == main_core)
		return fail(ld, at, "pmd core is the main lcore '%u'", core);
	if (ld->lcores_node != NULL && !ld->lcores[core])
		return fail(ld, at, "pmd core is not in eal lcores '%u'", core);
	return 0;
}

/* The PMDs busy-poll; sharing the main lcore would starve the control
 * thread, and EAL only launches workers on cores in -l. */
int
check_cores(struct loader *ld)
{
	struct vxs_config *cfg = ld->cfg;
	unsigned main_core = main_lcore(ld);

	if (ld->pmd_core_node[0] == NULL)	/* the default {1} */
		ld->pmd_core_node[0] = ld->main_lcore_node ? ld->main_lcore_node
				       : ld->lcores_node ? ld->lcores_node
				       : ld->root;
	if (ld->main_lcore_node && ld->lcores_node && !ld->lcores[main_core])
		return fail(ld, ld->main_lcore_node,
			    "main-lcore is not in eal lcores '%u'", main_core);
	for (unsigned i = 0; i < cfg->n_pmd_cores; i++)
		if (check_pmd_core(ld, i, main_core) < 0)
			return -1;
	if (ld->lcores_node != NULL)
		return 0;

	bool set[CFG_MAX_CORES] = { false };
	set[main_core] = true;
	for (unsigned i = 0; i < cfg->n_pmd_cores; i++)
		set[cfg->pmd_cores[i]] = true;
	if (format_core_list(set, cfg->eal_lcores, sizeof cfg->eal_lcores) < 0)
		return fail(ld, ld->pmd_core_node[0],
			    "too many cores for an EAL -l list '%s'",
			    "pmd-cores");
	return 0;
}
