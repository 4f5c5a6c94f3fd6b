/* SPDX-License-Identifier: BSD-3-Clause
 * OpenFlow errors as OVS 3.1 sends them: the (type, code) each version
 * gives an error (the comments of OVS's include/openvswitch/ofp-errors.h
 * are the table), Nicira's and ONF's experimenter errors in the two forms
 * OVS writes them (NXET_VENDOR for 1.0, OFPET_EXPERIMENTER for 1.2+), and
 * the OFPT_ERROR message carrying the first 64 bytes of the request
 * (ofperr_encode_reply).
 */
#include <string.h>

#include "ofp_wire_priv.h"

#define NXET_VENDOR 0xb0c2
#define OFPET12_EXPERIMENTER 0xffff
#define NO { 0, 0, 0, false }
#define OF(t, c) { 0, t, c, true }
#define NX(t, c) { OFP_WIRE_NX_ID, t, c, true }
#define ONF(t) { OFP_WIRE_ONF_ID, t, 0, true }

struct triplet {
	uint32_t vendor;
	uint16_t type, code;	/* 1.2+ experimenter: type is the code */
	bool valid;
};

struct err_row {
	const char *name;
	struct triplet of10, of13, of14;	/* 1.5 as 1.4 */
};

static const struct err_row errors[OFPW_N_ERRORS] = {
	[OFPW_OK] = { "OK", NO, NO, NO },
	[OFPW_BRC_BAD_VERSION] = { "OFPBRC_BAD_VERSION", OF(1, 0), OF(1, 0),
				   OF(1, 0) },
	[OFPW_BRC_BAD_TYPE] = { "OFPBRC_BAD_TYPE", OF(1, 1), OF(1, 1),
				OF(1, 1) },
	[OFPW_BRC_BAD_STAT] = { "OFPBRC_BAD_STAT", OF(1, 2), OF(1, 2),
				OF(1, 2) },
	[OFPW_BRC_BAD_VENDOR] = { "OFPBRC_BAD_VENDOR", OF(1, 3), OF(1, 3),
				  OF(1, 3) },
	[OFPW_BRC_BAD_SUBTYPE] = { "OFPBRC_BAD_SUBTYPE", OF(1, 4), OF(1, 4),
				   OF(1, 4) },
	[OFPW_BRC_BAD_LEN] = { "OFPBRC_BAD_LEN", OF(1, 6), OF(1, 6),
			       OF(1, 6) },
	[OFPW_BRC_BUFFER_UNKNOWN] = { "OFPBRC_BUFFER_UNKNOWN", OF(1, 8),
				      OF(1, 8), OF(1, 8) },
	[OFPW_BRC_BAD_TABLE_ID] = { "OFPBRC_BAD_TABLE_ID", NX(1, 512),
				    OF(1, 9), OF(1, 9) },
	[OFPW_BRC_BAD_PORT] = { "OFPBRC_BAD_PORT", NX(1, 514), OF(1, 11),
				OF(1, 11) },
	[OFPW_NXBRC_MUST_BE_ZERO] = { "NXBRC_MUST_BE_ZERO", NX(1, 515),
				      NX(4, 0), NX(4, 0) },
	[OFPW_NXBRC_NXM_INVALID] = { "NXBRC_NXM_INVALID", NX(1, 256),
				     NX(2, 0), NX(2, 0) },
	[OFPW_BAC_BAD_TYPE] = { "OFPBAC_BAD_TYPE", OF(2, 0), OF(2, 0),
				OF(2, 0) },
	[OFPW_BAC_BAD_LEN] = { "OFPBAC_BAD_LEN", OF(2, 1), OF(2, 1),
			       OF(2, 1) },
	[OFPW_BAC_BAD_EXPERIMENTER] = { "OFPBAC_BAD_EXPERIMENTER", OF(2, 2),
					OF(2, 2), OF(2, 2) },
	[OFPW_BAC_BAD_EXP_TYPE] = { "OFPBAC_BAD_EXP_TYPE", OF(2, 3),
				    OF(2, 3), OF(2, 3) },
	[OFPW_BAC_BAD_OUT_PORT] = { "OFPBAC_BAD_OUT_PORT", OF(2, 4),
				    OF(2, 4), OF(2, 4) },
	[OFPW_BAC_BAD_ARGUMENT] = { "OFPBAC_BAD_ARGUMENT", OF(2, 5),
				    OF(2, 5), OF(2, 5) },
	[OFPW_BAC_TOO_MANY] = { "OFPBAC_TOO_MANY", OF(2, 7), OF(2, 7),
				OF(2, 7) },
	[OFPW_BAC_MATCH_INCONSISTENT] = { "OFPBAC_MATCH_INCONSISTENT",
					  NX(1, 522), OF(2, 10), OF(2, 10) },
	[OFPW_BAC_BAD_SET_TYPE] = { "OFPBAC_BAD_SET_TYPE", NX(1, 523),
				    OF(2, 13), OF(2, 13) },
	[OFPW_BAC_BAD_SET_LEN] = { "OFPBAC_BAD_SET_LEN", NX(1, 524),
				   OF(2, 14), OF(2, 14) },
	[OFPW_BAC_BAD_SET_ARGUMENT] = { "OFPBAC_BAD_SET_ARGUMENT", NX(1, 525),
					OF(2, 15), OF(2, 15) },
	[OFPW_NXBAC_MUST_BE_ZERO] = { "NXBAC_MUST_BE_ZERO", NX(2, 256),
				      NX(11, 0), NX(11, 0) },
	[OFPW_NXBAC_BAD_CONJUNCTION] = { "NXBAC_BAD_CONJUNCTION", NX(2, 526),
					 NX(15, 0), NX(15, 0) },
	[OFPW_BIC_UNKNOWN_INST] = { "OFPBIC_UNKNOWN_INST", NO, OF(3, 0),
				    OF(3, 0) },
	[OFPW_BIC_UNSUP_INST] = { "OFPBIC_UNSUP_INST", NX(2, 257), OF(3, 1),
				  OF(3, 1) },
	[OFPW_BIC_BAD_TABLE_ID] = { "OFPBIC_BAD_TABLE_ID", NO, OF(3, 2),
				    OF(3, 2) },
	[OFPW_BIC_BAD_LEN] = { "OFPBIC_BAD_LEN", NO, OF(3, 7), OF(3, 7) },
	[OFPW_BIC_DUP_INST] = { "OFPBIC_DUP_INST", NO, ONF(2600), OF(3, 9) },
	[OFPW_BMC_BAD_TYPE] = { "OFPBMC_BAD_TYPE", NO, OF(4, 0), OF(4, 0) },
	[OFPW_BMC_BAD_LEN] = { "OFPBMC_BAD_LEN", NO, OF(4, 1), OF(4, 1) },
	[OFPW_BMC_BAD_WILDCARDS] = { "OFPBMC_BAD_WILDCARDS", NX(1, 262),
				     OF(4, 5), OF(4, 5) },
	[OFPW_BMC_BAD_FIELD] = { "OFPBMC_BAD_FIELD", NX(0, 263), OF(4, 6),
				 OF(4, 6) },
	[OFPW_BMC_BAD_VALUE] = { "OFPBMC_BAD_VALUE", NX(1, 258), OF(4, 7),
				 OF(4, 7) },
	[OFPW_BMC_BAD_MASK] = { "OFPBMC_BAD_MASK", NX(1, 259), OF(4, 8),
				OF(4, 8) },
	[OFPW_BMC_BAD_PREREQ] = { "OFPBMC_BAD_PREREQ", NX(1, 260), OF(4, 9),
				  OF(4, 9) },
	[OFPW_BMC_DUP_FIELD] = { "OFPBMC_DUP_FIELD", NX(1, 261), OF(4, 10),
				 OF(4, 10) },
	[OFPW_FMFC_TABLE_FULL] = { "OFPFMFC_TABLE_FULL", OF(3, 0), OF(5, 1),
				   OF(5, 1) },
	[OFPW_FMFC_BAD_TABLE_ID] = { "OFPFMFC_BAD_TABLE_ID", NO, OF(5, 2),
				     OF(5, 2) },
	[OFPW_FMFC_OVERLAP] = { "OFPFMFC_OVERLAP", OF(3, 1), OF(5, 3),
				OF(5, 3) },
	[OFPW_FMFC_BAD_COMMAND] = { "OFPFMFC_BAD_COMMAND", OF(3, 4),
				    OF(5, 6), OF(5, 6) },
	[OFPW_FMFC_BAD_FLAGS] = { "OFPFMFC_BAD_FLAGS", NX(3, 258), OF(5, 7),
				  OF(5, 7) },
	[OFPW_FMFC_BAD_EMERG_TIMEOUT] = { "OFPFMFC_BAD_EMERG_TIMEOUT",
					  OF(3, 3), NO, NO },
	[OFPW_NXBRC_UNENCODABLE_ERROR] = { "NXBRC_UNENCODABLE_ERROR",
					   NX(1, 521), NX(10, 0), NX(10, 0) },
};

