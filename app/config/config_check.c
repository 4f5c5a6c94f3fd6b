/* SPDX-License-Identifier: BSD-3-Clause
 * The topology checks that stand for failures after the EAL has started
 * (config_check_limits, config_check_host; config.h), so that --check
 * catches them and a run refuses them with file:line:col before touching
 * the host: rte_vhost's socket limit, RTE_MAX_ETHPORTS, an mbuf pool
 * bigger than the EAL's memory, flows, routes or static neighbours past
 * their datapath max-* limit, and (on this host) lcores it lacks and
 * hugepages it does not have free. Also where a byte offset is, for libyaml's
 * reader errors.
 */
#include "config.h"

#include <glob.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rte_config.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "core_list.h"
#include "pkt_batch.h"

/* rte_vhost (22.11) registers at most MAX_VHOST_SOCKET = 1024 sockets, a
 * private constant: the 1025th rte_vhost_driver_register() fails. */
#define VHOST_MAX_SOCKETS 1024
/* What the EAL, the PMDs' tables and the rings take besides the mbuf
 * pool: an estimate. Measured with --no-huge, one PMD, 2 ports and a
 * 37 MiB pool: fails to start with -m 64, starts with -m 72. */
#define OTHER_MEMORY_MB 32
/* The EAL's memory with --no-huge and no -m (MEMSIZE_IF_NO_HUGE_PAGE). */
#define NO_HUGE_DEFAULT_MB 64

struct checker {
	const struct vxs_config *cfg;
	char *err;
	size_t errlen;
};

