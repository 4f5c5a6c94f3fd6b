/* SPDX-License-Identifier: BSD-3-Clause
 * struct vxs_config -> topology file (config_save.h).
 *
 * The plain keys are written from the loader's own rows (config_keys.c):
 * a row says where its field is and how it is read, so it also says how to
 * write it. Keys with logic (core lists, affinities, routes...) have a
 * writer here, named by key. Values go through libyaml's emitter, which
 * quotes whatever would not read back as the same string.
 */
#include "config_loader.h"
#include "config_save.h"
#include "fdir_model.h"
#include "dp_opts.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

struct emit {
	yaml_emitter_t e;
	char *err;
	size_t errlen;
	bool failed;
};

static int __attribute__((format(printf, 2, 3)))
emit_fail(struct emit *em, const char *fmt, ...)
{
	va_list ap;

	if (!em->failed && em->errlen) {
		va_start(ap, fmt);
		vsnprintf(em->err, em->errlen, fmt, ap);
		va_end(ap);
	}
	em->failed = true;
	return -1;
}

static void
emit_event(struct emit *em, yaml_event_t *ev)
{
	if (em->failed) {
		yaml_event_delete(ev);
		return;
	}
	if (!yaml_emitter_emit(&em->e, ev))
		emit_fail(em, "cannot write YAML: %s",
			  em->e.problem ? em->e.problem : "write error");
}

/* ---- YAML pieces ---- */

/* Whether s may go unquoted: also for YAML 1.1 readers (PyYAML, many
 * tools), which read 10:00:00:00:00:01 as a number and yes/on/no/off as
 * booleans. Plain: decimal numbers, true/false, and words of letters,
 * digits and _./- that start with a letter, '_' or '/'. */
static bool
plain_ok(const char *s)
{
	static const char *const words[] = { "y", "n", "yes", "no", "on",
		"off", "null", "true", "false" };
	size_t n = strlen(s);

	if (n == 0)
		return false;
	if (strspn(s, "0123456789") == n)
		return n == 1 || s[0] != '0';
	if (!strcmp(s, "true") || !strcmp(s, "false"))
		return true;
	for (size_t i = 0; i < RTE_DIM(words); i++)
		if (strcasecmp(s, words[i]) == 0)
			return false;
	if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') ||
	      s[0] == '_' || s[0] == '/'))
		return false;
	return strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		      "0123456789_./-") == n;
}

static void
put_scalar(struct emit *em, const char *s)
{
	yaml_event_t ev;

	/* The loader expands ${VAR} in every value and has no escape. */
	if (strstr(s, "${") != NULL) {
		emit_fail(em, "value cannot be written (the loader would expand "
			  "its '${') '%s'", s);
		return;
	}
	if (em->failed)
		return;
	yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s,
				     (int)strlen(s), 1, 1,
				     plain_ok(s) ? YAML_PLAIN_SCALAR_STYLE
						 : YAML_SINGLE_QUOTED_SCALAR_STYLE);
	emit_event(em, &ev);
}

static void __attribute__((format(printf, 2, 3)))
put_scalarf(struct emit *em, const char *fmt, ...)
{
	char buf[CFG_PATH_MAX * 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	put_scalar(em, buf);
}

static void
map_start(struct emit *em, bool flow)
{
	yaml_event_t ev;

	yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
		flow ? YAML_FLOW_MAPPING_STYLE : YAML_BLOCK_MAPPING_STYLE);
	emit_event(em, &ev);
}

static void
map_end(struct emit *em)
{
	yaml_event_t ev;

	yaml_mapping_end_event_initialize(&ev);
	emit_event(em, &ev);
}

static void
seq_start(struct emit *em, bool flow)
{
	yaml_event_t ev;

	yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
		flow ? YAML_FLOW_SEQUENCE_STYLE : YAML_BLOCK_SEQUENCE_STYLE);
	emit_event(em, &ev);
}

static void
seq_end(struct emit *em)
{
	yaml_event_t ev;

	yaml_sequence_end_event_initialize(&ev);
	emit_event(em, &ev);
}

static const char *
ip_text(rte_be32_t ip, char *buf)
{
	inet_ntop(AF_INET, &ip, buf, INET_ADDRSTRLEN);
	return buf;
}

static const char *
mac_text(const struct rte_ether_addr *mac, char *buf)
{
	rte_ether_format_addr(buf, RTE_ETHER_ADDR_FMT_SIZE, mac);
	return buf;
}

/* ---- plain keys, from their rows ---- */

