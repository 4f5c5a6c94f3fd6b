/* SPDX-License-Identifier: BSD-3-Clause
 * The offload thread's insert latency (rte_flow_create, or the model's):
 * a log-linear histogram in ns, 4 sub-buckets per power of two, written by
 * the offload thread and read by anyone with relaxed atomics.
 */
#ifndef VXS_OFFLOAD_LAT_H
#define VXS_OFFLOAD_LAT_H

#include <stdint.h>

#define OFFLOAD_LAT_BUCKETS 128

struct offload_lat {
	uint64_t hist[OFFLOAD_LAT_BUCKETS];
	uint64_t max_ns;
};

/* One sample of `cycles` TSC cycles at tsc_hz (0: taken as ns). */
void offload_lat_record(struct offload_lat *l, uint64_t cycles,
			uint64_t tsc_hz);
/* Samples so far and their p50, p99 and max, in us. */
void offload_lat_read(const struct offload_lat *l, uint64_t *n,
		      double *p50_us, double *p99_us, double *max_us);

#endif
