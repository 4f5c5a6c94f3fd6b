/* SPDX-License-Identifier: BSD-3-Clause
 * A port from the words an OVS user types (add-port NAME type=...
 * options:vhost-server-path=... other_config:pmd-rxq-affinity=...), read
 * by the topology's own port reader: the words become a one-port YAML
 * mapping, so a run-time port is held to exactly the rules (and the
 * error messages) of a port in the topology file.
 */
#include <arpa/inet.h>
#include <string.h>
#include "config_loader.h"
#include "fdir_model.h"

/* OVS's column or option names, and the topology key each is. Anything
 * else is taken as a topology key (options:/other_config: stripped), so
 * the topology's own names work too and an unknown one is refused by
 * the reader as "unknown key". */
static const struct {
	const char *ovs, *key;
} key_map[] = {
	{ "vhost-server-path", "path" },
	{ "dpdk-devargs", "devargs" },
	{ "n_rxq", "n-rxq" },
	{ "n_rxq_desc", "rxd" },
	{ "n_txq_desc", "txd" },
	{ "mtu_request", "mtu" },
	{ "ofport_request", "ofport" },
	{ "pmd-rxq-affinity", "rxq-affinity" },
};

static const char *
topology_key(const char *word, size_t len, char *buf, size_t size)
{
	static const char *const prefixes[] = { "options:", "other_config:" };

	for (size_t i = 0; i < RTE_DIM(prefixes); i++) {
		size_t n = strlen(prefixes[i]);
		if (len > n && !strncmp(word, prefixes[i], n)) {
			word += n;
			len -= n;
			break;
		}
	}
	if (len >= size)
		len = size - 1;
	memcpy(buf, word, len);
	buf[len] = '\0';
	for (size_t i = 0; i < RTE_DIM(key_map); i++)
		if (!strcmp(buf, key_map[i].ovs))
			return key_map[i].key;
	return buf;
}

static int
add_pair(yaml_document_t *doc, int map, const char *key, const char *value)
{
	int k = yaml_document_add_scalar(doc, NULL, (yaml_char_t *)key, -1,
					 YAML_PLAIN_SCALAR_STYLE);
	int v = yaml_document_add_scalar(doc, NULL, (yaml_char_t *)value, -1,
					 YAML_DOUBLE_QUOTED_SCALAR_STYLE);
	return k && v && yaml_document_append_mapping_pair(doc, map, k, v)
		       ? 0 : -1;
}

/* vnis=1001,1002: the topology's list */
static int
add_list(yaml_document_t *doc, int map, const char *key, const char *value)
{
	int k = yaml_document_add_scalar(doc, NULL, (yaml_char_t *)key, -1,
					 YAML_PLAIN_SCALAR_STYLE);
	int seq = yaml_document_add_sequence(doc, NULL,
					     YAML_FLOW_SEQUENCE_STYLE);

	if (!k || !seq || !yaml_document_append_mapping_pair(doc, map, k, seq))
		return -1;
	for (const char *s = value;; s++) {
		size_t len = strcspn(s, ",");
		int v = yaml_document_add_scalar(doc, NULL, (yaml_char_t *)s,
						 (int)len,
						 YAML_PLAIN_SCALAR_STYLE);
		if (!v || !yaml_document_append_sequence_item(doc, seq, v))
			return -1;
		s += len;
		if (!*s)
			return 0;
	}
}

/* A vxlan port's words that are the topology's options: keys (remote_ip,
 * key, ...): they go in its options mapping. */
static bool
is_vxlan_option(const char *key)
{
	for (const struct key_rule *r = vxlan_option_keys; r->key; r++)
		if (!strcmp(r->key, key))
			return true;
	return false;
}

static bool
is_vxlan(int argc, const char *const *argv)
{
	bool vxlan = false;	/* the last type= counts, as merge has it */

	for (int i = 1; i < argc; i++)
		if (!strncmp(argv[i], "type=", 5))
			vxlan = !strcmp(argv[i] + 5, "vxlan");
	return vxlan;
}

int
config_port_from_args(int argc, const char *const *argv,
		      struct cfg_port *out, char *err, size_t errlen)
{
	return config_port_from_args_merge(argc, argv, 1, out, err, errlen);
}