static uint64_t
uint_field(const struct key_rule *r, const void *obj)
{
	const char *f = (const char *)obj + r->off;

	switch (r->size) {
	case sizeof(uint8_t): return *(const uint8_t *)f;
	case sizeof(uint16_t): return *(const uint16_t *)f;
	case sizeof(uint32_t): return *(const uint32_t *)f;
	default: return *(const uint64_t *)f;
	}
}

/* The row's value in obj as the loader reads it; false for the rows that
 * are not plain (custom, lists, skipped). */
static bool
row_text(const struct key_rule *r, const void *obj, char *buf, size_t len)
{
	const char *f = (const char *)obj + r->off;
	char ip[INET_ADDRSTRLEN];

	if ((r->flags & KEY_OR_FLOW) && *(const bool *)((const char *)obj +
							r->off2)) {
		snprintf(buf, len, "flow");
		return true;
	}
	switch (r->type) {
	case KEY_UINT:
		snprintf(buf, len, "%" PRIu64, uint_field(r, obj));
		return true;
	case KEY_BOOL:
		snprintf(buf, len, "%s", *(const bool *)f ? "true" : "false");
		return true;
	case KEY_STRING:
	case KEY_SOCKET_PATH:
		snprintf(buf, len, "%s", f);
		return true;
	case KEY_IPV4:
		snprintf(buf, len, "%s", ip_text(*(const rte_be32_t *)f, ip));
		return true;
	case KEY_PREFIX:
		snprintf(buf, len, "%s/%u", ip_text(*(const rte_be32_t *)f, ip),
			 *((const uint8_t *)obj + r->off2));
		return true;
	case KEY_MAC:
		mac_text((const struct rte_ether_addr *)f, buf);
		return true;
	default:
		return false;
	}
}

/* Writes a key whose own writer is in the section's function. */
typedef void (*custom_fn)(struct emit *em, const char *key, const void *obj,
			  const void *aux);

/* Every row of rules for obj: plain ones when they differ from def (or
 * are in 'always'), the rest through custom(). Aliases are skipped: the
 * canonical spelling is written. 'kind': the port type bit, 0 elsewhere. */
static void
put_rows(struct emit *em, const struct key_rule *rules, const void *obj,
	 const void *def, unsigned kind, const char *const *always,
	 custom_fn custom, const void *aux)
{
	char v[CFG_PATH_MAX * 2], d[CFG_PATH_MAX * 2];

	for (const struct key_rule *r = rules; r->key && !em->failed; r++) {
		if (r->alias_of || (r->only && kind && !(r->only & kind)))
			continue;
		if (!row_text(r, obj, v, sizeof v)) {
			if (custom && r->type != KEY_SKIP && r->type != KEY_NODE)
				custom(em, r->key, obj, aux);
			continue;
		}
		bool must = false;
		for (const char *const *a = always; a && *a; a++)
			must |= strcmp(*a, r->key) == 0;
		row_text(r, def, d, sizeof d);
		if (!must && strcmp(v, d) == 0)
			continue;
		put_scalar(em, r->key);
		put_scalar(em, v);
	}
}

/* ---- eal, datapath ---- */

static void
eal_custom(struct emit *em, const char *key, const void *obj, const void *aux)
{
	const struct vxs_config *cfg = obj, *def = aux;

	if (!strcmp(key, "lcores") && cfg->eal_lcores[0]) {
		put_scalar(em, key);
		put_scalar(em, cfg->eal_lcores);
	} else if (!strcmp(key, "socket-mem") && cfg->eal_socket_mem[0]) {
		put_scalar(em, key);
		put_scalar(em, cfg->eal_socket_mem);
	} else if (!strcmp(key, "file-prefix") &&
		   strcmp(cfg->eal_file_prefix, def->eal_file_prefix)) {
		put_scalar(em, key);
		put_scalar(em, cfg->eal_file_prefix);
	} else if (!strcmp(key, "extra-args") && cfg->n_eal_extra) {
		put_scalar(em, key);
		seq_start(em, true);
		for (int i = 0; i < cfg->n_eal_extra; i++)
			put_scalar(em, cfg->eal_extra[i]);
		seq_end(em);
	}
}

