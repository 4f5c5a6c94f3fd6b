/* SPDX-License-Identifier: BSD-3-Clause
 * The OpenFlow channel's rule messages (of_flows.h): flow_mod
 * (OFPT_FLOW_MOD, Nicira's NXT_FLOW_MOD), flow and aggregate stats
 * (OFPMP_FLOW/AGGREGATE, 1.0's OFPST_*, NXST_*), and the Nicira settings
 * ovs-ofctl sends before them in 1.0 (NXT_SET_FLOW_FORMAT,
 * NXT_FLOW_MOD_TABLE_ID). Bytes to rules and back are
 * app/ofproto/ofp_wire.h's; rules change through the rule table's one
 * flow_mod path (ofproto_add_rules, _mod_rules, _del_rules), so a rule
 * from ovs-ofctl is the rule `vxswitch-ctl add-flow` makes, with the same
 * counters, cookies and timeouts in both dump-flows. Each request is
 * checked whole before anything changes; a refusal is the error
 * ovs-vswitchd 3.1 sends (ofproto.c ofproto_flow_mod_init: a buffer_id
 * on an add or modify is OFPBRC_BUFFER_UNKNOWN, nothing applied).
 */
#include "of_flows.h"

#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "mf_dump.h"
#include "of_conn.h"
#include "ofproto.h"
#include "pmd.h"
#include "vlog.h"

/* what a refusal's log line says beside OVS's error name */
struct of_flow_mod_ctx {
	char err[256];
};

#define NXT_SET_FLOW_FORMAT 12
#define NXT_FLOW_MOD 13
#define NXT_FLOW_MOD_TABLE_ID 15
#define NXFF_OPENFLOW10 0
#define NXFF_NXM 2

static void
handled(const uint8_t *msg)
{
	of_chan.types.handled[of_family(msg[0])][msg[1]]++;
}

/* Refuses msg with e as its version says it (ofp_wire_encode_error). */
static void
refuse_wire(struct of_conn *c, const uint8_t *msg, size_t len,
	    enum ofp_wire_error e)
{
	static uint8_t out[OFP_MAX_MSG_LEN + 32];
	size_t n = ofp_wire_encode_error(e, msg, len, out, sizeof out);

	of_chan.types.refused[of_family(msg[0])][msg[1]]++;
	of_chan.n.errors_sent++;
	c->errors_out++;
	if (n)
		of_conn_send(c, out, n);
}

static enum ofp_wire_error
apply(struct of_flow_mod_ctx *x, const struct ofp_flow_mod *fm)
{
	enum ofp_wire_error why = OFPW_OK;
	bool strict = fm->command == OFP_FM_MODIFY_STRICT ||
		      fm->command == OFP_FM_DELETE_STRICT;
	int bad, n;

	switch (fm->command) {
	case OFP_FM_ADD:
		if (ofproto_add_rules(&fm->rule, 1, &bad, &why, x->err,
				      sizeof x->err))
			return why ? why : OFPW_FMFC_TABLE_FULL;
		return OFPW_OK;
	case OFP_FM_MODIFY:
	case OFP_FM_MODIFY_STRICT:
		n = ofproto_mod_rules(&fm->rule, strict, &why, x->err,
				      sizeof x->err);
		if (n < 0)
			return why ? why : OFPW_BAC_BAD_ARGUMENT;
		if (n == 0 && fm->version == OFP10_VERSION) {
			/* 1.0's modify of nothing adds (ovs-ofctl(8)) */
			struct ofp_rule r = fm->rule;
			if (r.table_id == OFP_TABLE_ALL)
				r.table_id = 0;
			r.out_port = 0;
			r.cookie_mask = 0;
			if (ofproto_add_rules(&r, 1, &bad, &why, x->err,
					      sizeof x->err))
				return why ? why : OFPW_FMFC_TABLE_FULL;
		}
		return OFPW_OK;
	case OFP_FM_DELETE:
	case OFP_FM_DELETE_STRICT:
		/* no groups: a filter naming one selects nothing */
		if (fm->out_group == UINT32_MAX)
			ofproto_del_rules(&fm->rule, strict);
		return OFPW_OK;
	default:
		return OFPW_FMFC_BAD_COMMAND;
	}
}

