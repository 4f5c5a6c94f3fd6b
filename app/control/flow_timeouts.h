/* SPDX-License-Identifier: BSD-3-Clause
 * OpenFlow rules' idle and hard timeouts (flow_timeouts.c). */
#ifndef VXS_FLOW_TIMEOUTS_H
#define VXS_FLOW_TIMEOUTS_H

/* The control loop calls it every turn; it acts once a second. */
void flow_timeouts_tick(void);

#endif
