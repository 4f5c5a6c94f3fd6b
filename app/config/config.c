/* SPDX-License-Identifier: BSD-3-Clause
 * Loads the topology file (see config.h and the files in topology/).
 *
 * The file is read into a YAML document first (config_yaml.c) and then
 * walked in a fixed order (eal, datapath, ports, underlay, flows) whatever
 * order the sections appear in, so that every check can see what it
 * depends on: the pmd cores when a port names an rxq affinity, the ports
 * when the underlay names its NIC. Each section's keys are rows in
 * config_keys.c; config_loader.h says which file holds what.
 */
#include "config_loader.h"
#include "dp_opts.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- datapath ---- */

/* optimisations: {hash-reuse: false, ...}: any subset, the rest default */
int
dp_optimisations(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct vxs_config *cfg = obj;

	if (expect_map(ld, v, "optimisations") < 0)
		return -1;
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start;
	     p < v->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(&ld->doc, p->key);
		const yaml_node_t *val = yaml_document_get_node(&ld->doc,
								p->value);
		const char *name = scalar(ld, k, "optimisation");
		bool on = false;
		if (name == NULL)
			return -1;
		int o = dp_opt_by_name(name);
		if (o < 0)
			return fail(ld, k, "unknown optimisation '%s'", name);
		if (get_bool(ld, val, name, &on) < 0)
			return -1;
		if (on)
			cfg->dp_opts |= DP_OPT_BIT(o);
		else
			cfg->dp_opts &= ~DP_OPT_BIT(o);
	}
	return 0;
}

/* {name: ofport, ...}: numbers kept for ports to come (config.h). */
int
dp_ofport_names(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct vxs_config *cfg = obj;
	size_t n;

	if (expect_map(ld, v, "ofport-names") < 0)
		return -1;
	n = v->data.mapping.pairs.top - v->data.mapping.pairs.start;
	if (n > CFG_MAX_OFPORT_NAMES)
		return fail(ld, v, "more than %d ofport-names '%zu'",
			    CFG_MAX_OFPORT_NAMES, n);
	free(cfg->ofport_names);
	cfg->n_ofport_names = 0;
	cfg->ofport_names = calloc(n ? n : 1, sizeof *cfg->ofport_names);
	if (cfg->ofport_names == NULL)
		return fail(ld, v, "out of memory for '%s'", "ofport-names");
	for (yaml_node_pair_t *p = v->data.mapping.pairs.start;
	     p < v->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = yaml_document_get_node(&ld->doc, p->key);
		const yaml_node_t *val = yaml_document_get_node(&ld->doc,
								p->value);
		struct cfg_ofport_name *o =
			&cfg->ofport_names[cfg->n_ofport_names];
		uint64_t num;
		if (get_string(ld, k, "port name", o->name, sizeof o->name) < 0 ||
		    get_uint(ld, val, "ofport", 1, OFPORT_MAX, &num) < 0)
			return -1;
		for (uint32_t i = 0; i < cfg->n_ofport_names; i++)
			if (!strcmp(cfg->ofport_names[i].name, o->name) ||
			    cfg->ofport_names[i].ofport == num)
				return fail(ld, k, "ofport-names has it twice "
					    "'%s'", o->name);
		o->ofport = (uint32_t)num;
		cfg->n_ofport_names++;
	}
	return 0;
}

static int
parse_datapath(struct loader *ld)
{
	static const struct scope sc = { "in datapath", 0, NULL };
	if (ld->datapath == NULL)
		return 0;
	if (expect_map(ld, ld->datapath, "datapath") < 0)
		return -1;
	return parse_mapping(ld, ld->datapath, datapath_keys, ld->cfg, &sc);
}

/* ---- flows ---- */

static int
add_flow(struct loader *ld, const yaml_node_t *v)
{
	struct vxs_config *cfg = ld->cfg;
	const char *s = scalar(ld, v, "flow");
	if (s == NULL)
		return -1;
	if (*s == '\0')
		return fail(ld, v, "empty value for '%s'", "flow");
	char *text = strdup(s);
	if (text == NULL)
		return fail(ld, v, "out of memory for '%s'", "flow");
	cfg->flows[cfg->n_flows].text = text;
	cfg->flows[cfg->n_flows].line = (int)v->start_mark.line + 1;
	cfg->flows[cfg->n_flows].col = (int)v->start_mark.column + 1;
	cfg->n_flows++;
	return 0;
}

static int
parse_flows(struct loader *ld)
{
	const yaml_node_t *seq = ld->flows;
	if (seq == NULL)
		return 0;
	if (expect_seq(ld, seq, "flows") < 0)
		return -1;
	if (seq_len(seq) > UINT16_MAX)
		return fail(ld, seq, "more than %u flows '%zu'", UINT16_MAX,
			    seq_len(seq));
	ld->cfg->flows = calloc(seq_len(seq) ? seq_len(seq) : 1,
				sizeof *ld->cfg->flows);
	if (ld->cfg->flows == NULL)
		return fail(ld, seq, "out of memory for '%s'", "flows");
	for (size_t i = 0; i < seq_len(seq); i++)
		if (add_flow(ld, seq_item(ld, seq, i)) < 0)
			return -1;
	return 0;
}

