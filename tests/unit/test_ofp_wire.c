/* SPDX-License-Identifier: BSD-3-Clause
 * The OpenFlow wire codec (app/ofproto/ofp_wire*.c) against the bytes
 * Debian's ovs-ofctl and ovs-vswitchd 3.1 exchange
 * (tests/integration/ovs_ref/openflow/vectors.txt, made by
 * make-ovs-ref-ofwire.sh): every recorded flow_mod decodes to the rule
 * ofp_parse_flow() makes of its text (less the differences OVS's own
 * protocol makes, named below); every flow-stats and aggregate request
 * to the filter of its text; our encoding of the rule is the recorded
 * flow-stats reply byte for byte (durations and counters copied from
 * it); and truncated, oversized, bad-length, unknown-field, -action,
 * -experimenter and -instruction mutants of every message are refused
 * with the right error, each decoded from a buffer of its exact size
 * (run under ASan: no read outside it).
 * And errors.txt: broken flow_mods sent to ovs-vswitchd, decoded to the
 * error it answered, our OFPT_ERROR equal to its, byte for byte.
 * Usage: test_ofp_wire VECTORS ERRORS, or test_ofp_wire --bench
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>

#include "test_ofp_wire.h"

int n_passed, n_failed;

void __attribute__((format(printf, 2, 3)))
check(bool ok, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		n_passed++;
		return;
	}
	n_failed++;
	fprintf(stderr, "FAIL: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* numbers only, as ovs-ofctl --no-names */
static uint32_t
no_name(const char *name, void *aux)
{
	(void)name;
	(void)aux;
	return 0;
}

static const char *
no_port_name(uint32_t port, void *aux)
{
	(void)port;
	(void)aux;
	return NULL;
}

const struct ofp_port_map ports = { no_name, no_port_name, NULL };

const char *
rule_text(const struct ofp_rule *r, char *buf, size_t n)
{
	ofp_format_rule(r, &ports, buf, n);
	return buf;
}

bool
rules_equal(const struct ofp_rule *a, const struct ofp_rule *b)
{
	return a->priority == b->priority && a->table_id == b->table_id &&
	       a->cookie == b->cookie && a->cookie_mask == b->cookie_mask &&
	       a->cookie_given == b->cookie_given &&
	       a->idle_timeout == b->idle_timeout &&
	       a->hard_timeout == b->hard_timeout &&
	       a->importance == b->importance && a->flags == b->flags &&
	       a->out_port == b->out_port &&
	       !memcmp(&a->match, &b->match, sizeof a->match) &&
	       !memcmp(&a->mask, &b->mask, sizeof a->mask) &&
	       !memcmp(&a->meta_match, &b->meta_match, sizeof a->meta_match) &&
	       !memcmp(&a->meta_mask, &b->meta_mask, sizeof a->meta_mask) &&
	       a->n_actions == b->n_actions && a->n_ct == b->n_ct &&
	       !memcmp(a->actions, b->actions,
		       a->n_actions * sizeof a->actions[0]) &&
	       !memcmp(a->ct, b->ct, a->n_ct * sizeof a->ct[0]);
}

void
explain(const char *what, const struct ofp_rule *got,
	const struct ofp_rule *want)
{
	char a[1024], b[1024];

	fprintf(stderr, "  %s\n  got:  %s (cookie %#llx/%#llx given %d "
		"flags %#x out_port %u imp %u)\n  want: %s (cookie %#llx/%#llx "
		"given %d flags %#x out_port %u imp %u)\n", what,
		rule_text(got, a, sizeof a),
		(unsigned long long)got->cookie,
		(unsigned long long)got->cookie_mask, got->cookie_given,
		got->flags, got->out_port, got->importance,
		rule_text(want, b, sizeof b),
		(unsigned long long)want->cookie,
		(unsigned long long)want->cookie_mask, want->cookie_given,
		want->flags, want->out_port, want->importance);
}

void
set16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

uint16_t
g16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

void
dump_hex(const char *what, const uint8_t *p, size_t n)
{
	fprintf(stderr, "  %s: ", what);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "%02x", p[i]);
	fputc('\n', stderr);
}

/* ---- the vector file ---------------------------------------------------- */


size_t
unhex(const char *s, uint8_t **out)
{
	size_t n = strlen(s) / 2;
	uint8_t *p = malloc(n ? n : 1);

	for (size_t i = 0; i < n; i++) {
		unsigned x;
		sscanf(s + 2 * i, "%2x", &x);
		p[i] = (uint8_t)x;
	}
	*out = p;
	return n;
}

