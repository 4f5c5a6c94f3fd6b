/* SPDX-License-Identifier: BSD-3-Clause
 * Loads the topology file (see config.h and the files in topology/).
 *
 * libyaml's document API gives every node a start mark, so each error can
 * point at the exact key or value that caused it. The file is read into a
 * YAML document first and then walked in a fixed order (eal, datapath,
 * ports, underlay, flows) whatever order the sections appear in, so that
 * every check can see what it depends on: the pmd cores when a port names
 * an rxq affinity, the ports when the underlay names its NIC.
 */
#include "config.h"
#include "core_list.h"
#include "dp_opts.h"
#include "ipv4_prefix.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/un.h>
#include <yaml.h>

#define OFPORT_MAX 0xfeffu		/* OFPP_MAX - 1: the last real port */
#define VNI_MAX 0xffffffu
#define AFFINITY_MAX 16
#define ROUTES_MAX 64
#define ARP_MAX 256
#define SUN_PATH_MAX (sizeof(((struct sockaddr_un *)0)->sun_path))

struct loader {
	const char *file;
	yaml_document_t doc;
	bool have_doc;
	struct vxs_config *cfg;
	char *err;
	size_t errlen;

	char *buf;			/* the last expanded scalar */
	size_t bufcap;

	/* the top-level sections, walked in dependency order */
	const yaml_node_t *root, *eal, *datapath, *underlay, *ports, *flows;

	/* remembered for checks that span sections */
	const yaml_node_t *lcores_node, *main_lcore_node, *memory_node,
		*socket_mem_node, *no_huge_node;
	const yaml_node_t *pmd_core_node[CFG_MAX_CORES];
	const yaml_node_t *vxlan_node;	/* the vxlan port's mapping */
	const yaml_node_t *vxlan_local_ip_node;
	bool lcores[CFG_MAX_CORES];	/* eal lcores, when given */
};

/* Where a mapping sits, for "unknown key 'x' in port 'y'" messages. */
struct scope {
	const char *where;		/* "in port 'y'", or "" at the top */
	unsigned kind;			/* bit of the port type, 0 elsewhere */
	const char *kind_name;
};

struct key_rule {
	const char *key;
	const char *alias_of;		/* same setting under another name */
	unsigned only;			/* port type bits it applies to; 0 = all */
	int (*parse)(struct loader *ld, const yaml_node_t *value, void *obj);
};

/* ---- errors ---- */

