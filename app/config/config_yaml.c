/* SPDX-License-Identifier: BSD-3-Clause
 * The topology file as a libyaml document, and where things are in it.
 *
 * libyaml's document API gives every node a start mark, so each error can
 * point at the exact key or value that caused it ("file:line:col: message
 * 'token'"); syntax errors use the parser's own marks. Scalars are read
 * through scalar(), which expands ${VAR} and ${VAR:-default} as a shell
 * would.
 */
#include "config_loader.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- errors ---- */

/* The message after the "file:..." prefix of length n already in err. */
static int
vfail(struct loader *ld, int n, const char *fmt, va_list ap)
{
	if (n >= 0 && (size_t)n < ld->errlen)
		vsnprintf(ld->err + n, ld->errlen - n, fmt, ap);
	return -1;
}

int
fail(struct loader *ld, const yaml_node_t *node, const char *fmt, ...)
{
	va_list ap;

	if (ld->errlen == 0)
		return -1;
	va_start(ap, fmt);
	vfail(ld, snprintf(ld->err, ld->errlen, "%s:%zu:%zu: ", ld->file,
			   node->start_mark.line + 1,
			   node->start_mark.column + 1), fmt, ap);
	va_end(ap);
	return -1;
}

/* For errors that have no node: the file itself, or libyaml's marks. */
int
fail_file(struct loader *ld, const char *fmt, ...)
{
	va_list ap;

	if (ld->errlen == 0)
		return -1;
	va_start(ap, fmt);
	vfail(ld, snprintf(ld->err, ld->errlen, "%s:", ld->file), fmt, ap);
	va_end(ap);
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

int
expect_seq(struct loader *ld, const yaml_node_t *node, const char *what)
{
	if (node->type != YAML_SEQUENCE_NODE)
		return fail(ld, node, "expected a list for '%s'", what);
	return 0;
}

int
expect_map(struct loader *ld, const yaml_node_t *node, const char *what)
{
	if (node->type != YAML_MAPPING_NODE)
		return fail(ld, node, "expected a mapping for '%s'", what);
	return 0;
}

const yaml_node_t *
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

/* ---- scalars ---- */

const char *
scalar(struct loader *ld, const yaml_node_t *node, const char *what)
{
	if (node->type != YAML_SCALAR_NODE) {
		fail(ld, node, "expected a single value for '%s'", what);
		return NULL;
	}
	return expand(ld, node);
}

/* ---- the document ---- */

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

int
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

void
config_offset_line_col(const char *path, size_t offset, size_t *line,
		       size_t *col)
{
	FILE *f = fopen(path, "rb");
	int c;

	*line = *col = 0;
	if (!f)
		return;
	*line = *col = 1;
	for (size_t i = 0; i < offset && (c = getc(f)) != EOF; i++) {
		if (c == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
	fclose(f);
}