static void
block_free(struct block *b)
{
	for (int i = 0; i < b->n; i++)
		free(b->m[i].data);
	b->n = 0;
}

/* "## V CMD [--strict] [FLOW]" */
static void
block_start(struct block *b, char *line)
{
	char *rest;

	memset(b, 0, sizeof *b);
	b->version = (int)strtol(line + 3, &rest, 10);
	rest++;
	sscanf(rest, "%31s", b->cmd);
	rest += strlen(b->cmd);
	while (*rest == ' ')
		rest++;
	if (!strncmp(rest, "--strict", 8)) {
		b->strict = true;
		rest += 8;
		while (*rest == ' ')
			rest++;
	}
	snprintf(b->flow, sizeof b->flow, "%s", rest);
	b->flow[strcspn(b->flow, "\n")] = '\0';
}

static uint8_t
wire_version(int v)
{
	return v == 10 ? OFP10_VERSION : v == 13 ? OFP13_VERSION :
	       v == 14 ? OFP14_VERSION : OFP15_VERSION;
}

static bool
is_flow_mod(const struct msg *m)
{
	return m->to_switch && m->len >= 16 &&
	       (m->data[1] == 14 || (m->data[1] == 4 && m->data[15] == 13));
}

static bool
is_stats_request(const struct msg *m)
{
	return m->to_switch && m->data[1] == (m->data[0] == OFP10_VERSION ? 16
									  : 18);
}

/* the copy a decode reads: exactly len bytes, so ASan sees any overrun */
enum ofp_wire_error
decode_fm(const uint8_t *p, size_t len, const struct ofp_wire_conn *c,
	  struct ofp_flow_mod *fm)
{
	uint8_t *copy = malloc(len ? len : 1);
	enum ofp_wire_error e;

	memcpy(copy, p, len);
	e = ofp_wire_decode_flow_mod(copy, len, c, fm);
	free(copy);
	return e;
}

enum ofp_wire_error
decode_sr(const uint8_t *p, size_t len, struct ofp_stats_request *req)
{
	uint8_t *copy = malloc(len ? len : 1);
	enum ofp_wire_error e;

	memcpy(copy, p, len);
	e = ofp_wire_decode_stats_request(copy, len, req);
	free(copy);
	return e;
}

/* ---- expectations -------------------------------------------------------- */

/* ofp_parse_flow of the block's text, with what OVS's protocol changes:
 * 1.0 adds reset counters; 1.0 has no goto_table (ovs-ofctl sends
 * resubmit(,T)); a 1.1+ modify without table= is for table 0; a 1.0
 * modify sets the cookie it carries (0 unless cookie= was given). */
static bool
expected_rule(const struct block *b, const char *flow, struct ofp_rule *want)
{
	enum ofp_parse_mode mode = !strcmp(b->cmd, "add-flow") ? OFP_PARSE_ADD :
				   !strcmp(b->cmd, "mod-flows") ? OFP_PARSE_MODIFY
								: OFP_PARSE_MATCH;
	char text[512], err[256];
	const char *g = strstr(flow, "goto_table:");

	if (b->version == 10 && g)
		snprintf(text, sizeof text, "%.*sresubmit(,%s", (int)(g - flow),
			 flow, g + 11), strcat(text, ")");
	else
		snprintf(text, sizeof text, "%s", flow);
	if (ofp_parse_flow(text, mode, &ports, want, err, sizeof err)) {
		check(false, "%d %s '%s': %s", b->version, b->cmd, text, err);
		return false;
	}
	if (b->version == 10 && mode == OFP_PARSE_ADD)
		want->flags |= OFP_FF_RESET_COUNTS;
	/* 1.0 has no set_field: ovs-ofctl sends NXAST_REG_LOAD, which OVS
	 * (and vxswitch) show as load */
	for (int i = 0; b->version == 10 && i < want->n_actions; i++)
		if (want->actions[i].type == OFPACT_LOAD)
			want->actions[i].form = 0;
	for (int i = 0; b->version == 10 && i < want->n_ct; i++)
		for (int j = 0; j < want->ct[i].n_exec; j++)
			want->ct[i].exec[j].set_field = false;
	if (mode == OFP_PARSE_MODIFY && b->version > 10 &&
	    want->table_id == OFP_TABLE_ALL)
		want->table_id = 0;
	if (mode == OFP_PARSE_MODIFY && b->version == 10 && !want->cookie_mask &&
	    !want->cookie_given)
		want->cookie_given = true;
	return true;
}

/* ---- one block ----------------------------------------------------------- */

static int n_known;

struct state {
	struct ofp_rule last_added;	/* what the switch holds */
	char last_text[512];
	bool have_rule;
	int n_fm, n_sr, n_replies;
};

