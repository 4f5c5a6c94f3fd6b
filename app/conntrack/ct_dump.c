/* SPDX-License-Identifier: BSD-3-Clause
 * What the control thread reads and sets: the dump in OVS's
 * dpctl/dump-conntrack format, the counters (ct-stats-show), limits
 * (ct-set-maxconns, ct-set-limits) and timeout policies.
 */
#include <errno.h>
#include <inttypes.h>
#include <arpa/inet.h>
#include <rte_ip.h>
#include "ct_private.h"

const char *const ct_tp_attr_names[CT_TP_N] = {
	"tcp_syn_sent", "tcp_syn_recv", "tcp_established", "tcp_fin_wait",
	"tcp_time_wait", "tcp_close", "udp_first", "udp_single",
	"udp_multiple", "icmp_first", "icmp_reply",
};

/* OVS's ct_dpif_netdev_tp_def (lib/conntrack-tp.c). */
const uint32_t ct_tp_defaults[CT_TP_N] = {
	[CT_TP_TCP_SYN_SENT] = 30,
	[CT_TP_TCP_SYN_RECV] = 30,
	[CT_TP_TCP_ESTABLISHED] = 24 * 60 * 60,
	[CT_TP_TCP_FIN_WAIT] = 15 * 60,
	[CT_TP_TCP_TIME_WAIT] = 45,
	[CT_TP_TCP_CLOSE] = 30,
	[CT_TP_UDP_FIRST] = 60,
	[CT_TP_UDP_SINGLE] = 60,
	[CT_TP_UDP_MULTIPLE] = 30,
	[CT_TP_ICMP_FIRST] = 60,
	[CT_TP_ICMP_REPLY] = 30,
};

/* OVS's tm_to_ct_dpif_tp(). */
const uint8_t ct_tm_attr[CT_TM_N] = {
	[CT_TM_TCP_FIRST_PACKET] = CT_TP_TCP_SYN_SENT,
	[CT_TM_TCP_OPENING] = CT_TP_TCP_SYN_RECV,
	[CT_TM_TCP_ESTABLISHED] = CT_TP_TCP_ESTABLISHED,
	[CT_TM_TCP_CLOSING] = CT_TP_TCP_FIN_WAIT,
	[CT_TM_TCP_FIN_WAIT] = CT_TP_TCP_TIME_WAIT,
	[CT_TM_TCP_CLOSED] = CT_TP_TCP_CLOSE,
	[CT_TM_OTHER_FIRST] = CT_TP_UDP_FIRST,
	[CT_TM_OTHER_MULTIPLE] = CT_TP_UDP_SINGLE,
	[CT_TM_OTHER_BIDIR] = CT_TP_UDP_MULTIPLE,
	[CT_TM_ICMP_FIRST] = CT_TP_ICMP_FIRST,
	[CT_TM_ICMP_REPLY] = CT_TP_ICMP_REPLY,
};

int
conntrack_set_timeout_policy(struct conntrack *ct, uint32_t id,
			     const uint32_t secs[CT_TP_N])
{
	if (id >= CT_MAX_POLICIES)
		return -EINVAL;
	for (int a = 0; a < CT_TP_N; a++)
		ct->policy_secs[id][a] = secs[a];
	/* Each value is one aligned word: a PMD reads the old or new. */
	for (int tm = 0; tm < CT_TM_N; tm++)
		__atomic_store_n(&ct->tm_tsc[id][tm],
				 (uint64_t)secs[ct_tm_attr[tm]] * ct->tsc_hz,
				 __ATOMIC_RELAXED);
	return 0;
}

int
conntrack_set_zone_policy(struct conntrack *ct, uint16_t zone, uint32_t id)
{
	if (id >= CT_MAX_POLICIES)
		return -EINVAL;
	__atomic_store_n(&ct->zone_policy[zone], (uint8_t)id,
			 __ATOMIC_RELAXED);
	return 0;
}

int
conntrack_set_maxconns(struct conntrack *ct, uint32_t max_conns)
{
	if (!max_conns || max_conns > ct->pool_size)
		return -ERANGE;
	__atomic_store_n(&ct->max_conns, max_conns, __ATOMIC_RELAXED);
	return 0;
}

