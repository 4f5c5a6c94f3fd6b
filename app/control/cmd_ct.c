/* SPDX-License-Identifier: BSD-3-Clause
 * The connection tracker's life in the daemon (created once the PMDs'
 * RCU variable exists, swept from the control loop) and its commands,
 * named as ovs-appctl's: dpctl/dump-conntrack, dpctl/flush-conntrack,
 * dpctl/ct-stats-show, dpctl/ct-set-maxconns, dpctl/ct-get-maxconns,
 * dpctl/ct-get-nconns, dpctl/ct-set-limits, dpctl/ct-get-limits, and the
 * zone timeout policies as ovs-vsctl's add-zone-tp, del-zone-tp and
 * list-zone-tp.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_cycles.h>
#include "cmd_util.h"
#include "conntrack.h"
#include "control.h"
#include "ct_ipf.h"
#include "ct_ctl.h"
#include "json_out.h"
#include "pmd.h"
#include "recirc_id.h"

/* Sessions the sweeper may visit per control-loop pass (every <= 20 ms):
 * a million sessions are gone through in a few seconds, and a pass costs
 * well under a millisecond. */
#define CT_SWEEP_BUDGET 8192
/* Fragment datagrams a pass may expire: the store holds at most 5000 */
#define IPF_SWEEP_BUDGET 1024

