/* SPDX-License-Identifier: BSD-3-Clause
 * Glue between the daemon's parts that live in the control thread. */
#ifndef VXS_VXSWITCH_H
#define VXS_VXSWITCH_H

#include <stdint.h>
#include <stdio.h>

#ifndef VXSWITCH_VERSION
#define VXSWITCH_VERSION "0.1.0"
#endif

void commands_register(void);		/* commands.c */
void cmd_tnl_register(void);		/* cmd_tnl.c */
void telemetry_register(void);		/* telemetry.c */
void ctl_events_process(void);		/* ctl_events.c */
void print_exit_stats(FILE *f);		/* commands.c */
uint32_t mbufs_in_use(void);		/* main.c */
int offload_init(char *err, size_t errlen);	/* offload_ctl.c */
void offload_fini(void);			/* offload_ctl.c */

#endif
