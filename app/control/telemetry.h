/* SPDX-License-Identifier: BSD-3-Clause
 * Port and PMD counters through rte_telemetry (/vxswitch/...). */
#ifndef VXS_TELEMETRY_H
#define VXS_TELEMETRY_H

/* Registers the /vxswitch/ telemetry commands (after rte_eal_init). */
void telemetry_register(void);

#endif
