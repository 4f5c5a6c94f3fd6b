/* SPDX-License-Identifier: BSD-3-Clause
 * OVSDB mode's start: what ovs-vswitchd reads from the database before it
 * initialises DPDK (lib/dpdk.c, dpdk_init__()): Open_vSwitch
 * other_config's dpdk-* keys, read once, blocking, before the EAL (the
 * session of ovsdb_client.h starts after it), made into EAL words as
 * ovs-vswitchd makes them (ovsdb_eal.h): dpdk-extra, dpdk-hugepage-dir,
 * dpdk-socket-limit, dpdk-alloc-mem or dpdk-socket-mem; appended to the
 * topology's EAL arguments, whose memory (-m, --socket-mem) and huge-dir
 * give way to the database's. Said, not used: dpdk-init (vxswitch is
 * DPDK always), dpdk-lcore-mask (the topology's eal.lcores and
 * datapath.pmd-cores place the threads). As in OVS, read at a start only.
 */
#ifndef VXS_OVSDB_BOOT_H
#define VXS_OVSDB_BOOT_H

#include <stddef.h>

struct vxs_config;

/* How long the start waits for the database's answer. */
#define OVSDB_BOOT_TIMEOUT_MS 5000

/* Reads other_config from the server at 'remote' (ovsdb_remote.h's
 * forms) within 'timeout_ms' and applies its dpdk-* keys to 'cfg' (EAL
 * arguments appended to cfg->eal_extra). 0, also when the database has
 * none; -1 with the reason (no server, a bad answer): the caller goes on
 * with the topology's EAL, as the session will connect later anyway. */
int ovsdb_boot_eal(const char *remote, long long timeout_ms,
		   struct vxs_config *cfg, char *err, size_t errlen);

#endif
