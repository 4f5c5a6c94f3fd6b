/* SPDX-License-Identifier: BSD-3-Clause
 * The daemon's vxswitch-ctl commands, one file per family:
 *   cmd_show.c   show
 *   cmd_flows.c  OpenFlow rules: dump-flows, add-flow(s), del-flows
 *   cmd_dpctl.c  the PMDs' megaflows: dpctl/dump-flows, dpctl/del-flows
 *   cmd_pmd.c    dpif-netdev/...: PMD stats, perf, rxqs, optimisations
 *   cmd_tnl.c    the underlay's tables: tnl/..., ovs/route/..., limits/show
 *   cmd_vlog.c   the log: vlog/list, vlog/set, vlog/reopen (vlog.h)
 *   state_save.c the running state: save-config, state/show (state.h)
 * (offload/show is registered by offload_ctl.c, control/show by the
 * server itself). */
#ifndef VXS_COMMANDS_H
#define VXS_COMMANDS_H

#include <stdio.h>

/* Registers every family's commands with the control server. */
void commands_register(void);

/* show and pmd-stats-show, as text, at exit. */
void print_exit_stats(FILE *f);

#endif
