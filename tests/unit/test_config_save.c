/* SPDX-License-Identifier: BSD-3-Clause
 * config_save (app/config/config_save.c): every fixture and shipped
 * topology, loaded, saved and loaded again, gives an equal config (all
 * fields but where things were written); values YAML would misread are
 * quoted; a value the loader would expand ("${") is refused with nothing
 * written; config_save_file replaces its file whole, and never with one
 * that would not load back.
 *
 * usage: test_config_save FIXTURE_DIR TOPOLOGY_DIR
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "config_save.h"
#include "unit_test.h"

static char tmpdir[] = "/tmp/test_config_save.XXXXXX";

/* The config without what only says where things were in its file. */
static void
strip_positions(struct vxs_config *c)
{
	memset(c->file, 0, sizeof c->file);
	memset(&c->pos_ports, 0, sizeof c->pos_ports);
	memset(&c->pos_lcores, 0, sizeof c->pos_lcores);
	memset(&c->pos_memory, 0, sizeof c->pos_memory);
	memset(&c->pos_n_mbufs, 0, sizeof c->pos_n_mbufs);
	for (unsigned i = 0; i < c->n_ports; i++)
		c->ports[i].line = c->ports[i].col = 0;
	for (unsigned i = 0; i < c->n_routes; i++)
		c->routes[i].line = c->routes[i].col = 0;
	for (unsigned i = 0; i < c->n_arp; i++)
		c->arp[i].line = c->arp[i].col = 0;
}

static bool
configs_equal(struct vxs_config *a, struct vxs_config *b, const char *what)
{
	struct vxs_config x, y;
	bool ok = true;

	strip_positions(a);
	strip_positions(b);
	x = *a;
	y = *b;
	x.ports = y.ports = NULL;
	x.flows = y.flows = NULL;
	x.ofport_names = y.ofport_names = NULL;
	x.eal_extra = y.eal_extra = NULL;
	if (memcmp(&x, &y, sizeof x) != 0) {
		printf("%s: the top-level fields differ\n", what);
		ok = false;
	}
	for (unsigned i = 0; ok && i < a->n_ports; i++)
		if (memcmp(&a->ports[i], &b->ports[i], sizeof a->ports[i])) {
			printf("%s: port %s differs\n", what, a->ports[i].name);
			ok = false;
		}
	for (unsigned i = 0; ok && i < a->n_ofport_names; i++)
		if (memcmp(&a->ofport_names[i], &b->ofport_names[i],
			   sizeof a->ofport_names[i])) {
			printf("%s: ofport-name %s differs\n", what,
			       a->ofport_names[i].name);
			ok = false;
		}
	for (unsigned i = 0; ok && i < a->n_flows; i++)
		if (strcmp(a->flows[i].text, b->flows[i].text)) {
			printf("%s: flow '%s' != '%s'\n", what,
			       a->flows[i].text, b->flows[i].text);
			ok = false;
		}
	for (int i = 0; ok && i < a->n_eal_extra; i++)
		if (strcmp(a->eal_extra[i], b->eal_extra[i])) {
			printf("%s: extra arg differs\n", what);
			ok = false;
		}
	return ok;
}

static void
round_trip(const char *path)
{
	struct vxs_config a, b, c;
	char err[CFG_ERR_MAX], out[512];

	if (config_load(path, &a, err, sizeof err)) {
		CHECK(false, "%s does not load: %s", path, err);
		return;
	}
	snprintf(out, sizeof out, "%s/%s.saved", tmpdir, strrchr(path, '/') + 1);
	CHECK(config_save_file(&a, out, "test_config_save", NULL, err,
			       sizeof err) == 0, "%s: save: %s", path, err);
	if (config_load(out, &b, err, sizeof err)) {
		CHECK(false, "%s: saved file does not load: %s", path, err);
		config_free(&a);
		return;
	}
	CHECK(configs_equal(&a, &b, path), "%s: round trip differs", path);
	/* a copy is equal too, and independent */
	CHECK_EXPR(config_copy(&c, &b) == 0);
	CHECK(configs_equal(&b, &c, "copy"), "%s: copy differs", path);
	config_free(&c);
	char when[64];
	config_saved_time(out, when, sizeof when);
	CHECK(strlen(when) > 10 && strstr(when, "UTC"), "saved time '%s'", when);
	CHECK_EXPR(access(strcat(out, ".tmp"), F_OK) != 0);
	config_free(&a);
	config_free(&b);
}

