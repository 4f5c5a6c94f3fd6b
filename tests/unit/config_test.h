/* SPDX-License-Identifier: BSD-3-Clause
 * What the parts of test_config share: the counted checks, the fixture
 * and temporary directories, loading (test_config.c).
 */
#ifndef VXS_CONFIG_TEST_H
#define VXS_CONFIG_TEST_H

#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "config.h"

#define CHECK(c) check((c), __FILE__, __LINE__, "%s", #c)
#define CHECK_INT(a, b)                                                        \
	check((long long)(a) == (long long)(b), __FILE__, __LINE__,            \
	      "%s == %lld, expected %lld", #a, (long long)(a), (long long)(b))
#define CHECK_STR(a, b)                                                        \
	check(strcmp((a), (b)) == 0, __FILE__, __LINE__,                       \
	      "%s == \"%s\", expected \"%s\"", #a, (a), (b))
#define CHECK_IP(a, s) CHECK_INT(ntohl(a), ntohl(ip(s)))
#define CHECK_MAC(m, s) check(mac_is(&(m), s), __FILE__, __LINE__, "%s != %s", #m, s)

/* test_config.c: the checks and helpers */
extern int n_passed, n_failed;
extern const char *fixtures;
extern char tmpdir[];
bool check(bool ok, const char *file, int line, const char *fmt, ...);
rte_be32_t ip(const char *s);
bool mac_is(const struct rte_ether_addr *m, const char *s);
bool is_empty(const struct vxs_config *cfg);
const char *fixture(const char *name);
const char *write_tmp(const char *name, const char *text);
bool load(const char *path, struct vxs_config *cfg);

/* test_config_good.c */
void test_full(void);
void test_minimal(void);
void test_seed_32vm(void);
void test_demo_defaults(void);
void test_demo_env(void);
void test_env_expansion(void);
void test_vxlan_defaults(void);
void test_underlay6(void);
void test_ofports_and_lcores(void);
void test_eal_argv(void);
void test_sched_keys(void);

/* test_config_bad.c */
void test_bad_files(void);
void test_missing_file(void);

#endif