static void
counts_from_entry(const uint8_t *e, uint8_t version, bool nx,
		  struct ofp_flow_counts *c)
{
	memset(c, 0, sizeof *c);
	if (nx) {
		c->duration_sec = (uint32_t)g16(e + 4) << 16 | g16(e + 6);
		c->duration_nsec = (uint32_t)g16(e + 8) << 16 | g16(e + 10);
		c->idle_age = g16(e + 20);
		c->hard_age = g16(e + 22);
	} else if (version == OFP10_VERSION) {	/* after the ofp_match */
		c->duration_sec = (uint32_t)g16(e + 44) << 16 | g16(e + 46);
		c->duration_nsec = (uint32_t)g16(e + 48) << 16 | g16(e + 50);
	} else if (version < OFP15_VERSION) {
		c->duration_sec = (uint32_t)g16(e + 4) << 16 | g16(e + 6);
		c->duration_nsec = (uint32_t)g16(e + 8) << 16 | g16(e + 10);
	} else {
		size_t ml = g16(e + 26), oxs = 24 + ((ml + 7) & ~7u);
		c->duration_sec = (uint32_t)g16(e + oxs + 8) << 16 |
				  g16(e + oxs + 10);
		c->duration_nsec = (uint32_t)g16(e + oxs + 12) << 16 |
				   g16(e + oxs + 14);
		c->idle_sec = (uint32_t)g16(e + oxs + 20) << 16 |
			      g16(e + oxs + 22);
		c->idle_nsec = (uint32_t)g16(e + oxs + 24) << 16 |
			       g16(e + oxs + 26);
	}
}


static uint64_t
g64(const uint8_t *p)
{
	return (uint64_t)g16(p) << 48 | (uint64_t)g16(p + 2) << 32 |
	       (uint64_t)g16(p + 4) << 16 | g16(p + 6);
}

static void
check_reply(const struct block *b, const struct ofp_stats_request *req,
	    const struct msg *reply, struct state *st)
{
	struct ofp_wire_buf out = { 0 };

	if (req->kind == OFP_STATS_AGGREGATE) {
		/* the counts as recorded */
		const uint8_t *a = reply->data + (req->nx ? 24 :
			req->version == OFP10_VERSION ? 12 : 16);
		uint64_t pk, by;
		uint32_t fl;

		if (req->version >= OFP15_VERSION) {	/* OXS */
			pk = g64(a + 8);
			by = g64(a + 20);
			fl = (uint32_t)g16(a + 32) << 16 | g16(a + 34);
		} else {
			pk = g64(a);
			by = g64(a + 8);
			fl = (uint32_t)g16(a + 16) << 16 | g16(a + 18);
		}
		ofp_wire_aggregate_reply(&out, req, pk, by, fl);
	} else {
		struct ofp_stats_reply rep;
		bool one = reply->len > (size_t)(req->nx ? 24 :
			req->version == OFP10_VERSION ? 12 : 16);

		ofp_wire_stats_begin(&rep, req);
		if (one) {
			struct ofp_flow_counts c;
			size_t hdr = req->nx ? 24 : req->version ==
				     OFP10_VERSION ? 12 : 16;

			counts_from_entry(reply->data + hdr, req->version,
					  req->nx, &c);
			check(st->have_rule, "%d %s: a flow without an add",
			      b->version, b->cmd);
			if (st->have_rule)
				ofp_wire_stats_add(&rep, &st->last_added, &c);
		}
		ofp_wire_stats_end(&rep);
		out = rep.out;
	}
	st->n_replies++;
	/* Known difference: in 1.0 OVS writes a tun_id set_field back as
	 * NXAST_REG_LOAD to NXM_NX_TUN_ID, set_tunnel as NXAST_SET_TUNNEL;
	 * struct ofp_rule keeps one OFPACT_SET_TUNNEL for both (and
	 * vxswitch writes NXAST_SET_TUNNEL). It must still differ, so that
	 * this line goes once it is fixed. */
	if (req->version == OFP10_VERSION && st->have_rule &&
	    strstr(st->last_text, "set_field:100->tun_id")) {
		n_known++;
		check(out.len != reply->len || memcmp(out.data, reply->data,
						      out.len),
		      "the set_field->tun_id difference is gone: drop it");
		ofp_wire_buf_free(&out);
		return;
	}
	bool same = out.len == reply->len && !memcmp(out.data, reply->data,
						     out.len);
	check(same, "%d %s after '%s': reply differs", b->version, b->cmd,
	      st->have_rule ? "add" : "-");
	if (!same) {
		char t[1024];
		fprintf(stderr, "  rule: %s\n", st->have_rule ?
			rule_text(&st->last_added, t, sizeof t) : "-");
		dump_hex("ours", out.data, out.len);
		dump_hex("OVS ", reply->data, reply->len);
	}
	ofp_wire_buf_free(&out);
}