static void
dp_custom(struct emit *em, const char *key, const void *obj, const void *aux)
{
	const struct vxs_config *cfg = obj, *def = aux;

	if (!strcmp(key, "pmd-cores")) {
		put_scalar(em, key);
		seq_start(em, true);
		for (unsigned i = 0; i < cfg->n_pmd_cores; i++)
			put_scalarf(em, "%u", cfg->pmd_cores[i]);
		seq_end(em);
	} else if (!strcmp(key, "bridge") && strcmp(cfg->bridge, def->bridge)) {
		put_scalar(em, key);
		put_scalar(em, cfg->bridge);
	} else if (!strcmp(key, "ofport-names") && cfg->n_ofport_names) {
		put_scalar(em, key);
		map_start(em, false);
		for (uint32_t i = 0; i < cfg->n_ofport_names; i++) {
			put_scalar(em, cfg->ofport_names[i].name);
			put_scalarf(em, "%u", cfg->ofport_names[i].ofport);
		}
		map_end(em);
	} else if (!strcmp(key, "optimisations") &&
		   cfg->dp_opts != def->dp_opts) {
		put_scalar(em, key);
		map_start(em, true);
		for (int o = 0; o < DP_N_OPTS; o++) {
			uint32_t bit = DP_OPT_BIT(o);
			if ((cfg->dp_opts & bit) == (def->dp_opts & bit))
				continue;
			put_scalar(em, dp_opt_name(o));
			put_scalar(em, cfg->dp_opts & bit ? "true" : "false");
		}
		map_end(em);
	} else if (!strcmp(key, "pmd-rxq-assign") &&
		   cfg->pmd_rxq_assign != def->pmd_rxq_assign) {
		put_scalar(em, key);
		put_scalar(em, pmd_rxq_assign_name(cfg->pmd_rxq_assign));
	} else if (!strcmp(key, "pmd-auto-lb-rebal-interval") &&
		   cfg->pmd_auto_lb_rebal_interval_ms !=
		   def->pmd_auto_lb_rebal_interval_ms) {
		char min[32];
		put_scalar(em, key);
		put_scalar(em, pmd_rebal_interval_minutes(
			cfg->pmd_auto_lb_rebal_interval_ms, min, sizeof min));
	}
}

/* ---- ports ---- */

static const char *ip6_text(const uint8_t ip6[16], char *buf);

static void
vxlan_custom(struct emit *em, const char *key, const void *obj,
	     const void *aux)
{
	const struct cfg_port *p = obj;
	char ip[INET6_ADDRSTRLEN];

	(void)aux;
	if (!strcmp(key, "remote_ip")) {	/* "flow" is a plain row */
		put_scalar(em, key);
		put_scalar(em, p->remote_ipv6 ? ip6_text(p->remote_ip6, ip)
					      : ip_text(p->remote_ip, ip));
		return;
	}
	if (!strcmp(key, "local_ip") && (p->local_ipv6 || p->local_ip)) {
		put_scalar(em, key);
		put_scalar(em, p->local_ipv6 ? ip6_text(p->local_ip6, ip)
					     : ip_text(p->local_ip, ip));
		return;
	}
	if (!strcmp(key, "udp6zerocsumrx") && p->udp6_zero_csum_refused) {
		put_scalar(em, key);
		put_scalar(em, "false");
		return;
	}
	if (strcmp(key, "vnis") || !p->n_vnis)
		return;
	put_scalar(em, key);
	seq_start(em, true);
	for (unsigned i = 0; i < p->n_vnis; i++)
		put_scalarf(em, "%u", p->vnis[i]);
	seq_end(em);
}

static void
port_custom(struct emit *em, const char *key, const void *obj,
	    const void *aux)
{
	static const char *const offload[] = {
		[CFG_OFFLOAD_OFF] = "off", [CFG_OFFLOAD_RTE_FLOW] = "rte_flow",
		[CFG_OFFLOAD_MODEL] = "model",
	};
	static const char *const vxlan_always[] = { "remote_ip", NULL };
	const struct cfg_port *p = obj, *def = aux;

	if (!strcmp(key, "offload") && p->offload != CFG_OFFLOAD_OFF) {
		put_scalar(em, key);
		put_scalar(em, offload[p->offload]);
	} else if (!strcmp(key, "offload-model-profile") &&
		   p->offload_model_profile) {
		put_scalar(em, key);
		put_scalar(em, fdir_model_profile_name(p->offload_model_profile));
	} else if (!strcmp(key, "offload-admission") &&
		   p->offload_admission == CFG_ADMIT_FIFO) {
		put_scalar(em, key);
		put_scalar(em, "fifo");
	} else if (!strcmp(key, "rxq-affinity") && p->n_affinity) {
		char buf[16 * 16] = "";
		size_t n = 0;
		for (unsigned i = 0; i < p->n_affinity && n < sizeof buf; i++)
			n += snprintf(buf + n, sizeof buf - n, "%s%u:%u",
				      i ? "," : "", p->affinity[i].queue,
				      p->affinity[i].core);
		put_scalar(em, key);
		put_scalar(em, buf);
	} else if (!strcmp(key, "options") && p->type == CFG_PORT_VXLAN) {
		put_scalar(em, key);
		map_start(em, true);
		put_rows(em, vxlan_option_keys, p, def, 0, vxlan_always,
			 vxlan_custom, NULL);
		map_end(em);
	}
}

