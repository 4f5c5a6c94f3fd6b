/* SPDX-License-Identifier: BSD-3-Clause
 * Tests for app/config/config.c: the fixtures in tests/unit/topologies/ (the two
 * shipped topology files among them) field by field, a table of broken
 * files that must each be rejected at an exact file:line:col, ${VAR}
 * expansion, and the EAL argv.
 *
 * usage: test_config [FIXTURE_DIR]   (default tests/unit/topologies)
 *
 * This file: the checks, the helpers and main; the good files are tested
 * in test_config_good.c, the broken ones in test_config_bad.c.
 */
#include "config_test.h"

int n_passed, n_failed;
const char *fixtures = "tests/unit/topologies";
char tmpdir[] = "/tmp/test_config.XXXXXX";

bool
check(bool ok, const char *file, int line, const char *fmt, ...)
{
	if (ok) {
		n_passed++;
		return true;
	}
	n_failed++;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s:%d: FAIL: ", file, line);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return false;
}

rte_be32_t
ip(const char *s)
{
	rte_be32_t a = 0;
	if (inet_pton(AF_INET, s, &a) != 1)
		abort();
	return a;
}

bool
mac_is(const struct rte_ether_addr *m, const char *s)
{
	char buf[RTE_ETHER_ADDR_FMT_SIZE];
	rte_ether_format_addr(buf, sizeof buf, m);
	return strcasecmp(buf, s) == 0;
}

bool
is_empty(const struct vxs_config *cfg)
{
	static const struct vxs_config zero;
	return memcmp(cfg, &zero, sizeof zero) == 0;
}

const char *
fixture(const char *name)
{
	static char path[CFG_PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", fixtures, name);
	return path;
}

const char *
write_tmp(const char *name, const char *text)
{
	static char path[CFG_PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");
	if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
		perror(path);
		exit(2);
	}
	return path;
}

bool
load(const char *path, struct vxs_config *cfg)
{
	char err[CFG_ERR_MAX] = "";
	int rc = config_load(path, cfg, err, sizeof err);
	return check(rc == 0, __FILE__, __LINE__, "load %s: %s", path, err);
}

int
main(int argc, char **argv)
{
	if (argc > 1)
		fixtures = argv[1];
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 2;
	}
	test_full();
	test_minimal();
	test_seed_32vm();
	test_demo_defaults();
	test_demo_env();
	test_env_expansion();
	test_vxlan_defaults();
	test_underlay6();
	test_ofports_and_lcores();
	test_eal_argv();
	test_sched_keys();
	test_bad_files();
	test_missing_file();

	unlink(write_tmp("env.yaml", ""));
	unlink(write_tmp("vx.yaml", ""));
	unlink(write_tmp("ofports.yaml", ""));
	rmdir(tmpdir);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed ? 1 : 0;
}
