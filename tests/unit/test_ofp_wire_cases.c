/* SPDX-License-Identifier: BSD-3-Clause
 * test_ofp_wire's own cases: the error table and OFPT_ERROR bytes,
 * errors.txt (ovs-vswitchd's answers to broken flow_mods), a reply split
 * at 64 KiB, and --bench.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_common.h>

#include "test_ofp_wire.h"

void
test_errors(void)
{
	static const uint8_t req13[16] = { 4, 14, 0, 16, 0, 0, 0, 9 };
	static const uint8_t req10[16] = { 1, 14, 0, 16, 0, 0, 0, 9 };
	uint8_t out[128];
	size_t n;
	struct ofp_wire_err w = ofp_wire_err_lookup(OFPW_BMC_BAD_FIELD, 4);

	check(w.type == 4 && w.code == 6 && !w.vendor &&
	      !strcmp(w.name, "OFPBMC_BAD_FIELD"), "BAD_FIELD 1.3");
	w = ofp_wire_err_lookup(OFPW_FMFC_OVERLAP, 1);
	check(w.type == 3 && w.code == 1, "OVERLAP 1.0");
	w = ofp_wire_err_lookup(OFPW_FMFC_OVERLAP, 6);
	check(w.type == 5 && w.code == 3, "OVERLAP 1.5");
	w = ofp_wire_err_lookup(OFPW_BIC_UNKNOWN_INST, 1);
	check(!strcmp(w.name, "NXBRC_UNENCODABLE_ERROR"), "unencodable");
	n = ofp_wire_encode_error(OFPW_BMC_BAD_FIELD, req13, 16, out,
				  sizeof out);
	check(n == 28 && out[0] == 4 && out[1] == 1 && out[3] == 28 &&
	      out[7] == 9 && out[9] == 4 && out[11] == 6 &&
	      !memcmp(out + 12, req13, 16), "error 1.3 bytes");
	/* 1.0: NXET_VENDOR, NXVC_VENDOR_ERROR, vendor, type 0, code 263 */
	n = ofp_wire_encode_error(OFPW_BMC_BAD_FIELD, req10, 16, out,
				  sizeof out);
	check(n == 36 && out[8] == 0xb0 && out[9] == 0xc2 && out[15] == 0x20 &&
	      out[17] == 0 && g16(out + 18) == 263, "error 1.0 bytes");
	/* 1.3 Nicira error: OFPET_EXPERIMENTER, exp type, vendor */
	n = ofp_wire_encode_error(OFPW_NXBAC_BAD_CONJUNCTION, req13, 16, out,
				  sizeof out);
	check(n == 32 && g16(out + 8) == 0xffff && g16(out + 10) == 15 &&
	      out[15] == 0x20, "NX error 1.3 bytes");
	/* the whole request, as ovs-vswitchd */
	uint8_t big[100] = { 4, 14, 0, 100 };
	n = ofp_wire_encode_error(OFPW_BRC_BAD_LEN, big, 100, out, sizeof out);
	check(n == 12 + 100, "the whole request");
	check(ofp_wire_encode_error(OFPW_BRC_BAD_LEN, big, 200, out, 40) == 0,
	      "too small a buffer");
}

/* A reply past 64 KiB: messages of at most 65535 bytes, the "more" flag
 * on all but the last, every entry whole and in order (ofpmp_postappend).
 * One OpenFlow 1.3 entry of this rule is 96 bytes. */
void
test_multipart_split(void)
{
	static const uint8_t versions[] = { OFP10_VERSION, OFP13_VERSION,
					    OFP14_VERSION, OFP15_VERSION };
	struct ofp_flow_counts c = { .duration_sec = 1, .packets = 2 };
	struct ofp_rule r;
	char err[256];
	const int n_rules = 3000;

	if (ofp_parse_flow("priority=5,ip,nw_src=10.0.0.0/8,actions=output:1,"
			   "resubmit(,3)", OFP_PARSE_ADD, &ports, &r, err,
			   sizeof err)) {
		check(false, "parse: %s", err);
		return;
	}
	for (size_t v = 0; v < sizeof versions; v++) {
		for (int nx = 0; nx <= (versions[v] == OFP10_VERSION); nx++) {
			struct ofp_stats_request req = {
				.version = versions[v], .kind = OFP_STATS_FLOW,
				.nx = nx, .xid = 7,
			};
			struct ofp_stats_reply rep;
			size_t at = 0, hdr = nx ? 24 : versions[v] ==
				    OFP10_VERSION ? 12 : 16;
			int n_msgs = 0, n_entries = 0;
			bool ok = true;

			ofp_wire_stats_begin(&rep, &req);
			for (int i = 0; i < n_rules; i++) {
				r.cookie = (uint64_t)i;
				ok &= ofp_wire_stats_add(&rep, &r, &c) == 0;
			}
			ofp_wire_stats_end(&rep);
			while (ok && at < rep.out.len) {
				const uint8_t *m = rep.out.data + at;
				size_t len = g16(m + 2);
				bool more = g16(m + 10) & 1;

				n_msgs++;
				ok &= len <= 65535 && at + len <= rep.out.len &&
				      m[0] == versions[v] && m[7] == 7;
				for (size_t e = hdr; ok && e < len;
				     e += g16(m + e)) {
					ok &= g16(m + e) >= 8;
					n_entries++;
				}
				at += len;
				ok &= more == (at < rep.out.len);
			}
			check(ok && n_msgs >= 2 && n_entries == n_rules,
			      "version %u nx %d: %d messages, %d entries",
			      versions[v], nx, n_msgs, n_entries);
			ofp_wire_buf_free(&rep.out);
		}
	}
}