int
ct_ctl_init(const struct vxs_config *cfg, char *err, size_t errlen)
{
	struct ct_params p = { .max_conns = cfg->ct_max_conns,
			       .qsbr = pmd_qsbr, .socket_id = SOCKET_ID_ANY,
			       .name = "vxs_ct" };

	pmd_conntrack = conntrack_create(&p);
	if (!pmd_conntrack) {
		snprintf(err, errlen, "cannot create the connection tracker "
			 "for %u sessions (datapath ct-max-conns; about 350 "
			 "bytes of hugepage memory each): %s",
			 cfg->ct_max_conns, rte_strerror(rte_errno));
		return -1;
	}
	uint32_t zl = cfg->ct_default_zone_limit;
	if (zl == CFG_CT_ZONE_LIMIT_AUTO)
		zl = RTE_MAX(cfg->ct_max_conns / 8, 1u);
	conntrack_set_default_zone_limit(pmd_conntrack, zl);
	/* IPv4 and IPv6 fragments held for sg() and ct(), as OVS's ipf */
	pmd_ipf = ct_ipf_create(SOCKET_ID_ANY, 0);
	if (!pmd_ipf) {
		snprintf(err, errlen, "cannot create the fragment store");
		return -1;
	}
	if (recirc_id_init()) {		/* ct(table=)'s frozen states */
		snprintf(err, errlen, "cannot create the recirculation id "
			 "table: %s", rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

void
ct_ctl_tick(void)
{
	if (pmd_conntrack)
		conntrack_sweep(pmd_conntrack, rte_rdtsc(), CT_SWEEP_BUDGET);
	/* expired datagrams go to the drain list; the PMDs drop them */
	if (pmd_ipf)
		ct_ipf_sweep(pmd_ipf, rte_rdtsc(), IPF_SWEEP_BUDGET);
}

void
ct_ctl_fini(void)
{
	conntrack_destroy(pmd_conntrack);
	pmd_conntrack = NULL;
	ct_ipf_destroy(pmd_ipf);	/* the PMDs are gone: frees what is held */
	pmd_ipf = NULL;
}

/* "zone=N" */
static int
parse_zone(const char *s, int32_t *zone, struct ds *out)
{
	char *end;
	unsigned long z;

	if (strncmp(s, "zone=", 5) || !s[5] ||
	    (z = strtoul(s + 5, &end, 0), *end) || z > UINT16_MAX) {
		ds_put_format(out, "bad zone '%s' (zone=0..65535)", s);
		return -1;
	}
	*zone = (int32_t)z;
	return 0;
}

static int
parse_u32(const char *s, const char *what, uint32_t *v, struct ds *out)
{
	char *end;
	unsigned long long n = strtoull(s, &end, 0);

	if (!*s || *end || n > UINT32_MAX || s[0] == '-') {
		ds_put_format(out, "bad %s '%s'", what, s);
		return -1;
	}
	*v = (uint32_t)n;
	return 0;
}

/* dpctl/dump-conntrack [-m] [-s] [DP] [zone=N]: OVS 3.1's lines (-m:
 * id=0, status=0 and both TCP peers' states, window scales and flags;
 * -s: timeout=, the seconds the session has left) */
static int
cmd_dump_conntrack(int argc, const char *argv[], bool json, struct ds *out,
		   void *aux)
{
	(void)aux;
	struct ct_dump_ctx ctx;
	int32_t zone = -1;
	bool verbose = false, stats = false;
	char line[512];
	int a = 1;

	/* options as OVS's dpctl_unixctl_handler: --more, --statistics,
	 * short ones alone or together (-m -s, -ms) */
	for (; a < argc && argv[a][0] == '-' && argv[a][1]; a++) {
		if (!strcmp(argv[a], "--more")) {
			verbose = true;
		} else if (!strcmp(argv[a], "--statistics")) {
			stats = true;
		} else if (argv[a][1] != '-' &&
			   strspn(argv[a] + 1, "ms") == strlen(argv[a] + 1)) {
			verbose |= strchr(argv[a], 'm') != NULL;
			stats |= strchr(argv[a], 's') != NULL;
		} else {
			ds_put_format(out, "dump-conntrack: unknown option "
				      "'%s' (-m, -s, --more, --statistics)",
				      argv[a]);
			return -1;
		}
	}
	if (argc > a && !strncmp(argv[argc - 1], "zone=", 5) &&
	    parse_zone(argv[argc - 1], &zone, out))
		return -1;
	if (json)
		jw_begin_array(out);
	conntrack_dump_start(pmd_conntrack, &ctx, zone);
	ctx.verbose = verbose;
	ctx.stats = stats;
	while (conntrack_dump_next(pmd_conntrack, &ctx, line, sizeof line)) {
		if (json)
			jw_string(out, line);
		else
			ds_put_format(out, "%s\n", line);
	}
	if (json)
		jw_end_array(out);
	return 0;
}

/* One ct tuple of flush-conntrack, OVS 3.1's ofp_ct_tuple_parse syntax:
 * ct_nw_src=IP,ct_nw_dst=IP (or ct_ipv6_src, ct_ipv6_dst),ct_nw_proto=N,
 * ct_tp_src=P,ct_tp_dst=P (ICMP, ICMPv6: icmp_id, icmp_type, icmp_code),
 * every field optional; *family: 4 or 6 once an address says which. */
static int
parse_ct_tuple(const char *arg, struct ct_flush_tuple *t, uint8_t *proto,
	       uint8_t *family, struct ds *out)
{
	char buf[256];

	if (snprintf(buf, sizeof buf, "%s", arg) >= (int)sizeof buf) {
		ds_put_format(out, "ct tuple too long: '%s'", arg);
		return -1;
	}
	for (char *save = NULL, *kv = strtok_r(buf, ",", &save); kv;
	     kv = strtok_r(NULL, ",", &save)) {
		char *v = strchr(kv, '=');
		uint32_t n;
		if (!v || !v[1]) {
			ds_put_format(out, "field %s missing value", kv);
			return -1;
		}
		*v++ = '\0';
		bool v4 = !strcmp(kv, "ct_nw_src") || !strcmp(kv, "ct_nw_dst");
		bool v6 = !strcmp(kv, "ct_ipv6_src") ||
			  !strcmp(kv, "ct_ipv6_dst");
		if ((v4 || v6) && *family && *family != (v4 ? 4 : 6)) {
			ds_put_format(out, "the L3 protocol does not match "
				      "%s", v);
			return -1;
		}
		if (v6) {
			struct in6_addr a;
			bool src = kv[8] == 's';
			static const uint8_t zero[16];
			if (inet_pton(AF_INET6, v, &a) != 1) {
				ds_put_format(out, "%s: bad IPv6 address '%s'",
					      kv, v);
				return -1;
			}
			memcpy(src ? t->src6 : t->dst6, &a, 16);
			/* :: is not given, as OVS's ipv6_is_zero */
			if (memcmp(&a, zero, 16))
				t->set |= src ? CT_FM_SRC : CT_FM_DST;
			*family = 6;
			continue;
		}
		if (v4) {
			struct in_addr a;
			bool src = kv[6] == 's';
			*family = 4;
			if (inet_pton(AF_INET, v, &a) != 1) {
				ds_put_format(out, "%s: bad IPv4 address '%s'",
					      kv, v);
				return -1;
			}
			*(src ? &t->src : &t->dst) = a.s_addr;
			t->set |= src ? CT_FM_SRC : CT_FM_DST;
			continue;
		}
		if (parse_u32(v, kv, &n, out))
			return -1;
		if (!strcmp(kv, "ct_nw_proto") && n <= UINT8_MAX) {
			*proto = (uint8_t)n;
		} else if (!strncmp(kv, "icmp_", 5) &&
			   *proto != IPPROTO_ICMP && *proto != IPPROTO_ICMPV6) {
			ds_put_cstr(out, "invalid L4 fields (icmp_* after "
				    "ct_nw_proto=1 or 58 only, as OVS)");
			return -1;
		} else if ((!strcmp(kv, "ct_tp_src") ||
			    !strcmp(kv, "icmp_id")) && n <= UINT16_MAX) {
			t->sport = rte_cpu_to_be_16((uint16_t)n);
			t->set |= CT_FM_SPORT;
		} else if ((!strcmp(kv, "ct_tp_dst") ||
			    !strcmp(kv, "icmp_type")) && n <= UINT16_MAX) {
			t->dport = rte_cpu_to_be_16((uint16_t)n);
			t->set |= CT_FM_DPORT;
		} else if (!strcmp(kv, "icmp_code") && n <= UINT8_MAX) {
			if (n)	/* queries are tracked with code 0 */
				t->set |= CT_FM_CODE;
		} else {
			ds_put_format(out, "invalid ct tuple field '%s=%s' "
				      "(ct_nw_src, ct_nw_dst, ct_ipv6_src, "
				      "ct_ipv6_dst, ct_nw_proto, "
				      "ct_tp_src, ct_tp_dst, icmp_id, "
				      "icmp_type, icmp_code)", kv, v);
			return -1;
		}
	}
	if (!*proto && (t->sport || t->dport)) {
		ds_put_cstr(out, "port is set without protocol");
		return -1;
	}
	return 0;
}

static bool
is_icmp(uint8_t proto)
{
	return proto == IPPROTO_ICMP || proto == IPPROTO_ICMPV6;
}

/* An address other than 0 (IPv6: ::, which parse_ct_tuple leaves
 * unset) given for the source (which CT_FM_SRC) or destination */
static bool
addr_given(const struct ct_flush_tuple *t, uint8_t family, uint8_t which)
{
	if (family == 6)
		return t->set & which;
	return which == CT_FM_SRC ? t->src != 0 : t->dst != 0;
}

/* OVS 3.1's ofp_ct_tuple_is_five_tuple: both addresses and, but for
 * ICMP, both ports (0 is not given) */
static bool
five_tuple(const struct ct_flush_tuple *t, uint8_t proto, uint8_t family)
{
	return addr_given(t, family, CT_FM_SRC) &&
	       addr_given(t, family, CT_FM_DST) &&
	       (is_icmp(proto) || (t->sport && t->dport));
}

/* ... and ofp_ct_tuple_is_zero */
static bool
tuple_is_zero(const struct ct_flush_tuple *t, uint8_t proto, uint8_t family)
{
	return !addr_given(t, family, CT_FM_SRC) &&
	       !addr_given(t, family, CT_FM_DST) &&
	       (is_icmp(proto) || (!t->sport && !t->dport));
}

/* dpctl/flush-conntrack [DP] [zone=N] [ct-orig-tuple [ct-reply-tuple]]:
 * as OVS 3.1, every field of a tuple optional; everything checked before
 * anything is flushed. Without a tuple, the fragments held for the
 * tracker in the zone (or all) go too, which the PMDs drop (ipf_purged) */
static int
cmd_flush_conntrack(int argc, const char *argv[], bool json, struct ds *out,
		    void *aux)
{
	(void)json, (void)aux;
	struct ct_flush_match m = { .zone = -1 };
	int a = 1, n_tuples = 0;

	if (a < argc && argv[a][0] && !strchr(argv[a], '='))
		a++;			/* the datapath's name */
	if (a < argc && !strncmp(argv[a], "zone=", 5) &&
	    parse_zone(argv[a++], &m.zone, out))
		return -1;
	for (; a < argc; a++, n_tuples++) {
		if (n_tuples == 2) {
			ds_put_cstr(out, "invalid arguments");
			return -1;
		}
		if (argv[a][0] &&
		    parse_ct_tuple(argv[a], &m.tuple[n_tuples], &m.proto,
				   &m.family, out))
			return -1;
	}
	if (!n_tuples && m.zone >= 0) {
		conntrack_flush_zone(pmd_conntrack, (uint16_t)m.zone);
		ct_ipf_purge_zone(pmd_ipf, (uint16_t)m.zone);
	} else if (!n_tuples) {
		conntrack_flush(pmd_conntrack);
		ct_ipf_purge_all(pmd_ipf);
	} else if (five_tuple(&m.tuple[0], m.proto, m.family) &&
		   tuple_is_zero(&m.tuple[1], m.proto, m.family)) {
		/* OVS 3.1's ct_dpif_flush_tuple: a whole original tuple and
		 * no reply tuple is one lookup, in the zone given or zone 0,
		 * of an original or reply key; none is an error */
		const struct ct_flush_tuple *t = &m.tuple[0];
		struct ct_tuple k = { .src = t->src, .dst = t->dst,
				      .sport = t->sport, .dport = t->dport,
				      .proto = m.proto, .v6 = m.family == 6 };
		memcpy(k.src6, t->src6, 16);
		memcpy(k.dst6, t->dst6, 16);
		if ((t->set & CT_FM_CODE) ||
		    !conntrack_flush_tuple(pmd_conntrack,
					   m.zone >= 0 ? (uint16_t)m.zone : 0,
					   &k)) {
			ds_put_cstr(out, "failed to flush conntrack (No such "
				    "file or directory): no session has that "
				    "original or reply tuple in that zone "
				    "(0 unless zone= is given)");
			return -1;
		}
	} else {
		conntrack_flush_match(pmd_conntrack, &m);
	}
	return 0;
}

static int
cmd_ct_stats_show(int argc, const char *argv[], bool json, struct ds *out,
		  void *aux)
{
	(void)aux;
	struct ct_stats s;
	bool verbose = false;

	/* [-m|verbose] [DP]: OVS's options (no zone here) */
	for (int a = 1; a < argc; a++)
		if (!strcmp(argv[a], "-m") || !strcmp(argv[a], "--more") ||
		    !strcmp(argv[a], "verbose"))
			verbose = true;
	conntrack_get_stats(pmd_conntrack, &s);
	if (!json) {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		if (!f) {
			ds_put_cstr(out, "out of memory");
			return -1;
		}
		conntrack_stats_print(pmd_conntrack, f, verbose);
		fclose(f);
		ds_put_cstr(out, buf);
		free(buf);
		return 0;
	}
	jw_begin_object(out);
#define F(x) jw_key(out, #x); jw_u64(out, s.x);
	F(n_conns) F(created) F(expired) F(flushed) F(refused_full)
	F(refused_zone_limit) F(refused_nat) F(refused_collision) F(invalid)
	F(lane) F(lane_tcp_locked)
	F(n_tcp) F(n_udp) F(n_icmp) F(n_other)
#undef F
	jw_key(out, "max_conns");
	jw_u64(out, conntrack_get_maxconns(pmd_conntrack));
	jw_end_object(out);
	return 0;
}

static int
cmd_ct_set_maxconns(int argc, const char *argv[], bool json, struct ds *out,
		    void *aux)
{
	(void)json, (void)aux;
	uint32_t n;

	if (parse_u32(argv[argc - 1], "maxconns", &n, out))
		return -1;
	if (conntrack_set_maxconns(pmd_conntrack, n)) {
		ds_put_format(out, "maxconns %u: more than the session pool "
			      "holds (datapath ct-max-conns, set at start)", n);
		return -1;
	}
	return 0;
}

static int
cmd_ct_get_maxconns(int argc, const char *argv[], bool json, struct ds *out,
		    void *aux)
{
	UNUSED_ARGS;
	ds_put_format(out, "%u\n", conntrack_get_maxconns(pmd_conntrack));
	return 0;
}

static int
cmd_ct_get_nconns(int argc, const char *argv[], bool json, struct ds *out,
		  void *aux)
{
	UNUSED_ARGS;
	ds_put_format(out, "%u\n", conntrack_get_nconns(pmd_conntrack));
	return 0;
}

/* dpctl/ct-set-limits [DP] [default=L] [zone=N,limit=L]... : all checked
 * before any is applied */
static int
cmd_ct_set_limits(int argc, const char *argv[], bool json, struct ds *out,
		  void *aux)
{
	(void)json, (void)aux;
	struct { int32_t zone; uint32_t limit; } set[64];
	int n = 0;

	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];
		if (!strncmp(s, "default=", 8)) {
			if (parse_u32(s + 8, "default limit", &set[n].limit, out))
				return -1;
			set[n++].zone = -1;
			continue;
		}
		const char *comma = strchr(s, ',');
		char zone[32];
		if (!comma || strncmp(comma + 1, "limit=", 6) ||
		    (size_t)(comma - s) >= sizeof zone) {
			ds_put_format(out, "bad limit '%s' (zone=N,limit=L or "
				      "default=L)", s);
			return -1;
		}
		memcpy(zone, s, comma - s);
		zone[comma - s] = '\0';
		if (parse_zone(zone, &set[n].zone, out) ||
		    parse_u32(comma + 7, "limit", &set[n].limit, out))
			return -1;
		n++;
	}
	for (int i = 0; i < n; i++) {
		if (set[i].zone < 0)
			conntrack_set_default_zone_limit(pmd_conntrack,
							 set[i].limit);
		else
			conntrack_set_zone_limit(pmd_conntrack,
						 (uint16_t)set[i].zone,
						 set[i].limit);
	}
	return 0;
}

/* dpctl/ct-del-limits [DP] zone=N[,N]...: those zones back to the
 * default limit, as OVS; all checked before any is changed */
static int
cmd_ct_del_limits(int argc, const char *argv[], bool json, struct ds *out,
		  void *aux)
{
	(void)json, (void)aux;
	const char *s = argv[argc - 1];
	uint16_t zones[64];
	int n = 0;

	if (strncmp(s, "zone=", 5) || !s[5]) {
		ds_put_format(out, "bad zones '%s' (zone=N[,N]...)", s);
		return -1;
	}
	for (s += 5; *s; n++) {
		char *end;
		unsigned long z = strtoul(s, &end, 0);
		if (end == s || (*end && *end != ',') || z > UINT16_MAX ||
		    n == (int)RTE_DIM(zones)) {
			ds_put_format(out, "bad zone list '%s' (zone=N[,N]..., "
				      "0..65535, at most %d)", argv[argc - 1],
				      (int)RTE_DIM(zones));
			return -1;
		}
		zones[n] = (uint16_t)z;
		s = *end ? end + 1 : end;
	}
	for (int i = 0; i < n; i++)
		conntrack_set_zone_limit(pmd_conntrack, zones[i], 0);
	return 0;
}

/* dpctl/ct-get-limits [DP] [zone=N]...: OVS's lines */
static int
cmd_ct_get_limits(int argc, const char *argv[], bool json, struct ds *out,
		  void *aux)
{
	(void)json, (void)aux;
	ds_put_format(out, "default limit=%u\n",
		      conntrack_get_zone_limit(pmd_conntrack, UINT16_MAX) );
	for (int i = 1; i < argc; i++) {
		int32_t zone;
		if (parse_zone(argv[i], &zone, out))
			return -1;
		ds_put_format(out, "zone=%d,limit=%u,count=%u\n", zone,
			      conntrack_get_zone_limit(pmd_conntrack,
						       (uint16_t)zone),
			      conntrack_get_zone_count(pmd_conntrack,
						       (uint16_t)zone));
	}
	return 0;
}

/* The zone timeout policies set by add-zone-tp: the tracker's policy ids
 * 1.. (0 is the default policy, every zone's until then), each one zone's.
 * Control thread only. */
static struct {
	int32_t zone;			/* -1: the id is free */
	uint32_t secs[CT_TP_N];
} zone_tp[CT_MAX_POLICIES];

static int
zone_tp_find(int32_t zone)
{
	for (int id = 1; id < CT_MAX_POLICIES; id++)
		if (zone_tp[id].zone == zone)
			return id;
	return -1;
}

/* add-zone-tp [DP] zone=N ATTR=SECS...: as ovs-vsctl add-zone-tp, the
 * attributes not named keep OVS's defaults; a zone given again gets its
 * policy replaced. Sessions created in the zone from now on use it (and
 * those that are there from their next packet on, as in OVS). */
static int
cmd_add_zone_tp(int argc, const char *argv[], bool json, struct ds *out,
		void *aux)
{
	(void)json, (void)aux;
	uint32_t secs[CT_TP_N];
	int32_t zone = -1;
	int first = 1;

	if (argc > 1 && strncmp(argv[1], "zone=", 5))
		first = 2;		/* the datapath's name */
	if (first >= argc) {
		ds_put_cstr(out, "zone=N missing");
		return -1;
	}
	if (parse_zone(argv[first], &zone, out))
		return -1;
	memcpy(secs, ct_tp_defaults, sizeof secs);
	for (int i = first + 1; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		int a = 0;
		while (eq && a < CT_TP_N &&
		       (strlen(ct_tp_attr_names[a]) != (size_t)(eq - argv[i]) ||
			strncmp(argv[i], ct_tp_attr_names[a], eq - argv[i])))
			a++;
		if (!eq || a == CT_TP_N) {
			ds_put_format(out, "bad timeout '%s' (ATTR=SECS, ATTR "
				      "one of:", argv[i]);
			for (a = 0; a < CT_TP_N; a++)
				ds_put_format(out, " %s", ct_tp_attr_names[a]);
			ds_put_cstr(out, ")");
			return -1;
		}
		if (parse_u32(eq + 1, ct_tp_attr_names[a], &secs[a], out))
			return -1;
		if (secs[a] > 100u * 24 * 3600) {
			ds_put_format(out, "%s: at most %u seconds", argv[i],
				      100u * 24 * 3600);
			return -1;
		}
	}
	int id = zone_tp_find(zone);
	if (id < 0)
		id = zone_tp_find(-1);
	if (id < 0) {
		ds_put_format(out, "zone %d: no room for another zone timeout "
			      "policy (%d at most; del-zone-tp one)", zone,
			      CT_MAX_POLICIES - 1);
		return -1;
	}
	zone_tp[id].zone = zone;
	memcpy(zone_tp[id].secs, secs, sizeof secs);
	conntrack_set_timeout_policy(pmd_conntrack, (uint32_t)id, secs);
	conntrack_set_zone_policy(pmd_conntrack, (uint16_t)zone, (uint32_t)id);
	return 0;
}

/* del-zone-tp [DP] zone=N: the zone goes back to the default policy. */
static int
cmd_del_zone_tp(int argc, const char *argv[], bool json, struct ds *out,
		void *aux)
{
	(void)json, (void)aux;
	int32_t zone;

	if (parse_zone(argv[argc - 1], &zone, out))
		return -1;
	int id = zone_tp_find(zone);
	if (id < 0) {
		ds_put_format(out, "zone %d has no timeout policy", zone);
		return -1;
	}
	conntrack_set_zone_policy(pmd_conntrack, (uint16_t)zone, 0);
	zone_tp[id].zone = -1;
	return 0;
}

/* list-zone-tp [DP]: ovs-vsctl's lines, "Zone:N, Timeout Policies:
 * tcp_syn_sent=30 ..." */
static int
cmd_list_zone_tp(int argc, const char *argv[], bool json, struct ds *out,
		 void *aux)
{
	UNUSED_ARGS;
	for (int id = 1; id < CT_MAX_POLICIES; id++) {
		if (zone_tp[id].zone < 0)
			continue;
		ds_put_format(out, "Zone:%d, Timeout Policies:",
			      zone_tp[id].zone);
		for (int a = 0; a < CT_TP_N; a++)
			ds_put_format(out, " %s=%u", ct_tp_attr_names[a],
				      zone_tp[id].secs[a]);
		ds_put_cstr(out, "\n");
	}
	return 0;
}

void
cmd_ct_register(void)
{
	for (int id = 0; id < CT_MAX_POLICIES; id++)
		zone_tp[id].zone = -1;
	control_register("dpctl/dump-conntrack",
			 "[-m] [-s] [DP] [zone=N]", 0, 4,
			 cmd_dump_conntrack, NULL);
	control_register("dpctl/flush-conntrack",
			 "[DP] [zone=N] [ct-orig-tuple [ct-reply-tuple]]", 0, 4,
			 cmd_flush_conntrack, NULL);
	control_register("dpctl/ct-stats-show", "[-m] [DP]", 0, 2,
			 cmd_ct_stats_show, NULL);
	control_register("dpctl/ct-set-maxconns", "[DP] N", 1, 2,
			 cmd_ct_set_maxconns, NULL);
	control_register("dpctl/ct-get-maxconns", "[DP]", 0, 1,
			 cmd_ct_get_maxconns, NULL);
	control_register("dpctl/ct-get-nconns", "[DP]", 0, 1,
			 cmd_ct_get_nconns, NULL);
	control_register("dpctl/ct-set-limits",
			 "[DP] [default=L] [zone=N,limit=L]...", 1, 64,
			 cmd_ct_set_limits, NULL);
	control_register("dpctl/ct-get-limits", "[DP] [zone=N]...", 0, 64,
			 cmd_ct_get_limits, NULL);
	control_register("dpctl/ct-del-limits", "[DP] zone=N[,N]...", 1, 2,
			 cmd_ct_del_limits, NULL);
	control_register("add-zone-tp", "[DP] zone=N [ATTR=SECS]...", 1, 13,
			 cmd_add_zone_tp, NULL);
	control_register("del-zone-tp", "[DP] zone=N", 1, 2, cmd_del_zone_tp,
			 NULL);
	control_register("list-zone-tp", "[DP]", 0, 1, cmd_list_zone_tp, NULL);
}
