/* SPDX-License-Identifier: BSD-3-Clause
 * test_ofp_wire's mutants: every recorded message cut at every byte (with
 * and without its length fixed), 8 bytes longer, with a wrong length or
 * version, an unknown field, action, experimenter, subtype or
 * instruction, each refused with the right error from a buffer of its
 * exact size; and 64 random byte changes of each, which must only never
 * read outside it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_ofp_wire.h"

enum ofp_wire_error
fm_fn(const uint8_t *p, size_t len, void *aux)
{
	struct ofp_flow_mod fm;

	return decode_fm(p, len, aux, &fm);
}

enum ofp_wire_error
sr_fn(const uint8_t *p, size_t len, void *aux)
{
	struct ofp_stats_request req;

	(void)aux;
	return decode_sr(p, len, &req);
}



int n_mutants;

static void
expect_err(const char *what, const struct block *b, enum ofp_wire_error got,
	   enum ofp_wire_error want)
{
	n_mutants++;
	check(got == want, "%d %s '%s': %s: %s, want %s", b->version, b->cmd,
	      b->flow, what, ofp_wire_err_name(got), ofp_wire_err_name(want));
}

/* where the match TLVs and the first action are in a flow_mod */
static void
locate(const uint8_t *m, size_t len, size_t *tlv, size_t *tlv_len,
       size_t *act, size_t *inst)
{
	*tlv = *tlv_len = *act = *inst = 0;
	if (m[0] == OFP10_VERSION && m[1] == 4) {	/* NXT_FLOW_MOD */
		size_t ml = g16(m + 40);
		*tlv = 48;
		*tlv_len = ml;
		*act = 48 + ((ml + 7) & ~7u);
	} else if (m[0] == OFP10_VERSION) {
		*act = 72;
	} else {
		size_t ml = g16(m + 50);
		*tlv = 52;
		*tlv_len = ml - 4;
		*inst = 48 + ((ml + 7) & ~7u);
		if (*inst + 8 < len && g16(m + *inst) == 4)
			*act = *inst + 8;
	}
	if (*act >= len)
		*act = 0;
	if (*inst >= len)
		*inst = 0;
}

void
mutate(const struct block *b, const struct msg *msg, decode_fn fn, void *aux,
       bool flow_mod)
{
	size_t len = msg->len;
	uint8_t *m = malloc(len + 16);

	/* truncated: the header's length no longer the buffer's */
	for (size_t cut = 0; cut < len; cut++) {
		memcpy(m, msg->data, len);
		expect_err("truncated", b, fn(m, cut, aux), OFPW_BRC_BAD_LEN);
	}
	/* truncated with the length fixed up: never past the end, refused
	 * unless the cut is between two whole parts */
	for (size_t cut = 8; cut < len; cut++) {
		enum ofp_wire_error e;

		memcpy(m, msg->data, len);
		set16(m + 2, (uint16_t)cut);
		e = fn(m, cut, aux);
		if (cut % 8) {
			n_mutants++;
			check(e != OFPW_OK, "%d %s '%s': cut to %zu taken",
			      b->version, b->cmd, b->flow, cut);
		}
	}
	/* oversized: 8 more bytes than the header says, and 8 zero bytes
	 * more in both */
	memcpy(m, msg->data, len);
	memset(m + len, 0, 8);
	expect_err("8 bytes past the header's length", b, fn(m, len + 8, aux),
		   OFPW_BRC_BAD_LEN);
	set16(m + 2, (uint16_t)(len + 8));
	n_mutants++;
	check(fn(m, len + 8, aux) != OFPW_OK, "%d %s '%s': 8 zero bytes taken",
	      b->version, b->cmd, b->flow);
	/* a length one more than the buffer */
	memcpy(m, msg->data, len);
	set16(m + 2, (uint16_t)(len + 1));
	expect_err("length + 1", b, fn(m, len, aux), OFPW_BRC_BAD_LEN);
	/* unknown version */
	memcpy(m, msg->data, len);
	m[0] = 0x03;
	expect_err("version 0x03", b, fn(m, len, aux), OFPW_BRC_BAD_VERSION);
	/* 64 random byte changes (a fixed seed): whatever they decode to,
	 * nothing is read outside the buffer (ASan) */
	uint32_t seed = (uint32_t)len * 2654435761u;
	for (int i = 0; i < 64; i++) {
		memcpy(m, msg->data, len);
		for (int j = 0; j < 1 + i % 4; j++) {
			seed = seed * 1103515245u + 12345u;
			m[8 + (seed >> 8) % (len - 8)] = (uint8_t)(seed >> 24);
		}
		n_mutants++;
		(void)fn(m, len, aux);
	}
	if (!flow_mod) {
		free(m);
		return;
	}
	size_t tlv, tlv_len, act, inst;
	locate(msg->data, len, &tlv, &tlv_len, &act, &inst);
	if (tlv_len >= 4) {
		/* an NXM field number nobody has: class 1, field 127 */
		memcpy(m, msg->data, len);
		m[tlv] = 0x00;
		m[tlv + 1] = 0x01;
		m[tlv + 2] = (uint8_t)(127 << 1 | (m[tlv + 2] & 1));
		expect_err("unknown field", b, fn(m, len, aux),
			   OFPW_BMC_BAD_FIELD);
		/* a TLV longer than the match */
		memcpy(m, msg->data, len);
		m[tlv + 3] = (uint8_t)(tlv_len + 8 > 255 ? 255 : tlv_len + 8);
		expect_err("TLV past the match", b, fn(m, len, aux),
			   OFPW_BMC_BAD_LEN);
	}
	if (act) {
		bool nx = g16(msg->data + act) == 0xffff;

		memcpy(m, msg->data, len);
		set16(m + act, 0x7777);
		expect_err("unknown action", b, fn(m, len, aux),
			   OFPW_BAC_BAD_TYPE);
		memcpy(m, msg->data, len);
		set16(m + act + 2, 4);
		expect_err("action length 4", b, fn(m, len, aux),
			   OFPW_BAC_BAD_LEN);
		if (nx) {
			memcpy(m, msg->data, len);
			m[act + 7] ^= 0x55;
			expect_err("unknown experimenter", b, fn(m, len, aux),
				   OFPW_BAC_BAD_EXPERIMENTER);
			memcpy(m, msg->data, len);
			set16(m + act + 8, 0x7fff);
			expect_err("unknown NX subtype", b, fn(m, len, aux),
				   OFPW_BAC_BAD_EXP_TYPE);
		}
	}
	if (inst) {
		memcpy(m, msg->data, len);
		set16(m + inst, 0x0042);
		expect_err("unknown instruction", b, fn(m, len, aux),
			   OFPW_BIC_UNKNOWN_INST);
		memcpy(m, msg->data, len);
		set16(m + inst, 3);	/* write_actions */
		expect_err("write_actions", b, fn(m, len, aux),
			   OFPW_BIC_UNSUP_INST);
	}
	free(m);
}

