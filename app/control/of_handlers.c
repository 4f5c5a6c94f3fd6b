/* SPDX-License-Identifier: BSD-3-Clause
 * The OpenFlow channel's replies (of_chan.h): one handler a message type,
 * each answering as ovs-vswitchd 3.1 answers (ofproto/ofproto.c's
 * handle_openflow__ and the lib/ofp-*.c encoders; the references:
 * tests/integration/ovs_ref/ofchan/), and every message counted once:
 * handled, or refused with the error OVS sends for what it does not
 * handle (OFPBRC_BAD_TYPE; OFPBRC_BAD_STAT for a multipart request;
 * OFPBRC_BAD_LEN for a body of the wrong size; OFPBRC_BAD_VENDOR /
 * OFPBRC_BAD_SUBTYPE for experimenters).
 */
#include <stdio.h>
#include <string.h>

#include "of_conn.h"
#include "of_flows.h"
#include "of_tables.h"
#include "version.h"
#include "vlog.h"

#define NICIRA_VENDOR_ID 0x00002320u

/* the buffer one reply is built in */
static uint8_t reply[OFP_MAX_MSG_LEN];

static void
handled(const struct of_conn *c, const uint8_t *msg)
{
	(void)c;
	of_chan.types.handled[of_family(msg[0])][msg[1]]++;
}

static void
refuse(struct of_conn *c, const uint8_t *msg, uint16_t type, uint16_t code)
{
	of_chan.types.refused[of_family(msg[0])][msg[1]]++;
	of_conn_send_error(c, msg, type, code);
}

/* A reply of 'len' bytes in reply[] with the request's version and xid. */
static void
send_reply(struct of_conn *c, const uint8_t *req, uint8_t type, size_t len)
{
	of_put_header(reply, req[0], type, (uint16_t)len, be_get32(req + 4));
	of_conn_send(c, reply, len);
}

static void
echo_request(struct of_conn *c, const uint8_t *msg, size_t len)
{
	handled(c, msg);
	memcpy(reply + 8, msg + 8, len - 8);
	send_reply(c, msg, OFPT_ECHO_REPLY, len);
}

/* Capabilities as OVS's userspace bridge: FLOW_STATS TABLE_STATS
 * PORT_STATS QUEUE_STATS, ARP_MATCH_IP in 1.0, GROUP_STATS from 1.1,
 * BUNDLES from 1.4 (`ovs-ofctl show` against ovs-vswitchd). What a
 * client then asks that vxswitch lacks is refused with OVS's error. */
static uint32_t
capabilities(uint8_t version)
{
	uint32_t caps = OFPC_FLOW_STATS | OFPC_TABLE_STATS |
			OFPC_PORT_STATS | OFPC_QUEUE_STATS;

	if (version == OFP10_VERSION)
		return caps | OFPC10_ARP_MATCH_IP;
	caps |= OFPC_GROUP_STATS;
	return version >= OFP14_VERSION ? caps | OFPC14_BUNDLES : caps;
}

static struct of_port_desc ports_buf[1100];