static int __attribute__((format(printf, 3, 4)))
fail_at(struct checker *ck, struct cfg_pos pos, const char *fmt, ...)
{
	if (!ck->errlen)
		return -1;
	int n = snprintf(ck->err, ck->errlen, "%s:%d:%d: ", ck->cfg->file,
			 pos.line ? pos.line : 1, pos.line ? pos.col : 1);
	if (n >= 0 && (size_t)n < ck->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(ck->err + n, ck->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static struct cfg_pos
port_pos(const struct cfg_port *p)
{
	return (struct cfg_pos){ p->line, p->col };
}

static int
check_port_counts(struct checker *ck)
{
	const struct vxs_config *cfg = ck->cfg;
	unsigned n_vhost = 0, n_eth = 0;

	for (uint16_t i = 0; i < cfg->n_ports; i++) {
		const struct cfg_port *p = &cfg->ports[i];
		if ((p->type == CFG_PORT_VHOST_SERVER ||
		     p->type == CFG_PORT_VHOST_CLIENT) &&
		    ++n_vhost > VHOST_MAX_SOCKETS)
			return fail_at(ck, port_pos(p), "more than %u "
				       "vhost-user ports (rte_vhost's limit) "
				       "'%s'", VHOST_MAX_SOCKETS, p->name);
		if (p->type == CFG_PORT_DPDK && ++n_eth > RTE_MAX_ETHPORTS)
			return fail_at(ck, port_pos(p), "more than %u dpdk "
				       "ports (RTE_MAX_ETHPORTS) '%s'",
				       RTE_MAX_ETHPORTS, p->name);
	}
	return 0;
}

/* ofproto_init's tables: the first entry past a limit, where it is. The
 * underlay's own /plen route takes one route slot. */
static int
check_table_limits(struct checker *ck)
{
	const struct vxs_config *cfg = ck->cfg;
	uint32_t max_flows = cfg->max_flows ? cfg->max_flows
					    : CFG_MAX_FLOWS_DEFAULT;
	uint32_t max_routes = cfg->max_routes ? cfg->max_routes
					      : CFG_MAX_ROUTES_DEFAULT;
	uint32_t max_neigh = cfg->max_neighbours ? cfg->max_neighbours
						 : CFG_MAX_NEIGHBOURS_DEFAULT;
	/* the VTEP's connected routes, one a family */
	uint32_t own = (cfg->vtep_ip ? 1 : 0) + (cfg->vtep_ip6_set ? 1 : 0);

	if (cfg->n_flows > max_flows) {
		const struct cfg_flow *f = &cfg->flows[max_flows];
		return fail_at(ck, (struct cfg_pos){ f->line, f->col },
			       "more than datapath max-flows %u flows '%u'",
			       max_flows, cfg->n_flows);
	}
	if (cfg->n_routes + own > max_routes) {
		/* the first route past the limit (max-routes 1 with both
		 * families and no routes: the first slot, unplaced) */
		uint32_t at = max_routes > own ? max_routes - own : 0;
		if (at >= cfg->n_routes)
			at = cfg->n_routes ? cfg->n_routes - 1u : 0;
		const struct cfg_route *r = &cfg->routes[at];
		return fail_at(ck, (struct cfg_pos){ r->line, r->col },
			       "more than datapath max-routes %u routes (the "
			       "underlay's own included) '%u'", max_routes,
			       cfg->n_routes + own);
	}
	if (cfg->n_arp > max_neigh) {
		const struct cfg_arp *a = &cfg->arp[max_neigh];
		return fail_at(ck, (struct cfg_pos){ a->line, a->col },
			       "more than datapath max-neighbours %u arp "
			       "entries '%u'", max_neigh, cfg->n_arp);
	}
	return 0;
}

/* Every CPU the EAL's lcores run on ("0-1,3", "0,(1-4)@1") must exist
 * on this host. */
static int
check_lcores(struct checker *ck)
{
	bool lcores[CFG_MAX_CORES] = { false }, cpus[CFG_MAX_CORES] = { false };
	long n_cpus = sysconf(_SC_NPROCESSORS_CONF);
	unsigned first;

	if (n_cpus <= 0 || core_list_parse_lcores(ck->cfg->eal_lcores,
						  CFG_MAX_CORES, lcores, cpus,
						  &first))
		return 0;		/* the EAL's to judge */
	for (long c = n_cpus; c < CFG_MAX_CORES; c++)
		if (cpus[c])
			return fail_at(ck, ck->cfg->pos_lcores, "lcore CPU %ld "
				       "does not exist on this host (%ld "
				       "CPUs) '%s'", c, n_cpus,
				       ck->cfg->eal_lcores);
	return 0;
}

/* Every place an mbuf can sit: NIC rx/tx rings, vhost bursts, PMD tx
 * buffers, per-lcore caches, plus headroom for control traffic. */
uint32_t
config_n_mbufs(const struct vxs_config *cfg)
{
	if (cfg->n_mbufs)
		return cfg->n_mbufs;
	uint64_t n = 4096;
	for (uint16_t i = 0; i < cfg->n_ports; i++) {
		const struct cfg_port *p = &cfg->ports[i];
		uint16_t nq = p->n_rxq ? p->n_rxq : 1;
		if (p->type == CFG_PORT_DPDK)
			n += (uint64_t)nq * (p->rxd ? p->rxd : 1024) +
			     (uint64_t)(cfg->n_pmd_cores + 1) *
				     (p->txd ? p->txd : 1024);
		n += (uint64_t)(cfg->n_pmd_cores + 1) * BATCH_MAX * 2;
	}
	n += (uint64_t)(cfg->n_pmd_cores + 1) * CFG_MBUF_CACHE * 2;
	uint64_t pow = 1;
	while (pow < n)
		pow <<= 1;
	/* 2^n - 1 is the mempool's best size */
	return pow - 1 > UINT32_MAX ? UINT32_MAX : (uint32_t)(pow - 1);
}

/* Free hugepage memory on the host, all page sizes, in MiB; UINT64_MAX
 * if it cannot be told. */
static uint64_t
free_hugepage_mb(void)
{
	glob_t g;
	uint64_t kb = 0;

	if (glob("/sys/kernel/mm/hugepages/hugepages-*kB/free_hugepages", 0,
		 NULL, &g))
		return UINT64_MAX;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		unsigned long long size_kb, pages;
		FILE *f = fopen(g.gl_pathv[i], "r");
		if (!f)
			continue;
		if (sscanf(g.gl_pathv[i], "/sys/kernel/mm/hugepages/"
			   "hugepages-%llukB", &size_kb) == 1 &&
		    fscanf(f, "%llu", &pages) == 1)
			kb += size_kb * pages;
		fclose(f);
	}
	globfree(&g);
	return kb / 1024;
}

/* The MiB in "--socket-mem 512,512". */
static uint64_t
socket_mem_mb(const char *s)
{
	uint64_t mb = 0;

	while (*s) {
		char *end;
		mb += strtoull(s, &end, 10);
		if (end == s)
			break;
		s = *end == ',' ? end + 1 : end;
	}
	return mb;
}

/* host: also against this host's free hugepages. */
static int
check_memory(struct checker *ck, bool host)
{
	const struct vxs_config *cfg = ck->cfg;
	size_t elt = sizeof(struct rte_mbuf) + RTE_MBUF_DEFAULT_BUF_SIZE;
	struct rte_mempool_objsz sz;
	uint32_t n = config_n_mbufs(cfg);
	uint64_t obj = rte_mempool_calc_obj_size((uint32_t)elt, 0, &sz);
	uint64_t pool_mb = ((uint64_t)n * obj + (1 << 20) - 1) >> 20;
	uint64_t ct_mb = ((uint64_t)cfg->ct_max_conns * CFG_CT_BYTES_PER_CONN +
			  (1 << 20) - 1) >> 20;
	uint64_t need = pool_mb + ct_mb + OTHER_MEMORY_MB, have;
	const char *from;

	if (cfg->eal_memory_mb) {
		have = cfg->eal_memory_mb;
		from = "eal.memory-mb";
	} else if (cfg->eal_socket_mem[0]) {
		have = socket_mem_mb(cfg->eal_socket_mem);
		from = "eal.socket-mem";
	} else if (cfg->eal_no_huge) {
		have = NO_HUGE_DEFAULT_MB;
		from = "the EAL's default with eal.no-huge";
	} else {
		have = 0;
		from = "the free hugepages";
	}
	struct cfg_pos at = cfg->pos_n_mbufs.line ? cfg->pos_n_mbufs
			    : cfg->pos_memory.line ? cfg->pos_memory
			    : cfg->pos_ports;
	/* With hugepages, -m/--socket-mem are what the EAL takes at start,
	 * not a cap: it takes more pages as needed. So the cap is the free
	 * hugepages (the host's part), or the memory given with no-huge. */
	if (!cfg->eal_no_huge) {
		if (!host)
			return 0;
		uint64_t asked = have;
		have = free_hugepage_mb();
		if (asked > have)
			return fail_at(ck, cfg->pos_memory, "%" PRIu64 " MiB "
				       "asked for, but only %" PRIu64 " MiB of "
				       "hugepages are free '%s'", asked, have,
				       from);
		from = "the free hugepages";
	} else if (host) {
		return 0;
	}
	if (need > have)
		return fail_at(ck, at, "%u mbufs need %" PRIu64 " MiB (+ %"
			       PRIu64 " MiB for %u sessions, ct-max-conns, + %d "
			       "MiB for the rest), more than the %" PRIu64
			       " MiB of %s '%s'", n, pool_mb, ct_mb,
			       cfg->ct_max_conns, OTHER_MEMORY_MB,
			       have, from, cfg->n_mbufs ? "n-mbufs"
			       : cfg->pos_memory.line ? "memory" : "ports");
	return 0;
}

static int
run_checks(const struct vxs_config *cfg, char *err, size_t errlen, bool host)
{
	struct checker ck = { .cfg = cfg, .err = err, .errlen = err ? errlen
								     : 0 };

	if (host)
		return check_lcores(&ck) || check_memory(&ck, true) ? -1 : 0;
	return check_port_counts(&ck) || check_table_limits(&ck) ||
	       check_memory(&ck, false) ? -1 : 0;
}

int
config_check_limits(const struct vxs_config *cfg, char *err, size_t errlen)
{
	return run_checks(cfg, err, errlen, false);
}

int
config_check_host(const struct vxs_config *cfg, char *err, size_t errlen)
{
	return run_checks(cfg, err, errlen, true);
}