uint32_t
conntrack_get_maxconns(const struct conntrack *ct)
{
	return __atomic_load_n(&ct->max_conns, __ATOMIC_RELAXED);
}

uint32_t
conntrack_get_nconns(const struct conntrack *ct)
{
	return __atomic_load_n(&ct->n_conns, __ATOMIC_RELAXED);
}

void
conntrack_set_zone_limit(struct conntrack *ct, uint16_t zone, uint32_t limit)
{
	__atomic_store_n(&ct->zone_limit[zone], limit, __ATOMIC_RELAXED);
}

void
conntrack_set_default_zone_limit(struct conntrack *ct, uint32_t limit)
{
	__atomic_store_n(&ct->default_zone_limit, limit, __ATOMIC_RELAXED);
}

uint32_t
conntrack_get_zone_limit(const struct conntrack *ct, uint16_t zone)
{
	uint32_t l = ct->zone_limit[zone];
	return l ? l : ct->default_zone_limit;
}

uint32_t
conntrack_get_zone_count(const struct conntrack *ct, uint16_t zone)
{
	return __atomic_load_n(&ct->zone_count[zone], __ATOMIC_RELAXED);
}

/* The next live session (original-direction entry) from ctx->pos. */
static struct ct_conn *
iterate(struct conntrack *ct, struct ct_dump_ctx *ctx)
{
	const void *key;
	void *data;

	while (rte_hash_iterate(ct->table, &key, &data, &ctx->pos) >= 0) {
		if ((uintptr_t)data & 1)
			continue;
		struct ct_conn *c = data;
		if (ctx->zone >= 0 && c->key[0].zone != ctx->zone)
			continue;
		return c;
	}
	return NULL;
}

void
conntrack_get_stats(struct conntrack *ct, struct ct_stats *s)
{
	struct ct_dump_ctx ctx = { .zone = -1, .pos = 0 };
	struct ct_conn *c;

	memset(s, 0, sizeof *s);
	for (unsigned i = 0; i <= RTE_MAX_LCORE; i++) {
		s->invalid += ct->cnt[i].invalid;
		s->refused_full += ct->cnt[i].refused_full;
		s->refused_zone_limit += ct->cnt[i].refused_zone_limit;
		s->refused_nat += ct->cnt[i].refused_nat;
		s->refused_collision += ct->cnt[i].refused_collision;
		s->lane += ct->cnt[i].lane;
		s->lane_tcp_locked += ct->cnt[i].lane_tcp_locked;
	}
	rte_spinlock_lock(&ct->lock);
	s->created = ct->created;
	s->expired = ct->expired;
	s->flushed = ct->flushed;
	s->n_conns = ct->n_conns;
	rte_spinlock_unlock(&ct->lock);
	/* Per protocol and state: a walk, as OVS's ct-stats-show. Sessions
	 * stay allocated while this thread (the sweeper's) walks. */
	pthread_mutex_lock(&ct->sweep_mutex);
	while ((c = iterate(ct, &ctx)) != NULL) {
		switch (c->key[0].proto) {
		case IPPROTO_TCP:
			s->n_tcp++;
			rte_spinlock_lock(&c->lock);
			s->tcp_state[ct_tcp_show_state(c)]++;
			rte_spinlock_unlock(&c->lock);
			break;
		case IPPROTO_UDP: s->n_udp++; break;
		case IPPROTO_ICMP: s->n_icmp++; break;
		/* counted, never printed: OVS 3.1's ct-stats-show */
		case IPPROTO_ICMPV6: s->n_icmp6++; break;
		default: s->n_other++; break;
		}
	}
	pthread_mutex_unlock(&ct->sweep_mutex);
}

