/* SPDX-License-Identifier: BSD-3-Clause
 * Partial offload, control side (offload_ctl.c): start-up and tear-down of
 * the NIC's offload engine, its thread and the PMDs' mark tables. */
#ifndef VXS_OFFLOAD_CTL_H
#define VXS_OFFLOAD_CTL_H

#include <stddef.h>

/* After the ports and PMDs exist, before the PMDs start: registers
 * offload/show and, when the underlay asks for offload, starts its engine.
 * Returns 0 (also when no port asks for one), or -1 with a message in
 * 'err'. */
int offload_init(char *err, size_t errlen);
/* After the PMDs stopped. */
void offload_fini(void);

#endif
