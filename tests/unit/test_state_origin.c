/* SPDX-License-Identifier: BSD-3-Clause
 * Which configuration a start runs (app/config/state_origin.c): SHA-256
 * against FIPS 180-4's vectors, whole and in pieces; the digest of a
 * file's bytes; the origin a state file records read back (and the file
 * still a topology that loads); the decision for each case and choice;
 * a state file moved aside, never over an earlier one; the refusal names
 * both files and the three options.
 *
 * usage: test_state_origin FIXTURE_DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "config_save.h"
#include "state_origin.h"
#include "unit_test.h"

static char tmpdir[] = "/tmp/test_state_origin.XXXXXX";

/* Our wrapper of libcrypto's SHA-256: the FIPS 180-4 vectors, and a file
 * longer than its read buffer. */
static void
vectors(void)
{
	static const struct { const char *in, *hex; } v[] = {
		{ "", "e3b0c44298fc1c149afbf4c8996fb924"
		      "27ae41e4649b934ca495991b7852b855" },
		{ "abc", "ba7816bf8f01cfea414140de5dae2223"
			 "b00361a396177a9cb410ff61f20015ad" },
		{ "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
		  "248d6a61d20638b8e5c026930c3e6039"
		  "a33ce45964ff2167f6ecedd419db06c1" },
	};
	char hex[SHA256_HEX_LEN + 1];

	for (size_t i = 0; i < RTE_DIM(v); i++) {
		CHECK_EXPR(sha256_hex_of(v[i].in, strlen(v[i].in), hex) == 0);
		CHECK(!strcmp(hex, v[i].hex), "'%s': %s", v[i].in, hex);
	}

	/* a million 'a' from a file */
	FILE *f = tmpfile();
	CHECK_EXPR(f != NULL);
	if (!f)
		return;
	for (int i = 0; i < 1000000; i++)
		fputc('a', f);
	rewind(f);
	CHECK_EXPR(sha256_file_hex(f, hex) == 0);
	fclose(f);
	CHECK(!strcmp(hex, "cdc76e5c9914fb9281a1c7e284d73e67"
			   "f1809a48a497200e046d39ccc7112cd0"), "1M a: %s", hex);
}

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void
file_digest(void)
{
	char path[256], hex[SHA256_HEX_LEN + 1], err[CFG_ERR_MAX];

	snprintf(path, sizeof path, "%s/abc", tmpdir);
	write_file(path, "abc");
	CHECK_EXPR(state_file_sha256(path, hex, err, sizeof err) == 0);
	CHECK(!strcmp(hex, "ba7816bf8f01cfea414140de5dae2223"
			   "b00361a396177a9cb410ff61f20015ad"), "%s", hex);
	snprintf(path, sizeof path, "%s/missing", tmpdir);
	CHECK_EXPR(state_file_sha256(path, hex, err, sizeof err) < 0);
	CHECK(strstr(err, path) != NULL, "err '%s'", err);
}

/* The notes written with the state, read back; the file loads. */
static void
origin_round_trip(const char *fixtures)
{
	struct vxs_config a, b;
	struct state_origin o;
	char topo[256], out[300], err[CFG_ERR_MAX], notes[600];
	const char *hex = "00112233445566778899aabbccddeeff"
			  "00112233445566778899aabbccddeeff";

	snprintf(topo, sizeof topo, "%s/minimal.yaml", fixtures);
	if (config_load(topo, &a, err, sizeof err)) {
		CHECK(false, "%s", err);
		return;
	}
	snprintf(out, sizeof out, "%s/t.yaml.state", tmpdir);
	state_origin_notes("/etc/vxswitch/t.yaml", hex, notes, sizeof notes);
	CHECK(config_save_file(&a, out, "t", notes, err, sizeof err) == 0,
	      "%s", err);
	state_origin_read(out, &o);
	CHECK(!strcmp(o.sha256, hex), "sha256 '%s'", o.sha256);
	CHECK(!strcmp(o.topology, "/etc/vxswitch/t.yaml"), "'%s'", o.topology);
	CHECK(strlen(o.saved) > 10 && strstr(o.saved, "UTC"), "saved '%s'",
	      o.saved);
	if (config_load(out, &b, err, sizeof err) == 0)
		config_free(&b);	/* the notes are comments */
	else
		CHECK(false, "%s does not load: %s", out, err);
	CHECK_EXPR(state_decide(&o, hex, STATE_CHOICE_NONE) ==
		   STATE_START_STATE);

	/* an older version's file: no notes */
	CHECK_EXPR(config_save_file(&a, out, "t", NULL, err, sizeof err) == 0);
	state_origin_read(out, &o);
	CHECK_EXPR(o.sha256[0] == '\0' && o.topology[0] == '\0');
	CHECK_EXPR(o.saved[0] != '\0');
	CHECK_EXPR(state_decide(&o, hex, STATE_CHOICE_NONE) ==
		   STATE_START_UNRECORDED);
	config_free(&a);

	snprintf(out, sizeof out, "%s/none", tmpdir);
	state_origin_read(out, &o);
	CHECK_EXPR(!o.saved[0] && !o.topology[0] && !o.sha256[0]);
}