const char *
ofp_wire_err_name(enum ofp_wire_error e)
{
	return (unsigned)e < OFPW_N_ERRORS ? errors[e].name : "?";
}

static const struct triplet *
triplet_of(enum ofp_wire_error e, uint8_t version)
{
	const struct err_row *row;
	const struct triplet *t;

	if ((unsigned)e >= OFPW_N_ERRORS || e == OFPW_OK)
		e = OFPW_NXBRC_UNENCODABLE_ERROR;
	row = &errors[e];
	t = version <= OFP10_VERSION ? &row->of10 :
	    version <= OFP13_VERSION ? &row->of13 : &row->of14;
	if (!t->valid)
		return triplet_of(OFPW_NXBRC_UNENCODABLE_ERROR, version);
	return t;
}

struct ofp_wire_err
ofp_wire_err_lookup(enum ofp_wire_error e, uint8_t version)
{
	const struct triplet *t = triplet_of(e, version);
	struct ofp_wire_err w = {
		.type = t->type, .code = t->code, .vendor = t->vendor,
		.name = ofp_wire_err_name(e),
	};

	if (t == triplet_of(OFPW_NXBRC_UNENCODABLE_ERROR, version))
		w.name = ofp_wire_err_name(OFPW_NXBRC_UNENCODABLE_ERROR);
	return w;
}