static void
run_block(struct block *b, struct state *st)
{
	struct ofp_wire_conn conn = { false };
	const char *flow = b->flow;

	if (b->exit_code)
		return;
	for (int i = 0; i < b->n; i++) {
		struct msg *m = &b->m[i];

		/* NXT_FLOW_MOD_TABLE_ID on */
		if (m->to_switch && m->data[1] == 4 && m->len >= 17 &&
		    m->data[15] == 15)
			conn.of10_table_id = m->data[16];
		if (is_flow_mod(m)) {
			struct ofp_flow_mod fm;
			struct ofp_rule want;
			enum ofp_wire_error e = decode_fm(m->data, m->len,
							  &conn, &fm);

			st->n_fm++;
			check(e == OFPW_OK, "%d %s '%s': decode: %s",
			      b->version, b->cmd, flow, ofp_wire_err_name(e));
			if (e)
				continue;
			check(fm.version == wire_version(b->version),
			      "version");
			if (expected_rule(b, flow, &want)) {
				bool eq = rules_equal(&fm.rule, &want);
				check(eq, "%d %s '%s': decoded rule differs",
				      b->version, b->cmd, flow);
				if (!eq)
					explain(flow, &fm.rule, &want);
			}
			if (!strcmp(b->cmd, "add-flow")) {
				st->last_added = fm.rule;
				st->have_rule = true;
				snprintf(st->last_text, sizeof st->last_text,
					 "%s", flow);
			}
			mutate(b, m, fm_fn, &conn, true);
		} else if (is_stats_request(m)) {
			struct ofp_stats_request req;
			struct ofp_rule want;
			enum ofp_wire_error e = decode_sr(m->data, m->len,
							  &req);

			st->n_sr++;
			check(e == OFPW_OK, "%d %s '%s': stats request: %s",
			      b->version, b->cmd, flow, ofp_wire_err_name(e));
			if (e)
				continue;
			if (expected_rule(b, flow, &want)) {
				bool eq = rules_equal(&req.filter, &want);
				check(eq, "%d %s '%s': filter differs",
				      b->version, b->cmd, flow);
				if (!eq)
					explain(flow, &req.filter, &want);
			}
			if (i + 1 < b->n && !b->m[i + 1].to_switch)
				check_reply(b, &req, &b->m[i + 1], st);
			mutate(b, m, sr_fn, NULL, false);
		}
	}
	if (!strcmp(b->cmd, "del-flows") && !*flow)
		st->have_rule = false;
}

int
main(int argc, char **argv)
{
	struct block b;
	struct state st = { 0 };
	char *line = NULL;
	size_t cap = 0;
	FILE *f;
	bool open_block = false;

	if (argc == 2 && !strcmp(argv[1], "--bench")) {
		bench();
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: %s VECTORS ERRORS | --bench\n",
			argv[0]);
		return 2;
	}
	f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	test_errors();
	test_multipart_split();
	test_sg_encoding();
	int n_err = test_ovs_errors(argv[2]);
	check(n_err >= 20, "errors.txt: %d cases", n_err);
	while (getline(&line, &cap, f) > 0) {
		if (!strncmp(line, "## ", 3)) {
			if (open_block) {
				run_block(&b, &st);
				block_free(&b);
			}
			block_start(&b, line);
			open_block = true;
		} else if (!strncmp(line, "exit ", 5)) {
			b.exit_code = atoi(line + 5);
		} else if ((line[0] == '>' || line[0] == '<') &&
			   b.n < MAX_MSGS) {
			char *hex = strrchr(line, ' ') + 1;
			hex[strcspn(hex, "\n")] = '\0';
			b.m[b.n].to_switch = line[0] == '>';
			b.m[b.n].len = unhex(hex, &b.m[b.n].data);
			b.n++;
		}
	}
	if (open_block) {
		run_block(&b, &st);
		block_free(&b);
	}
	free(line);
	fclose(f);
	check(st.n_fm >= 100 && st.n_sr >= 100, "vectors read: %d flow_mods, "
	      "%d stats requests", st.n_fm, st.n_sr);
	printf("%d flow_mods, %d stats requests, %d replies compared "
	       "(%d known difference), %d mutants, %d OVS errors\n", st.n_fm,
	       st.n_sr, st.n_replies, n_known, n_mutants, n_err);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed ? 1 : 0;
}