static const char *
port_type_text(enum cfg_port_type t)
{
	switch (t) {
	case CFG_PORT_DPDK: return "dpdk";
	case CFG_PORT_VHOST_SERVER: return "dpdkvhostuser";
	case CFG_PORT_VHOST_CLIENT: return "dpdkvhostuserclient";
	case CFG_PORT_VXLAN: return "vxlan";
	case CFG_PORT_NULL: return "null";
	}
	return "?";
}

static void
put_port(struct emit *em, const struct cfg_port *p)
{
	/* the number flows may use; the where-to-find-it keys */
	static const char *const always[] = { "ofport", "devargs", "path",
					      NULL };
	struct cfg_port def;

	memset(&def, 0, sizeof def);
	port_defaults(&def, 0);
	map_start(em, false);
	put_scalar(em, "name");
	put_scalar(em, p->name);
	put_scalar(em, "type");
	put_scalar(em, port_type_text(p->type));
	put_rows(em, port_keys, p, &def, 1u << p->type, always, port_custom,
		 &def);
	map_end(em);
}

/* ---- underlay ---- */

static const char *
ip6_text(const uint8_t ip6[16], char *buf)
{
	inet_ntop(AF_INET6, ip6, buf, INET6_ADDRSTRLEN);
	return buf;
}

static void
put_route(struct emit *em, const struct cfg_route *r)
{
	static const uint8_t none[16];
	char ip[INET6_ADDRSTRLEN];

	map_start(em, true);
	put_scalar(em, "prefix");
	put_scalarf(em, "%s/%u", r->ipv6 ? ip6_text(r->prefix6, ip)
					 : ip_text(r->prefix, ip), r->plen);
	if (r->ipv6 ? memcmp(r->gateway6, none, sizeof none) != 0
		    : r->gateway != 0) {
		put_scalar(em, "gateway");
		put_scalar(em, r->ipv6 ? ip6_text(r->gateway6, ip)
				       : ip_text(r->gateway, ip));
	}
	if (r->port[0]) {
		put_scalar(em, "port");
		put_scalar(em, r->port);
	}
	map_end(em);
}

static void
underlay_custom(struct emit *em, const char *key, const void *obj,
		const void *aux)
{
	const struct vxs_config *cfg = obj;
	char ip[INET6_ADDRSTRLEN], mac[RTE_ETHER_ADDR_FMT_SIZE];

	(void)aux;
	if (!strcmp(key, "local-ip") && cfg->vtep_ip && cfg->vtep_ip6_set) {
		put_scalar(em, key);	/* dual stack: a list of two */
		seq_start(em, true);
		put_scalarf(em, "%s/%u", ip_text(cfg->vtep_ip, ip),
			    cfg->vtep_plen);
		put_scalarf(em, "%s/%u", ip6_text(cfg->vtep_ip6, ip),
			    cfg->vtep_plen6);
		seq_end(em);
	} else if (!strcmp(key, "local-ip") && cfg->vtep_ip) {
		put_scalar(em, key);
		put_scalarf(em, "%s/%u", ip_text(cfg->vtep_ip, ip),
			    cfg->vtep_plen);
	} else if (!strcmp(key, "local-ip") && cfg->vtep_ip6_set) {
		put_scalar(em, key);
		put_scalarf(em, "%s/%u", ip6_text(cfg->vtep_ip6, ip),
			    cfg->vtep_plen6);
	} else if (!strcmp(key, "routes") && cfg->n_routes) {
		put_scalar(em, key);
		seq_start(em, false);
		for (unsigned i = 0; i < cfg->n_routes; i++)
			put_route(em, &cfg->routes[i]);
		seq_end(em);
	} else if (!strcmp(key, "arp") && cfg->n_arp) {
		put_scalar(em, key);
		seq_start(em, false);
		for (unsigned i = 0; i < cfg->n_arp; i++) {
			map_start(em, true);
			put_scalar(em, "ip");
			put_scalar(em, cfg->arp[i].ipv6 ?
				   ip6_text(cfg->arp[i].ip6, ip) :
				   ip_text(cfg->arp[i].ip, ip));
			put_scalar(em, "mac");
			put_scalar(em, mac_text(&cfg->arp[i].mac, mac));
			map_end(em);
		}
		seq_end(em);
	}
}