size_t
ofp_wire_encode_error(enum ofp_wire_error e, const uint8_t *request,
		      size_t request_len, uint8_t *out, size_t cap)
{
	uint8_t version = request_len >= 1 ? request[0] : OFP10_VERSION;
	const struct triplet *t;
	size_t n = 12, data;

	if (version < OFP10_VERSION || version > OFP15_VERSION)
		version = OFP10_VERSION;
	t = triplet_of(e, version);
	if (t->vendor)
		n += version <= OFP10_VERSION ? 8 : 4;
	/* the whole request, as far as 16 bits of length go */
	data = request_len < 65535 - n ? request_len : 65535 - n;
	if (cap < n + data)
		return 0;
	memset(out, 0, n);
	out[0] = version;
	out[1] = 1;		/* OFPT_ERROR */
	if (request_len >= 8)
		memcpy(out + 4, request + 4, 4);	/* xid */
	if (!t->vendor) {
		put16(out + 8, t->type);
		put16(out + 10, t->code);
	} else if (version <= OFP10_VERSION) {
		put16(out + 8, NXET_VENDOR);
		put16(out + 10, 0);	/* NXVC_VENDOR_ERROR */
		put32(out + 12, t->vendor);
		put16(out + 16, t->type);
		put16(out + 18, t->code);
	} else {
		put16(out + 8, OFPET12_EXPERIMENTER);
		put16(out + 10, t->type);
		put32(out + 12, t->vendor);
	}
	memcpy(out + n, request, data);
	put16(out + 2, (uint16_t)(n + data));
	return n + data;
}