void
conntrack_stats_print(struct conntrack *ct, FILE *f, bool verbose)
{
	struct ct_stats s;

	/* OVS 3.1's dpctl_ct_stats_show, line for line */
	conntrack_get_stats(ct, &s);
	fprintf(f, "Connections Stats:\n    Total: %" PRIu64 "\n", s.n_conns);
	if (s.n_tcp) {
		fprintf(f, "  TCP: %" PRIu64 "\n", s.n_tcp);
		if (verbose)
			fprintf(f, "    Conn per TCP states:\n");
		for (int i = 0; verbose && i < CT_TCPS_N; i++)
			if (s.tcp_state[i])
				fprintf(f, "\t  [%s]=%" PRIu64 "\n",
					ct_tcp_state_names[i], s.tcp_state[i]);
	}
	if (s.n_udp)
		fprintf(f, "  UDP: %" PRIu64 "\n", s.n_udp);
	if (s.n_icmp)
		fprintf(f, "  ICMP: %" PRIu64 "\n", s.n_icmp);
	if (s.n_other)
		fprintf(f, "  Other: %" PRIu64 "\n", s.n_other);
	if (!verbose)
		return;
	/* what OVS does not count: -m only (and --json) */
	fprintf(f, "Created: %" PRIu64 "\nExpired: %" PRIu64
		"\nFlushed: %" PRIu64 "\nRefused (table full): %" PRIu64
		"\nRefused (zone limit): %" PRIu64
		"\nRefused (no NAT tuple): %" PRIu64
		"\nRefused (reply tuple taken): %" PRIu64
		"\nInvalid packets: %" PRIu64
		"\nEstablished lane: %" PRIu64 " packets (%" PRIu64
		" TCP segments under the lock)\n",
		s.created, s.expired, s.flushed, s.refused_full,
		s.refused_zone_limit, s.refused_nat, s.refused_collision,
		s.invalid, s.lane, s.lane_tcp_locked);
}

void
conntrack_dump_start(struct conntrack *ct, struct ct_dump_ctx *ctx,
		     int32_t zone)
{
	(void)ct;
	ctx->zone = zone;
	ctx->pos = 0;
	ctx->verbose = false;
	ctx->stats = false;
}

/* OVS's ct_dpif_format_ipproto: these by name, the rest by number. */
static const char *
proto_name(uint8_t p)
{
	switch (p) {
	case IPPROTO_TCP: return "tcp";
	case IPPROTO_UDP: return "udp";
	case IPPROTO_ICMP: return "icmp";
	case IPPROTO_ICMPV6: return "icmpv6";
	case IPPROTO_SCTP: return "sctp";
	case IPPROTO_UDPLITE: return "udplite";
	case IPPROTO_DCCP: return "dccp";
	case IPPROTO_IGMP: return "igmp";
	default: return NULL;
	}
}



/* Key k of session c (its addresses, for IPv6) */
static int
fmt_tuple(char *b, size_t n, const char *what, const struct ct_conn *c,
	  const struct ct_key *k)
{
	int len;

	if (k->v6) {	/* inet_ntop is OVS's ipv6_format_addr */
		char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
		const uint8_t *sa, *da;	/* the reply's: after NAT */
		ct_conn_addrs6(c, k != &c->key[0], &sa, &da);
		inet_ntop(AF_INET6, sa, s, sizeof s);
		inet_ntop(AF_INET6, da, d, sizeof d);
		len = snprintf(b, n, "%s=(src=%s,dst=%s", what, s, d);
	} else {
		uint32_t s = rte_be_to_cpu_32(k->src);
		uint32_t d = rte_be_to_cpu_32(k->dst);
		len = snprintf(b, n, "%s=(src=%u.%u.%u.%u,dst=%u.%u.%u.%u",
			       what, s >> 24, (s >> 16) & 0xff,
			       (s >> 8) & 0xff, s & 0xff, d >> 24,
			       (d >> 16) & 0xff, (d >> 8) & 0xff, d & 0xff);
	}
	if (k->proto == IPPROTO_ICMP || k->proto == IPPROTO_ICMPV6) {
		unsigned t = rte_be_to_cpu_16(k->dport);
		len += snprintf(b + len, n > (size_t)len ? n - len : 0,
				",id=%u,type=%u,code=0)",
				rte_be_to_cpu_16(k->sport), t);
	} else {	/* ports, 0 for a protocol without (OVS) */
		len += snprintf(b + len, n > (size_t)len ? n - len : 0,
				",sport=%u,dport=%u)",
				rte_be_to_cpu_16(k->sport),
				rte_be_to_cpu_16(k->dport));
	}
	return len;
}

