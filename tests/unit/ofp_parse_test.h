/* SPDX-License-Identifier: BSD-3-Clause
 * What the parts of test_ofp_parse share: the counted checks, the port map
 * and the parse/format helpers (test_ofp_parse.c).
 */
#ifndef VXS_OFP_PARSE_TEST_H
#define VXS_OFP_PARSE_TEST_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "ofp_rule.h"

#define CHECK(cond, ...) check_at(__LINE__, (cond), __VA_ARGS__)

/* test_ofp_parse.c: the checks, the port map
 * (vhost-user0..31 = 1..32, vxlan = 100, dpdk-phy = 200), the helpers */
extern int n_passed, n_failed;
void __attribute__((format(printf, 3, 4)))
check_at(int line, bool ok, const char *fmt, ...);
extern const struct ofp_port_map ports;
bool rules_equal(const struct ofp_rule *a, const struct ofp_rule *b);
bool parse_ok(const char *s, enum ofp_parse_mode mode, struct ofp_rule *r);
void format(const struct ofp_rule *r, char *buf, size_t len);
/* format(parse(s)) must parse back into the same rule. */
void check_round_trip(const struct ofp_rule *r, const char *origin);
/* Parses s (ADD), checks the canonical text and that it round-trips. */
void check_format(const char *s, const char *expect);
void check_error(enum ofp_parse_mode mode, const char *s, const char *expect);
rte_be32_t ip(const char *s);

/* test_ofp_parse_cases.c */
void test_seed_rules(void);
void test_format_cases(void);
void test_stored_values(void);
void test_errors(void);
void test_error_buffers(void);
void test_prereq_order(void);

/* test_ofp_parse_ipv6.c */
void test_ipv6(void);

/* test_ofp_parse_random.c */
void test_random_round_trips(void);
void test_garbage(void);

#endif
