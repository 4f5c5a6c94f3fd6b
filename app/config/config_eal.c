/* SPDX-License-Identifier: BSD-3-Clause
 * The EAL's argv from a loaded topology (config_eal_argv, config.h).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		arg_add(b, "-l");
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
