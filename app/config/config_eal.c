/* SPDX-License-Identifier: BSD-3-Clause
 * The eal section: its keys with logic, the combinations EAL refuses, and
 * the EAL's argv from a loaded topology (config_eal_argv, config.h).
 * The lcores are config_cores.c's.
 */
#include "config_loader.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the eal section ---- */

int
eal_socket_mem(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct vxs_config *cfg = obj;
	ld->socket_mem_node = v;
	if (get_string(ld, v, "socket-mem", cfg->eal_socket_mem,
		       sizeof cfg->eal_socket_mem) < 0)
		return -1;
	/* per-socket megabytes: digits separated by single commas */
	const char *s = cfg->eal_socket_mem;
	for (size_t i = 0; s[i]; i++) {
		bool digit = s[i] >= '0' && s[i] <= '9';
		bool comma_ok = s[i] == ',' && i > 0 && s[i - 1] != ',' &&
				s[i + 1] != '\0';
		if (!digit && !comma_ok)
			return fail(ld, v, "bad socket-mem '%s'", s);
	}
	return 0;
}

int
eal_file_prefix(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct vxs_config *cfg = obj;
	if (get_string(ld, v, "file-prefix", cfg->eal_file_prefix,
		       sizeof cfg->eal_file_prefix) < 0)
		return -1;
	if (strchr(cfg->eal_file_prefix, '/') != NULL)
		return fail(ld, v, "bad file-prefix (no '/') '%s'",
			    cfg->eal_file_prefix);
	return 0;
}

/* datapath: bridge: NAME, a Linux interface name's rules (OVS bridges
 * are ones): 1 to 15 of letters, digits, '.', '_', '-'. */
int
dp_bridge(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct vxs_config *cfg = obj;
	if (get_string(ld, v, "bridge", cfg->bridge, sizeof cfg->bridge) < 0)
		return -1;
	size_t n = strlen(cfg->bridge);
	if (n == 0 || strspn(cfg->bridge, "abcdefghijklmnopqrstuvwxyz"
			     "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") != n)
		return fail(ld, v, "bad bridge name '%s' (1 to 15 letters, "
			    "digits, '.', '_' or '-')", cfg->bridge);
	return 0;
}

static int
add_extra_arg(struct loader *ld, const yaml_node_t *v, struct vxs_config *cfg)
{
	const char *s = scalar(ld, v, "extra-args");
	if (s == NULL)
		return -1;
	if (*s == '\0')
		return fail(ld, v, "empty value for '%s'", "extra-args");
	char *copy = strdup(s);
	if (copy == NULL)
		return fail(ld, v, "out of memory for '%s'", "extra-args");
	cfg->eal_extra[cfg->n_eal_extra++] = copy;
	return 0;
}

/* A list, or one string for a single argument. */
int
eal_extra_args(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct vxs_config *cfg = obj;
	size_t n = v->type == YAML_SEQUENCE_NODE ? seq_len(v) : 1;

	cfg->eal_extra = calloc(n ? n : 1, sizeof *cfg->eal_extra);
	if (cfg->eal_extra == NULL)
		return fail(ld, v, "out of memory for '%s'", "extra-args");
	if (v->type != YAML_SEQUENCE_NODE)
		return add_extra_arg(ld, v, cfg);
	for (size_t i = 0; i < n; i++)
		if (add_extra_arg(ld, seq_item(ld, v, i), cfg) < 0)
			return -1;
	return 0;
}

static int
check_eal_memory(struct loader *ld)
{
	const struct vxs_config *cfg = ld->cfg;
	if (cfg->eal_memory_mb && cfg->eal_socket_mem[0])
		return fail(ld, ld->socket_mem_node,
			    "memory-mb and socket-mem exclude each other '%s'",
			    "socket-mem");
	if (cfg->eal_no_huge && cfg->eal_socket_mem[0])
		return fail(ld, ld->socket_mem_node,
			    "socket-mem needs hugepages (no-huge is set) '%s'",
			    "socket-mem");
	return 0;
}

