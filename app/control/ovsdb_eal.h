/* SPDX-License-Identifier: BSD-3-Clause
 * The EAL words ovs-vswitchd would make of Open_vSwitch other_config's
 * dpdk-* keys (ovsdb_eal.c says which and how), for ovsdb_boot.c; its
 * warnings and errors handed to the caller in OVS's words. Pure: the
 * unit test runs it on the cases a real ovs-vswitchd was given.
 */
#ifndef VXS_OVSDB_EAL_H
#define VXS_OVSDB_EAL_H

#include <stdbool.h>
#include <jansson.h>

/* dpdk-extra is split into at most this many words; past it, an error */
#define OVSDB_EAL_MAX_WORDS 128

struct ovsdb_eal_words {
	int n;
	char *v[OVSDB_EAL_MAX_WORDS];
};

enum ovsdb_eal_level { OVSDB_EAL_WARN, OVSDB_EAL_ERR };

struct ovsdb_eal_notes {
	void (*fn)(enum ovsdb_eal_level, const char *text, void *aux);
	void *aux;
};

/* other_config (an object of strings) to w's words, in OVS's order;
 * notes (may be NULL) hears OVS's warnings and errors. -1: out of memory
 * or more than OVSDB_EAL_MAX_WORDS words (w then empty). */
int ovsdb_eal_words(const json_t *other_config, struct ovsdb_eal_words *w,
		    const struct ovsdb_eal_notes *notes);
void ovsdb_eal_words_free(struct ovsdb_eal_words *w);
bool ovsdb_eal_words_has(const struct ovsdb_eal_words *w, const char *word);

#endif
