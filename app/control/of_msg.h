/* SPDX-License-Identifier: BSD-3-Clause
 * OpenFlow's wire constants for the channel (of_conn.c, of_handlers.c,
 * of_ports.c): versions, message types, multipart types, error types and
 * codes, port bits, as the OpenFlow 1.0/1.3/1.4/1.5 specifications number
 * them and OVS 3.1 uses them (include/openflow/, 
 * include/openvswitch/ofp-errors.h). Big-endian helpers for building and
 * reading messages in byte arrays: no struct is overlaid on the wire.
 */
#ifndef VXS_OF_MSG_H
#define VXS_OF_MSG_H

#include <stdint.h>
#include <string.h>

#include "be_bytes.h"

#define OFP10_VERSION 0x01
#define OFP11_VERSION 0x02
#define OFP12_VERSION 0x03
#define OFP13_VERSION 0x04
#define OFP14_VERSION 0x05
#define OFP15_VERSION 0x06
/* What vxswitch speaks: 1.0, 1.3, 1.4, 1.5 (ovs-vswitchd 3.1 also 1.1
 * and 1.2, which no client of ours uses: doc/design-control-plane.md). */
#define OF_VERSIONS ((1u << OFP10_VERSION) | (1u << OFP13_VERSION) | \
		     (1u << OFP14_VERSION) | (1u << OFP15_VERSION))

/* A version OVS 3.1 has error codes for (1.0 to 1.5; 1.6 is
 * experimental there and off by default): an error to a message of
 * another is sent in 1.0, as ofperr_encode_msg__() falls back. */
static inline int
of_version_known(uint8_t version)
{
	return version >= OFP10_VERSION && version <= OFP15_VERSION;
}

#define OFP_HEADER_LEN 8
#define OFP_MAX_MSG_LEN 65535

/* Message types common to every version. */
enum {
	OFPT_HELLO = 0, OFPT_ERROR = 1, OFPT_ECHO_REQUEST = 2,
	OFPT_ECHO_REPLY = 3, OFPT_EXPERIMENTER = 4,
	OFPT_FEATURES_REQUEST = 5, OFPT_FEATURES_REPLY = 6,
	OFPT_GET_CONFIG_REQUEST = 7, OFPT_GET_CONFIG_REPLY = 8,
	OFPT_SET_CONFIG = 9, OFPT_PACKET_IN = 10, OFPT_FLOW_REMOVED = 11,
	OFPT_PORT_STATUS = 12, OFPT_PACKET_OUT = 13, OFPT_FLOW_MOD = 14,
};
/* OpenFlow 1.0 only */
enum {
	OFPT10_PORT_MOD = 15, OFPT10_STATS_REQUEST = 16,
	OFPT10_STATS_REPLY = 17, OFPT10_BARRIER_REQUEST = 18,
	OFPT10_BARRIER_REPLY = 19,
};
/* OpenFlow 1.3 and later */
enum {
	OFPT13_MULTIPART_REQUEST = 18, OFPT13_MULTIPART_REPLY = 19,
	OFPT13_BARRIER_REQUEST = 20, OFPT13_BARRIER_REPLY = 21,
	OFPT13_ROLE_REQUEST = 24, OFPT13_ROLE_REPLY = 25,
};

/* Multipart (1.0: stats) types. PORT_DESC is 13 in 1.0 too: OVS's
 * extension there (OFPST10_PORT_DESC), what ovs-ofctl -O OpenFlow10
 * dump-ports-desc sends. */
enum {
	OFPMP_DESC = 0, OFPMP_FLOW = 1, OFPMP_AGGREGATE = 2,
	OFPMP_PORT_DESC = 13,
	OFPMP_EXPERIMENTER = 0xffff,	/* 1.0: OFPST_VENDOR */
};
#define OFPMPF_REPLY_MORE 1

/* Hello elements */
#define OFPHET_VERSIONBITMAP 1

/* Error types and codes (the same numbers in 1.0 to 1.5 for these). */
enum { OFPET_HELLO_FAILED = 0, OFPET_BAD_REQUEST = 1,
       OFPET13_ROLE_REQUEST_FAILED = 11 };
enum { OFPHFC_INCOMPATIBLE = 0 };
enum {
	OFPBRC_BAD_VERSION = 0, OFPBRC_BAD_TYPE = 1,
	OFPBRC_BAD_STAT = 2,		/* 1.3+: OFPBRC_BAD_MULTIPART */
	OFPBRC_BAD_VENDOR = 3,		/* 1.3+: BAD_EXPERIMENTER */
	OFPBRC_BAD_SUBTYPE = 4,		/* 1.3+: OFPBRC_BAD_EXP_TYPE */
	OFPBRC_EPERM = 5, OFPBRC_BAD_LEN = 6,
};
enum { OFPRRFC_STALE = 0, OFPRRFC_UNSUP = 1, OFPRRFC_BAD_ROLE = 2 };

/* set_config/get_config flags */
#define OFPC_FRAG_NORMAL 0
#define OFPC_FRAG_MASK 3

/* Roles (1.2+) */
enum { OFPCR_ROLE_NOCHANGE = 0, OFPCR_ROLE_EQUAL = 1,
       OFPCR_ROLE_MASTER = 2, OFPCR_ROLE_SLAVE = 3 };

/* Ports: numbers, config, state, features */
#define OFPP10_LOCAL 0xfffeu
#define OFPP_LOCAL 0xfffffffeu
#define OFPP_ANY 0xffffffffu
#define OFP_MAX_PORT_NAME_LEN 16
#define OFPPC_PORT_DOWN 1u
#define OFPPS_LINK_DOWN 1u
#define OFPPS_LIVE 4u		/* 1.1+ */
/* features: the same bits to 10GB_FD, then they part */
#define OFPPF_10MB_FD (1u << 1)
#define OFPPF_100MB_FD (1u << 3)
#define OFPPF_1GB_FD (1u << 5)
#define OFPPF_10GB_FD (1u << 6)
#define OFPPF10_COPPER (1u << 7)
#define OFPPF_40GB_FD (1u << 7)	/* 1.1+ */
#define OFPPF_100GB_FD (1u << 8)
#define OFPPF_OTHER (1u << 10)
#define OFPPF_COPPER (1u << 11)
enum { OFPPR_ADD = 0, OFPPR_DELETE = 1, OFPPR_MODIFY = 2 };

/* Switch capabilities as ovs-vswitchd's userspace bridge announces them
 * (ofproto.c's handle_features_request; `ovs-ofctl show` against it:
 * tests/integration/ovs_ref/ofchan/reference.txt) */
#define OFPC_FLOW_STATS (1u << 0)
#define OFPC_TABLE_STATS (1u << 1)
#define OFPC_PORT_STATS (1u << 2)
#define OFPC_GROUP_STATS (1u << 3)	/* 1.1+ */
#define OFPC_QUEUE_STATS (1u << 6)
#define OFPC10_ARP_MATCH_IP (1u << 7)
#define OFPC14_BUNDLES (1u << 9)
/* OpenFlow 1.0's action bits: all 12, as OVS's (output ... enqueue) */
#define OFPAT10_ALL 0xfffu

/* Writes a header at 'p'. */
static inline void
of_put_header(uint8_t *p, uint8_t version, uint8_t type, uint16_t length,
	      uint32_t xid)
{
	p[0] = version;
	p[1] = type;
	be_put16(p + 2, length);
	be_put32(p + 4, xid);
}

#endif
