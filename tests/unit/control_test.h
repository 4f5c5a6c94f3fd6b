/* SPDX-License-Identifier: BSD-3-Clause
 * What the parts of test_control share: the counted checks, the paths,
 * the server with the commands the tests register (test_control.c).
 */
#ifndef VXS_CONTROL_TEST_H
#define VXS_CONTROL_TEST_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "control.h"
#include "ds.h"
#include "json_out.h"

#define CHECK(cond, ...) check((cond), __LINE__, #cond, __VA_ARGS__)

static inline long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* test_control.c: the checks, the paths, the server */
extern int n_passed, n_failed;
extern const char *ctl_path;		/* the vxswitch-ctl to test, or NULL */
/* Short, to stay inside sun_path's 108 bytes. */
extern char tmp_dir[64];
extern char sock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
void check(bool ok, int line, const char *expr, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
bool contains(const struct ds *ds, const char *needle);
extern int flows_added;
void start_server(void);

/* test_control_ctl.c */
void read_file(const char *path, struct ds *ds);
void write_text(const char *path, const char *text);
void test_ctl_basics(void);
void test_ctl_list_commands(void);
void test_ctl_add_flows(void);
void test_ctl_no_daemon(void);

/* test_control_raw.c */
#define RAW(s) s, sizeof(s) - 1
/* A connected stream socket to 'path', or -1 (a failed check). */
int unix_connect(const char *path);
void expect_raw(const char *req, size_t len, int want_served,
		const char *want);
void test_raw_requests(void);
void test_raw_arg_limit(void);
void test_raw_bad_clients(void);
void test_raw_flood(void);

/* test_control_unixctl.c */
void test_unixctl(void);

#endif
