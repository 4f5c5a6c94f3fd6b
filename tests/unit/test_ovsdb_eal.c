/* SPDX-License-Identifier: BSD-3-Clause
 * Open_vSwitch other_config's dpdk-* keys to EAL words
 * (app/control/ovsdb_eal.c) against what Debian's ovs-vswitchd-dpdk made
 * of the same keys (tests/integration/ovs_ref/make-ovs-ref-eal.sh): the
 * same warnings and errors, and the same EAL ARGS line once OVS's own
 * additions are put back (its program name, --in-memory unless the words
 * have --in-memory or --legacy-mem, -l N unless they have -c or -l, the
 * "." svec_join ends with), which vxswitch does not make: its topology
 * places the threads and keeps hugepage files.
 * Usage: test_ovsdb_eal CASES REFERENCE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ds.h"
#include "ovsdb_eal.h"
#include "unit_test.h"

#define LINE_MAX_LEN 4096

static void
note(enum ovsdb_eal_level level, const char *text, void *aux)
{
	ds_put_format(aux, "%s %s\n", level == OVSDB_EAL_ERR ? "ERR" : "WARN",
		      text);
}

/* The reference's block for case name: its notes and its EAL ARGS line;
 * false if the case is not there. */
static bool
reference_of(FILE *ref, const char *name, struct ds *notes, char *eal,
	     size_t eal_len)
{
	char line[LINE_MAX_LEN];
	bool in = false;

	rewind(ref);
	while (fgets(line, sizeof line, ref)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "case ", 5)) {
			in = !strcmp(line + 5, name);
		} else if (in && !strncmp(line, "EAL ARGS: ", 10)) {
			snprintf(eal, eal_len, "%s", line);
			return true;
		} else if (in) {
			ds_put_format(notes, "%s\n", line);
		}
	}
	return false;
}

static bool
has(const struct ovsdb_eal_words *w, const char *a, const char *b)
{
	return ovsdb_eal_words_has(w, a) || ovsdb_eal_words_has(w, b);
}

/* Our words as OVS would log them, with OVS's additions taken from its
 * line: the program name (its first word) and the -l N it chose. */
static void
as_ovs_logs(const struct ovsdb_eal_words *w, const char *ovs_line,
	    struct ds *out)
{
	const char *prog = ovs_line + 10, *sp = strchr(prog, ' ');
	const char *l = strstr(ovs_line, " -l ");
	int prog_len = (int)(sp ? sp - prog : (long)strlen(prog) - 1);

	ds_put_format(out, "EAL ARGS: %.*s", prog_len, prog);
	for (int i = 0; i < w->n; i++)
		ds_put_format(out, " %s", w->v[i]);
	if (!has(w, "--in-memory", "--legacy-mem"))
		ds_put_cstr(out, " --in-memory");
	if (!has(w, "-c", "-l") && l)
		ds_put_format(out, "%.*s", (int)strcspn(l + 4, ".") + 4, l);
	ds_put_cstr(out, ".");
}

static void
test_case(FILE *ref, const char *name, const char *keys)
{
	struct ds ours = DS_EMPTY_INITIALIZER, theirs = DS_EMPTY_INITIALIZER;
	struct ds line = DS_EMPTY_INITIALIZER;
	struct ovsdb_eal_notes notes = { note, &ours };
	struct ovsdb_eal_words w;
	char eal[LINE_MAX_LEN];
	json_error_t jerr;
	json_t *oc = json_loads(keys, 0, &jerr);

	CHECK(oc != NULL, "%s: bad JSON: %s", name, jerr.text);
	CHECK(reference_of(ref, name, &theirs, eal, sizeof eal),
	      "%s: not in the reference", name);
	if (!oc)
		return;
	CHECK(ovsdb_eal_words(oc, &w, &notes) == 0, "%s: failed", name);
	CHECK(!strcmp(ds_cstr(&ours), ds_cstr(&theirs)),
	      "%s: notes\n ours:   %s\n theirs: %s", name, ds_cstr(&ours),
	      ds_cstr(&theirs));
	as_ovs_logs(&w, eal, &line);
	CHECK(!strcmp(ds_cstr(&line), eal), "%s:\n ours:   %s\n theirs: %s",
	      name, ds_cstr(&line), eal);
	ovsdb_eal_words_free(&w);
	json_decref(oc);
	ds_destroy(&ours);
	ds_destroy(&theirs);
	ds_destroy(&line);
}

/* Past OVSDB_EAL_MAX_WORDS words: refused, nothing kept. */
static void
test_too_many_words(void)
{
	struct ds extra = DS_EMPTY_INITIALIZER;
	struct ovsdb_eal_words w;

	for (int i = 0; i <= OVSDB_EAL_MAX_WORDS; i++)
		ds_put_cstr(&extra, "-v ");
	json_t *oc = json_pack("{s:s}", "dpdk-extra", ds_cstr(&extra));
	CHECK_EXPR(ovsdb_eal_words(oc, &w, NULL) == -1);
	CHECK_EXPR(w.n == 0);
	json_decref(oc);
	ds_destroy(&extra);
}

int
main(int argc, char **argv)
{
	char line[LINE_MAX_LEN];
	int n_cases = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: %s CASES REFERENCE\n", argv[0]);
		return 2;
	}
	FILE *cases = fopen(argv[1], "r"), *ref = fopen(argv[2], "r");
	if (!cases || !ref) {
		perror("open");
		return 2;
	}
	while (fgets(line, sizeof line, cases)) {
		char *tab = strchr(line, '\t');
		if (line[0] == '#' || !tab)
			continue;
		*tab = '\0';
		test_case(ref, line, tab + 1);
		n_cases++;
	}
	CHECK(n_cases >= 10, "only %d cases", n_cases);
	test_too_many_words();
	fclose(cases);
	fclose(ref);
	printf("%u passed, %u failed\n", n_passed, n_failed);
	return n_failed ? 1 : 0;
}