static void
decisions(void)
{
	static const struct state_origin same = { .saved = "x", .sha256 = "aa" };
	static const struct state_origin other = { .saved = "x", .sha256 = "bb" };
	static const struct state_origin old = { .saved = "x" };
	static const struct {
		const struct state_origin *o;
		enum state_choice c;
		enum state_start want;
	} t[] = {
		{ NULL, STATE_CHOICE_NONE, STATE_START_TOPOLOGY },
		{ NULL, STATE_CHOICE_KEEP, STATE_START_TOPOLOGY },
		{ NULL, STATE_CHOICE_RESET, STATE_START_TOPOLOGY },
		{ &same, STATE_CHOICE_NONE, STATE_START_STATE },
		{ &same, STATE_CHOICE_KEEP, STATE_START_STATE },
		{ &same, STATE_CHOICE_RESET, STATE_START_RESET },
		{ &other, STATE_CHOICE_NONE, STATE_START_REFUSED },
		{ &other, STATE_CHOICE_KEEP, STATE_START_KEPT },
		{ &other, STATE_CHOICE_RESET, STATE_START_RESET },
		{ &old, STATE_CHOICE_NONE, STATE_START_UNRECORDED },
		{ &old, STATE_CHOICE_KEEP, STATE_START_UNRECORDED },
		{ &old, STATE_CHOICE_RESET, STATE_START_RESET },
	};

	for (size_t i = 0; i < RTE_DIM(t); i++) {
		enum state_start got = state_decide(t[i].o, "aa", t[i].c);
		CHECK(got == t[i].want, "case %zu: %d, want %d", i, got,
		      t[i].want);
	}
	/* a topology with no digest (a pipe): nothing to compare with */
	CHECK_EXPR(state_decide(&other, "", STATE_CHOICE_NONE) ==
		   STATE_START_UNRECORDED);
	CHECK_EXPR(state_decide(&other, "", STATE_CHOICE_RESET) ==
		   STATE_START_RESET);
}

static void
move_aside(void)
{
	char path[256], m1[300], m2[300], err[CFG_ERR_MAX];

	snprintf(path, sizeof path, "%s/s.state", tmpdir);
	write_file(path, "one");
	CHECK(state_move_aside(path, m1, sizeof m1, err, sizeof err) == 0,
	      "%s", err);
	CHECK_EXPR(access(path, F_OK) != 0 && access(m1, F_OK) == 0);
	CHECK(!strncmp(m1, path, strlen(path)) && m1[strlen(path)] == '.' &&
	      strchr(m1 + strlen(path), 'T') && strchr(m1 + strlen(path), 'Z'),
	      "moved to '%s'", m1);
	write_file(path, "two");
	CHECK(state_move_aside(path, m2, sizeof m2, err, sizeof err) == 0,
	      "%s", err);
	CHECK(strcmp(m1, m2) != 0, "both moved to %s", m1);
	CHECK_EXPR(access(m1, F_OK) == 0 && access(m2, F_OK) == 0);
	snprintf(path, sizeof path, "%s/missing.state", tmpdir);
	CHECK_EXPR(state_move_aside(path, m1, sizeof m1, err, sizeof err) < 0);
	CHECK(strstr(err, path) != NULL, "err '%s'", err);
}

static void
refusal(void)
{
	struct state_origin o = { .saved = "2026-11-27 22:00:00 UTC",
				  .topology = "/old/t.yaml",
				  .sha256 = "1111111111111111ffff" };
	char text[4096];

	state_refusal_text("/etc/t.yaml", "/etc/t.yaml.state", &o,
			   "2222222222222222eeee", text, sizeof text);
	static const char *const want[] = {
		"/etc/t.yaml changed", "/etc/t.yaml.state was written",
		"2026-11-27 22:00:00 UTC", "/old/t.yaml", "1111111111111111",
		"2222222222222222", "--reset-state", "--keep-state",
		"--no-state",
	};
	for (size_t i = 0; i < RTE_DIM(want); i++)
		CHECK(strstr(text, want[i]) != NULL, "no '%s' in:\n%s",
		      want[i], text);
	CHECK_EXPR(text[strlen(text) - 1] == '\n');
}

int
main(int argc, char **argv)
{
	if (argc < 2 || !mkdtemp(tmpdir)) {
		printf("usage: test_state_origin FIXTURE_DIR\n");
		return 1;
	}
	setenv("VXS_RUN_DIR", "/tmp/vxs run", 1);
	vectors();
	file_digest();
	origin_round_trip(argv[1]);
	decisions();
	move_aside();
	refusal();
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		printf("cannot remove %s\n", tmpdir);
	return unit_test_report();
}
