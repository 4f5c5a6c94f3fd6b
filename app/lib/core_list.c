/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdlib.h>
#include "core_list.h"

/* "N" or "N-M" at 's'; returns what follows, or NULL. */
static const char *
parse_core_range(const char *s, unsigned *lo, unsigned *hi)
{
	char *end;

	if (*s < '0' || *s > '9')
		return NULL;
	*lo = *hi = (unsigned)strtoul(s, &end, 10);
	if (*end == '-') {
		if (end[1] < '0' || end[1] > '9')
			return NULL;
		*hi = (unsigned)strtoul(end + 1, &end, 10);
	}
	return end;
}

enum core_list_error
core_list_parse(const char *s, unsigned max, uint16_t *cores, uint16_t *n,
		bool *seen, unsigned *twice)
{
	unsigned lo, hi;

	for (;;) {
		s = parse_core_range(s, &lo, &hi);
		if (s == NULL || lo > hi || hi >= max)
			return CORE_LIST_BAD;
		for (unsigned c = lo; c <= hi; c++) {
			if (seen[c]) {
				*twice = c;
				return CORE_LIST_TWICE;
			}
			seen[c] = true;
			if (cores != NULL)
				cores[(*n)++] = (uint16_t)c;
		}
		if (*s == '\0')
			return CORE_LIST_OK;
		if (*s++ != ',')
			return CORE_LIST_BAD;
	}
}

/* "N", "N-M" or "(list)" at 's', marking each in set[] (max entries);
 * returns what follows, or NULL. */
static const char *
parse_lcore_group(const char *s, unsigned max, bool *set, unsigned *first)
{
	unsigned lo, hi;
	bool paren = *s == '(';

	if (paren)
		s++;
	for (;;) {
		s = parse_core_range(s, &lo, &hi);
		if (s == NULL || lo > hi || hi >= max)
			return NULL;
		if (*first == ~0u)
			*first = lo;
		for (unsigned c = lo; c <= hi; c++)
			set[c] = true;
		if (!paren)
			return s;
		if (*s == ')')
			return s + 1;
		if (*s++ != ',')
			return NULL;
	}
}

enum core_list_error
core_list_parse_lcores(const char *s, unsigned max, bool *lcores, bool *cpus,
		       unsigned *first)
{
	*first = ~0u;
	for (;;) {
		bool group[max];
		unsigned ignored = ~0u;

		for (unsigned c = 0; c < max; c++)
			group[c] = false;
		s = parse_lcore_group(s, max, group, first);
		if (s == NULL)
			return CORE_LIST_BAD;
		for (unsigned c = 0; c < max; c++)
			if (group[c])
				lcores[c] = true;
		if (*s == '@') {
			s = parse_lcore_group(s + 1, max, cpus, &ignored);
			if (s == NULL)
				return CORE_LIST_BAD;
		} else {
			for (unsigned c = 0; c < max; c++)
				if (group[c])
					cpus[c] = true;
		}
		if (*s == '\0')
			return CORE_LIST_OK;
		if (*s++ != ',')
			return CORE_LIST_BAD;
	}
}
