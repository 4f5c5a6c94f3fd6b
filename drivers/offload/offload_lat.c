/* SPDX-License-Identifier: BSD-3-Clause
 * Insert latency histogram (offload_lat.h). Moved out of offload_mgr.c.
 */
#include "offload_lat.h"

static unsigned
lat_bucket(uint64_t ns)
{
	if (ns < 4)
		return (unsigned)ns;
	unsigned e = 63 - __builtin_clzll(ns);		/* >= 2 */
	unsigned idx = 4 * (e - 1) + (unsigned)((ns >> (e - 2)) & 3);
	return idx < OFFLOAD_LAT_BUCKETS ? idx : OFFLOAD_LAT_BUCKETS - 1;
}

/* upper bound (exclusive) of bucket idx, ns */
static double
lat_bucket_hi(unsigned idx)
{
	if (idx < 4)
		return idx + 1;
	unsigned e = idx / 4 + 1, sub = idx % 4;
	return (double)((4ull + sub + 1) << (e - 2));
}

void
offload_lat_record(struct offload_lat *l, uint64_t cycles, uint64_t tsc_hz)
{
	uint64_t ns = tsc_hz ? cycles * 1000000000.0 / tsc_hz : cycles;

	__atomic_fetch_add(&l->hist[lat_bucket(ns)], 1, __ATOMIC_RELAXED);
	if (ns > __atomic_load_n(&l->max_ns, __ATOMIC_RELAXED))
		__atomic_store_n(&l->max_ns, ns, __ATOMIC_RELAXED);
}

static double
lat_percentile(const uint64_t *h, uint64_t n, double q, double max_ns)
{
	if (!n)
		return 0;
	uint64_t want = (uint64_t)(q * n + 0.999999), acc = 0;
	if (want < 1)
		want = 1;
	for (unsigned i = 0; i < OFFLOAD_LAT_BUCKETS; i++) {
		acc += h[i];
		if (acc >= want) {
			double hi = lat_bucket_hi(i);
			return (hi < max_ns ? hi : max_ns) / 1000.0;
		}
	}
	return max_ns / 1000.0;
}

void
offload_lat_read(const struct offload_lat *l, uint64_t *n, double *p50_us,
		 double *p99_us, double *max_us)
{
	uint64_t h[OFFLOAD_LAT_BUCKETS], total = 0;

	for (unsigned i = 0; i < OFFLOAD_LAT_BUCKETS; i++) {
		h[i] = __atomic_load_n(&l->hist[i], __ATOMIC_RELAXED);
		total += h[i];
	}
	double max_ns = (double)__atomic_load_n(&l->max_ns, __ATOMIC_RELAXED);
	*n = total;
	*p50_us = lat_percentile(h, total, 0.50, max_ns);
	*p99_us = lat_percentile(h, total, 0.99, max_ns);
	*max_us = max_ns / 1000.0;
}