/* An OpenFlow 1.3 add of r: the match and instructions of its
 * flow-stats entry behind a flow_mod header (malloc'd, *len bytes). */
static uint8_t *
flow_mod_of(const struct ofp_rule *r, size_t *len)
{
	struct ofp_stats_request req = { .version = OFP13_VERSION,
					 .kind = OFP_STATS_FLOW };
	struct ofp_flow_counts c = { 0 };
	struct ofp_stats_reply rep;
	uint8_t *msg;
	size_t body;

	ofp_wire_stats_begin(&rep, &req);
	ofp_wire_stats_add(&rep, r, &c);
	ofp_wire_stats_end(&rep);
	body = rep.out.len - 16 - 48;
	*len = 48 + body;
	msg = calloc(1, *len);
	msg[0] = OFP13_VERSION;
	msg[1] = 14;
	set16(msg + 2, (uint16_t)*len);
	memset(msg + 32, 0xff, 12);	/* buffer, out_port, group */
	set16(msg + 30, r->priority);
	memcpy(msg + 48, rep.out.data + 16 + 48, body);
	ofp_wire_buf_free(&rep.out);
	return msg;
}

/* sg() goes out as vxswitch's experimenter action and is refused back
 * (ofp_wire.h) */
void
test_sg_encoding(void)
{
	static const uint8_t sg_action[16] = {
		0xff, 0xff, 0x00, 0x10, 0x00, 0x76, 0x78, 0x73,
		0x00, 0x01, 0x01, 0x00, 0x00, 0x05, 0x00, 0x00,
	};
	struct ofp_flow_mod fm;
	struct ofp_rule r;
	char err[256];
	uint8_t *msg;
	size_t len;
	bool found = false;

	if (ofp_parse_flow("ip,actions=sg(allow,zone=5),output:1",
			   OFP_PARSE_ADD, &ports, &r, err, sizeof err)) {
		check(false, "sg: %s", err);
		return;
	}
	msg = flow_mod_of(&r, &len);
	for (size_t i = 48; i + 16 <= len && !found; i += 8)
		found = !memcmp(msg + i, sg_action, 16);
	check(found, "sg(allow,zone=5) as vxswitch's experimenter action");
	check(ofp_wire_decode_flow_mod(msg, len, NULL, &fm) ==
	      OFPW_BAC_BAD_EXPERIMENTER, "sg() refused on input");
	free(msg);
}

/* --bench: flow_mods decoded and flow-stats entries encoded per second
 * (printed, not checked: figures for design-control-plane.md). */
