/* SPDX-License-Identifier: BSD-3-Clause
 * The datapath keys of rx queue scheduling with logic beyond a row:
 * pmd-rxq-assign (a name) and pmd-auto-lb-rebal-interval (minutes, as
 * OVS, but fractions allowed so that tests need not wait a minute).
 */
#include "config_loader.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *const assign_names[] = {
	[CFG_RXQ_ASSIGN_ROUNDROBIN] = "roundrobin",
	[CFG_RXQ_ASSIGN_CYCLES] = "cycles",
	[CFG_RXQ_ASSIGN_GROUP] = "group",
};

int
pmd_rxq_assign(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct vxs_config *cfg = obj;
	const char *s = scalar(ld, v, "pmd-rxq-assign");

	if (s == NULL)
		return -1;
	for (size_t i = 0; i < RTE_DIM(assign_names); i++) {
		if (strcmp(s, assign_names[i]) == 0) {
			cfg->pmd_rxq_assign = (enum cfg_rxq_assign)i;
			return 0;
		}
	}
	return fail(ld, v, "bad pmd-rxq-assign (roundrobin, cycles or group)"
		    " '%s'", s);
}

const char *
pmd_rxq_assign_name(enum cfg_rxq_assign a)
{
	return (size_t)a < RTE_DIM(assign_names) ? assign_names[a] : "cycles";
}

/* The fraction rounded up to 9 digits, which parse_minutes_ms truncates
 * back to the same millisecond. */
const char *
pmd_rebal_interval_minutes(uint32_t ms, char *buf, size_t len)
{
	uint64_t rem = ms % CFG_MIN_MS;
	uint64_t frac = (rem * 1000000000u + CFG_MIN_MS - 1) / CFG_MIN_MS;
	int n = snprintf(buf, len, "%u", ms / CFG_MIN_MS);

	if (rem && n > 0 && (size_t)n < len) {
		snprintf(buf + n, len - (size_t)n, ".%09" PRIu64, frac);
		for (char *e = buf + strlen(buf) - 1; *e == '0'; e--)
			*e = '\0';
	}
	return buf;
}

/* "N" or "N.F" minutes, decimal digits only, into milliseconds (the
 * fraction truncated to a millisecond). */
static bool
parse_minutes_ms(const char *s, uint64_t *ms)
{
	uint64_t whole = 0, frac = 0, scale = 1;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++) {
		whole = whole * 10 + (uint64_t)(*p - '0');
		if (whole > CFG_REBAL_INTERVAL_MAX_MIN)
			return false;
	}
	if (*p == '.') {
		if (p[1] < '0' || p[1] > '9')
			return false;
		for (p++; *p >= '0' && *p <= '9'; p++) {
			if (scale >= 1000000000u)	/* past a nanominute */
				continue;
			frac = frac * 10 + (uint64_t)(*p - '0');
			scale *= 10;
		}
	}
	if (*p != '\0')
		return false;
	*ms = whole * CFG_MIN_MS + frac * CFG_MIN_MS / scale;
	return *ms <= (uint64_t)CFG_REBAL_INTERVAL_MAX_MIN * CFG_MIN_MS &&
	       (*ms > 0 || (whole == 0 && frac == 0));
}

/* 0 is OVS's "the default" (1 minute). */
int
pmd_auto_lb_rebal_interval(struct loader *ld, const yaml_node_t *v,
			   void *obj)
{
	struct vxs_config *cfg = obj;
	const char *s = scalar(ld, v, "pmd-auto-lb-rebal-interval");
	uint64_t ms;

	if (s == NULL)
		return -1;
	if (!parse_minutes_ms(s, &ms))
		return fail(ld, v, "bad pmd-auto-lb-rebal-interval (minutes "
			    "0..%u, fractions allowed, at least 1 ms) '%s'",
			    CFG_REBAL_INTERVAL_MAX_MIN, s);
	cfg->pmd_auto_lb_rebal_interval_ms = ms ? (uint32_t)ms : CFG_MIN_MS;
	return 0;
}