int
config_port_from_args_merge(int argc, const char *const *argv, int n_base,
			    struct cfg_port *out, char *err, size_t errlen)
{
	struct vxs_config cfg = { .ports = out };
	struct loader ld = { .file = "", .cfg = &cfg, .err = err,
			     .errlen = errlen };
	char keys[argc][CFG_NAME_MAX];
	int rc = -1, map;

	memset(out, 0, sizeof *out);
	if (!yaml_document_initialize(&ld.doc, NULL, NULL, NULL, 1, 1)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	ld.have_doc = true;
	map = yaml_document_add_mapping(&ld.doc, NULL,
					YAML_BLOCK_MAPPING_STYLE);
	if (!map || add_pair(&ld.doc, map, "name", argv[0]))
		goto oom;
	for (int i = 1; i < argc; i++) {
		const char *eq = strchr(argv[i], '=');
		if (!eq || eq == argv[i]) {
			snprintf(err, errlen, "expected KEY=VALUE, not '%s'",
				 argv[i]);
			goto out;
		}
		char buf[CFG_NAME_MAX];
		const char *key = topology_key(argv[i], eq - argv[i], buf,
					       sizeof buf);
		snprintf(keys[i], sizeof keys[i], "%s", key);
		for (int j = n_base; j < i; j++)
			if (!strcmp(keys[j], keys[i])) {
				snprintf(err, errlen, "'%s' given twice", key);
				goto out;
			}
	}
	/* a vxlan port's options: always there, so that a missing
	 * remote_ip is the topology's "missing option" */
	int options = 0;
	if (is_vxlan(argc, argv)) {
		int k = yaml_document_add_scalar(&ld.doc, NULL,
						 (yaml_char_t *)"options", -1,
						 YAML_PLAIN_SCALAR_STYLE);
		options = yaml_document_add_mapping(&ld.doc, NULL,
						    YAML_FLOW_MAPPING_STYLE);
		if (!k || !options ||
		    !yaml_document_append_mapping_pair(&ld.doc, map, k,
						       options))
			goto oom;
	}
	for (int i = 1; i < argc; i++) {
		bool replaced = false;	/* a base key given again */
		for (int j = RTE_MAX(i + 1, n_base); i < n_base && j < argc; j++)
			replaced |= !strcmp(keys[j], keys[i]);
		if (replaced)
			continue;
		const char *value = strchr(argv[i], '=') + 1;
		if (!options || !is_vxlan_option(keys[i])) {
			if (add_pair(&ld.doc, map, keys[i], value))
				goto oom;
		} else if (!strcmp(keys[i], "vnis") ? add_list(&ld.doc, options,
							       keys[i], value)
						    : add_pair(&ld.doc, options,
							       keys[i], value)) {
			goto oom;
		}
	}
	/* Any core passes here: a queue pinned to a core that runs no PMD
	 * is assigned as if unpinned, with a warning (OVS's rule; the PMD
	 * set changes at run time). */
	cfg.n_pmd_cores = CFG_MAX_CORES;
	for (unsigned c = 0; c < CFG_MAX_CORES; c++)
		cfg.pmd_cores[c] = (uint16_t)c;
	ld.root = yaml_document_get_root_node(&ld.doc);
	if (parse_port(&ld, ld.root, 0) == 0) {
		rc = 0;
		goto out;
	}
	/* Our nodes have no place in a file: drop the ":1:1: " */
	size_t len = strnlen(err, errlen);
	if (len >= 6 && !memcmp(err, ":1:1: ", 6))
		memmove(err, err + 6, len - 6 + 1);
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	yaml_document_delete(&ld.doc);
	free(ld.buf);
	return rc;
}

static const char *
addr_text(bool v6, rte_be32_t ip, const uint8_t *ip6, char *buf, size_t len)
{
	return inet_ntop(v6 ? AF_INET6 : AF_INET, v6 ? (const void *)ip6
						     : (const void *)&ip,
			 buf, (socklen_t)len);
}

/* A vxlan port's options as add-port words, from n on. local_ip only
 * when it is not the VTEP's default (flow, or an address). */
static int
vxlan_words(const struct cfg_port *c, char (*words)[CFG_WORD_MAX], int n,
	    int max)
{
	char a[INET6_ADDRSTRLEN];

#define VWORD(...)                                                          \
	do {                                                                \
		if (n < max)                                                \
			snprintf(words[n++], CFG_WORD_MAX, __VA_ARGS__);    \
	} while (0)
	if (c->remote_ip_flow)
		VWORD("remote_ip=flow");
	else
		VWORD("remote_ip=%s", addr_text(c->remote_ipv6, c->remote_ip,
						c->remote_ip6, a, sizeof a));
	if (c->local_ip_flow)
		VWORD("local_ip=flow");
	else if (c->local_ipv6 || c->local_ip)
		VWORD("local_ip=%s", addr_text(c->local_ipv6, c->local_ip,
					       c->local_ip6, a, sizeof a));
	if (c->key_flow)
		VWORD("key=flow");
	else
		VWORD("key=%u", c->key);
	if (c->dst_port)
		VWORD("dst_port=%u", c->dst_port);
	if (c->udp6_zero_csum_refused)
		VWORD("udp6zerocsumrx=false");
	if (c->n_vnis) {
		char list[CFG_WORD_MAX] = "vnis=";
		size_t len = strlen(list);
		for (unsigned i = 0; i < c->n_vnis && len < sizeof list; i++)
			len += snprintf(list + len, sizeof list - len, "%s%u",
					i ? "," : "", c->vnis[i]);
		VWORD("%s", list);
	}
#undef VWORD
	return n;
}

/* The words that make c again (set Interface starts from them). */
int
config_port_to_args(const struct cfg_port *c, char (*words)[CFG_WORD_MAX],
		    int max)
{
	static const char *const offload[] = { "off", "rte_flow", "model" };
	int n = 0;

#define WORD(...)                                                           \
	do {                                                                \
		if (n < max)                                                \
			snprintf(words[n++], CFG_WORD_MAX, __VA_ARGS__);    \
	} while (0)
	switch (c->type) {
	case CFG_PORT_DPDK: WORD("type=dpdk"); break;
	case CFG_PORT_VHOST_SERVER: WORD("type=dpdkvhostuser"); break;
	case CFG_PORT_VHOST_CLIENT: WORD("type=dpdkvhostuserclient"); break;
	case CFG_PORT_VXLAN: WORD("type=vxlan"); break;
	case CFG_PORT_NULL: WORD("type=null"); break;
	}
	if (c->ofport)
		WORD("ofport=%u", c->ofport);
	if (c->type == CFG_PORT_VHOST_SERVER || c->type == CFG_PORT_VHOST_CLIENT)
		WORD("path=%s", c->path);
	if (c->type == CFG_PORT_DPDK) {
		WORD("devargs=%s", c->devargs);
		WORD("rxd=%u", c->rxd);
		WORD("txd=%u", c->txd);
		if (c->offload != CFG_OFFLOAD_OFF) {
			WORD("offload=%s", offload[c->offload]);
			WORD("offload-guaranteed=%u", c->offload_guaranteed);
			WORD("offload-pool=%u", c->offload_pool);
			WORD("offload-inserts-per-sec=%u",
			     c->offload_inserts_per_sec);
			if (c->offload == CFG_OFFLOAD_MODEL)
				WORD("offload-model-profile=%s",
				     fdir_model_profile_name(
					     c->offload_model_profile));
			WORD("offload-admission=%s",
			     c->offload_admission == CFG_ADMIT_FIFO ?
			     "fifo" : "weight");
		}
	}
	if (c->type == CFG_PORT_VXLAN)
		n = vxlan_words(c, words, n, max);
	if (c->type != CFG_PORT_VXLAN && c->type != CFG_PORT_NULL) {
		WORD("n-rxq=%u", c->n_rxq);
		if (c->mtu)
			WORD("mtu=%u", c->mtu);
	}
	if (c->n_affinity) {
		char aff[CFG_WORD_MAX] = "rxq-affinity=";
		size_t len = strlen(aff);
		for (unsigned i = 0; i < c->n_affinity; i++)
			len += snprintf(aff + len, sizeof aff - len, "%s%u:%u",
					i ? "," : "", c->affinity[i].queue,
					c->affinity[i].core);
		WORD("%s", aff);
	}
#undef WORD
	return n;
}
