/* SPDX-License-Identifier: BSD-3-Clause
 * Parses ovs-ofctl flows (one a line, '#' comments) and prints each as
 * `ovs-ofctl -O OpenFlow13 parse-flows` does after its "ADD ": "table:N "
 * for a table other than 0, then the rule without the table.
 *   ofctl_format_tool RULES            print
 *   ofctl_format_tool RULES EXPECTED   compare line by line (meson test;
 *                                      tests/integration/test_ofctl_compat.py
 *                                      compares with ovs-ofctl itself)
 */
#include <stdio.h>
#include <string.h>
#include "ofp_rule.h"

static void
format_line(const char *flow, char *out, size_t len)
{
	struct ofp_rule r;
	char err[256], body[2048];

	if (ofp_parse_flow(flow, OFP_PARSE_ADD, NULL, &r, err, sizeof err)) {
		snprintf(out, len, "error: %s", err);
		return;
	}
	ofp_format_rule_body(&r, NULL, body, sizeof body);
	/* between the match and actions=, ofp_print_flow_mod's cookie:,
	 * idle:, hard:, importance: and flags, each ending in a space */
	char *acts = strstr(body, "actions=");
	char mid[256] = "";
	size_t m = 0;
	if (r.cookie)
		m += snprintf(mid + m, sizeof mid - m, "cookie:0x%lx ",
			      (unsigned long)r.cookie);
	if (r.idle_timeout)
		m += snprintf(mid + m, sizeof mid - m, "idle:%u ",
			      r.idle_timeout);
	if (r.hard_timeout)
		m += snprintf(mid + m, sizeof mid - m, "hard:%u ",
			      r.hard_timeout);
	if (r.importance)
		m += snprintf(mid + m, sizeof mid - m, "importance:%u ",
			      r.importance);
	for (int i = 0; i < OFP_N_FLAGS; i++)
		if (r.flags & (1u << i))
			m += snprintf(mid + m, sizeof mid - m, "%s ",
				      ofp_flag_name(i));
	if (!acts)
		acts = body + strlen(body);
	size_t o = 0;
	if (r.table_id)
		o += snprintf(out + o, len - o, "table:%u ", r.table_id);
	snprintf(out + o, len - o, "%.*s%s%s", (int)(acts - body), body, mid,
		 acts);
}

/* The next line that is not a comment, without its newline. */
static bool
next_line(FILE *f, char *buf, size_t len)
{
	while (fgets(buf, (int)len, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		if (buf[0] && buf[0] != '#')
			return true;
	}
	return false;
}

int
main(int argc, char **argv)
{
	char flow[2048], want[2048], got[4096];
	int passed = 0, failed = 0;
	FILE *rules, *expect = NULL;

	if (argc < 2 || !(rules = fopen(argv[1], "r")) ||
	    (argc > 2 && !(expect = fopen(argv[2], "r")))) {
		fprintf(stderr, "usage: %s RULES [EXPECTED]\n", argv[0]);
		return 2;
	}
	while (next_line(rules, flow, sizeof flow)) {
		format_line(flow, got, sizeof got);
		if (!expect) {
			printf("%s\n", got);
			continue;
		}
		if (!next_line(expect, want, sizeof want))
			want[0] = '\0';
		if (!strcmp(got, want)) {
			passed++;
		} else {
			failed++;
			printf("FAIL: %s\n  ours: %s\n  ovs:  %s\n", flow, got,
			       want);
		}
	}
	if (expect)
		printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
