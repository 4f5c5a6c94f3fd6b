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

/* The ARP requests the control thread sends for missing neighbours
 * (ctl_events.c; limits/show). */
struct ctl_arp_stats {
	uint64_t sent;			/* handed to the underlay's tx */
	uint64_t rate_limited;		/* one per address per second */
	uint64_t no_mbuf;		/* pool empty: not sent */
	uint64_t tx_failed;		/* tx refused it (ring full, down) */
};
const struct ctl_arp_stats *ctl_arp_get_stats(void);
void print_exit_stats(FILE *f);		/* commands.c */
uint32_t mbufs_in_use(void);		/* main.c */
int offload_init(char *err, size_t errlen);	/* offload_ctl.c */
void offload_fini(void);			/* offload_ctl.c */

#endif