/* ---- the file ---- */

/* Only notes where each section is (section_keys), so that load_topology()
 * can walk them in dependency order whatever order the file has them in. */
static int
find_sections(struct loader *ld)
{
	static const struct scope sc = { "", 0, NULL };

	if (expect_map(ld, ld->root, "topology") < 0)
		return -1;
	return parse_mapping(ld, ld->root, section_keys, ld, &sc);
}

static struct cfg_pos
pos_of(const yaml_node_t *n)
{
	return n ? (struct cfg_pos){ (int)n->start_mark.line + 1,
				     (int)n->start_mark.column + 1 }
		 : (struct cfg_pos){ 0, 0 };
}

static int
load_topology(struct loader *ld)
{
	struct vxs_config *cfg = ld->cfg;

	if (find_sections(ld) < 0 || parse_eal(ld) < 0 ||
	    parse_datapath(ld) < 0 || check_cores(ld) < 0 ||
	    parse_ports(ld) < 0 || parse_underlay(ld) < 0 ||
	    check_tunnel(ld) < 0 || parse_flows(ld) < 0)
		return -1;
	cfg->pos_ports = pos_of(ld->ports);
	cfg->pos_lcores = pos_of(ld->lcores_node ? ld->lcores_node
			  : ld->datapath ? map_get(ld, ld->datapath, "pmd-cores")
			  : NULL);
	cfg->pos_memory = pos_of(ld->memory_node ? ld->memory_node
				 : ld->socket_mem_node);
	cfg->pos_n_mbufs = pos_of(ld->datapath ? map_get(ld, ld->datapath,
						 "n-mbufs") : NULL);
	return config_check_limits(cfg, ld->err, ld->errlen);
}

void
config_defaults(struct vxs_config *cfg)
{
	cfg->eal_main_lcore = -1;
	snprintf(cfg->eal_file_prefix, sizeof cfg->eal_file_prefix,
		 "vxswitch");
	cfg->n_pmd_cores = 1;
	cfg->pmd_cores[0] = 1;
	cfg->emc_insert_inv_prob = 100;
	cfg->flow_max_idle_ms = 10000;
	cfg->max_megaflows = 65536;
	cfg->ct_max_conns = CFG_CT_MAX_CONNS_DEFAULT;
	cfg->ct_default_zone_limit = CFG_CT_ZONE_LIMIT_AUTO;
	cfg->dp_opts = dp_opts_default();
	cfg->pmd_idle_backoff_us = 50;
	cfg->tx_flush_interval_us = 50;
	cfg->arp_rate = ARP_RATE_DEFAULT;
	cfg->arp_burst = ARP_BURST_DEFAULT;
	cfg->pmtud = true;
	cfg->pmtud_rate = PMTUD_RATE_DEFAULT;
	cfg->pmtud_burst = PMTUD_BURST_DEFAULT;
	snprintf(cfg->ctl_socket, sizeof cfg->ctl_socket,
		 "/var/run/vxswitch/vxswitch.ctl");
	snprintf(cfg->bridge, sizeof cfg->bridge, "br-int");
	cfg->pmd_rxq_assign = CFG_RXQ_ASSIGN_CYCLES;
	cfg->pmd_rxq_isolate = true;
	cfg->pmd_auto_lb_load_threshold = 95;
	cfg->pmd_auto_lb_improvement_threshold = 25;
	cfg->pmd_auto_lb_rebal_interval_ms = CFG_MIN_MS;
	cfg->pmd_load_interval_ms = 5000;
}

int
config_load(const char *path, struct vxs_config *cfg, char *err,
	    size_t errlen)
{
	struct loader ld = { .file = path, .cfg = cfg, .err = err,
			     .errlen = err ? errlen : 0 };
	int rc;

	memset(cfg, 0, sizeof *cfg);
	config_defaults(cfg);
	if (strlen(path) >= sizeof cfg->file) {
		fail_file(&ld, " path too long");
		config_free(cfg);
		return -1;
	}
	memcpy(cfg->file, path, strlen(path) + 1);

	FILE *f = fopen(path, "rb");
	if (f == NULL) {
		fail_file(&ld, " %s", strerror(errno));
		config_free(cfg);
		return -1;
	}
	rc = read_document(&ld, f);
	fclose(f);
	if (rc == 0)
		rc = load_topology(&ld);
	if (ld.have_doc)
		yaml_document_delete(&ld.doc);
	free(ld.buf);
	if (rc < 0)
		config_free(cfg);
	return rc;
}

void
config_free(struct vxs_config *cfg)
{
	for (int i = 0; i < cfg->n_eal_extra; i++)
		free(cfg->eal_extra[i]);
	free(cfg->eal_extra);
	for (unsigned i = 0; i < cfg->n_flows; i++)
		free(cfg->flows[i].text);
	free(cfg->flows);
	free(cfg->ports);
	free(cfg->ofport_names);
	memset(cfg, 0, sizeof *cfg);
}

const struct cfg_port *
config_find_port(const struct vxs_config *cfg, const char *name)
{
	for (unsigned i = 0; i < cfg->n_ports; i++)
		if (strcmp(cfg->ports[i].name, name) == 0)
			return &cfg->ports[i];
	return NULL;
}
