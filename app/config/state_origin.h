/* SPDX-License-Identifier: BSD-3-Clause
 * Which configuration a start runs: the topology (the file the user
 * writes) or the state file (the switch's record of the changes made to
 * it at run time, app/control/state.h).
 *
 * The state file names, in comment lines at its head, the topology it was
 * derived from and the SHA-256 of that topology's bytes when the switch
 * started:
 *
 *   # topology-sha256: 9f86d081884c7d65...
 *   # topology: /etc/vxswitch/topology.yaml
 *
 * At start (main.c), the topology's digest now against the recorded one:
 *
 *   no state file                  the topology
 *   the same digest                the state file (the run-time changes
 *                                  on top of this very topology)
 *   another digest                 the user edited the topology after the
 *                                  state was written: neither wins
 *                                  silently, the start is refused (exit
 *                                  STATE_EXIT_CHANGED) unless told which:
 *                                  --reset-state (the topology; the state
 *                                  file moved aside, kept) or --keep-state
 *                                  (the state file, which then records
 *                                  this topology)
 *   no digest (written by an       the state file, as before, with a
 *   older vxswitch)                warning naming both files; it then
 *                                  records this topology
 *
 * A topology that is not a regular file (a pipe, read once) has no
 * digest: its state file is restored as one with none.
 *
 * --reset-state also moves aside a state file of the same topology (it
 * asks for the topology alone). Content, not time: a topology touched or
 * rewritten with the same bytes is the same topology; a changed comment
 * is a change. ${VAR} values are not part of the digest.
 *
 * No DPDK here: tests/unit/test_state_origin.c runs it alone.
 */
#ifndef VXS_STATE_ORIGIN_H
#define VXS_STATE_ORIGIN_H

#include <stdbool.h>
#include <stddef.h>

#include "config.h"
#include "sha256.h"

#define STATE_NOTE_TOPOLOGY "# topology: "
#define STATE_NOTE_SHA256 "# topology-sha256: "

/* The exit status of a start (or --check) refused because the topology
 * changed after its state file was written. */
#define STATE_EXIT_CHANGED 5

/* What a state file says of where it came from; "" for what it does not
 * say (saved: config_save's "# saved: " time). */
struct state_origin {
	char saved[64];
	char topology[CFG_PATH_MAX];
	char sha256[SHA256_HEX_LEN + 1];
};

/* The SHA-256 of a file's bytes, in hex. -1 with a message in err. */
int state_file_sha256(const char *path, char hex[SHA256_HEX_LEN + 1],
		      char *err, size_t errlen);

/* The comment lines that record the origin, for config_save's notes. */
void state_origin_notes(const char *topology, const char *hex, char *buf,
			size_t len);

/* Reads the comment lines at the head of a state file (all "" if it
 * cannot be read). */
void state_origin_read(const char *path, struct state_origin *o);

/* What the command line chose for a topology changed since its state. */
enum state_choice {
	STATE_CHOICE_NONE,
	STATE_CHOICE_KEEP,	/* --keep-state */
	STATE_CHOICE_RESET,	/* --reset-state */
};

enum state_start {
	STATE_START_TOPOLOGY,	/* no state file: the topology */
	STATE_START_STATE,	/* the state file, of this topology */
	STATE_START_UNRECORDED,	/* the state file, of an unknown topology */
	STATE_START_KEPT,	/* the state file, of another topology */
	STATE_START_RESET,	/* the topology; the state file moved aside */
	STATE_START_REFUSED,	/* the topology changed: exit 5 */
};

/* The decision; o is NULL when there is no state file, topology_hex ""
 * when the topology has no digest. */
enum state_start state_decide(const struct state_origin *o,
			      const char *topology_hex,
			      enum state_choice choice);

/* Renames the state file to PATH.<UTC time, e.g. 20261127T221503Z> (a
 * ".N" added if that exists): kept, not deleted. The new name in moved.
 * -1 with a message in err. */
int state_move_aside(const char *path, char *moved, size_t movedlen,
		     char *err, size_t errlen);

/* Why a start was refused, and the options that choose, as lines ending
 * in '\n' (for the log, one line each). */
void state_refusal_text(const char *topology, const char *state,
			const struct state_origin *o, const char *topology_hex,
			char *buf, size_t len);

#endif
