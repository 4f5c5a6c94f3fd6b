/* SPDX-License-Identifier: BSD-3-Clause
 * The running configuration: what the topology said, as changed since by
 * commands (ports, PMD cores, ...); what of it outlives the process is
 * state.h's.
 */
#ifndef VXS_RUN_STATE_H
#define VXS_RUN_STATE_H

#include <stddef.h>
#include <stdint.h>
#include "config.h"

/* main.c hands over the loaded topology; kept for the life of the run. */
void run_state_init(struct vxs_config *cfg);
struct vxs_config *run_state_config(void);

/* set-pmd-cores: stops every PMD, folds their counters into the retired
 * ones, starts PMDs on 'cores' with the same options and every queue
 * assigned afresh. The NIC offload (if any) is restarted with them: its
 * rules go with the megaflows that held them. */
int run_set_pmd_cores(const uint16_t *cores, uint16_t n, char *err,
		      size_t errlen);

#endif
