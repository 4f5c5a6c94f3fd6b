/* SPDX-License-Identifier: BSD-3-Clause
 * Loads from packet bytes, which carry no alignment guarantee: through
 * memcpy, which compilers turn into a plain (unaligned) load on x86. The
 * values stay in the byte order of the wire. */
#ifndef VXS_UNALIGNED_H
#define VXS_UNALIGNED_H

#include <stdint.h>
#include <string.h>
#include <rte_byteorder.h>

static inline uint16_t
load16(const uint8_t *p)
{
	uint16_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

static inline uint32_t
load32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

static inline uint64_t
load64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return v;
}

static inline rte_be16_t
load_be16(const uint8_t *p)
{
	return (rte_be16_t)load16(p);
}

static inline rte_be32_t
load_be32(const uint8_t *p)
{
	return (rte_be32_t)load32(p);
}

#endif
