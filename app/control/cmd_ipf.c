/* SPDX-License-Identifier: BSD-3-Clause
 * The fragment store's commands (app/conntrack/ct_ipf.h), as OVS 3.1's
 * dpctl (lib/dpctl.c), same names, arguments, messages and status text:
 *
 *   dpctl/ipf-set-enabled [DP] v4|v6 [0|1]   (0: as ipf-set-disabled)
 *   dpctl/ipf-set-disabled [DP] v4|v6
 *   dpctl/ipf-set-min-frag [DP] v4|v6 MINFRAG
 *   dpctl/ipf-set-max-nfrags [DP] MAXFRAGS
 *   dpctl/ipf-get-status [DP] [-m]
 *
 * Both families, v4 and v6, as OVS. -m adds, after OVS's lines, the
 * refusals OVS does not count (per family) and the per-zone and
 * per-datagram limits, then OVS's fragment lists.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cmd_util.h"
#include "control.h"
#include "ct_ipf.h"
#include "json_out.h"
#include "pmd.h"

static bool
store_missing(struct ds *out)
{
	if (pmd_ipf)
		return false;
	ds_put_cstr(out, "ipf status could not be retrieved: no connection "
		    "tracker");
	return true;
}

/* "v4" or "v6" (OVS reads the first two characters) */
static int
parse_v4_v6(const char *s, bool *v6)
{
	if (!s || (strncmp(s, "v4", 2) && strncmp(s, "v6", 2)))
		return -1;
	*v6 = !strncmp(s, "v6", 2);
	return 0;
}

static int
parse_u32(const char *s, uint32_t *v)
{
	char *end;
	unsigned long long n;

	if (!s || !*s || s[0] == '-')
		return -1;
	n = strtoull(s, &end, 10);
	if (*end || n > UINT32_MAX)
		return -1;
	*v = (uint32_t)n;
	return 0;
}

static int
set_enabled(bool v6, bool on, struct ds *out)
{
	const char *what = on ? "enabling" : "disabling";

	if (ct_ipf_set_enabled(pmd_ipf, v6, on)) {	/* cannot be */
		ds_put_format(out, "%s fragmentation reassembly failed", what);
		return -1;
	}
	ds_put_format(out, "%s fragmentation reassembly successful\n", what);
	return 0;
}

/* ipf-set-enabled [DP] v4|v6 [0|1]: OVS's takes no 0|1 (its
 * ipf-set-disabled turns it off); a trailing 0 or 1 says which here. */
static int
cmd_ipf_set_enabled(int argc, const char *argv[], bool json, struct ds *out,
		    void *aux)
{
	(void)json, (void)aux;
	bool v6, on = true;
	int last = argc - 1;

	if (store_missing(out))
		return -1;
	if (!strcmp(argv[last], "0") || !strcmp(argv[last], "1")) {
		on = argv[last][0] == '1';
		last--;
	}
	if (last < 1 || parse_v4_v6(argv[last], &v6)) {
		ds_put_cstr(out, "parameter missing: 'v4' for IPv4 or 'v6' "
			    "for IPv6");
		return -1;
	}
	return set_enabled(v6, on, out);
}

static int
cmd_ipf_set_disabled(int argc, const char *argv[], bool json, struct ds *out,
		     void *aux)
{
	(void)json, (void)aux;
	bool v6;

	if (store_missing(out))
		return -1;
	if (parse_v4_v6(argv[argc - 1], &v6)) {
		ds_put_cstr(out, "parameter missing: 'v4' for IPv4 or 'v6' "
			    "for IPv6");
		return -1;
	}
	return set_enabled(v6, false, out);
}

/* ipf-set-min-frag [DP] v4|v6 MINFRAG */
static int
cmd_ipf_set_min_frag(int argc, const char *argv[], bool json, struct ds *out,
		     void *aux)
{
	(void)json, (void)aux;
	uint32_t bytes;
	bool v6;

	if (store_missing(out))
		return -1;
	if (parse_v4_v6(argv[argc - 2], &v6)) {
		ds_put_cstr(out, "parameter missing: v4 for IPv4 or v6 for "
			    "IPv6");
		return -1;
	}
	if (parse_u32(argv[argc - 1], &bytes)) {
		ds_put_cstr(out, "parameter missing for minimum fragment size");
		return -1;
	}
	if (ct_ipf_set_min_frag(pmd_ipf, v6, bytes)) {
		ds_put_format(out, "requested minimum fragment size too small;"
			      " see documentation (at least %u)",
			      v6 ? CT_IPF_V6_MIN_FRAG_LBOUND
				 : CT_IPF_V4_MIN_FRAG_LBOUND);
		return -1;
	}
	ds_put_cstr(out, "setting minimum fragment size successful\n");
	return 0;
}

/* ipf-set-max-nfrags [DP] MAXFRAGS */
static int
cmd_ipf_set_max_nfrags(int argc, const char *argv[], bool json,
		       struct ds *out, void *aux)
{
	(void)json, (void)aux;
	uint32_t n;

	if (store_missing(out))
		return -1;
	if (parse_u32(argv[argc - 1], &n)) {
		ds_put_cstr(out, "parameter missing for maximum fragments");
		return -1;
	}
	if (ct_ipf_set_max_nfrags(pmd_ipf, n)) {
		ds_put_format(out, "setting maximum fragments failed (at most "
			      "%u)", CT_IPF_MAX_NFRAGS_UBOUND);
		return -1;
	}
	ds_put_cstr(out, "setting maximum fragments successful\n");
	return 0;
}

