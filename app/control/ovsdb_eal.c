/* SPDX-License-Identifier: BSD-3-Clause
 * Open_vSwitch other_config's dpdk-* keys to EAL words, as ovs-vswitchd's
 * construct_dpdk_args() (OVS 3.1 lib/dpdk.c:68-177) makes them, so that a
 * database written for OVS-DPDK starts vxswitch's EAL with the same words:
 * dpdk-extra's words first (svec_parse_words: blanks split, quotes and
 * backslashes as a shell's), then each database option unless dpdk-extra
 * already has its EAL option, then one of the memory pair. OVS's warning
 * and error texts, word for word. What OVS adds of its own (its program
 * name, --in-memory, -c from dpdk-lcore-mask, -l for its main thread) is
 * not made: vxswitch's topology places its threads (eal.lcores) and keeps
 * its hugepage files (eal.file-prefix).
 */
#include "ovsdb_eal.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* construct_dpdk_options()'s table less dpdk-lcore-mask (-c) */
static const struct { const char *key, *eal; } flat_options[] = {
	{ "dpdk-hugepage-dir", "--huge-dir" },
	{ "dpdk-socket-limit", "--socket-limit" },
};

/* construct_dpdk_mutex_options()'s one category, "memory type" */
static const struct { const char *key, *eal; } memory_options[] = {
	{ "dpdk-alloc-mem", "-m" },
	{ "dpdk-socket-mem", "--socket-mem" },
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

static int
add(struct ovsdb_eal_words *w, const char *s, size_t n)
{
	if (w->n == OVSDB_EAL_MAX_WORDS)
		return -1;
	char *copy = malloc(n + 1);
	if (!copy)
		return -1;
	memcpy(copy, s, n);
	copy[n] = '\0';
	w->v[w->n++] = copy;
	return 0;
}

static bool
contains(const struct ovsdb_eal_words *w, const char *word)
{
	for (int i = 0; i < w->n; i++)
		if (!strcmp(w->v[i], word))
			return true;
	return false;
}

static void
say(const struct ovsdb_eal_notes *notes, enum ovsdb_eal_level level,
    const char *fmt, const char *arg)
{
	char text[256];

	snprintf(text, sizeof text, fmt, arg);
	if (notes && notes->fn)
		notes->fn(level, text, notes->aux);
}

/* OVS's svec_parse_words(), quirks kept: a quote opens until the same
 * quote (the other one inside switches to it); a backslash outside single
 * quotes takes the next character as it is. */
static int
parse_words(struct ovsdb_eal_words *w, const char *words,
	    const struct ovsdb_eal_notes *notes)
{
	size_t len = strlen(words);
	char *word = malloc(len + 1);
	const char *p, *q;

	if (!word)
		return -1;
	for (p = words; *p; p = q) {
		size_t n = 0;
		int quote = 0;

		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		for (q = p; *q; q++) {
			if (*q == quote) {
				quote = 0;
			} else if (*q == '\'' || *q == '"') {
				quote = *q;
			} else if (*q == '\\' && (!quote || quote == '"')) {
				if (!*++q) {
					say(notes, OVSDB_EAL_WARN, "%s: ends in "
					    "trailing backslash", words);
					break;
				}
				word[n++] = *q;
			} else if (isspace((unsigned char)*q) && !quote) {
				q++;
				break;
			} else {
				word[n++] = *q;
			}
		}
		if (add(w, word, n)) {
			free(word);
			return -1;
		}
		if (quote)
			say(notes, OVSDB_EAL_WARN, "%s: word ends inside "
			    "quoted string", words);
	}
	free(word);
	return 0;
}

static const char *
get(const json_t *other_config, const char *key)
{
	return json_string_value(json_object_get(other_config, key));
}

static int
add_option(struct ovsdb_eal_words *w, const char *eal, const char *value,
	   const struct ovsdb_eal_notes *notes)
{
	if (contains(w, eal)) {
		say(notes, OVSDB_EAL_WARN, "Ignoring database defined option "
		    "'%s' due to dpdk-extra config", eal);
		return 0;
	}
	return add(w, eal, strlen(eal)) || add(w, value, strlen(value));
}

int
ovsdb_eal_words(const json_t *other_config, struct ovsdb_eal_words *w,
		const struct ovsdb_eal_notes *notes)
{
	const char *extra = get(other_config, "dpdk-extra");
	const char *mem_value = NULL, *mem_eal = NULL;
	int found = 0;

	w->n = 0;
	if (extra && parse_words(w, extra, notes))
		goto oom;
	for (size_t i = 0; i < N_OF(flat_options); i++) {
		const char *v = get(other_config, flat_options[i].key);
		if (v && add_option(w, flat_options[i].eal, v, notes))
			goto oom;
	}
	/* an empty value does not count; of two, the later wins */
	for (size_t i = 0; i < N_OF(memory_options); i++) {
		const char *v = get(other_config, memory_options[i].key);
		if (v && *v) {
			found++;
			mem_value = v;
			mem_eal = memory_options[i].eal;
		}
	}
	if (found > 1)
		say(notes, OVSDB_EAL_ERR, "Multiple defined options for %s. "
		    "Please check your database settings and reconfigure if "
		    "necessary.", "memory type");
	if (found && add_option(w, mem_eal, mem_value, notes))
		goto oom;
	return 0;
oom:
	ovsdb_eal_words_free(w);
	return -1;
}

void
ovsdb_eal_words_free(struct ovsdb_eal_words *w)
{
	for (int i = 0; i < w->n; i++)
		free(w->v[i]);
	w->n = 0;
}

bool
ovsdb_eal_words_has(const struct ovsdb_eal_words *w, const char *word)
{
	return contains(w, word);
}
