/* SPDX-License-Identifier: BSD-3-Clause
 * The fragment store's settings, status and dump (ct_ipf.h), from the
 * control thread: OVS's ipf_set_enabled, ipf_set_min_frag,
 * ipf_set_max_nfrags, ipf_get_status and ipf_dump_create, both families.
 */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <rte_common.h>
#include "ct_ipf_private.h"
#include "ds.h"

#define IPV4_MAX_LEN 65535u
#define IPV4_MAX_HDR 60u
#define IPV6_MAX_PAYLOAD 65535u
/* What an IPv6 fragment of min-frag bytes carries at least, for its
 * datagram's cap: min-frag less the IPv6 and Fragment headers and room
 * for the extension headers before them (a hop-by-hop and a routing
 * header). OVS caps nothing there (IPF_IPV6_MAX_FRAG_LIST_SIZE, 65535:
 * "the calculation with extension headers is variable"). */
#define IPV6_FRAG_OVERHEAD (40u + 8u + 128u)
#define IPF_DUMP_CHUNK 128u		/* records read per lock (dump) */

/* OVS's max_v4_frag_list_size: the most fragments a 64 KB datagram can
 * take when each but the last carries at least min-frag bytes. */
static uint32_t
dgram_cap_v4(uint32_t min_frag)
{
	return (IPV4_MAX_LEN - IPV4_MAX_HDR + (min_frag - IPV4_MAX_HDR) - 1) /
	       (min_frag - IPV4_MAX_HDR);
}

static uint32_t
dgram_cap_v6(uint32_t min_frag)
{
	uint32_t piece = min_frag - IPV6_FRAG_OVERHEAD;

	return (IPV6_MAX_PAYLOAD + piece - 1) / piece;
}

void
ipf_limits_update(struct ct_ipf *ipf)
{
	ipf->dgram_max[0] = dgram_cap_v4(ipf->min_frag[0]);
	ipf->dgram_max[1] = dgram_cap_v6(ipf->min_frag[1]);
	uint32_t share = RTE_MAX(ipf->max_nfrags / CT_IPF_ZONE_SHARE,
				 RTE_MAX(ipf->dgram_max[0],
					 ipf->dgram_max[1]));
	ipf->zone_max = RTE_MIN(share, ipf->max_nfrags);
}

int
ct_ipf_set_enabled(struct ct_ipf *ipf, bool v6, bool on)
{
	__atomic_store_n(&ipf->enabled[v6], on, __ATOMIC_RELAXED);
	return 0;
}

int
ct_ipf_set_min_frag(struct ct_ipf *ipf, bool v6, uint32_t bytes)
{
	if (bytes < (v6 ? CT_IPF_V6_MIN_FRAG_LBOUND
			: CT_IPF_V4_MIN_FRAG_LBOUND))
		return -ERANGE;
	rte_spinlock_lock(&ipf->lock);
	__atomic_store_n(&ipf->min_frag[v6], bytes, __ATOMIC_RELAXED);
	ipf_limits_update(ipf);
	rte_spinlock_unlock(&ipf->lock);
	return 0;
}

int
ct_ipf_set_max_nfrags(struct ct_ipf *ipf, uint32_t n)
{
	if (n > CT_IPF_MAX_NFRAGS_UBOUND)
		return -ERANGE;
	rte_spinlock_lock(&ipf->lock);
	ipf->max_nfrags = n;
	ipf_limits_update(ipf);
	rte_spinlock_unlock(&ipf->lock);
	return 0;
}

bool
ct_ipf_v4_enabled(const struct ct_ipf *ipf)
{
	return __atomic_load_n(&ipf->enabled[0], __ATOMIC_RELAXED);
}

bool
ct_ipf_v6_enabled(const struct ct_ipf *ipf)
{
	return __atomic_load_n(&ipf->enabled[1], __ATOMIC_RELAXED);
}

void
ct_ipf_get_status(struct ct_ipf *ipf, struct ct_ipf_status *s)
{
	memset(s, 0, sizeof *s);
	rte_spinlock_lock(&ipf->lock);
	s->v4_enabled = ipf->enabled[0];
	s->v6_enabled = ipf->enabled[1];
	s->v4_min_frag = ipf->min_frag[0];
	s->v6_min_frag = ipf->min_frag[1];
	s->max_nfrags = ipf->max_nfrags;
	s->nfrag = ipf->nfrag;
	s->n_dgrams = ipf->n_waiting;
	s->zone_max = ipf->zone_max;
	s->dgram_max = ipf->dgram_max[0];
	s->v6_dgram_max = ipf->dgram_max[1];
	rte_spinlock_unlock(&ipf->lock);
	for (int c = 0; c < CT_IPF_N_COUNTERS; c++) {
		s->v4[c] = __atomic_load_n(&ipf->cnt[0][c], __ATOMIC_RELAXED);
		s->v6[c] = __atomic_load_n(&ipf->cnt[1][c], __ATOMIC_RELAXED);
	}
}

/* OVS's ipf_state_name for a datagram waiting */
static const char *
dgram_state_name(bool first, bool last)
{
	return first && last ? "first/last frag" : first ? "first frag" :
	       last ? "last frag" : "other frag";
}

/* OVS's ipf_dump_create: IPv4 addresses dotted, IPv6 as ipv6_format_addr
 * (inet_ntop), the identification as a number either way */
static void
put_list(struct ds *out, const struct ipf_key *k, uint16_t n, bool first,
	 bool last)
{
	char src[INET6_ADDRSTRLEN], dst[INET6_ADDRSTRLEN];
	int af = ipf_key_v6(k) ? AF_INET6 : AF_INET;

	if (!inet_ntop(af, k->src, src, sizeof src) ||
	    !inet_ntop(af, k->dst, dst, sizeof dst))
		return;		/* cannot be: buffers are large enough */
	ds_put_format(out, "(src=%s,dst=%s,recirc_id=%u,ip_id=%u,dl_type=0x%x,"
		      "zone=%u,nw_proto=%u,num_fragments=%u,state=%s)\n", src,
		      dst, k->recirc_id, rte_be_to_cpu_32(k->ip_id),
		      k->dl_type, k->zone, k->proto, n,
		      dgram_state_name(first, last));
}

void
ct_ipf_dump_lists(struct ct_ipf *ipf, struct ds *out)
{
	struct {
		struct ipf_key key;
		uint16_t n;
		bool first, last;
	} seen[IPF_DUMP_CHUNK];

	for (uint32_t base = 0; base < IPF_MAX_DGRAMS;
	     base += IPF_DUMP_CHUNK) {
		uint32_t n = 0;
		rte_spinlock_lock(&ipf->lock);
		for (uint32_t i = base;
		     i < RTE_MIN(base + IPF_DUMP_CHUNK, IPF_MAX_DGRAMS); i++) {
			const struct ct_ipf_dgram *dg = &ipf->dgrams[i];
			if (dg->where != DG_WAITING)
				continue;
			seen[n].key = dg->key;
			seen[n].n = dg->n_frags;
			seen[n].first = dg->first_seen;
			seen[n++].last = dg->end != 0;
		}
		rte_spinlock_unlock(&ipf->lock);
		for (uint32_t j = 0; j < n; j++)
			put_list(out, &seen[j].key, seen[j].n, seen[j].first,
				 seen[j].last);
	}
}