static void
status_json(const struct ct_ipf_status *s, struct ds *out)
{
	jw_begin_object(out);
	jw_key(out, "v4_enabled"); jw_bool(out, s->v4_enabled);
	jw_key(out, "v6_enabled"); jw_bool(out, s->v6_enabled);
	jw_key(out, "max_nfrags"); jw_u64(out, s->max_nfrags);
	jw_key(out, "nfrag"); jw_u64(out, s->nfrag);
	jw_key(out, "datagrams"); jw_u64(out, s->n_dgrams);
	jw_key(out, "min_v4_frag_size"); jw_u64(out, s->v4_min_frag);
	jw_key(out, "min_v6_frag_size"); jw_u64(out, s->v6_min_frag);
	jw_key(out, "zone_max_frags"); jw_u64(out, s->zone_max);
	jw_key(out, "datagram_max_frags"); jw_u64(out, s->dgram_max);
	jw_key(out, "v6_datagram_max_frags");
	jw_u64(out, s->v6_dgram_max);
	for (int v6 = 0; v6 < 2; v6++) {
		const uint64_t *c = v6 ? s->v6 : s->v4;
		jw_key(out, v6 ? "v6" : "v4");
		jw_begin_object(out);
#define X(id, field, text) \
		jw_key(out, #field); jw_u64(out, c[CT_IPF_##id]);
		CT_IPF_COUNTERS(X)
#undef X
		jw_end_object(out);
	}
	jw_end_object(out);
}

/* OVS's six counters, in its order */
static const enum ct_ipf_counter ovs_counters[] = {
	CT_IPF_ACCEPTED, CT_IPF_COMPLETED, CT_IPF_EXPIRED,
	CT_IPF_TOO_SMALL, CT_IPF_OVERLAP, CT_IPF_PURGED,
};
static const char *const counter_text[] = {
#define X(id, field, t) [CT_IPF_##id] = t,
	CT_IPF_COUNTERS(X)
#undef X
};

/* "min vN frag size" and OVS's counters of one family */
static void
put_family(struct ds *out, const char *fam, uint32_t min_frag,
	   const uint64_t c[])
{
	ds_put_format(out, "        min %s frag size: %u\n", fam, min_frag);
	for (size_t i = 0; i < RTE_DIM(ovs_counters); i++)
		ds_put_format(out, "        %s frags %s: %lu\n", fam,
			      counter_text[ovs_counters[i]],
			      (unsigned long)c[ovs_counters[i]]);
}

/* ipf-get-status [DP] [-m]: OVS's text, line for line */
static int
cmd_ipf_get_status(int argc, const char *argv[], bool json, struct ds *out,
		   void *aux)
{
	(void)aux;
	struct ct_ipf_status s;
	bool more = false;

	for (int i = 1; i < argc; i++)
		more |= !strcmp(argv[i], "-m") || !strcmp(argv[i], "--more");
	if (store_missing(out))
		return -1;
	ct_ipf_get_status(pmd_ipf, &s);
	if (json) {
		status_json(&s, out);
		return 0;
	}
	ds_put_cstr(out, "        Fragmentation Module Status\n");
	ds_put_cstr(out, "        ---------------------------\n");
	ds_put_format(out, "        v4 enabled: %u\n", s.v4_enabled);
	ds_put_format(out, "        v6 enabled: %u\n", s.v6_enabled);
	ds_put_format(out, "        max num frags (v4/v6): %u\n",
		      s.max_nfrags);
	ds_put_format(out, "        num frag: %u\n", s.nfrag);
	put_family(out, "v4", s.v4_min_frag, s.v4);
	put_family(out, "v6", s.v6_min_frag, s.v6);
	if (!more)
		return 0;
	/* vxswitch's: what OVS does not count, the limits it does not have */
	for (int v6 = 0; v6 < 2; v6++)
		for (int c = CT_IPF_FULL; c < CT_IPF_N_COUNTERS; c++)
			ds_put_format(out, "        %s frags %s: %lu\n",
				      v6 ? "v6" : "v4", counter_text[c],
				      (unsigned long)(v6 ? s.v6 : s.v4)[c]);
	ds_put_format(out, "        datagrams waiting: %u\n", s.n_dgrams);
	ds_put_format(out, "        max frags per zone: %u\n", s.zone_max);
	ds_put_format(out, "        max frags per v4 datagram: %u\n",
		      s.dgram_max);
	ds_put_format(out, "        max frags per v6 datagram: %u\n",
		      s.v6_dgram_max);
	ds_put_cstr(out, "\n        Fragment Lists:\n\n");
	ct_ipf_dump_lists(pmd_ipf, out);
	return 0;
}

void
cmd_ipf_register(void)
{
	control_register("dpctl/ipf-set-enabled", "[DP] v4|v6 [0|1]", 1, 3,
			 cmd_ipf_set_enabled, NULL);
	control_register("dpctl/ipf-set-disabled", "[DP] v4|v6", 1, 2,
			 cmd_ipf_set_disabled, NULL);
	control_register("dpctl/ipf-set-min-frag", "[DP] v4|v6 MINFRAG", 2, 3,
			 cmd_ipf_set_min_frag, NULL);
	control_register("dpctl/ipf-set-max-nfrags", "[DP] MAXFRAGS", 1, 2,
			 cmd_ipf_set_max_nfrags, NULL);
	control_register("dpctl/ipf-get-status", "[DP] [-m]", 0, 2,
			 cmd_ipf_get_status, NULL);
}
