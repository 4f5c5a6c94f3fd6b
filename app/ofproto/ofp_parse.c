/* SPDX-License-Identifier: BSD-3-Clause
 * ovs-ofctl flow syntax -> struct ofp_rule.
 *
 * The string is copied and split in place into "key[=value]" tokens,
 * separated by commas and/or whitespace as ovs-ofctl allows; "actions="
 * takes the rest of the string. Match fields go straight into
 * rule->match/mask; prerequisites are checked only once every token is in,
 * so that token order never matters ("nw_dst=1.2.3.4,ip" is fine).
 *
 * This file splits the tokens and runs the parse; the match half is
 * ofp_parse_match.c, the action half ofp_parse_actions.c, and the lexer
 * both share (numbers, addresses, ports, words) ofp_parse_lex.c.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ofp_parse_priv.h"

/* ---- tokens ----------------------------------------------------------- */

static bool
is_actions_key(const char *key, size_t len)
{
	return (len == 7 && !strncmp(key, "actions", 7)) ||
	       (len == 6 && !strncmp(key, "action", 6));
}

static char *
skip_space(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return s;
}

/* Splits the next "key[ = value]" off *pos, NUL-terminating both. For
 * "actions=" the value is the whole rest of the string. */
static bool
next_token(char **pos, char **key, char **value, bool *is_actions)
{
	char *s = *pos, *key_end, *v, *end;

	while (ofp_is_separator(*s))
		s++;
	if (!*s)
		return false;
	*key = s;
	while (*s && !ofp_is_separator(*s) && *s != '=')
		s++;
	key_end = s;
	*is_actions = is_actions_key(*key, (size_t)(key_end - *key));
	s = skip_space(s);
	if (*s != '=') {
		*value = NULL;
		*pos = *key_end ? key_end + 1 : key_end;
		*key_end = '\0';
		return true;
	}
	v = skip_space(s + 1);
	if (*is_actions) {
		end = v + strlen(v);
		while (end > v && isspace((unsigned char)end[-1]))
			end--;
	} else {
		end = v;
		while (*end && !ofp_is_separator(*end))
			end++;
	}
	*pos = *end ? end + 1 : end;
	*end = '\0';
	*key_end = '\0';
	*value = v;
	return true;
}

/* Returns the actions text (NULL if there was no "actions="), or sets
 * *failed. */
static char *
parse_tokens(struct parser *p, char *buf, bool *failed)
{
	char *pos = buf, *key, *value;
	bool is_actions;

	*failed = false;
	while (next_token(&pos, &key, &value, &is_actions)) {
		if (is_actions && !value) {
			*failed = true;
			ofp_fail(p, "missing '=' after '%s'", key);
			return NULL;
		}
		if (is_actions)
			return value;
		if (ofp_parse_match_token(p, key, value)) {
			*failed = true;
			return NULL;
		}
	}
	return NULL;
}

static int
parse_flow(struct parser *p, char *buf, enum ofp_parse_mode mode)
{
	bool failed;
	char *actions = parse_tokens(p, buf, &failed);

	if (failed || ofp_check_prereqs(p))
		return -1;
	if (mode == OFP_PARSE_MATCH && actions)
		return ofp_fail(p, "actions are not allowed here ('actions=%s')",
				actions);
	if (mode != OFP_PARSE_MATCH && !actions)
		return ofp_fail(p, "missing 'actions='");
	return actions ? ofp_parse_actions(p, actions) : 0;
}

int
ofp_parse_flow(const char *s, enum ofp_parse_mode mode,
	       const struct ofp_port_map *ports, struct ofp_rule *out,
	       char *err, size_t errlen)
{
	struct parser p = {
		.ports = ports, .rule = out, .err = err, .errlen = errlen,
		.mode = mode,
	};
	char *buf;
	int rc;

	if (err && errlen)
		err[0] = '\0';
	if (!s || !out)
		return ofp_fail(&p, "no flow given");
	memset(out, 0, sizeof *out);
	out->priority = OFP_DEFAULT_PRIORITY;
	/* a filter without table= covers every table, a rule is in table 0 */
	out->table_id = mode == OFP_PARSE_ADD ? 0 : OFP_TABLE_ALL;
	buf = strdup(s);
	if (!buf)
		return ofp_fail(&p, "out of memory");
	rc = parse_flow(&p, buf, mode);
	free(buf);
	/* a filter's cookie=V without a mask is an exact match; mod-flows'
	 * sets the cookie instead (ovs-ofctl(8)) */
	if (!rc && mode == OFP_PARSE_MATCH && out->cookie_given &&
	    !out->cookie_mask)
		out->cookie_mask = UINT64_MAX;
	return rc;
}