static void
features_request(struct of_conn *c, const uint8_t *msg, size_t len)
{
	size_t off = 32;

	if (len != OFP_HEADER_LEN) {
		refuse(c, msg, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
		return;
	}
	handled(c, msg);
	memset(reply + 8, 0, 24);
	be_put64(reply + 8, of_datapath_id());
	be_put32(reply + 16, 0);		/* n_buffers: none, as OVS */
	reply[20] = 254;			/* n_tables, as OVS */
	be_put32(reply + 24, capabilities(msg[0]));
	if (msg[0] == OFP10_VERSION) {
		/* 1.0 carries the ports (1 025 of 48 bytes fit) */
		be_put32(reply + 28, OFPAT10_ALL);
		size_t n = of_ports_collect(ports_buf, sizeof ports_buf /
						       sizeof *ports_buf);
		for (size_t i = 0; i < n && off + 48 <= OFP_MAX_MSG_LEN; i++)
			off += of_port_encode(msg[0], &ports_buf[i],
					      reply + off);
	}
	send_reply(c, msg, OFPT_FEATURES_REPLY, off);
}

static void
get_config_request(struct of_conn *c, const uint8_t *msg, size_t len)
{
	if (len != OFP_HEADER_LEN) {
		refuse(c, msg, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
		return;
	}
	handled(c, msg);
	be_put16(reply + 8, (uint16_t)of_chan.frag_flags);
	be_put16(reply + 10, c->miss_send_len);
	send_reply(c, msg, OFPT_GET_CONFIG_REPLY, 12);
}

/* No reply, as OVS. Fragment handling: vxswitch does "normal" only; any
 * other mode is logged and counted and the switch keeps "normal", as
 * ovs-vswitchd does with a mode its datapath lacks ("reassemble"):
 * `ovs-ofctl set-frags` then reads it back and says the switch does not
 * support it. */
static void
set_config(struct of_conn *c, const uint8_t *msg, size_t len)
{
	if (len != 12) {
		refuse(c, msg, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
		return;
	}
	handled(c, msg);
	uint32_t frag = be_get16(msg + 8) & OFPC_FRAG_MASK;
	if (frag != of_chan.frag_flags) {
		of_chan.n.frag_unsupported++;
		VLOG_WARN(control, "openflow: %s: unsupported fragment "
			  "handling mode %s", of_chan.bridge,
			  frag == 1 ? "drop" : frag == 2 ? "reassemble"
						       : "nx-match");
	}
	c->miss_send_len = be_get16(msg + 10);
}

static void
barrier_request(struct of_conn *c, const uint8_t *msg, size_t len)
{
	if (len != OFP_HEADER_LEN) {
		refuse(c, msg, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
		return;
	}
	/* every earlier message is done: its rule changes are in the rule
	 * table (OVS answers a barrier at once too, its changes in its
	 * classifier, ofproto.c's handle_barrier_request); the PMDs take
	 * them at the next publish (ofproto.h, OFPROTO_HOLD_MAX_MS) */
	handled(c, msg);
	send_reply(c, msg, msg[0] == OFP10_VERSION ? OFPT10_BARRIER_REPLY
						   : OFPT13_BARRIER_REPLY,
		   OFP_HEADER_LEN);
}

/* Role request (1.2+): one equal controller is what this step serves;
 * MASTER and SLAVE are recorded with OVS's generation_id rule (a stale
 * id refused) but change nothing else until step 7. */
static bool have_generation;
static uint64_t generation;

static void
role_request(struct of_conn *c, const uint8_t *msg, size_t len)
{
	if (len != 24) {
		refuse(c, msg, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
		return;
	}
	uint32_t role = be_get32(msg + 8);
	uint64_t gen = be_get64(msg + 16);
	if (role > OFPCR_ROLE_SLAVE) {
		refuse(c, msg, OFPET13_ROLE_REQUEST_FAILED, OFPRRFC_BAD_ROLE);
		return;
	}
	if (role == OFPCR_ROLE_MASTER || role == OFPCR_ROLE_SLAVE) {
		if (have_generation && (int64_t)(gen - generation) < 0) {
			refuse(c, msg, OFPET13_ROLE_REQUEST_FAILED,
			       OFPRRFC_STALE);
			return;
		}
		have_generation = true;
		generation = gen;
	}
	if (role == OFPCR_ROLE_MASTER)		/* one master, as OVS */
		for (int i = 0; i < OF_CHAN_MAX_CONNS; i++)
			if (of_chan.conns[i].used &&
			    of_chan.conns[i].role == OFPCR_ROLE_MASTER)
				of_chan.conns[i].role = OFPCR_ROLE_SLAVE;
	if (role != OFPCR_ROLE_NOCHANGE)
		c->role = role;
	handled(c, msg);
	be_put32(reply + 8, c->role);
	be_put32(reply + 12, 0);
	be_put64(reply + 16, have_generation ? generation : UINT64_MAX);
	send_reply(c, msg, OFPT13_ROLE_REPLY, 24);
}

static void
experimenter(struct of_conn *c, const uint8_t *msg, size_t len)
{
	if (len < 16)
		refuse(c, msg, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
	else if (be_get32(msg + 8) == NICIRA_VENDOR_ID) {
		if (!of_flows_nx_message(c, msg, len))
			refuse(c, msg, OFPET_BAD_REQUEST, OFPBRC_BAD_SUBTYPE);
	}
	else
		refuse(c, msg, OFPET_BAD_REQUEST, OFPBRC_BAD_VENDOR);
}

/* ---- multipart ---- */

/* The reply's header for the request 'req' with 'flags'; returns the
 * body's offset in reply[]. */
static size_t
mp_start(const uint8_t *req, uint16_t flags)
{
	size_t hl = req[0] == OFP10_VERSION ? 12 : 16;

	memset(reply + 8, 0, hl - 8);
	be_put16(reply + 8, be_get16(req + 8));
	be_put16(reply + 10, flags);
	return hl;
}

static void
mp_send(struct of_conn *c, const uint8_t *req, size_t len)
{
	send_reply(c, req, req[0] == OFP10_VERSION ? OFPT10_STATS_REPLY
						   : OFPT13_MULTIPART_REPLY,
		   len);
}

static void
put_desc_string(uint8_t *p, size_t size, const char *s)
{
	memset(p, 0, size);
	memcpy(p, s, strnlen(s, size - 1));
}

/* OFPMP_DESC: who we are, as OVS says "Nicira, Inc." / "Open vSwitch". */
static void
mp_desc(struct of_conn *c, const uint8_t *req, size_t body_len)
{
	size_t off;

	if (body_len) {
		refuse(c, req, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
		return;
	}
	handled(c, req);
	off = mp_start(req, 0);
	put_desc_string(reply + off, 256, "vxswitch project");
	put_desc_string(reply + off + 256, 256, "vxswitch (DPDK userspace "
			"switch)");
	put_desc_string(reply + off + 512, 256, VXSWITCH_VERSION);
	put_desc_string(reply + off + 768, 32, "None");
	put_desc_string(reply + off + 800, 256, "None");
	mp_send(c, req, off + 1056);
}

/* OFPMP_PORT_DESC: every port, split into replies with the MORE flag
 * where they pass one message (1.3's 64 bytes a port: 1 023 a reply). */
static void
mp_port_desc(struct of_conn *c, const uint8_t *req, size_t body_len)
{
	uint32_t want = OFPP_ANY;
	size_t n, i = 0;

	if (req[0] >= OFP15_VERSION ? body_len != 8 : body_len != 0) {
		refuse(c, req, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
		return;
	}
	if (req[0] >= OFP15_VERSION)
		want = be_get32(req + 16);
	handled(c, req);
	n = of_ports_collect(ports_buf, sizeof ports_buf / sizeof *ports_buf);
	do {
		size_t off = mp_start(req, 0);
		for (; i < n && off + 72 <= OFP_MAX_MSG_LEN; i++) {
			if (want != OFPP_ANY && ports_buf[i].port_no != want)
				continue;
			off += of_port_encode(req[0], &ports_buf[i],
					      reply + off);
		}
		if (i < n)	/* the flags after the type */
			be_put16(reply + 10, OFPMPF_REPLY_MORE);
		mp_send(c, req, off);
	} while (i < n && c->used);
}

static void
multipart_request(struct of_conn *c, const uint8_t *msg, size_t len)
{
	size_t hl = msg[0] == OFP10_VERSION ? 12 : 16;

	if (len < hl) {
		refuse(c, msg, OFPET_BAD_REQUEST, OFPBRC_BAD_LEN);
		return;
	}
	switch (be_get16(msg + 8)) {
	case OFPMP_DESC:
		mp_desc(c, msg, len - hl);
		break;
	case OFPMP_PORT_DESC:
		mp_port_desc(c, msg, len - hl);
		break;
	case OFPMP_FLOW:
	case OFPMP_AGGREGATE:
	case OFPMP_EXPERIMENTER:	/* 1.0's OFPST_VENDOR: NXST_* */
		of_flow_stats(c, msg, len);
		break;
	default:
		if (!of_tables_request(c, msg, len))
			refuse(c, msg, OFPET_BAD_REQUEST, OFPBRC_BAD_STAT);
		break;
	}
}

void
of_handle(struct of_conn *c, const uint8_t *msg, size_t len)
{
	bool of10 = msg[0] == OFP10_VERSION;
	uint8_t type = msg[1];

	switch (type) {
	case OFPT_HELLO:
	case OFPT_ERROR:		/* taken, as OVS: nothing to do */
	case OFPT_ECHO_REPLY:
		handled(c, msg);
		return;
	case OFPT_ECHO_REQUEST:
		echo_request(c, msg, len);
		return;
	case OFPT_EXPERIMENTER:
		experimenter(c, msg, len);
		return;
	case OFPT_FEATURES_REQUEST:
		features_request(c, msg, len);
		return;
	case OFPT_GET_CONFIG_REQUEST:
		get_config_request(c, msg, len);
		return;
	case OFPT_SET_CONFIG:
		set_config(c, msg, len);
		return;
	case OFPT_FLOW_MOD:
		of_flow_mod(c, msg, len);
		return;
	default:
		break;
	}
	if (of10 && type == OFPT10_STATS_REQUEST)
		multipart_request(c, msg, len);
	else if (!of10 && type == OFPT13_MULTIPART_REQUEST)
		multipart_request(c, msg, len);
	else if (of10 && type == OFPT10_BARRIER_REQUEST)
		barrier_request(c, msg, len);
	else if (!of10 && type == OFPT13_BARRIER_REQUEST)
		barrier_request(c, msg, len);
	else if (!of10 && type == OFPT13_ROLE_REQUEST)
		role_request(c, msg, len);
	else
		refuse(c, msg, OFPET_BAD_REQUEST, OFPBRC_BAD_TYPE);
}

/* ---- names for openflow/show ---- */

static const char *const common_names[] = {
	"hello", "error", "echo_request", "echo_reply", "experimenter",
	"features_request", "features_reply", "get_config_request",
	"get_config_reply", "set_config", "packet_in", "flow_removed",
	"port_status", "packet_out", "flow_mod",
};
static const char *const of10_names[] = {
	[15] = "port_mod", "stats_request", "stats_reply",
	"barrier_request", "barrier_reply", "queue_get_config_request",
	"queue_get_config_reply",
};
static const char *const of13_names[] = {
	[15] = "group_mod", "port_mod", "table_mod", "multipart_request",
	"multipart_reply", "barrier_request", "barrier_reply",
	"queue_get_config_request", "queue_get_config_reply",
	"role_request", "role_reply", "get_async_request",
	"get_async_reply", "set_async", "meter_mod", "role_status",
	"table_status", "requestforward", "bundle_control", "bundle_add",
};

const char *
of_type_name(int family, unsigned type)
{
	if (type < sizeof common_names / sizeof *common_names)
		return common_names[type];
	if (family == 0)
		return type < sizeof of10_names / sizeof *of10_names
			       ? of10_names[type] : NULL;
	return type < sizeof of13_names / sizeof *of13_names
		       ? of13_names[type] : NULL;
}
