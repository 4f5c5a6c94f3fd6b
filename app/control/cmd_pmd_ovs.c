/* SPDX-License-Identifier: BSD-3-Clause
 * What dpif-netdev/pmd-stats-show and pmd-rxq-show share with OVS 3.1
 * (lib/dpif-netdev.c): their arguments, "[-pmd CORE] [-secs SECS] [DP]",
 * and pmd-stats-show's text, line for line as OVS prints it, so that the
 * operators' scripts read it unchanged. Counters vxswitch has no notion
 * of print 0 (doc/operating.md, "ovs-appctl"). */
#include <stdlib.h>
#include <string.h>
#include <rte_lcore.h>
#include "cmd_pmd_ovs.h"
#include "pmd.h"
#include "stats_read.h"

int
pmd_ovs_args_parse(int argc, const char *argv[], bool with_secs,
		   struct pmd_ovs_args *a, struct ds *out)
{
	memset(a, 0, sizeof *a);
	a->core = -1;
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i];
		bool has_value = i + 1 < argc;
		if (!strcmp(arg, "-m") || !strcmp(arg, "--more")) {
			a->more = true;
		} else if ((!strcmp(arg, "-pmd") ||
			    (with_secs && !strcmp(arg, "-secs"))) && has_value) {
			char *end;
			const char *v = argv[++i];
			unsigned long n = strtoul(v, &end, 10);
			if (!*v || *end || *v == '-' || n > 1000000) {
				ds_put_format(out, "bad %s '%s' (a number "
					      "expected)", arg, v);
				return -1;
			}
			if (!strcmp(arg, "-pmd"))
				a->core = (int)n;
			else
				a->secs = (unsigned)n;
		} else if (arg[0] == '-' && strcmp(arg, "-pmd")) {
			ds_put_format(out, "unknown option '%s' (usage: "
				      "[-pmd CORE]%s [DP])", arg,
				      with_secs ? " [-secs SECS]" : "");
			return -1;
		} else if (a->dp) {
			ds_put_format(out, "more than one datapath given: "
				      "'%s'", arg);
			return -1;
		} else {
			/* As OVS with its one datapath: a name it does not
			 * know is ignored (a lone -pmd too). */
			a->dp = arg;
		}
	}
	return 0;
}

static int
cmp_lcore(const void *a_, const void *b_)
{
	unsigned a = pmds[*(const uint16_t *)a_].lcore;
	unsigned b = pmds[*(const uint16_t *)b_].lcore;

	return a < b ? -1 : a > b;
}

uint16_t
pmd_ovs_order(uint16_t order[])
{
	for (uint16_t i = 0; i < n_pmds; i++)
		order[i] = i;
	qsort(order, n_pmds, sizeof order[0], cmp_lcore);
	return n_pmds;
}

static double
ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / b : 0;
}

/* The lines every thread has (OVS's pmd_info_show_stats, first part). */
static void
put_path_lines(struct ds *out, const struct pmd_stats *s)
{
	uint64_t rx = s ? counter_ld(&s->packets) : 0;
	/* the inner pass of a tnl_pop and each ct(table=) pass */
	uint64_t recirc = s ? counter_ld(&s->recirculations) : 0;
	uint64_t txb = s ? counter_ld(&s->tx_batches) : 0;
	uint64_t txp = s ? counter_ld(&s->tx_packets) : 0;

	ds_put_format(out, "  packets received: %lu\n", rx);
	ds_put_format(out, "  packet recirculations: %lu\n", recirc);
	ds_put_format(out, "  avg. datapath passes per packet: %.02f\n",
		      ratio(rx + recirc, rx));
	ds_put_format(out, "  phwol hits: %lu\n",
		      s ? counter_ld(&s->mark_hits) : 0);
	ds_put_format(out, "  mfex opt hits: %d\n", 0);
	ds_put_format(out, "  simple match hits: %d\n", 0);
	ds_put_format(out, "  emc hits: %lu\n",
		      s ? counter_ld(&s->emc_hits) : 0);
	ds_put_format(out, "  smc hits: %d\n", 0);
	ds_put_format(out, "  megaflow hits: %lu\n",
		      s ? counter_ld(&s->megaflow_hits) : 0);
	ds_put_format(out, "  avg. subtable lookups per megaflow hit: "
		      "%.02f\n", 0.0);
	ds_put_format(out, "  miss with success upcall: %lu\n",
		      s ? counter_ld(&s->upcalls) : 0);
	ds_put_format(out, "  miss with failed upcall: %lu\n",
		      s ? counter_ld(&s->drops[DROP_UPCALL_FAIL]) : 0);
	ds_put_format(out, "  avg. packets per output batch: %.02f\n",
		      ratio(txp, txb));
}

void
pmd_stats_ovs_text(struct ds *out, const struct pmd *pmd)
{
	const struct pmd_stats *s = &pmd->stats;
	uint64_t rx = counter_ld(&s->packets);
	uint64_t busy = counter_ld(&s->busy_cycles);
	uint64_t total = busy + counter_ld(&s->idle_cycles);

	ds_put_format(out, "pmd thread numa_id %u core_id %u:\n",
		      rte_lcore_to_socket_id(pmd->lcore), pmd->lcore);
	put_path_lines(out, s);
	if (total) {
		ds_put_format(out, "  idle cycles: %lu (%.02f%%)\n",
			      total - busy, 100.0 * (total - busy) / total);
		ds_put_format(out, "  processing cycles: %lu (%.02f%%)\n",
			      busy, 100.0 * busy / total);
	}
	if (rx) {
		ds_put_format(out, "  avg cycles per packet: %.02f "
			      "(%lu/%lu)\n", ratio(total, rx), total, rx);
		ds_put_format(out, "  avg processing cycles per packet: "
			      "%.02f (%lu/%lu)\n", ratio(busy, rx), busy, rx);
	}
}

void
pmd_stats_ovs_main_thread(struct ds *out)
{
	ds_put_cstr(out, "main thread:\n");
	put_path_lines(out, NULL);
}
