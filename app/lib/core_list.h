/* SPDX-License-Identifier: BSD-3-Clause
 * Core lists as the EAL writes them: "1-3,5" (the topology's pmd-cores
 * and eal.lcores, and --pmd-cores). */
#ifndef VXS_CORE_LIST_H
#define VXS_CORE_LIST_H

#include <stdbool.h>
#include <stdint.h>

enum core_list_error {
	CORE_LIST_OK = 0,
	CORE_LIST_BAD = -1,	/* not "N" or "N-M" items joined by ',', a
				 * range backwards, or a core >= max */
	CORE_LIST_TWICE = -2,	/* a core listed twice (*twice says which) */
};

/* Parses 's' (digits only: no sign, space or empty item) into cores below
 * 'max': marks each in seen[] (max entries, cleared by the caller; a core
 * already marked counts as listed twice) and, when 'cores' is not NULL,
 * appends it to cores[*n] in the order given (that order is the
 * round-robin order for unpinned queues). */
enum core_list_error core_list_parse(const char *s, unsigned max,
				     uint16_t *cores, uint16_t *n, bool *seen,
				     unsigned *twice);

/* The EAL's --lcores syntax: "0,1-3", or lcores mapped onto CPUs,
 * "0,(1-4)@1" (four lcores on CPU 1: several PMDs on one core, for
 * function tests on small machines) or "0,5@(2,3)". Marks the lcore ids
 * in lcores[] and the CPUs they run on in cpus[] (both max entries,
 * cleared by the caller); *first: the first lcore named (the EAL's
 * default main lcore). */
enum core_list_error core_list_parse_lcores(const char *s, unsigned max,
					    bool *lcores, bool *cpus,
					    unsigned *first);

#endif