void
bench(void)
{
	static const char *const flows[] = {
		"priority=100,in_port=1,actions=output:2",
		"ip,ct_state=+trk+est,ct_zone=5,ct_mark=0x1/0xff,actions=output:1",
		"tcp,nw_dst=10.0.0.0/8,tp_dst=80,reg0=5,actions=ct(commit,zone=5,"
		"table=2,exec(set_field:0x1->ct_mark)),resubmit(,3)",
	};
	const int rounds = 200000;

	for (size_t f = 0; f < RTE_DIM(flows); f++) {
		struct ofp_stats_request req = { .version = OFP13_VERSION,
						 .kind = OFP_STATS_FLOW };
		struct ofp_flow_counts c = { 0 };
		struct ofp_stats_reply rep;
		struct ofp_flow_mod fm;
		struct timespec t0, t1, t2;
		struct ofp_rule r;
		char err[256];
		uint8_t *msg;
		size_t len;

		if (ofp_parse_flow(flows[f], OFP_PARSE_ADD, &ports, &r, err,
				   sizeof err))
			return;
		msg = flow_mod_of(&r, &len);
		enum ofp_wire_error de = ofp_wire_decode_flow_mod(msg, len, NULL,
								  &fm);
		if (de || !rules_equal(&fm.rule, &r)) {
			printf("'%s': %s\n", flows[f], ofp_wire_err_name(de));
			free(msg);
			return;
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (int i = 0; i < rounds; i++)
			ofp_wire_decode_flow_mod(msg, len, NULL, &fm);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ofp_wire_stats_begin(&rep, &req);
		for (int i = 0; i < rounds; i++)
			ofp_wire_stats_add(&rep, &fm.rule, &c);
		ofp_wire_stats_end(&rep);
		clock_gettime(CLOCK_MONOTONIC, &t2);
		double d = (double)(t1.tv_sec - t0.tv_sec) +
			   (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		double e = (double)(t2.tv_sec - t1.tv_sec) +
			   (double)(t2.tv_nsec - t1.tv_nsec) / 1e9;
		printf("%zu-byte flow_mod '%s': %.0f decodes/s, %.0f "
		       "entries encoded/s\n", len, flows[f], rounds / d,
		       rounds / e);
		ofp_wire_buf_free(&rep.out);
		free(msg);
	}
}

/* errors.txt: broken flow_mods and what ovs-vswitchd answered: our
 * decode gives the same error, and our OFPT_ERROR is its bytes. */
static const struct {
	const char *name;
	enum ofp_wire_error decode, sent;
} error_cases[] = {
	{ "unknown_field", OFPW_BMC_BAD_FIELD, OFPW_BMC_BAD_FIELD },
	{ "unknown_action", OFPW_BAC_BAD_TYPE, OFPW_BAC_BAD_TYPE },
	{ "action_len_4", OFPW_BAC_BAD_LEN, OFPW_BAC_BAD_LEN },
	{ "unknown_experimenter", OFPW_BAC_BAD_EXPERIMENTER,
	  OFPW_BAC_BAD_EXPERIMENTER },
	{ "unknown_nx_subtype", OFPW_BAC_BAD_EXP_TYPE, OFPW_BAC_BAD_EXP_TYPE },
	{ "unknown_instruction", OFPW_BIC_UNKNOWN_INST, OFPW_BIC_UNKNOWN_INST },
	{ "table_255", OFPW_FMFC_BAD_TABLE_ID, OFPW_FMFC_BAD_TABLE_ID },
	{ "bad_command", OFPW_FMFC_BAD_COMMAND, OFPW_FMFC_BAD_COMMAND },
	{ "bad_flags", OFPW_FMFC_BAD_FLAGS, OFPW_FMFC_BAD_FLAGS },
	/* decodes; the rule table refuses it (ofproto_add_rules) */
	{ "overlap", OFPW_OK, OFPW_FMFC_OVERLAP },
};

int
test_ovs_errors(const char *path)
{
	char *line = NULL, name[64] = "";
	uint8_t *req = NULL, *ans;
	size_t cap = 0, req_len = 0, n;
	int version = 0, n_cases = 0;
	FILE *f = fopen(path, "r");

	if (!f) {
		perror(path);
		return 0;
	}
	while (getline(&line, &cap, f) > 0) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "## ", 3)) {
			sscanf(line + 3, "%d %63s", &version, name);
		} else if (line[0] == '>') {
			free(req);
			req_len = unhex(line + 2, &req);
		} else if (line[0] == '<' && req) {
			size_t i;
			struct ofp_flow_mod fm;
			uint8_t out[1024];

			for (i = 0; i < RTE_DIM(error_cases); i++)
				if (!strcmp(error_cases[i].name, name))
					break;
			check(i < RTE_DIM(error_cases), "errors.txt: %s?", name);
			if (i == RTE_DIM(error_cases))
				continue;
			n_cases++;
			enum ofp_wire_error e = decode_fm(req, req_len, NULL, &fm);
			check(e == error_cases[i].decode, "%d %s: decoded as %s",
			      version, name, ofp_wire_err_name(e));
			n = unhex(line + 2, &ans);
			size_t got = ofp_wire_encode_error(error_cases[i].sent,
							   req, req_len, out,
							   sizeof out);
			bool same = got == n && !memcmp(out, ans, n);
			check(same, "%d %s: our OFPT_ERROR differs", version,
			      name);
			if (!same) {
				dump_hex("ours", out, got);
				dump_hex("OVS ", ans, n);
			}
			free(ans);
		}
	}
	free(req);
	free(line);
	fclose(f);
	return n_cases;
}