void
of_flow_mod(struct of_conn *c, const uint8_t *msg, size_t len)
{
	struct of_flow_mod_ctx x = { .err = "" };
	struct ofp_flow_mod *fm = malloc(sizeof *fm);
	enum ofp_wire_error e;

	if (!fm) {
		refuse_wire(c, msg, len, OFPW_FMFC_TABLE_FULL);
		return;
	}
	e = ofp_wire_decode_flow_mod(msg, len, &c->wire, fm);
	if (!e && fm->buffer_id != UINT32_MAX &&
	    fm->command != OFP_FM_DELETE && fm->command != OFP_FM_DELETE_STRICT)
		e = OFPW_BRC_BUFFER_UNKNOWN;
	if (!e)
		e = apply(&x, fm);
	if (e) {
		of_chan.n.flow_mods_refused++;
		VLOG_INFO(control, "openflow: connection %llu: flow_mod "
			  "refused: %s%s%s", c->id, ofp_wire_err_name(e),
			  x.err[0] ? ": " : "", x.err);
		refuse_wire(c, msg, len, e);
	} else {
		of_chan.n.flow_mods++;
		handled(msg);
	}
	free(fm);
}

/* ---- flow and aggregate stats ------------------------------------------ */

/* OVS's ages saturate at 65535 s */
static uint16_t
age_secs(uint64_t now_ms, uint64_t then_ms)
{
	uint64_t s = now_ms > then_ms ? (now_ms - then_ms) / 1000 : 0;
	return s > 65535 ? 65535 : (uint16_t)s;
}

/* The live megaflows of every PMD, for their rules' counters. */
struct live {
	struct mf_dump_req *reqs;
};

static int
live_collect(struct live *l)
{
	struct ds err = DS_EMPTY_INITIALIZER;

	l->reqs = calloc(n_pmds ? n_pmds : 1, sizeof *l->reqs);
	if (!l->reqs)
		return -1;
	ctl_events_process();
	for (uint16_t i = 0; i < n_pmds; i++)
		if (collect_flows(&pmds[i], &l->reqs[i], &err)) {
			VLOG_WARN(control, "openflow: flow stats: %s",
				  ds_cstr(&err));
			break;		/* that PMD's live counts are missing */
		}
	ds_destroy(&err);
	return 0;
}

static void
live_free(struct live *l)
{
	for (uint16_t i = 0; l->reqs && i < n_pmds; i++)
		free(l->reqs[i].v);
	free(l->reqs);
}

static void
rule_counts(const struct live *l, uint32_t i, uint64_t now_ms,
	    struct ofp_flow_counts *c)
{
	const struct ofp_rule *r = ofproto_rule(i);
	const struct ofproto_rule_stats *st = ofproto_rule_stats(i);
	uint64_t used = st->used_ms;

	c->packets = st->packets;
	c->bytes = st->bytes;
	for (uint16_t p = 0; p < n_pmds; p++)
		for (uint32_t k = 0; k < l->reqs[p].n; k++)
			if (l->reqs[p].v[k].rule_uid == r->uid) {
				const struct mf_dump *m = &l->reqs[p].v[k];
				c->packets += m->n_packets;
				c->bytes += m->n_bytes;
				used = RTE_MAX(used,
					       pmd_tsc_to_ms(m->used_tsc));
			}
	uint64_t age = now_ms > st->created_ms ? now_ms - st->created_ms : 0;
	uint64_t last = RTE_MAX(used, st->created_ms);
	uint64_t idle = now_ms > last ? now_ms - last : 0;
	c->duration_sec = (uint32_t)(age / 1000);
	c->duration_nsec = (uint32_t)(age % 1000) * 1000000u;
	c->idle_age = age_secs(now_ms, last);
	c->hard_age = age_secs(now_ms, st->modified_ms);
	c->idle_sec = (uint32_t)(idle / 1000);
	c->idle_nsec = (uint32_t)(idle % 1000) * 1000000u;
}

