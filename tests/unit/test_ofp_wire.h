/* SPDX-License-Identifier: BSD-3-Clause
 * What the parts of test_ofp_wire share: the counted checks, the
 * numbers-only port map, rule comparison, the vector file's blocks and
 * the exact-size decoders (test_ofp_wire.c), the mutants
 * (test_ofp_wire_mutants.c), the error, split and bench cases
 * (test_ofp_wire_cases.c).
 */
#ifndef VXS_TEST_OFP_WIRE_H
#define VXS_TEST_OFP_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ofp_wire.h"

extern int n_passed, n_failed, n_mutants;
extern const struct ofp_port_map ports;

void __attribute__((format(printf, 2, 3))) check(bool ok, const char *fmt, ...);
const char *rule_text(const struct ofp_rule *r, char *buf, size_t n);
bool rules_equal(const struct ofp_rule *a, const struct ofp_rule *b);
void explain(const char *what, const struct ofp_rule *got,
	     const struct ofp_rule *want);
void set16(uint8_t *p, uint16_t v);
uint16_t g16(const uint8_t *p);
void dump_hex(const char *what, const uint8_t *p, size_t n);

#define MAX_MSGS 16

struct msg {
	bool to_switch;
	uint8_t *data;
	size_t len;
};

struct block {
	int version;
	char cmd[32];
	bool strict;
	char flow[512];
	int exit_code;
	int n;
	struct msg m[MAX_MSGS];
};

size_t unhex(const char *s, uint8_t **out);
/* decoders reading a copy of exactly len bytes (ASan sees an overrun) */
enum ofp_wire_error decode_fm(const uint8_t *p, size_t len,
			      const struct ofp_wire_conn *c,
			      struct ofp_flow_mod *fm);
enum ofp_wire_error decode_sr(const uint8_t *p, size_t len,
			      struct ofp_stats_request *req);

/* test_ofp_wire_mutants.c: every mutant of msg refused, none read past
 * its buffer */
typedef enum ofp_wire_error (*decode_fn)(const uint8_t *, size_t, void *);
enum ofp_wire_error fm_fn(const uint8_t *p, size_t len, void *aux);
enum ofp_wire_error sr_fn(const uint8_t *p, size_t len, void *aux);
void mutate(const struct block *b, const struct msg *msg, decode_fn fn,
	    void *aux, bool flow_mod);

/* test_ofp_wire_cases.c */
void test_errors(void);
void test_multipart_split(void);
void test_sg_encoding(void);
void bench(void);
int test_ovs_errors(const char *path);

#endif
