/* SPDX-License-Identifier: BSD-3-Clause
 * Which configuration a start runs, the topology or its state file
 * (state_origin.h).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config_save.h"
#include "state_origin.h"

int
state_file_sha256(const char *path, char hex[SHA256_HEX_LEN + 1], char *err,
		  size_t errlen)
{
	FILE *f = fopen(path, "rb");

	hex[0] = '\0';
	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	int rc = sha256_file_hex(f, hex);
	fclose(f);
	if (rc < 0)
		snprintf(err, errlen, "%s: read error", path);
	return rc;
}

void
state_origin_notes(const char *topology, const char *hex, char *buf,
		   size_t len)
{
	/* the digest first: a path too long for buf cannot cut it off */
	snprintf(buf, len, STATE_NOTE_SHA256 "%s\n" STATE_NOTE_TOPOLOGY "%s\n",
		 hex, topology);
}

/* "PREFIX value\n" -> value, if line starts with prefix. */
static void
note_value(const char *line, const char *prefix, char *out, size_t len)
{
	size_t plen = strlen(prefix);

	if (strncmp(line, prefix, plen) == 0)
		snprintf(out, len, "%.*s", (int)strcspn(line + plen, "\r\n"),
			 line + plen);
}

void
state_origin_read(const char *path, struct state_origin *o)
{
	char line[PATH_MAX + 64];
	FILE *f = fopen(path, "r");

	memset(o, 0, sizeof *o);
	if (f == NULL)
		return;
	while (fgets(line, sizeof line, f) && line[0] == '#') {
		note_value(line, CONFIG_SAVED_PREFIX, o->saved, sizeof o->saved);
		note_value(line, STATE_NOTE_TOPOLOGY, o->topology,
			   sizeof o->topology);
		note_value(line, STATE_NOTE_SHA256, o->sha256,
			   sizeof o->sha256);
	}
	fclose(f);
}

enum state_start
state_decide(const struct state_origin *o, const char *topology_hex,
	     enum state_choice choice)
{
	if (o == NULL)
		return STATE_START_TOPOLOGY;
	if (choice == STATE_CHOICE_RESET)
		return STATE_START_RESET;
	if (o->sha256[0] == '\0' || topology_hex[0] == '\0')
		return STATE_START_UNRECORDED;
	if (strcmp(o->sha256, topology_hex) == 0)
		return STATE_START_STATE;
	return choice == STATE_CHOICE_KEEP ? STATE_START_KEPT
					   : STATE_START_REFUSED;
}

int
state_move_aside(const char *path, char *moved, size_t movedlen, char *err,
		 size_t errlen)
{
	char when[32], name[PATH_MAX + 48];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(when, sizeof when, "%Y%m%dT%H%M%SZ", &tm);
	for (unsigned i = 0; i < 100; i++) {
		int n = snprintf(name, sizeof name, "%s.%s", path, when);
		if (i && n > 0 && (size_t)n < sizeof name)
			n += snprintf(name + n, sizeof name - n, ".%u", i);
		if (n < 0 || (size_t)n >= movedlen || (size_t)n >= sizeof name) {
			snprintf(err, errlen, "%s: path too long", path);
			return -1;
		}
		if (access(name, F_OK) == 0)
			continue;	/* never over an earlier one */
		if (rename(path, name) != 0) {
			snprintf(err, errlen, "cannot rename %s to %s: %s",
				 path, name, strerror(errno));
			return -1;
		}
		memcpy(moved, name, (size_t)n + 1);
		return 0;
	}
	snprintf(err, errlen, "%s: too many moved-aside copies", path);
	return -1;
}

void
state_refusal_text(const char *topology, const char *state,
		   const struct state_origin *o, const char *topology_hex,
		   char *buf, size_t len)
{
	snprintf(buf, len,
"the topology %s changed after the state file %s was written (saved %s):\n"
"  the state file has the run-time changes made over the topology as it was"
" (%s, sha256 %.16s...), the topology has edits the state file does not"
" have (sha256 now %.16s...); not starting, so that neither is lost"
" silently\n"
"  choose one and start again:\n"
"    --reset-state  start from the topology: its edits apply, the run-time"
" changes do not; the state file is kept, renamed to %s.<UTC time>\n"
"    --keep-state   start from the state file: the run-time changes apply,"
" the topology's edits do not; the state file then records this topology\n"
"    --no-state     start from the topology for this run only, with no"
" state file read or written\n"
"  (the state file is a topology too: to keep some of both, compare the"
" two files, bring into the topology what to keep, then --reset-state)\n",
		 topology, state, o->saved[0] ? o->saved : "at an unknown time",
		 o->topology[0] ? o->topology : "no path recorded", o->sha256,
		 topology_hex, state);
}