static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

/* Strings YAML would read as something else, or that need quotes. */
static void
quoting(void)
{
	char p[512], out[512], err[CFG_ERR_MAX];
	struct vxs_config a, b;

	snprintf(p, sizeof p, "%s/quoting.yaml", tmpdir);
	snprintf(out, sizeof out, "%s/quoting.saved", tmpdir);
	write_file(p,
"eal: {file-prefix: \"#x: 'y' \\\"z\\\"\", extra-args: [\"-n\", \"- 4\", \"yes\", \"[a]\", \"{b}\", \"&c\", \"*d\", \"e: f\"]}\n"
"datapath: {ctl-socket: \"/tmp/a b: c.ctl\", state-file: \" lead\"}\n"
"ports:\n"
"  - {name: p0, type: dpdk, devargs: \"net_pcap0,rx_pcap=/tmp/#a.pcap\"}\n"
"flows:\n"
"  - \"priority=1, in_port=p0 actions=drop\"\n");
	if (config_load(p, &a, err, sizeof err)) {
		CHECK(false, "quoting fixture: %s", err);
		return;
	}
	CHECK(config_save_file(&a, out, "t", NULL, err, sizeof err) == 0, "%s",
	      err);
	if (config_load(out, &b, err, sizeof err) == 0) {
		CHECK_EXPR(configs_equal(&a, &b, "quoting"));
		config_free(&b);
	} else {
		CHECK(false, "quoting: saved file does not load: %s", err);
	}
	/* "${" cannot be written: refused, the old file stays */
	free(a.flows[0].text);
	a.flows[0].text = strdup("in_port=p0,actions=drop ${HOME}");
	CHECK_EXPR(config_save_file(&a, out, "t", NULL, err, sizeof err) < 0);
	CHECK(strstr(err, "${") != NULL, "err '%s'", err);
	CHECK_EXPR(config_load(out, &b, err, sizeof err) == 0);
	config_free(&b);
	/* a config that would not load back (an rxq pinned to a core that is
	 * no PMD's) does not replace the file: it is left in .tmp */
	free(a.flows[0].text);
	a.flows[0].text = strdup("in_port=p0,actions=drop");
	a.ports[0].n_affinity = 1;
	a.ports[0].affinity[0].queue = 0;
	a.ports[0].affinity[0].core = 77;
	CHECK_EXPR(config_save_file(&a, out, "t", NULL, err, sizeof err) < 0);
	CHECK(strstr(err, "not a pmd core") && strstr(err, "would not load"),
	      "err '%s'", err);
	CHECK_EXPR(config_load(out, &b, err, sizeof err) == 0);
	CHECK_EXPR(b.ports[0].n_affinity == 0);
	config_free(&b);
	config_free(&a);
}

int
main(int argc, char **argv)
{
	char path[512];
	static const char *const fixtures[] = { "full.yaml", "minimal.yaml",
		"live.yaml",
		"vxlan-2vm.yaml", "vxlan-32vm.yaml", "underlay6.yaml",
		"vxlan6.yaml" };

	if (argc < 3 || !mkdtemp(tmpdir)) {
		printf("usage: test_config_save FIXTURE_DIR TOPOLOGY_DIR\n");
		return 1;
	}
	setenv("VXS_RUN_DIR", "/tmp/vxs run", 1);
	for (size_t i = 0; i < RTE_DIM(fixtures); i++) {
		snprintf(path, sizeof path, "%s/%s", argv[1], fixtures[i]);
		round_trip(path);
	}
	snprintf(path, sizeof path, "%s/vxlan-2vm.yaml", argv[2]);
	round_trip(path);
	quoting();
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf %s", tmpdir);
	if (system(cmd) != 0)
		printf("cannot remove %s\n", tmpdir);
	return unit_test_report();
}