static bool
has_underlay(const struct vxs_config *cfg)
{
	return cfg->underlay_port[0] || cfg->vtep_ip || cfg->vtep_ip6_set ||
	       cfg->vtep_mac_set ||
	       cfg->n_routes || cfg->n_arp;
}

static void
put_underlay(struct emit *em, const struct vxs_config *cfg,
	     const struct vxs_config *def)
{
	struct vxs_config shown;

	if (!has_underlay(cfg))
		return;
	put_scalar(em, "underlay");
	map_start(em, false);
	if (cfg->underlay_port[0]) {
		put_scalar(em, "port");
		put_scalar(em, cfg->underlay_port);
	}
	/* mac: only when the file set it (else the NIC's own) */
	memcpy(&shown, cfg, sizeof shown);
	if (!cfg->vtep_mac_set)
		shown.vtep_mac = def->vtep_mac;
	put_rows(em, underlay_keys, &shown, def, 0, NULL, underlay_custom,
		 NULL);
	map_end(em);
}

/* ---- the file ---- */

static void
put_config(struct emit *em, const struct vxs_config *cfg)
{
	struct vxs_config *def = calloc(1, sizeof *def);

	if (def == NULL) {
		emit_fail(em, "out of memory");
		return;
	}
	config_defaults(def);
	map_start(em, false);
	put_scalar(em, "eal");
	map_start(em, false);
	put_rows(em, eal_keys, cfg, def, 0, NULL, eal_custom, def);
	map_end(em);
	put_scalar(em, "datapath");
	map_start(em, false);
	put_rows(em, datapath_keys, cfg, def, 0, NULL, dp_custom, def);
	map_end(em);
	put_underlay(em, cfg, def);
	put_scalar(em, "ports");
	seq_start(em, false);
	for (unsigned i = 0; i < cfg->n_ports; i++)
		put_port(em, &cfg->ports[i]);
	seq_end(em);
	if (cfg->n_flows) {
		put_scalar(em, "flows");
		seq_start(em, false);
		for (unsigned i = 0; i < cfg->n_flows; i++)
			put_scalar(em, cfg->flows[i].text);
		seq_end(em);
	}
	map_end(em);
	free(def);
}

static int
emit_document(struct emit *em, const struct vxs_config *cfg, FILE *f)
{
	yaml_event_t ev;

	if (!yaml_emitter_initialize(&em->e))
		return emit_fail(em, "out of memory");
	yaml_emitter_set_output_file(&em->e, f);
	yaml_emitter_set_unicode(&em->e, 1);
	yaml_emitter_set_width(&em->e, -1);	/* a flow stays on its line */
	yaml_emitter_set_indent(&em->e, 2);
	yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING);
	emit_event(em, &ev);
	yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1);
	emit_event(em, &ev);
	put_config(em, cfg);
	yaml_document_end_event_initialize(&ev, 1);
	emit_event(em, &ev);
	yaml_stream_end_event_initialize(&ev);
	emit_event(em, &ev);
	if (!em->failed && !yaml_emitter_flush(&em->e))
		emit_fail(em, "cannot write YAML: write error");
	yaml_emitter_delete(&em->e);
	return em->failed ? -1 : 0;
}

int
config_save(const struct vxs_config *cfg, FILE *f, const char *generator,
	    const char *notes, char *err, size_t errlen)
{
	struct emit em = { .err = err, .errlen = err ? errlen : 0 };
	char when[64];
	time_t now = time(NULL);
	struct tm tm;

	/* Checked first: a refused value leaves f with nothing written. */
	FILE *null = fopen("/dev/null", "w");
	if (null == NULL)
		return emit_fail(&em, "cannot open /dev/null: %s",
				 strerror(errno));
	int rc = emit_document(&em, cfg, null);
	fclose(null);
	if (rc < 0)
		return -1;

	gmtime_r(&now, &tm);
	strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
	fprintf(f, "# A vxswitch topology file, generated by %s.\n"
		CONFIG_SAVED_PREFIX "%s\n%s", generator, when,
		notes ? notes : "");
	if (fflush(f) != 0)
		return emit_fail(&em, "cannot write: %s", strerror(errno));
	return emit_document(&em, cfg, f);
}

