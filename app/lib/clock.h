/* SPDX-License-Identifier: BSD-3-Clause
 * The control side's clock: milliseconds of CLOCK_MONOTONIC (neighbour
 * and route ages, publish intervals, control-socket deadlines). The PMDs
 * use the TSC instead. */
#ifndef VXS_CLOCK_H
#define VXS_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t
vxs_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

#endif