int
parse_eal(struct loader *ld)
{
	static const struct scope sc = { "in eal", 0, NULL };
	if (ld->eal == NULL)
		return 0;
	if (expect_map(ld, ld->eal, "eal") < 0 ||
	    parse_mapping(ld, ld->eal, eal_keys, ld->cfg, &sc) < 0)
		return -1;
	ld->main_lcore_node = key_node(ld, ld->eal, eal_keys, "main-lcore");
	ld->memory_node = key_node(ld, ld->eal, eal_keys, "memory-mb");
	return check_eal_memory(ld);
}

/* ---- the EAL argv ---- */

struct argv_builder {
	char **v;
	int n, cap;
	bool oom;
};

static void
arg_add(struct argv_builder *b, const char *s)
{
	if (b->oom)
		return;
	if (b->n == b->cap) {
		int cap = b->cap ? b->cap * 2 : 16;
		char **v = realloc(b->v, cap * sizeof *v);
		if (v == NULL) {
			b->oom = true;
			return;
		}
		b->v = v;
		b->cap = cap;
	}
	if ((b->v[b->n] = strdup(s)) == NULL)
		b->oom = true;
	else
		b->n++;
}

static void
arg_add_uint(struct argv_builder *b, unsigned long v)
{
	char num[24];
	snprintf(num, sizeof num, "%lu", v);
	arg_add(b, num);
}

static void
arg_add_options(struct argv_builder *b, const struct vxs_config *cfg)
{
	if (cfg->eal_lcores[0]) {
		/* --lcores, not -l: it also maps lcores onto CPUs */
		arg_add(b, "--lcores");
		arg_add(b, cfg->eal_lcores);
	}
	if (cfg->eal_main_lcore >= 0) {
		arg_add(b, "--main-lcore");
		arg_add_uint(b, (unsigned long)cfg->eal_main_lcore);
	}
	if (cfg->eal_memory_mb) {
		arg_add(b, "-m");
		arg_add_uint(b, cfg->eal_memory_mb);
	}
	if (cfg->eal_socket_mem[0]) {
		arg_add(b, "--socket-mem");
		arg_add(b, cfg->eal_socket_mem);
	}
	if (cfg->eal_file_prefix[0]) {
		arg_add(b, "--file-prefix");
		arg_add(b, cfg->eal_file_prefix);
	}
	if (cfg->eal_huge_dir[0]) {
		arg_add(b, "--huge-dir");
		arg_add(b, cfg->eal_huge_dir);
	}
	if (cfg->eal_no_pci)
		arg_add(b, "--no-pci");
	if (cfg->eal_no_huge)
		arg_add(b, "--no-huge");
	for (int i = 0; i < cfg->n_eal_extra; i++)
		arg_add(b, cfg->eal_extra[i]);
}

/* The returned array is argv[0..argc), a NULL, then a second copy of the
 * same pointers that only config_free_argv() reads: rte_eal_init()
 * permutes argv and overwrites argv[optind - 1] with argv[0], so freeing
 * what it leaves in the first half would double-free one string and leak
 * another. */
int
config_eal_argv(const struct vxs_config *cfg, const char *prog, char ***argv)
{
	struct argv_builder b = { NULL, 0, 0, false };
	char **out = NULL;

	arg_add(&b, prog);
	arg_add_options(&b, cfg);
	if (!b.oom)
		out = malloc((2 * (size_t)b.n + 1) * sizeof *out);
	if (out == NULL) {
		for (int i = 0; i < b.n; i++)
			free(b.v[i]);
		free(b.v);
		*argv = NULL;
		return -1;
	}
	memcpy(out, b.v, b.n * sizeof *out);
	out[b.n] = NULL;
	memcpy(out + b.n + 1, b.v, b.n * sizeof *out);
	free(b.v);
	*argv = out;
	return b.n;
}

void
config_free_argv(int argc, char **argv)
{
	if (argv == NULL)
		return;
	for (int i = 0; i < argc; i++)
		free(argv[argc + 1 + i]);
	free(argv);
}