static int
fsync_dir_of(const char *path)
{
	char *copy = strdup(path);
	int fd, rc = -1;

	if (copy == NULL)
		return -1;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY);
	if (fd >= 0) {
		rc = fsync(fd);
		close(fd);
	}
	free(copy);
	return rc;
}

int
config_save_file(const struct vxs_config *cfg, const char *path,
		 const char *generator, const char *notes, char *err,
		 size_t errlen)
{
	char tmp[CFG_PATH_MAX + 8];
	char why[CFG_ERR_MAX] = "";
	FILE *f;

	if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
		snprintf(err, errlen, "%s: path too long", path);
		return -1;
	}
	f = fopen(tmp, "w");
	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	int rc = config_save(cfg, f, generator, notes, why, sizeof why);
	if (rc == 0 && (fflush(f) != 0 || fsync(fileno(f)) != 0)) {
		snprintf(why, sizeof why, "%s", strerror(errno));
		rc = -1;
	}
	if (fclose(f) != 0 && rc == 0) {
		snprintf(why, sizeof why, "%s", strerror(errno));
		rc = -1;
	}
	/* Never replace a file with one that would not load (a restart
	 * would then refuse to start): the new one is left in tmp. */
	struct vxs_config back;
	char lerr[CFG_ERR_MAX];
	if (rc == 0 && config_load(tmp, &back, lerr, sizeof lerr) != 0) {
		snprintf(err, errlen, "%s: not replaced, the new version "
			 "would not load back (left in %s): %s", path, tmp,
			 lerr);
		return -1;
	}
	if (rc == 0)
		config_free(&back);
	if (rc == 0 && rename(tmp, path) != 0) {
		snprintf(why, sizeof why, "rename: %s", strerror(errno));
		rc = -1;
	}
	if (rc < 0) {
		unlink(tmp);
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	fsync_dir_of(path);	/* the rename itself, on a crash */
	return 0;
}

void
config_saved_time(const char *path, char *buf, size_t len)
{
	const size_t plen = strlen(CONFIG_SAVED_PREFIX);
	char line[256];
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (f == NULL)
		return;
	while (fgets(line, sizeof line, f) && line[0] == '#') {
		if (strncmp(line, CONFIG_SAVED_PREFIX, plen) == 0) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(buf, len, "%s", line + plen);
			break;
		}
	}
	fclose(f);
}

int
config_copy(struct vxs_config *dst, const struct vxs_config *src)
{
	memcpy(dst, src, sizeof *dst);
	dst->ports = NULL;
	dst->flows = NULL;
	dst->eal_extra = NULL;
	dst->n_eal_extra = 0;
	dst->n_flows = 0;
	dst->ofport_names = malloc((src->n_ofport_names ? src->n_ofport_names
							: 1) *
				   sizeof *dst->ofport_names);
	if (!dst->ofport_names) {
		dst->ports = NULL;
		dst->flows = NULL;
		goto oom;
	}
	if (src->n_ofport_names)
		memcpy(dst->ofport_names, src->ofport_names,
		       src->n_ofport_names * sizeof *dst->ofport_names);
	dst->ports = calloc(src->n_ports ? src->n_ports : 1,
			    sizeof *dst->ports);
	dst->flows = calloc(src->n_flows ? src->n_flows : 1,
			    sizeof *dst->flows);
	dst->eal_extra = calloc(src->n_eal_extra ? src->n_eal_extra : 1,
				sizeof *dst->eal_extra);
	if (!dst->ports || !dst->flows || !dst->eal_extra)
		goto oom;
	memcpy(dst->ports, src->ports, src->n_ports * sizeof *dst->ports);
	for (; dst->n_flows < src->n_flows; dst->n_flows++) {
		dst->flows[dst->n_flows] = src->flows[dst->n_flows];
		dst->flows[dst->n_flows].text =
			strdup(src->flows[dst->n_flows].text);
		if (!dst->flows[dst->n_flows].text)
			goto oom;
	}
	for (; dst->n_eal_extra < src->n_eal_extra; dst->n_eal_extra++)
		if (!(dst->eal_extra[dst->n_eal_extra] =
		      strdup(src->eal_extra[dst->n_eal_extra])))
			goto oom;
	return 0;
oom:
	config_free(dst);
	return -1;
}
