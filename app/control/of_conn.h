/* SPDX-License-Identifier: BSD-3-Clause
 * The OpenFlow channel's insides, shared by of_conn.c (socket, framing,
 * buffers), of_handlers.c (the replies), of_ports.c (port descriptions
 * and status) and of_show.c (openflow/show). Control thread only.
 */
#ifndef VXS_OF_CONN_H
#define VXS_OF_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "of_chan.h"
#include "of_msg.h"

/* one largest message, and room to read the next one's start */
#define OF_RX_CAP (2 * 65536)
/* no message for this long: an echo request; none again: dropped
 * (ovs-vswitchd's management connections: bridge.c's probe_interval 60) */
#define OF_PROBE_MS 60000
/* a connection closing after its last words gets this long to take them */
#define OF_LINGER_MS 1000

struct of_conn {
	bool used;
	int fd;
	unsigned long long id;		/* 1, 2, ... in accept order */
	uint8_t version;		/* negotiated; 0 before the hello */
	uint32_t peer_versions;
	bool closing;			/* close once tx is sent */
	/* to be closed (its replies piled up): by whoever called into the
	 * handlers, once they return, so that no handler's request (in
	 * rx) is freed under it */
	bool dead;
	bool want_out;			/* watched for EPOLLOUT */
	bool probe_sent;
	uint8_t *rx;
	size_t rx_len;
	uint8_t *tx;
	size_t tx_len, tx_cap;
	/* 0 at first on a service connection, as OVS */
	uint16_t miss_send_len;
	uint32_t role;
	uint64_t connected_ms, last_rx_ms, closing_ms;
	unsigned long long msgs_in, msgs_out, errors_out;
};

/* Counters of the channel (openflow/show prints them in this order). */
#define OF_COUNTERS(X)							\
	X(accepted) X(refused_limit) X(accept_errors) X(closed_eof)	\
	X(closed_io_error) X(bad_length) X(not_hello_first)		\
	X(incompatible) X(bad_version) X(tx_overflow) X(probes_sent)	\
	X(probe_timeouts) X(msgs_in) X(msgs_out) X(errors_sent)		\
	X(port_status_sent) X(frag_unsupported) X(listen_errors)

#define OF_COUNTER_FIELD(name) unsigned long long name;
struct of_counters { OF_COUNTERS(OF_COUNTER_FIELD) };
#undef OF_COUNTER_FIELD

/* Every message received ends in exactly one of these, by version
 * family (0: 1.0, 1: 1.3+) and type: answered (or taken: a hello, an
 * echo reply), or refused with an error. */
struct of_type_counts {
	unsigned long long handled[2][256];
	unsigned long long refused[2][256];
};

struct of_chan {
	bool enabled;
	char bridge[64];
	char path[108];			/* sun_path */
	int listen_fd;
	char listen_error[160];		/* why there is no socket */
	struct of_conn conns[OF_CHAN_MAX_CONNS];
	unsigned long long next_id;
	uint32_t frag_flags;		/* the switch's, as in OVS */
	struct of_counters n;
	struct of_type_counts types;
};

extern struct of_chan of_chan;

/* Queues a message (its header's length says how long) on 'c'. Past
 * OF_CHAN_TX_MAX, the connection is marked dead instead (counted) and
 * nothing more is queued on it. */
void of_conn_send(struct of_conn *c, const uint8_t *msg, size_t len);

/* Answers the request 'req' (its whole length) with an error of OVS's
 * shape: the request's version and xid, and the request as data. */
void of_conn_send_error(struct of_conn *c, const uint8_t *req,
			uint16_t type, uint16_t code);

/* The message 'msg' (length checked, version negotiated) from 'c'
 * (of_handlers.c). */
void of_handle(struct of_conn *c, const uint8_t *msg, size_t len);

/* The family index of 'version' for the type counters. */
static inline int
of_family(uint8_t version)
{
	return version == 0x01 ? 0 : 1;
}

/* The message type's name, for openflow/show ("echo_request"), or NULL
 * for a number that is not one in that family. */
const char *of_type_name(int family, unsigned type);

/* Port descriptions (of_ports.c). */
struct of_port_desc {
	uint32_t port_no;		/* OFPP_LOCAL for the bridge's own */
	char name[OFP_MAX_PORT_NAME_LEN];
	uint8_t mac[6];
	uint32_t config, state, curr, curr_speed;	/* kbps */
};

/* The ports of the OpenFlow bridge now, the local port last; at most
 * 'max'. Returns how many. */
size_t of_ports_collect(struct of_port_desc *out, size_t max);

/* One port as 'version' encodes it; returns its length (48, 64, 72). */
size_t of_port_encode(uint8_t version, const struct of_port_desc *d,
		      uint8_t *out);

/* Port status to every negotiated connection for what changed since
 * the last call (nothing the first time, or with no connection). */
void of_ports_track(void);

/* The bridge's datapath_id, as written to OVSDB's Bridge row
 * (ovsdb_write.c). */
uint64_t of_datapath_id(void);

#endif