/* OVS's ct_dpif_tcp_flags, by bit (format_flags: "0" when none, '|'
 * between), from a peer's wscale as tcp_peer_to_protoinfo_flags: the
 * userspace tracker sets only these two. */
static const char *
tcp_flags_str(uint8_t wscale)
{
	bool ws = wscale & CT_WSCALE_FLAG, lib = wscale & CT_WSCALE_UNKNOWN;

	return ws && lib ? "WINDOW_SCALE|BE_LIBERAL" : ws ? "WINDOW_SCALE" :
	       lib ? "BE_LIBERAL" : "0";
}

#define PUT(...) (len += snprintf(buf + len,				\
				  size > (size_t)len ? size - len : 0,	\
				  __VA_ARGS__))

/* One session as OVS 3.1's ct_dpif_format_entry prints what the
 * userspace tracker fills (conn_to_ct_dpif_entry): no counters or
 * timestamps (-s prints neither while they are 0), id 0 and status 0
 * (-m), timeout= the seconds left, rounded down (-s). */
int
conntrack_dump_next(struct conntrack *ct, struct ct_dump_ctx *ctx,
		    char *buf, size_t size)
{
	struct ct_conn *c;
	struct ct_conn snap;
	uint64_t now = 0;
	int len = 0;

	pthread_mutex_lock(&ct->sweep_mutex);
	c = iterate(ct, ctx);
	if (c) {
		rte_spinlock_lock(&c->lock);
		snap = *c;
		now = rte_rdtsc();
		rte_spinlock_unlock(&c->lock);
	}
	pthread_mutex_unlock(&ct->sweep_mutex);
	if (!c)
		return 0;

	const char *pn = proto_name(snap.key[0].proto);
	if (pn)
		PUT("%s,", pn);
	else
		PUT("%u,", snap.key[0].proto);
	len += fmt_tuple(buf + len, size > (size_t)len ? size - len : 0,
			 "orig", &snap, &snap.key[0]);
	PUT(",");
	/* reply=: the tuple of reply packets, as OVS prints it. */
	len += fmt_tuple(buf + len, size > (size_t)len ? size - len : 0,
			 "reply", &snap, &snap.key[1]);
	if (ctx->verbose)
		PUT(",id=0");	/* the userspace tracker's: never set */
	if (snap.key[0].zone)
		PUT(",zone=%u", snap.key[0].zone);
	if (ctx->verbose)
		PUT(",status=0");
	if (ctx->stats) {
		uint64_t exp = snap.expiration;
		PUT(",timeout=%" PRIu64,
		    exp > now ? (exp - now) / ct->tsc_hz : 0);
	}
	if (snap.mark)
		PUT(",mark=%u", snap.mark);
	/* the shortest hex, as OVS's ds_put_hex: labels=0x1 */
	if (snap.label[1])
		PUT(",labels=0x%" PRIx64 "%016" PRIx64, snap.label[1],
		    snap.label[0]);
	else if (snap.label[0])
		PUT(",labels=%#" PRIx64, snap.label[0]);
	if (snap.key[0].proto == IPPROTO_TCP) {
		const struct ct_tcp_peer *o = &snap.p.tcp[0],
					 *r = &snap.p.tcp[1];
		if (!ctx->verbose) {
			PUT(",protoinfo=(state=%s)",
			    ct_tcp_state_names[ct_tcp_coalesced(o->state,
								r->state)]);
		} else {	/* ct_dpif_format_protoinfo_tcp_verbose */
			PUT(",protoinfo=(state_orig=%s,state_reply=%s",
			    ct_tcp_state_names[o->state],
			    ct_tcp_state_names[r->state]);
			if ((o->wscale | r->wscale) & CT_WSCALE_MASK)
				PUT(",wscale_orig=%u,wscale_reply=%u",
				    o->wscale & CT_WSCALE_MASK,
				    r->wscale & CT_WSCALE_MASK);
			PUT(",flags_orig=%s,flags_reply=%s)",
			    tcp_flags_str(o->wscale),
			    tcp_flags_str(r->wscale));
		}
	}
	return len >= (int)size ? (int)size - 1 : len;
}