static int __attribute__((format(printf, 3, 4)))
fail(struct loader *ld, const yaml_node_t *node, const char *fmt, ...)
{
	if (ld->errlen == 0)
		return -1;
	int n = snprintf(ld->err, ld->errlen, "%s:%zu:%zu: ", ld->file,
			 node->start_mark.line + 1, node->start_mark.column + 1);
	if (n >= 0 && (size_t)n < ld->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(ld->err + n, ld->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* For errors that have no node: the file itself, or libyaml's marks. */
static int __attribute__((format(printf, 2, 3)))
fail_file(struct loader *ld, const char *fmt, ...)
{
	if (ld->errlen == 0)
		return -1;
	int n = snprintf(ld->err, ld->errlen, "%s:", ld->file);
	if (n >= 0 && (size_t)n < ld->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(ld->err + n, ld->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int
syntax_error(struct loader *ld, const yaml_parser_t *p)
{
	const char *problem = p->problem ? p->problem : "cannot parse YAML";

	size_t line, col;
	if (p->error == YAML_READER_ERROR) {
		config_offset_line_col(ld->file, p->problem_offset, &line, &col);
		return fail_file(ld, "%zu:%zu: %s (byte %zu)", line, col,
				 problem, p->problem_offset);
	}
	if (p->error == YAML_MEMORY_ERROR)
		return fail_file(ld, " out of memory");
	if (p->context)
		return fail_file(ld, "%zu:%zu: %s (%s at line %zu)",
				 p->problem_mark.line + 1,
				 p->problem_mark.column + 1, problem, p->context,
				 p->context_mark.line + 1);
	return fail_file(ld, "%zu:%zu: %s", p->problem_mark.line + 1,
			 p->problem_mark.column + 1, problem);
}

/* ---- nodes ---- */

static const yaml_node_t *
node_at(struct loader *ld, int id)
{
	return yaml_document_get_node(&ld->doc, id);
}

static size_t
seq_len(const yaml_node_t *seq)
{
	return seq->data.sequence.items.top - seq->data.sequence.items.start;
}

static const yaml_node_t *
seq_item(struct loader *ld, const yaml_node_t *seq, size_t i)
{
	return node_at(ld, seq->data.sequence.items.start[i]);
}

static const char *
raw_text(const yaml_node_t *scalar)
{
	return (const char *)scalar->data.scalar.value;
}

static int
expect_seq(struct loader *ld, const yaml_node_t *node, const char *what)
{
	if (node->type != YAML_SEQUENCE_NODE)
		return fail(ld, node, "expected a list for '%s'", what);
	return 0;
}

static int
expect_map(struct loader *ld, const yaml_node_t *node, const char *what)
{
	if (node->type != YAML_MAPPING_NODE)
		return fail(ld, node, "expected a mapping for '%s'", what);
	return 0;
}

/* The value under key in map, or NULL. Keys are never expanded. */
static const yaml_node_t *
map_get(struct loader *ld, const yaml_node_t *map, const char *key)
{
	for (const yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = node_at(ld, p->key);
		if (k->type == YAML_SCALAR_NODE && strcmp(raw_text(k), key) == 0)
			return node_at(ld, p->value);
	}
	return NULL;
}

/* ---- ${VAR} and ${VAR:-default} ---- */

static int
buf_append(struct loader *ld, size_t *len, const char *s, size_t n)
{
	if (*len + n + 1 > ld->bufcap) {
		size_t cap = (*len + n + 1) * 2;
		char *b = realloc(ld->buf, cap);
		if (b == NULL)
			return -1;
		ld->buf = b;
		ld->bufcap = cap;
	}
	memcpy(ld->buf + *len, s, n);
	*len += n;
	ld->buf[*len] = '\0';
	return 0;
}

static bool
is_var_name(const char *s, size_t n)
{
	if (n == 0 || !(s[0] == '_' || (s[0] >= 'A' && s[0] <= 'Z') ||
			(s[0] >= 'a' && s[0] <= 'z')))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= 'a' && s[i] <= 'z') ||
		      (s[i] >= '0' && s[i] <= '9')))
			return false;
	return true;
}

/* Appends the value of one "${...}" whose inside is body[0..n). As in the
 * shell, ":-" also replaces a variable that is set but empty. */
static int
expand_var(struct loader *ld, const yaml_node_t *node, const char *body,
	   size_t n, size_t *len)
{
	const char *sep = NULL;
	for (size_t i = 0; i + 1 < n; i++)
		if (body[i] == ':' && body[i + 1] == '-') {
			sep = body + i;
			break;
		}
	size_t name_len = sep ? (size_t)(sep - body) : n;
	char name[128];

	if (name_len >= sizeof name || !is_var_name(body, name_len))
		return fail(ld, node, "bad variable name '%.*s'", (int)name_len,
			    body);
	memcpy(name, body, name_len);
	name[name_len] = '\0';

	const char *value = getenv(name);
	if (value != NULL && (value[0] != '\0' || sep == NULL))
		return buf_append(ld, len, value, strlen(value));
	if (sep != NULL)
		return buf_append(ld, len, sep + 2, n - name_len - 2);
	return fail(ld, node, "unset environment variable '%s'", name);
}

/* The scalar's text with variables expanded, in ld->buf (valid until the
 * next call), or NULL after an error. */
static const char *
expand(struct loader *ld, const yaml_node_t *node)
{
	const char *s = raw_text(node);
	size_t n = node->data.scalar.length, len = 0;

	if (buf_append(ld, &len, "", 0) < 0)
		goto oom;
	for (size_t i = 0; i < n;) {
		if (s[i] != '$' || i + 1 >= n || s[i + 1] != '{') {
			if (buf_append(ld, &len, s + i, 1) < 0)
				goto oom;
			i++;
			continue;
		}
		const char *close = memchr(s + i + 2, '}', n - i - 2);
		if (close == NULL) {
			fail(ld, node, "unterminated '${' in '%s'", s);
			return NULL;
		}
		if (expand_var(ld, node, s + i + 2, close - (s + i + 2),
			       &len) < 0)
			return NULL;
		i = close - s + 1;
	}
	return ld->buf;
oom:
	fail(ld, node, "out of memory expanding '%s'", s);
	return NULL;
}

/* ---- scalar values ---- */

static const char *
scalar(struct loader *ld, const yaml_node_t *node, const char *what)
{
	if (node->type != YAML_SCALAR_NODE) {
		fail(ld, node, "expected a single value for '%s'", what);
		return NULL;
	}
	return expand(ld, node);
}

static int
get_string(struct loader *ld, const yaml_node_t *node, const char *what,
	   char *dst, size_t size)
{
	const char *s = scalar(ld, node, what);
	if (s == NULL)
		return -1;
	size_t n = strlen(s);
	if (n == 0)
		return fail(ld, node, "empty value for '%s'", what);
	if (n >= size)
		return fail(ld, node, "%s longer than %zu characters '%s'",
			    what, size - 1, s);
	memcpy(dst, s, n + 1);
	return 0;
}

/* Decimal digits only: "0x10", "+1", "1e3" and "010" surprises are errors
 * rather than silently different numbers. */
static bool
parse_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0;
	if (*s == '\0' || (s[0] == '0' && s[1] != '\0'))
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || x > (UINT64_MAX - 9) / 10)
			return false;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return true;
}

static int
get_uint(struct loader *ld, const yaml_node_t *node, const char *what,
	 uint64_t min, uint64_t max, uint64_t *out)
{
	const char *s = scalar(ld, node, what);
	if (s == NULL)
		return -1;
	if (!parse_u64(s, out) || *out < min || *out > max)
		return fail(ld, node,
			    "bad %s (an integer %" PRIu64 "..%" PRIu64 ") '%s'",
			    what, min, max, s);
	return 0;
}

static int
get_u32(struct loader *ld, const yaml_node_t *node, const char *what,
	uint32_t min, uint32_t max, uint32_t *out)
{
	uint64_t v = 0;
	if (get_uint(ld, node, what, min, max, &v) < 0)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int
get_u16(struct loader *ld, const yaml_node_t *node, const char *what,
	uint16_t min, uint16_t max, uint16_t *out)
{
	uint64_t v = 0;
	if (get_uint(ld, node, what, min, max, &v) < 0)
		return -1;
	*out = (uint16_t)v;
	return 0;
}

static int
get_bool(struct loader *ld, const yaml_node_t *node, const char *what,
	 bool *out)
{
	static const char *const yes[] = { "true", "yes", "on" };
	static const char *const no[] = { "false", "no", "off" };
	const char *s = scalar(ld, node, what);
	if (s == NULL)
		return -1;
	for (size_t i = 0; i < RTE_DIM(yes); i++) {
		if (strcasecmp(s, yes[i]) == 0 || strcasecmp(s, no[i]) == 0) {
			*out = strcasecmp(s, yes[i]) == 0;
			return 0;
		}
	}
	return fail(ld, node, "bad %s (true or false) '%s'", what, s);
}

static int
get_ipv4(struct loader *ld, const yaml_node_t *node, const char *what,
	 rte_be32_t *ip)
{
	const char *s = scalar(ld, node, what);
	if (s == NULL)
		return -1;
	if (inet_pton(AF_INET, s, ip) != 1)
		return fail(ld, node, "bad IPv4 address '%s'", s);
	return 0;
}

static int
get_prefix(struct loader *ld, const yaml_node_t *node, const char *what,
	   rte_be32_t *ip, uint8_t *plen)
{
	const char *s = scalar(ld, node, what);
	if (s == NULL)
		return -1;
	if (!ipv4_prefix_parse(s, false, ip, plen))
		return fail(ld, node, "bad IPv4 prefix '%s'", s);
	return 0;
}

static rte_be32_t
prefix_mask(uint8_t plen)
{
	return plen == 0 ? 0 : htonl(~0u << (32 - plen));
}

static int
get_mac(struct loader *ld, const yaml_node_t *node, const char *what,
	struct rte_ether_addr *mac)
{
	const char *s = scalar(ld, node, what);
	if (s == NULL)
		return -1;
	if (rte_ether_unformat_addr(s, mac) < 0)
		return fail(ld, node, "bad MAC address '%s'", s);
	if (!rte_is_valid_assigned_ether_addr(mac))
		return fail(ld, node, "MAC address is not unicast '%s'", s);
	return 0;
}

static int
get_socket_path(struct loader *ld, const yaml_node_t *node, const char *what,
		char *dst)
{
	if (get_string(ld, node, what, dst, CFG_PATH_MAX) < 0)
		return -1;
	if (strlen(dst) >= SUN_PATH_MAX)
		return fail(ld, node,
			    "%s too long for a unix socket (max %zu) '%s'",
			    what, SUN_PATH_MAX - 1, dst);
	return 0;
}

/* ---- core lists: "1-3,5", or a YAML list of numbers ---- */

/* core_list.h; seen[] must start all false. */
static int
parse_core_list(struct loader *ld, const yaml_node_t *node, const char *s,
		uint16_t *cores, uint16_t *n, bool *seen)
{
	unsigned twice;

	switch (core_list_parse(s, CFG_MAX_CORES, cores, n, seen, &twice)) {
	case CORE_LIST_OK:
		return 0;
	case CORE_LIST_TWICE:
		return fail(ld, node, "core listed twice '%u'", twice);
	default:
		return fail(ld, node, "bad core list '%s'", s);
	}
}

/* "0-1,4" style, from a set; fails only if dst is too small. */
static int
format_core_list(const bool *set, char *dst, size_t size)
{
	size_t len = 0;
	dst[0] = '\0';
	for (unsigned c = 0; c < CFG_MAX_CORES; c++) {
		if (!set[c])
			continue;
		unsigned hi = c;
		while (hi + 1 < CFG_MAX_CORES && set[hi + 1])
			hi++;
		int n = hi == c ? snprintf(dst + len, size - len, "%s%u",
					   len ? "," : "", c)
				: snprintf(dst + len, size - len, "%s%u-%u",
					   len ? "," : "", c, hi);
		if (n < 0 || (size_t)n >= size - len)
			return -1;
		len += n;
		c = hi;
	}
	return 0;
}

/* ---- mappings ---- */

static const struct key_rule *
find_rule(const struct key_rule *rules, const char *key)
{
	for (; rules->key; rules++)
		if (strcmp(rules->key, key) == 0)
			return rules;
	return NULL;
}

static const char *
canonical(const struct key_rule *r)
{
	return r->alias_of ? r->alias_of : r->key;
}

/* True if a pair before `upto` sets the same thing as rule (aliases too). */
static bool
set_before(struct loader *ld, const yaml_node_t *map,
	   const yaml_node_pair_t *upto, const struct key_rule *rules,
	   const struct key_rule *rule)
{
	for (const yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < upto; p++) {
		const struct key_rule *r =
			find_rule(rules, raw_text(node_at(ld, p->key)));
		if (strcmp(canonical(r), canonical(rule)) == 0)
			return true;
	}
	return false;
}

static int
parse_pair(struct loader *ld, const yaml_node_t *map,
	   const yaml_node_pair_t *pair, const struct key_rule *rules,
	   void *obj, const struct scope *sc)
{
	const yaml_node_t *k = node_at(ld, pair->key);
	const char *sep = sc->where[0] ? " " : "";

	if (k->type != YAML_SCALAR_NODE)
		return fail(ld, k, "expected a plain key%s%s", sep, sc->where);
	const struct key_rule *r = find_rule(rules, raw_text(k));
	if (r == NULL)
		return fail(ld, k, "unknown key '%s'%s%s", raw_text(k), sep,
			    sc->where);
	if (r->only != 0 && (r->only & sc->kind) == 0)
		return fail(ld, k, "key '%s' does not apply to type '%s'%s%s",
			    raw_text(k), sc->kind_name, sep, sc->where);
	if (set_before(ld, map, pair, rules, r))
		return fail(ld, k, "duplicate key '%s'%s%s", raw_text(k), sep,
			    sc->where);
	return r->parse ? r->parse(ld, node_at(ld, pair->value), obj) : 0;
}

static int
parse_mapping(struct loader *ld, const yaml_node_t *map,
	      const struct key_rule *rules, void *obj, const struct scope *sc)
{
	for (const yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++)
		if (parse_pair(ld, map, p, rules, obj, sc) < 0)
			return -1;
	return 0;
}

/* ---- eal ---- */

static int
eal_lcores(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct vxs_config *cfg = obj;
	uint16_t n = 0;
	ld->lcores_node = v;
	if (get_string(ld, v, "lcores", cfg->eal_lcores,
		       sizeof cfg->eal_lcores) < 0)
		return -1;
	return parse_core_list(ld, v, cfg->eal_lcores, NULL, &n, ld->lcores);
}

static int
eal_main_lcore(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct vxs_config *cfg = obj;
	uint16_t core;
	ld->main_lcore_node = v;
	if (get_u16(ld, v, "main-lcore", 0, CFG_MAX_CORES - 1, &core) < 0)
		return -1;
	cfg->eal_main_lcore = core;
	return 0;
}

static int
eal_memory_mb(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct vxs_config *cfg = obj;
	ld->memory_node = v;
	return get_u32(ld, v, "memory-mb", 1, 1u << 24, &cfg->eal_memory_mb);
}

static int
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

static int
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

static int
eal_huge_dir(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct vxs_config *cfg = obj;
	return get_string(ld, v, "huge-dir", cfg->eal_huge_dir,
			  sizeof cfg->eal_huge_dir);
}

static int
eal_no_pci(struct loader *ld, const yaml_node_t *v, void *obj)
{
	return get_bool(ld, v, "no-pci", &((struct vxs_config *)obj)->eal_no_pci);
}

static int
eal_no_huge(struct loader *ld, const yaml_node_t *v, void *obj)
{
	ld->no_huge_node = v;
	return get_bool(ld, v, "no-huge",
			&((struct vxs_config *)obj)->eal_no_huge);
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
static int
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

static const struct key_rule eal_rules[] = {
	{ "lcores", NULL, 0, eal_lcores },
	{ "main-lcore", NULL, 0, eal_main_lcore },
	{ "memory-mb", NULL, 0, eal_memory_mb },
	{ "socket-mem", NULL, 0, eal_socket_mem },
	{ "file-prefix", NULL, 0, eal_file_prefix },
	{ "huge-dir", NULL, 0, eal_huge_dir },
	{ "no-pci", NULL, 0, eal_no_pci },
	{ "no-huge", NULL, 0, eal_no_huge },
	{ "extra-args", NULL, 0, eal_extra_args },
	{ NULL, NULL, 0, NULL },
};

/* EAL refuses these combinations; say so with a line number instead. */
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

static int
parse_eal(struct loader *ld)
{
	static const struct scope sc = { "in eal", 0, NULL };
	if (ld->eal == NULL)
		return 0;
	if (expect_map(ld, ld->eal, "eal") < 0 ||
	    parse_mapping(ld, ld->eal, eal_rules, ld->cfg, &sc) < 0)
		return -1;
	return check_eal_memory(ld);
}

/* ---- datapath ---- */

static int
pmd_cores(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct vxs_config *cfg = obj;
	bool seen[CFG_MAX_CORES] = { false };

	cfg->n_pmd_cores = 0;
	if (v->type != YAML_SEQUENCE_NODE) {
		const char *s = scalar(ld, v, "pmd-cores");
		if (s == NULL || parse_core_list(ld, v, s, cfg->pmd_cores,
						 &cfg->n_pmd_cores, seen) < 0)
			return -1;
		for (unsigned i = 0; i < cfg->n_pmd_cores; i++)
			ld->pmd_core_node[i] = v;
		return cfg->n_pmd_cores ? 0
		       : fail(ld, v, "no cores in '%s'", "pmd-cores");
	}
	if (seq_len(v) == 0 || seq_len(v) > CFG_MAX_CORES)
		return fail(ld, v, "pmd-cores needs 1..%d cores '%zu'",
			    CFG_MAX_CORES, seq_len(v));
	for (size_t i = 0; i < seq_len(v); i++) {
		const yaml_node_t *item = seq_item(ld, v, i);
		uint16_t core;
		if (get_u16(ld, item, "pmd core", 0, CFG_MAX_CORES - 1,
			    &core) < 0)
			return -1;
		if (seen[core])
			return fail(ld, item, "core listed twice '%u'", core);
		seen[core] = true;
		ld->pmd_core_node[cfg->n_pmd_cores] = item;
		cfg->pmd_cores[cfg->n_pmd_cores++] = core;
	}
	return 0;
}

static int
dp_n_mbufs(struct loader *ld, const yaml_node_t *v, void *obj)
{
	return get_u32(ld, v, "n-mbufs", 0, 1u << 30,
		       &((struct vxs_config *)obj)->n_mbufs);
}

static int
dp_emc_prob(struct loader *ld, const yaml_node_t *v, void *obj)
{
	return get_u32(ld, v, "emc-insert-inv-prob", 0, UINT32_MAX,
		       &((struct vxs_config *)obj)->emc_insert_inv_prob);
}

static int
dp_max_idle(struct loader *ld, const yaml_node_t *v, void *obj)
{
	return get_u32(ld, v, "flow-max-idle-ms", 1, 86400000u,
		       &((struct vxs_config *)obj)->flow_max_idle_ms);
}

static int
dp_max_megaflows(struct loader *ld, const yaml_node_t *v, void *obj)
{
	return get_u32(ld, v, "max-megaflows", 1, 1u << 24,
		       &((struct vxs_config *)obj)->max_megaflows);
}

/* Control table limits (neigh.h, route.h, ofproto.h) */
#define DP_U32_KEY(fn, key, field, lo, hi)                                   \
	static int                                                           \
	fn(struct loader *ld, const yaml_node_t *v, void *obj)               \
	{                                                                    \
		return get_u32(ld, v, key, lo, hi,                           \
			       &((struct vxs_config *)obj)->field);          \
	}
DP_U32_KEY(dp_max_flows, "max-flows", max_flows, 1, 1u << 24)
DP_U32_KEY(dp_max_neighbours, "max-neighbours", max_neighbours, 1, 1u << 24)
DP_U32_KEY(dp_max_routes, "max-routes", max_routes, 1, 1u << 24)
DP_U32_KEY(dp_neigh_aging, "neigh-aging", neigh_aging_s, 1, 3600)
DP_U32_KEY(dp_publish_interval, "publish-interval-ms", publish_interval_ms,
	   1, 10000)
DP_U32_KEY(dp_arp_rate, "arp-rate", arp_rate, 0, 100000000)
DP_U32_KEY(dp_arp_burst, "arp-burst", arp_burst, 1, 1000000)

/* optimisations: {hash-reuse: false, ...}: any subset, the rest default */
static int
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

static int
dp_idle_backoff_us(struct loader *ld, const yaml_node_t *v, void *obj)
{
	return get_u32(ld, v, "pmd-idle-backoff-us", 1, 100000,
		       &((struct vxs_config *)obj)->pmd_idle_backoff_us);
}

static int
dp_tx_flush_interval(struct loader *ld, const yaml_node_t *v, void *obj)
{
	return get_u32(ld, v, "tx-flush-interval-us", 0, 1000,
		       &((struct vxs_config *)obj)->tx_flush_interval_us);
}

static int
dp_ctl_socket(struct loader *ld, const yaml_node_t *v, void *obj)
{
	return get_socket_path(ld, v, "ctl-socket",
			       ((struct vxs_config *)obj)->ctl_socket);
}

static const struct key_rule datapath_rules[] = {
	{ "pmd-cores", NULL, 0, pmd_cores },
	{ "n-mbufs", NULL, 0, dp_n_mbufs },
	{ "emc-insert-inv-prob", NULL, 0, dp_emc_prob },
	{ "flow-max-idle-ms", NULL, 0, dp_max_idle },
	{ "max-megaflows", NULL, 0, dp_max_megaflows },
	{ "max-flows", NULL, 0, dp_max_flows },
	{ "max-neighbours", NULL, 0, dp_max_neighbours },
	{ "max-routes", NULL, 0, dp_max_routes },
	{ "neigh-aging", NULL, 0, dp_neigh_aging },
	{ "publish-interval-ms", NULL, 0, dp_publish_interval },
	{ "arp-rate", NULL, 0, dp_arp_rate },
	{ "arp-burst", NULL, 0, dp_arp_burst },
	{ "optimisations", NULL, 0, dp_optimisations },
	{ "pmd-idle-backoff-us", NULL, 0, dp_idle_backoff_us },
	{ "tx-flush-interval-us", NULL, 0, dp_tx_flush_interval },
	{ "ctl-socket", NULL, 0, dp_ctl_socket },
	{ NULL, NULL, 0, NULL },
};

static int
parse_datapath(struct loader *ld)
{
	static const struct scope sc = { "in datapath", 0, NULL };
	if (ld->datapath == NULL)
		return 0;
	if (expect_map(ld, ld->datapath, "datapath") < 0)
		return -1;
	return parse_mapping(ld, ld->datapath, datapath_rules, ld->cfg, &sc);
}

/* The core EAL will run the main thread on: the explicit one, else the
 * first of -l (EAL's rule), else 0 (our default -l starts with it). */
static unsigned
main_lcore(const struct loader *ld)
{
	if (ld->cfg->eal_main_lcore >= 0)
		return (unsigned)ld->cfg->eal_main_lcore;
	for (unsigned c = 0; c < CFG_MAX_CORES; c++)
		if (ld->lcores[c])
			return c;
	return 0;
}

static int
check_pmd_core(struct loader *ld, unsigned i, unsigned main_core)
{
	unsigned core = ld->cfg->pmd_cores[i];
	const yaml_node_t *at = ld->pmd_core_node[i];

	if (core == main_core)
		return fail(ld, at, "pmd core is the main lcore '%u'", core);
	if (ld->lcores_node != NULL && !ld->lcores[core])
		return fail(ld, at, "pmd core is not in eal lcores '%u'", core);
	return 0;
}

/* The PMDs busy-poll; sharing the main lcore would starve the control
 * thread, and EAL only launches workers on cores in -l. */
static int
check_cores(struct loader *ld)
{
	struct vxs_config *cfg = ld->cfg;
	unsigned main_core = main_lcore(ld);

	if (ld->pmd_core_node[0] == NULL)	/* the default {1} */
		ld->pmd_core_node[0] = ld->main_lcore_node ? ld->main_lcore_node
				       : ld->lcores_node ? ld->lcores_node
				       : ld->root;
	if (ld->main_lcore_node && ld->lcores_node && !ld->lcores[main_core])
		return fail(ld, ld->main_lcore_node,
			    "main-lcore is not in eal lcores '%u'", main_core);
	for (unsigned i = 0; i < cfg->n_pmd_cores; i++)
		if (check_pmd_core(ld, i, main_core) < 0)
			return -1;
	if (ld->lcores_node != NULL)
		return 0;

	bool set[CFG_MAX_CORES] = { false };
	set[main_core] = true;
	for (unsigned i = 0; i < cfg->n_pmd_cores; i++)
		set[cfg->pmd_cores[i]] = true;
	if (format_core_list(set, cfg->eal_lcores, sizeof cfg->eal_lcores) < 0)
		return fail(ld, ld->pmd_core_node[0],
			    "too many cores for an EAL -l list '%s'",
			    "pmd-cores");
	return 0;
}

/* ---- ports ---- */

#define K_DPDK (1u << CFG_PORT_DPDK)
#define K_VHOST ((1u << CFG_PORT_VHOST_SERVER) | (1u << CFG_PORT_VHOST_CLIENT))
#define K_VXLAN (1u << CFG_PORT_VXLAN)
#define K_NULL (1u << CFG_PORT_NULL)

static const struct {
	const char *name;
	enum cfg_port_type type;
} port_types[] = {
	{ "dpdk", CFG_PORT_DPDK },
	{ "dpdkvhostuser", CFG_PORT_VHOST_SERVER },
	{ "dpdkvhostuserclient", CFG_PORT_VHOST_CLIENT },
	{ "vxlan", CFG_PORT_VXLAN },
	{ "null", CFG_PORT_NULL },	/* benchmarks only (perf/dpbench) */
};

/* What a port's handlers fill, and the nodes its later checks point at. */
struct port_ctx {
	struct cfg_port *port;
	unsigned index;
	const yaml_node_t *map, *devargs, *path, *affinity, *ofport,
		*options, *remote_ip, *local_ip;
};

static const char *
port_type_name(enum cfg_port_type t)
{
	for (size_t i = 0; i < RTE_DIM(port_types); i++)
		if (port_types[i].type == t)
			return port_types[i].name;
	return "?";
}

static int
port_devargs(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct port_ctx *pc = obj;
	pc->devargs = v;
	return get_string(ld, v, "devargs", pc->port->devargs,
			  sizeof pc->port->devargs);
}

static int
port_n_rxq(struct loader *ld, const yaml_node_t *v, void *obj)
{
	return get_u16(ld, v, "n-rxq", 1, 1024,
		       &((struct port_ctx *)obj)->port->n_rxq);
}

static int
port_rxd(struct loader *ld, const yaml_node_t *v, void *obj)
{
	return get_u16(ld, v, "rxd", 32, 32768,
		       &((struct port_ctx *)obj)->port->rxd);
}

static int
port_txd(struct loader *ld, const yaml_node_t *v, void *obj)
{
	return get_u16(ld, v, "txd", 32, 32768,
		       &((struct port_ctx *)obj)->port->txd);
}

static int
port_mtu(struct loader *ld, const yaml_node_t *v, void *obj)
{
	return get_u16(ld, v, "mtu", RTE_ETHER_MIN_MTU, 16000,
		       &((struct port_ctx *)obj)->port->mtu);
}

static int
port_offload(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct cfg_port *p = ((struct port_ctx *)obj)->port;
	const char *s = scalar(ld, v, "offload");

	if (s == NULL)
		return -1;
	if (!strcmp(s, "off") || !strcmp(s, "false"))
		p->offload = CFG_OFFLOAD_OFF;
	else if (!strcmp(s, "rte_flow"))
		p->offload = CFG_OFFLOAD_RTE_FLOW;
	else if (!strcmp(s, "model"))
		p->offload = CFG_OFFLOAD_MODEL;
	else
		return fail(ld, v, "offload is off, rte_flow or model, not '%s'",
			    s);
	return 0;
}

static int
port_offload_guar(struct loader *ld, const yaml_node_t *v, void *obj)
{
	return get_u32(ld, v, "offload-guaranteed", 0, 16384,
		       &((struct port_ctx *)obj)->port->offload_guaranteed);
}

static int
port_offload_pool(struct loader *ld, const yaml_node_t *v, void *obj)
{
	return get_u32(ld, v, "offload-pool", 0, 16384,
		       &((struct port_ctx *)obj)->port->offload_pool);
}

static int
port_offload_rate(struct loader *ld, const yaml_node_t *v, void *obj)
{
	return get_u32(ld, v, "offload-inserts-per-sec", 0, 1000000,
		       &((struct port_ctx *)obj)->port->offload_inserts_per_sec);
}

static int
port_ofport(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct port_ctx *pc = obj;
	pc->ofport = v;
	return get_u32(ld, v, "ofport", 1, OFPORT_MAX, &pc->port->ofport);
}

static int
port_path(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct port_ctx *pc = obj;
	pc->path = v;
	return get_socket_path(ld, v, "path", pc->port->path);
}

static int
add_affinity(struct loader *ld, const yaml_node_t *v, struct cfg_port *p,
	     unsigned queue, unsigned core)
{
	if (p->n_affinity == AFFINITY_MAX)
		return fail(ld, v, "more than %d rxq-affinity entries '%u:%u'",
			    AFFINITY_MAX, queue, core);
	for (unsigned i = 0; i < p->n_affinity; i++)
		if (p->affinity[i].queue == queue)
			return fail(ld, v, "rxq-affinity names queue twice '%u'",
				    queue);
	p->affinity[p->n_affinity].queue = (uint16_t)queue;
	p->affinity[p->n_affinity].core = (uint16_t)core;
	p->n_affinity++;
	return 0;
}

/* "queue:core[,queue:core...]", as OVS's other_config:pmd-rxq-affinity. */
static int
port_affinity(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct port_ctx *pc = obj;
	const char *s = scalar(ld, v, "rxq-affinity");
	const char *p = s;
	char *end;

	pc->affinity = v;
	if (s == NULL)
		return -1;
	for (;;) {
		if (*p < '0' || *p > '9')
			return fail(ld, v, "bad rxq-affinity '%s'", s);
		unsigned long q = strtoul(p, &end, 10);
		if (*end != ':' || end[1] < '0' || end[1] > '9')
			return fail(ld, v, "bad rxq-affinity '%s'", s);
		unsigned long c = strtoul(end + 1, &end, 10);
		if (q > UINT16_MAX || c >= CFG_MAX_CORES ||
		    (*end != ',' && *end != '\0'))
			return fail(ld, v, "bad rxq-affinity '%s'", s);
		if (add_affinity(ld, v, pc->port, q, c) < 0)
			return -1;
		if (*end == '\0')
			return 0;
		p = end + 1;
	}
}

/* "flow" means the flow's set_field/set_tunnel supplies the value. */
static bool
is_flow(const char *s)
{
	return strcmp(s, "flow") == 0;
}

static int
vx_remote_ip(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct port_ctx *pc = obj;
	const char *s = scalar(ld, v, "remote_ip");
	pc->remote_ip = v;
	if (s == NULL)
		return -1;
	pc->port->remote_ip_flow = is_flow(s);
	if (pc->port->remote_ip_flow)
		return 0;
	return get_ipv4(ld, v, "remote_ip", &pc->port->remote_ip);
}

static int
vx_local_ip(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct port_ctx *pc = obj;
	const char *s = scalar(ld, v, "local_ip");
	pc->local_ip = v;
	if (s == NULL)
		return -1;
	pc->port->local_ip_flow = is_flow(s);
	if (pc->port->local_ip_flow)
		return 0;
	return get_ipv4(ld, v, "local_ip", &pc->port->local_ip);
}

static int
vx_key(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct cfg_port *p = ((struct port_ctx *)obj)->port;
	const char *s = scalar(ld, v, "key");
	if (s == NULL)
		return -1;
	p->key_flow = is_flow(s);
	if (p->key_flow)
		return 0;
	return get_u32(ld, v, "key", 0, VNI_MAX, &p->key);
}

static int
vx_dst_port(struct loader *ld, const yaml_node_t *v, void *obj)
{
	return get_u16(ld, v, "dst_port", 1, UINT16_MAX,
		       &((struct port_ctx *)obj)->port->dst_port);
}

static int
add_vni(struct loader *ld, const yaml_node_t *v, struct cfg_port *p)
{
	uint32_t vni;
	if (get_u32(ld, v, "vni", 0, VNI_MAX, &vni) < 0)
		return -1;
	for (unsigned i = 0; i < p->n_vnis; i++)
		if (p->vnis[i] == vni)
			return fail(ld, v, "VNI listed twice '%u'", vni);
	if (p->n_vnis == CFG_MAX_VNIS)
		return fail(ld, v, "more than %d VNIs '%u'", CFG_MAX_VNIS, vni);
	p->vnis[p->n_vnis++] = vni;
	return 0;
}

static int
vx_vnis(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct cfg_port *p = ((struct port_ctx *)obj)->port;
	if (v->type != YAML_SEQUENCE_NODE)
		return add_vni(ld, v, p);
	for (size_t i = 0; i < seq_len(v); i++)
		if (add_vni(ld, seq_item(ld, v, i), p) < 0)
			return -1;
	return 0;
}

static const struct key_rule vxlan_option_rules[] = {
	{ "remote_ip", NULL, 0, vx_remote_ip },
	{ "local_ip", NULL, 0, vx_local_ip },
	{ "key", NULL, 0, vx_key },
	{ "dst_port", NULL, 0, vx_dst_port },
	{ "vnis", NULL, 0, vx_vnis },
	{ NULL, NULL, 0, NULL },
};

static int
port_options(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct port_ctx *pc = obj;
	char where[CFG_NAME_MAX + 32];
	struct scope sc = { where, 0, NULL };

	pc->options = v;
	snprintf(where, sizeof where, "in options of port '%s'",
		 pc->port->name);
	if (expect_map(ld, v, "options") < 0)
		return -1;
	return parse_mapping(ld, v, vxlan_option_rules, pc, &sc);
}

static const struct key_rule port_rules[] = {
	{ "name", NULL, 0, NULL },	/* read first, see parse_port() */
	{ "type", NULL, 0, NULL },
	{ "ofport", NULL, 0, port_ofport },
	{ "devargs", NULL, K_DPDK, port_devargs },
	{ "dpdk-devargs", "devargs", K_DPDK, port_devargs },
	{ "n-rxq", NULL, K_DPDK | K_VHOST | K_NULL, port_n_rxq },
	{ "rxd", NULL, K_DPDK, port_rxd },
	{ "txd", NULL, K_DPDK, port_txd },
	{ "mtu", NULL, K_DPDK | K_VHOST, port_mtu },
	{ "offload", NULL, K_DPDK, port_offload },
	{ "offload-guaranteed", NULL, K_DPDK, port_offload_guar },
	{ "offload-pool", NULL, K_DPDK, port_offload_pool },
	{ "offload-inserts-per-sec", NULL, K_DPDK, port_offload_rate },
	{ "rxq-affinity", NULL, K_DPDK | K_VHOST | K_NULL, port_affinity },
	{ "pmd-rxq-affinity", "rxq-affinity", K_DPDK | K_VHOST | K_NULL,
	  port_affinity },
	{ "path", NULL, K_VHOST, port_path },
	{ "vhost-server-path", "path", K_VHOST, port_path },
	{ "options", NULL, K_VXLAN, port_options },
	{ NULL, NULL, 0, NULL },
};

/* Names appear inside flow strings ("in_port=NAME,actions=output:NAME"),
 * so keep them to characters that cannot be read as syntax there; an
 * all-digit name would be read as an ofport number. */
static bool
is_port_name(const char *s)
{
	bool digits_only = true;
	for (const char *p = s; *p; p++) {
		bool digit = *p >= '0' && *p <= '9';
		bool alpha = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z');
		if (!digit && !alpha && *p != '-' && *p != '_' && *p != '.')
			return false;
		digits_only &= digit;
	}
	return !digits_only;
}

static int
read_port_name(struct loader *ld, struct port_ctx *pc)
{
	const yaml_node_t *v = map_get(ld, pc->map, "name");
	struct cfg_port *p = pc->port;

	if (v == NULL)
		return fail(ld, pc->map, "missing key '%s' in port", "name");
	if (get_string(ld, v, "name", p->name, sizeof p->name) < 0)
		return -1;
	if (!is_port_name(p->name))
		return fail(ld, v, "bad port name '%s'", p->name);
	for (unsigned i = 0; i < pc->index; i++)
		if (strcmp(ld->cfg->ports[i].name, p->name) == 0)
			return fail(ld, v, "duplicate port name '%s'", p->name);
	return 0;
}

static int
read_port_type(struct loader *ld, struct port_ctx *pc)
{
	const yaml_node_t *v = map_get(ld, pc->map, "type");
	const char *s;

	if (v == NULL)
		return fail(ld, pc->map, "missing key 'type' in port '%s'",
			    pc->port->name);
	if ((s = scalar(ld, v, "type")) == NULL)
		return -1;
	for (size_t i = 0; i < RTE_DIM(port_types); i++)
		if (strcmp(s, port_types[i].name) == 0) {
			pc->port->type = port_types[i].type;
			return 0;
		}
	return fail(ld, v, "unknown port type '%s'", s);
}

static void
port_defaults(struct cfg_port *p, int line)
{
	p->line = line;
	p->col = 1;
	p->n_rxq = 1;
	p->rxd = 1024;
	p->txd = 1024;
	p->dst_port = 4789;
	p->offload_guaranteed = 512;
}

static int
check_affinity(struct loader *ld, const struct port_ctx *pc)
{
	const struct cfg_port *p = pc->port;
	const struct vxs_config *cfg = ld->cfg;

	for (unsigned i = 0; i < p->n_affinity; i++) {
		unsigned core = p->affinity[i].core, j;
		if (p->affinity[i].queue >= p->n_rxq)
			return fail(ld, pc->affinity,
				    "rxq-affinity queue is not below n-rxq %u '%u'",
				    p->n_rxq, p->affinity[i].queue);
		for (j = 0; j < cfg->n_pmd_cores; j++)
			if (cfg->pmd_cores[j] == core)
				break;
		if (j == cfg->n_pmd_cores)
			return fail(ld, pc->affinity,
				    "rxq-affinity core is not a pmd core '%u'",
				    core);
	}
	return 0;
}

/* One device cannot be probed twice. */
static int
check_dpdk(struct loader *ld, const struct port_ctx *pc)
{
	const struct cfg_port *p = pc->port;
	if (pc->devargs == NULL)
		return fail(ld, pc->map, "missing key 'devargs' in port '%s'",
			    p->name);
	for (unsigned i = 0; i < pc->index; i++)
		if (strcmp(ld->cfg->ports[i].devargs, p->devargs) == 0)
			return fail(ld, pc->devargs, "duplicate devargs '%s'",
				    p->devargs);
	return 0;
}

static int
check_vhost(struct loader *ld, const struct port_ctx *pc)
{
	const struct cfg_port *p = pc->port;
	if (pc->path == NULL)
		return fail(ld, pc->map, "missing key 'path' in port '%s'",
			    p->name);
	for (unsigned i = 0; i < pc->index; i++)
		if (strcmp(ld->cfg->ports[i].path, p->path) == 0)
			return fail(ld, pc->path, "duplicate socket path '%s'",
				    p->path);
	return 0;
}

static int
check_vxlan(struct loader *ld, const struct port_ctx *pc)
{
	const struct cfg_port *p = pc->port;
	if (ld->vxlan_node != NULL)
		return fail(ld, pc->map, "more than one vxlan port '%s'",
			    p->name);
	if (pc->options == NULL)
		return fail(ld, pc->map, "missing key 'options' in port '%s'",
			    p->name);
	if (pc->remote_ip == NULL)
		return fail(ld, pc->options,
			    "missing option 'remote_ip' in port '%s'", p->name);
	ld->vxlan_node = pc->map;
	ld->vxlan_local_ip_node = pc->local_ip;
	return 0;
}

static int
check_ofport(struct loader *ld, const struct port_ctx *pc)
{
	for (unsigned i = 0; pc->ofport && i < pc->index; i++)
		if (ld->cfg->ports[i].ofport == pc->port->ofport)
			return fail(ld, pc->ofport, "duplicate ofport '%u'",
				    pc->port->ofport);
	return 0;
}

static int
check_port(struct loader *ld, const struct port_ctx *pc)
{
	const struct cfg_port *p = pc->port;

	if (check_ofport(ld, pc) < 0 || check_affinity(ld, pc) < 0)
		return -1;
	switch (p->type) {
	case CFG_PORT_DPDK:
		return check_dpdk(ld, pc);
	case CFG_PORT_VHOST_SERVER:
	case CFG_PORT_VHOST_CLIENT:
		return check_vhost(ld, pc);
	case CFG_PORT_VXLAN:
		return check_vxlan(ld, pc);
	case CFG_PORT_NULL:
		break;
	}
	return 0;
}

static int
parse_port(struct loader *ld, const yaml_node_t *map, unsigned index)
{
	struct port_ctx pc = { .port = &ld->cfg->ports[index], .index = index,
			       .map = map };
	char where[CFG_NAME_MAX + 16];
	struct scope sc = { where, 0, NULL };

	if (expect_map(ld, map, "port") < 0)
		return -1;
	port_defaults(pc.port, (int)map->start_mark.line + 1);
	pc.port->col = (int)map->start_mark.column + 1;
	if (read_port_name(ld, &pc) < 0 || read_port_type(ld, &pc) < 0)
		return -1;
	snprintf(where, sizeof where, "in port '%s'", pc.port->name);
	sc.kind = 1u << pc.port->type;
	sc.kind_name = port_type_name(pc.port->type);
	if (parse_mapping(ld, map, port_rules, &pc, &sc) < 0)
		return -1;
	return check_port(ld, &pc);
}

static bool
ofport_taken(const struct vxs_config *cfg, uint32_t ofport)
{
	for (unsigned i = 0; i < cfg->n_ports; i++)
		if (cfg->ports[i].ofport == ofport)
			return true;
	return false;
}

/* As OVS does: explicit numbers stay, the rest get the lowest free ones
 * in file order. */
static void
assign_ofports(struct vxs_config *cfg)
{
	uint32_t next = 1;
	for (unsigned i = 0; i < cfg->n_ports; i++) {
		if (cfg->ports[i].ofport != 0)
			continue;
		while (ofport_taken(cfg, next))
			next++;
		cfg->ports[i].ofport = next++;
	}
}

static int
parse_ports(struct loader *ld)
{
	struct vxs_config *cfg = ld->cfg;
	const yaml_node_t *seq = ld->ports;

	if (seq == NULL)
		return fail(ld, ld->root, "missing key '%s'", "ports");
	if (expect_seq(ld, seq, "ports") < 0)
		return -1;
	if (seq_len(seq) == 0 || seq_len(seq) > OFPORT_MAX)
		return fail(ld, seq, "ports needs 1..%u ports '%zu'", OFPORT_MAX,
			    seq_len(seq));
	cfg->ports = calloc(seq_len(seq), sizeof *cfg->ports);
	if (cfg->ports == NULL)
		return fail(ld, seq, "out of memory for '%s'", "ports");
	for (size_t i = 0; i < seq_len(seq); i++) {
		if (parse_port(ld, seq_item(ld, seq, i), (unsigned)i) < 0)
			return -1;
		cfg->n_ports = (uint16_t)(i + 1);
	}
	assign_ofports(cfg);
	return 0;
}

/* ---- underlay ---- */

/* Encapsulated packets leave through an ethdev: a vhost port has no
 * neighbours to ARP for. */
static int
check_nic_port(struct loader *ld, const yaml_node_t *v, const char *name)
{
	const struct cfg_port *p = config_find_port(ld->cfg, name);
	if (p == NULL)
		return fail(ld, v, "no such port '%s'", name);
	if (p->type != CFG_PORT_DPDK && p->type != CFG_PORT_NULL)
		return fail(ld, v, "not a port of type dpdk '%s'", name);
	return 0;
}

struct route_ctx {
	struct cfg_route *route;
	const yaml_node_t *prefix, *port;
};

static int
route_prefix(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct route_ctx *rc = obj;
	rc->prefix = v;
	return get_prefix(ld, v, "prefix", &rc->route->prefix,
			  &rc->route->plen);
}

static int
route_gateway(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct route_ctx *rc = obj;
	if (get_ipv4(ld, v, "gateway", &rc->route->gateway) < 0)
		return -1;
	if (rc->route->gateway == 0)
		return fail(ld, v, "bad gateway '%s'", raw_text(v));
	return 0;
}

static int
route_port(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct route_ctx *rc = obj;
	rc->port = v;
	if (get_string(ld, v, "port", rc->route->port,
		       sizeof rc->route->port) < 0)
		return -1;
	return check_nic_port(ld, v, rc->route->port);
}

static const struct key_rule route_rules[] = {
	{ "prefix", NULL, 0, route_prefix },
	{ "gateway", NULL, 0, route_gateway },
	{ "port", NULL, 0, route_port },
	{ NULL, NULL, 0, NULL },
};

static int
check_route(struct loader *ld, const struct route_ctx *rc,
	    const yaml_node_t *map)
{
	struct cfg_route *r = rc->route;
	const struct vxs_config *cfg = ld->cfg;

	if (rc->prefix == NULL)
		return fail(ld, map, "missing key '%s' in route", "prefix");
	if ((r->prefix & ~prefix_mask(r->plen)) != 0)
		return fail(ld, rc->prefix, "route prefix has host bits set '%s'",
			    raw_text(rc->prefix));
	for (const struct cfg_route *o = cfg->routes; o < r; o++)
		if (o->prefix == r->prefix && o->plen == r->plen)
			return fail(ld, rc->prefix, "duplicate route '%s'",
				    raw_text(rc->prefix));
	if (rc->port != NULL)
		return 0;
	if (cfg->underlay_port[0] == '\0')
		return fail(ld, map, "route needs a port (no underlay port) '%s'",
			    raw_text(rc->prefix));
	memcpy(r->port, cfg->underlay_port, sizeof r->port);
	return 0;
}

static int
parse_route(struct loader *ld, const yaml_node_t *map)
{
	static const struct scope sc = { "in route", 0, NULL };
	struct vxs_config *cfg = ld->cfg;
	struct route_ctx rc = { .route = &cfg->routes[cfg->n_routes] };

	if (cfg->n_routes == ROUTES_MAX)
		return fail(ld, map, "more than %d routes '%d'", ROUTES_MAX,
			    ROUTES_MAX + 1);
	if (expect_map(ld, map, "route") < 0)
		return -1;
	rc.route->line = (int)map->start_mark.line + 1;
	rc.route->col = (int)map->start_mark.column + 1;
	if (parse_mapping(ld, map, route_rules, &rc, &sc) < 0 ||
	    check_route(ld, &rc, map) < 0)
		return -1;
	cfg->n_routes++;
	return 0;
}

static int
underlay_routes(struct loader *ld, const yaml_node_t *v, void *obj)
{
	(void)obj;
	if (expect_seq(ld, v, "routes") < 0)
		return -1;
	for (size_t i = 0; i < seq_len(v); i++)
		if (parse_route(ld, seq_item(ld, v, i)) < 0)
			return -1;
	return 0;
}

struct arp_ctx {
	struct cfg_arp *arp;
	const yaml_node_t *ip, *mac;
};

static int
arp_ip(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct arp_ctx *ac = obj;
	ac->ip = v;
	return get_ipv4(ld, v, "ip", &ac->arp->ip);
}

static int
arp_mac(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct arp_ctx *ac = obj;
	ac->mac = v;
	return get_mac(ld, v, "mac", &ac->arp->mac);
}

static const struct key_rule arp_rules[] = {
	{ "ip", NULL, 0, arp_ip },
	{ "mac", NULL, 0, arp_mac },
	{ NULL, NULL, 0, NULL },
};

static int
parse_arp(struct loader *ld, const yaml_node_t *map)
{
	static const struct scope sc = { "in arp entry", 0, NULL };
	struct vxs_config *cfg = ld->cfg;
	struct arp_ctx ac = { .arp = &cfg->arp[cfg->n_arp] };

	if (cfg->n_arp == ARP_MAX)
		return fail(ld, map, "more than %d arp entries '%d'", ARP_MAX,
			    ARP_MAX + 1);
	if (expect_map(ld, map, "arp entry") < 0 ||
	    parse_mapping(ld, map, arp_rules, &ac, &sc) < 0)
		return -1;
	if (ac.ip == NULL || ac.mac == NULL)
		return fail(ld, map, "missing key '%s' in arp entry",
			    ac.ip ? "mac" : "ip");
	for (const struct cfg_arp *o = cfg->arp; o < ac.arp; o++)
		if (o->ip == ac.arp->ip)
			return fail(ld, ac.ip, "duplicate arp entry '%s'",
				    raw_text(ac.ip));
	ac.arp->line = (int)map->start_mark.line + 1;
	ac.arp->col = (int)map->start_mark.column + 1;
	cfg->n_arp++;
	return 0;
}

static int
underlay_arp(struct loader *ld, const yaml_node_t *v, void *obj)
{
	(void)obj;
	if (expect_seq(ld, v, "arp") < 0)
		return -1;
	for (size_t i = 0; i < seq_len(v); i++)
		if (parse_arp(ld, seq_item(ld, v, i)) < 0)
			return -1;
	return 0;
}

static int
underlay_local_ip(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct vxs_config *cfg = obj;
	if (get_prefix(ld, v, "local-ip", &cfg->vtep_ip, &cfg->vtep_plen) < 0)
		return -1;
	if (cfg->vtep_ip == 0 || cfg->vtep_plen == 0)
		return fail(ld, v, "bad local-ip '%s'", raw_text(v));
	return 0;
}

static int
underlay_mac(struct loader *ld, const yaml_node_t *v, void *obj)
{
	struct vxs_config *cfg = obj;
	cfg->vtep_mac_set = true;
	return get_mac(ld, v, "mac", &cfg->vtep_mac);
}

static const struct key_rule underlay_rules[] = {
	{ "port", NULL, 0, NULL },	/* read first: routes default to it */
	{ "local-ip", NULL, 0, underlay_local_ip },
	{ "mac", NULL, 0, underlay_mac },
	{ "routes", NULL, 0, underlay_routes },
	{ "arp", NULL, 0, underlay_arp },
	{ NULL, NULL, 0, NULL },
};

static int
parse_underlay(struct loader *ld)
{
	static const struct scope sc = { "in underlay", 0, NULL };
	struct vxs_config *cfg = ld->cfg;
	const yaml_node_t *port;

	if (ld->underlay == NULL)
		return 0;
	if (expect_map(ld, ld->underlay, "underlay") < 0)
		return -1;
	port = map_get(ld, ld->underlay, "port");
	if (port != NULL &&
	    (get_string(ld, port, "port", cfg->underlay_port,
			sizeof cfg->underlay_port) < 0 ||
	     check_nic_port(ld, port, cfg->underlay_port) < 0))
		return -1;
	return parse_mapping(ld, ld->underlay, underlay_rules, cfg, &sc);
}

/* A vxlan port needs somewhere to send from: a NIC and a VTEP address.
 * An unset local_ip means the VTEP's, as OVS picks it from the route. */
static int
check_tunnel(struct loader *ld)
{
	struct vxs_config *cfg = ld->cfg;
	const yaml_node_t *at = ld->underlay ? ld->underlay : ld->vxlan_node;
	struct cfg_port *vx = NULL;

	if (ld->vxlan_node == NULL)
		return 0;
	for (unsigned i = 0; i < cfg->n_ports; i++)
		if (cfg->ports[i].type == CFG_PORT_VXLAN)
			vx = &cfg->ports[i];
	if (cfg->underlay_port[0] == '\0')
		return fail(ld, at, "missing underlay 'port' for vxlan port '%s'",
			    vx->name);
	if (cfg->vtep_ip == 0)
		return fail(ld, at,
			    "missing underlay 'local-ip' for vxlan port '%s'",
			    vx->name);
	if (ld->vxlan_local_ip_node == NULL)
		vx->local_ip = cfg->vtep_ip;
	else if (!vx->local_ip_flow && vx->local_ip != cfg->vtep_ip)
		return fail(ld, ld->vxlan_local_ip_node,
			    "local_ip is not the underlay local-ip '%s'",
			    raw_text(ld->vxlan_local_ip_node));
	return 0;
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

static int
keep_section(struct loader *ld, const yaml_node_t *v, void *obj)
{
	(void)ld;
	*(const yaml_node_t **)obj = v;
	return 0;
}

/* Only notes where each section is, so that load_topology() can walk them
 * in dependency order whatever order the file has them in. */
static int
find_sections(struct loader *ld)
{
	static const struct scope sc = { "", 0, NULL };
	const struct key_rule rules[] = {
		{ "eal", NULL, 0, keep_section },
		{ "datapath", NULL, 0, keep_section },
		{ "underlay", NULL, 0, keep_section },
		{ "ports", NULL, 0, keep_section },
		{ "flows", NULL, 0, keep_section },
		{ NULL, NULL, 0, NULL },
	};
	const yaml_node_t **slot[] = { &ld->eal, &ld->datapath, &ld->underlay,
				       &ld->ports, &ld->flows };

	if (expect_map(ld, ld->root, "topology") < 0)
		return -1;
	for (const yaml_node_pair_t *p = ld->root->data.mapping.pairs.start;
	     p < ld->root->data.mapping.pairs.top; p++) {
		const yaml_node_t *k = node_at(ld, p->key);
		const struct key_rule *r = k->type == YAML_SCALAR_NODE
			? find_rule(rules, raw_text(k)) : NULL;
		void *obj = r ? (void *)slot[r - rules] : NULL;
		if (parse_pair(ld, ld->root, p, rules, obj, &sc) < 0)
			return -1;
	}
	return 0;
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

/* A second document would be silently ignored; refuse it instead. */
static int
check_single_document(struct loader *ld, yaml_parser_t *parser)
{
	yaml_document_t extra;
	int rc = 0;

	if (!yaml_parser_load(parser, &extra))
		return syntax_error(ld, parser);
	const yaml_node_t *root = yaml_document_get_root_node(&extra);
	if (root != NULL)
		rc = fail(ld, root, "more than one YAML document '%s'", "---");
	yaml_document_delete(&extra);
	return rc;
}

static int
read_document(struct loader *ld, FILE *f)
{
	yaml_parser_t parser;
	int rc = 0;

	if (!yaml_parser_initialize(&parser))
		return fail_file(ld, " out of memory");
	yaml_parser_set_input_file(&parser, f);
	if (!yaml_parser_load(&parser, &ld->doc)) {
		rc = syntax_error(ld, &parser);
	} else {
		ld->have_doc = true;
		ld->root = yaml_document_get_root_node(&ld->doc);
		if (ld->root == NULL)
			rc = fail_file(ld, "1:1: empty topology file");
		else
			rc = check_single_document(ld, &parser);
	}
	yaml_parser_delete(&parser);
	return rc;
}

static void
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
	cfg->dp_opts = dp_opts_default();
	cfg->pmd_idle_backoff_us = 50;
	cfg->tx_flush_interval_us = 50;
	cfg->arp_rate = ARP_RATE_DEFAULT;
	cfg->arp_burst = ARP_BURST_DEFAULT;
	snprintf(cfg->ctl_socket, sizeof cfg->ctl_socket,
		 "/var/run/vxswitch/vxswitch.ctl");
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
