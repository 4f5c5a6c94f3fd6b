/* SPDX-License-Identifier: BSD-3-Clause
 * OVS 3.1's shapes for the dpif-netdev/pmd-* commands (cmd_pmd_ovs.c). */
#ifndef VXS_CMD_PMD_OVS_H
#define VXS_CMD_PMD_OVS_H

#include <stdbool.h>
#include <stdint.h>
#include "ds.h"

struct pmd;

struct pmd_ovs_args {
	int core;		/* -pmd CORE; -1: every PMD */
	unsigned secs;		/* -secs SECS; 0: not given */
	bool more;		/* -m / --more: vxswitch's own lines too */
	const char *dp;		/* the datapath named, or NULL (ignored, as
				 * OVS does with its only one) */
};

/* [-pmd CORE] [-secs SECS (if 'with_secs')] [-m|--more] [DP], in any
 * order, as OVS's dpif_netdev_pmd_info() takes them. Returns 0, or -1
 * with an error naming the bad token in 'out'. */
int pmd_ovs_args_parse(int argc, const char *argv[], bool with_secs,
		       struct pmd_ovs_args *a, struct ds *out);

/* Fills order[] with the PMDs' indexes by core id, as OVS sorts its
 * threads; returns how many. */
uint16_t pmd_ovs_order(uint16_t order[]);

/* One PMD's block of pmd-stats-show, exactly OVS's lines. */
void pmd_stats_ovs_text(struct ds *out, const struct pmd *pmd);

/* OVS's "main thread:" block, which it prints last: vxswitch's control
 * thread forwards nothing, so every counter is 0. */
void pmd_stats_ovs_main_thread(struct ds *out);

#endif