static void
send_all(struct of_conn *c, const struct ofp_wire_buf *b)
{
	for (size_t off = 0; off + 8 <= b->len && !c->dead;) {
		size_t n = ((size_t)b->data[off + 2] << 8) | b->data[off + 3];
		if (n < 8 || off + n > b->len)
			break;
		of_conn_send(c, b->data + off, n);
		off += n;
	}
}

void
of_flow_stats(struct of_conn *c, const uint8_t *msg, size_t len)
{
	struct ofp_stats_request req;
	struct live l = { NULL };
	enum ofp_wire_error e = ofp_wire_decode_stats_request(msg, len, &req);

	if (!e && live_collect(&l))
		e = OFPW_FMFC_TABLE_FULL;	/* out of memory */
	if (e) {
		refuse_wire(c, msg, len, e);
		return;
	}
	handled(msg);
	uint64_t now = vxs_now_ms(), packets = 0, bytes = 0;
	uint32_t flows = 0;
	struct ofp_stats_reply rep;
	struct ofp_flow_counts counts;

	if (req.kind == OFP_STATS_FLOW)
		ofp_wire_stats_begin(&rep, &req);
	for (uint32_t i = 0; i < ofproto_n_rules(); i++) {
		const struct ofp_rule *r = ofproto_rule(i);
		if (!ofp_rule_covered_by(r, &req.filter))
			continue;
		rule_counts(&l, i, now, &counts);
		if (req.kind == OFP_STATS_AGGREGATE) {
			packets += counts.packets;
			bytes += counts.bytes;
			flows++;
		} else if (ofp_wire_stats_add(&rep, r, &counts)) {
			of_chan.n.stats_unencodable++;
		}
	}
	if (req.kind == OFP_STATS_FLOW) {
		ofp_wire_stats_end(&rep);
		send_all(c, &rep.out);
		ofp_wire_buf_free(&rep.out);
	} else {
		struct ofp_wire_buf out = { NULL, 0, 0, false };
		ofp_wire_aggregate_reply(&out, &req, packets, bytes, flows);
		send_all(c, &out);
		ofp_wire_buf_free(&out);
	}
	live_free(&l);
}

/* ---- Nicira settings ---------------------------------------------------- */

bool
of_flows_nx_message(struct of_conn *c, const uint8_t *msg, size_t len)
{
	uint32_t subtype = len >= 16 ? be_get32(msg + 12) : UINT32_MAX;

	switch (subtype) {
	case NXT_FLOW_MOD:
		of_flow_mod(c, msg, len);
		return true;
	case NXT_SET_FLOW_FORMAT:
		if (len != 20) {
			refuse_wire(c, msg, len, OFPW_BRC_BAD_LEN);
		} else if (be_get32(msg + 16) != NXFF_OPENFLOW10 &&
			   be_get32(msg + 16) != NXFF_NXM) {
			of_chan.types.refused[of_family(msg[0])][msg[1]]++;
			of_conn_send_error(c, msg, OFPET_BAD_REQUEST,
					   OFPBRC_EPERM);
		} else {
			handled(msg);	/* replies follow the request's form */
		}
		return true;
	case NXT_FLOW_MOD_TABLE_ID:
		if (len != 24) {
			refuse_wire(c, msg, len, OFPW_BRC_BAD_LEN);
		} else {
			c->wire.of10_table_id = msg[16] != 0;
			handled(msg);
		}
		return true;
	default:
		return false;
	}
}
