/* SPDX-License-Identifier: BSD-3-Clause
 * The OpenFlow channel's socket and connections (of_chan.h): the
 * <bridge>.mgmt listener, accept with its limit, per-connection receive
 * and send buffers, the framing (a header's length 8 to 65535), the hello
 * and version negotiation, and the rules ovs-vswitchd's vconn applies
 * before a message reaches a handler, as lib/vconn.c and
 * lib/vconn-stream.c do them in OVS 3.1 (the references:
 * tests/integration/ovs_ref/ofchan/raw.txt):
 *   - a length under 8 closes the connection, with no reply;
 *   - the first message must be a hello, else the connection closes;
 *   - no version in common: OFPHFC_INCOMPATIBLE with OVS's text, then
 *     close;
 *   - a later message of another version than the one negotiated (but a
 *     hello, error or echo): OFPBRC_BAD_VERSION, the message dropped.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "clock.h"
#include "control.h"
#include "daemon.h"
#include "of_conn.h"
#include "ofproto.h"
#include "vlog.h"

struct of_chan of_chan = { .listen_fd = -1 };

static void conn_ready(void *aux);

static void
conn_close(struct of_conn *c)
{
	if (!c->used)
		return;
	control_unwatch(c->fd);
	close(c->fd);
	free(c->rx);
	free(c->tx);
	memset(c, 0, sizeof *c);
	c->fd = -1;
}

/* Watches for EPOLLOUT only while something waits to be sent. */
static void
conn_rewatch(struct of_conn *c)
{
	bool want = c->tx_len > 0;

	if (want == c->want_out)
		return;
	if (!control_watch(c->fd, EPOLLIN | (want ? EPOLLOUT : 0),
			   conn_ready, c))
		c->want_out = want;
}

/* Sends what it can. -1 when the connection broke (closed here). */
static int
conn_flush(struct of_conn *c)
{
	while (c->tx_len) {
		ssize_t n = send(c->fd, c->tx, c->tx_len,
				 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0) {
			of_chan.n.closed_io_error++;
			conn_close(c);
			return -1;
		}
		memmove(c->tx, c->tx + n, c->tx_len - (size_t)n);
		c->tx_len -= (size_t)n;
	}
	if (c->closing && !c->tx_len) {
		conn_close(c);
		return -1;
	}
	conn_rewatch(c);
	return 0;
}

void
of_conn_send(struct of_conn *c, const uint8_t *msg, size_t len)
{
	if (!c->used || c->dead)
		return;
	if (c->tx_len + len > OF_CHAN_TX_REPLY_MAX) {
		VLOG_WARN(control, "openflow: connection %llu: %zu bytes "
			  "waiting, more than one reply may take: dropped",
			  c->id, c->tx_len);
		of_chan.n.tx_overflow++;
		c->dead = true;
		return;
	}
	if (c->tx_len + len > c->tx_cap) {
		size_t cap = c->tx_cap ? c->tx_cap : 4096;
		while (cap < c->tx_len + len)
			cap *= 2;
		uint8_t *tx = realloc(c->tx, cap);
		if (!tx) {
			of_chan.n.tx_overflow++;
			c->dead = true;
			return;
		}
		c->tx = tx;
		c->tx_cap = cap;
	}
	memcpy(c->tx + c->tx_len, msg, len);
	c->tx_len += len;
	c->msgs_out++;
	of_chan.n.msgs_out++;
}

void
of_conn_send_error(struct of_conn *c, const uint8_t *req, uint16_t type,
		   uint16_t code)
{
	size_t len = be_get16(req + 2);
	uint8_t msg[OFP_MAX_MSG_LEN];

	if (len > OFP_MAX_MSG_LEN - 12)	/* OVS: MIN(len, 65535 - 12) */
		len = OFP_MAX_MSG_LEN - 12;
	/* in the request's version; one OVS does not know is answered in
	 * 1.0 (ofperr_encode_msg__'s fallback domain) */
	of_put_header(msg, of_version_known(req[0]) ? req[0] : OFP10_VERSION,
		      OFPT_ERROR, (uint16_t)(12 + len), be_get32(req + 4));
	be_put16(msg + 8, type);
	be_put16(msg + 10, code);
	memcpy(msg + 12, req, len);
	c->errors_out++;
	of_chan.n.errors_sent++;
	of_conn_send(c, msg, 12 + len);
}

/* Our hello: the highest version we speak and the bitmap of all (not
 * contiguous from 1.0, so the bitmap is needed; ovs-vswitchd's 1.0-1.5
 * is, and its hello has none). */
static void
send_hello(struct of_conn *c)
{
	uint8_t msg[16];

	of_put_header(msg, OFP15_VERSION, OFPT_HELLO, sizeof msg, 0);
	be_put16(msg + 8, OFPHET_VERSIONBITMAP);
	be_put16(msg + 10, 8);
	be_put32(msg + 12, OF_VERSIONS);
	of_conn_send(c, msg, sizeof msg);
}

/* "version 0x04", "version 0x06 and earlier", "versions 0x01, 0x04,
 * 0x05, 0x06": lib/vconn.c's version_bitmap_to_string(). */
static void
versions_text(uint32_t bm, char *buf, size_t size)
{
	size_t len;
	int hi = 31;

	if (!bm) {
		snprintf(buf, size, "no versions");
		return;
	}
	while (!(bm & (1u << hi)))
		hi--;
	if (!(bm & (bm - 1))) {
		snprintf(buf, size, "version 0x%02x", hi);
		return;
	}
	if (!(((bm >> 1) + 1) & (bm >> 1))) {
		snprintf(buf, size, "version 0x%02x and earlier", hi);
		return;
	}
	len = (size_t)snprintf(buf, size, "versions");
	for (int v = 0; v < 32 && len < size; v++)
		if (bm & (1u << v))
			len += (size_t)snprintf(buf + len, size - len,
						 "%s 0x%02x",
						 len > 8 ? "," : "", v);
}

/* The peer's versions from its hello (lib/ofp-util.c's
 * ofputil_decode_hello): every version up to the header's, unless a
 * version bitmap element names them (an empty one is ignored). */
static uint32_t
hello_versions(const uint8_t *msg, size_t len)
{
	uint8_t v = msg[0];
	uint32_t bm = v >= 31 ? 0xfffffffeu : ((1u << (v + 1)) - 1) & ~1u;
	size_t off = OFP_HEADER_LEN;

	while (len - off >= 4) {
		uint16_t type = be_get16(msg + off);
		uint16_t elen = be_get16(msg + off + 2);
		size_t step = ((size_t)elen + 7) / 8 * 8;

		if (elen < 4 || step > len - off)
			break;
		if (type == OFPHET_VERSIONBITMAP && elen >= 8 &&
		    !((elen - 4) % 4) && (be_get32(msg + off + 4) & ~1u))
			bm = be_get32(msg + off + 4) & ~1u;
		off += step;
	}
	return bm;
}

static void
handle_hello(struct of_conn *c, const uint8_t *msg, size_t len)
{
	uint32_t common;

	c->peer_versions = hello_versions(msg, len);
	common = c->peer_versions & OF_VERSIONS;
	if (!common) {
		char ours[96], theirs[96], text[256];
		int hi = 31;
		uint8_t err[12 + sizeof text];

		while (hi && !(c->peer_versions & (1u << hi)))
			hi--;
		versions_text(OF_VERSIONS, ours, sizeof ours);
		versions_text(c->peer_versions, theirs, sizeof theirs);
		snprintf(text, sizeof text, "We support %s, you support %s, "
			 "no common versions.", ours, theirs);
		size_t tl = strlen(text);
		/* in the peer's highest version, 1.0 for one OVS has no
		 * errors for (raw.txt's hello-only-16) */
		of_put_header(err, of_version_known((uint8_t)hi) ? (uint8_t)hi
			      : OFP10_VERSION, OFPT_ERROR,
			      (uint16_t)(12 + tl), 0);
		be_put16(err + 8, OFPET_HELLO_FAILED);
		be_put16(err + 10, OFPHFC_INCOMPATIBLE);
		memcpy(err + 12, text, tl);
		VLOG_WARN(control, "openflow: connection %llu: version "
			  "negotiation failed (we support %s, peer supports "
			  "%s)", c->id, ours, theirs);
		of_chan.n.incompatible++;
		of_chan.n.errors_sent++;
		c->errors_out++;
		of_conn_send(c, err, 12 + tl);
		c->closing = true;
		c->closing_ms = vxs_now_ms();
		return;
	}
	c->version = 31;
	while (!(common & (1u << c->version)))
		c->version--;
	of_chan.types.handled[of_family(c->version)][OFPT_HELLO]++;
}

/* One whole message of 'len' bytes (8 to 65535). */
static void
conn_message(struct of_conn *c, const uint8_t *msg, size_t len)
{
	uint8_t type = msg[1];

	c->msgs_in++;
	of_chan.n.msgs_in++;
	if (!c->version) {
		if (type != OFPT_HELLO) {
			VLOG_WARN(control, "openflow: connection %llu: "
				  "message type %u while expecting hello: "
				  "closed", c->id, type);
			of_chan.n.not_hello_first++;
			conn_close(c);
			return;
		}
		handle_hello(c, msg, len);
		return;
	}
	/* as vconn_recv(): only a hello, error or echo passes in another
	 * version than the one negotiated (any but 0: OVS decodes them as
	 * "1.0+", raw.txt's echo-unknown-version) */
	if (msg[0] != c->version &&
	    (!msg[0] ||
	     (type != OFPT_HELLO && type != OFPT_ERROR &&
	      type != OFPT_ECHO_REQUEST && type != OFPT_ECHO_REPLY))) {
		of_chan.n.bad_version++;
		of_conn_send_error(c, msg, OFPET_BAD_REQUEST,
				   OFPBRC_BAD_VERSION);
		return;
	}
	of_handle(c, msg, len);
}

/* Reads what came (at most the buffer's room: a bounded amount of work
 * per wake-up) and handles every whole message in it. */
static void
conn_read(struct of_conn *c)
{
	ssize_t n = recv(c->fd, c->rx + c->rx_len, OF_RX_CAP - c->rx_len,
			 MSG_DONTWAIT);
	size_t off = 0;

	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK ||
		      errno == EINTR))
		return;
	if (n <= 0) {
		if (n == 0)
			of_chan.n.closed_eof++;
		else
			of_chan.n.closed_io_error++;
		conn_close(c);
		return;
	}
	c->rx_len += (size_t)n;
	c->last_rx_ms = vxs_now_ms();
	c->probe_sent = false;
	while (c->used && !c->closing && !c->dead &&
	       c->rx_len - off >= OFP_HEADER_LEN) {
		size_t mlen = be_get16(c->rx + off + 2);
		if (mlen < OFP_HEADER_LEN) {
			VLOG_WARN(control, "openflow: connection %llu: "
				  "received too-short ofp_header (%zu bytes): "
				  "closed", c->id, mlen);
			of_chan.n.bad_length++;
			conn_close(c);
			return;
		}
		if (c->rx_len - off < mlen)
			break;
		/* the replies to its earlier requests still wait: it reads
		 * none of them (test_client_that_never_reads); what it sent
		 * after is not taken */
		if (c->tx_len > OF_CHAN_TX_MAX) {
			VLOG_WARN(control, "openflow: connection %llu takes "
				  "none of its replies (%zu bytes waiting): "
				  "dropped", c->id, c->tx_len);
			of_chan.n.tx_overflow++;
			c->dead = true;
			break;
		}
		conn_message(c, c->rx + off, mlen);
		off += mlen;
	}
	if (!c->used)
		return;
	memmove(c->rx, c->rx + off, c->rx_len - off);
	c->rx_len -= off;
}

static void
conn_ready(void *aux)
{
	struct of_conn *c = aux;

	/* the flow_mods of one read, one publish (a barrier among them
	 * publishes first: of_handlers.c) */
	ofproto_publish_hold();
	if (!c->closing)
		conn_read(c);
	ofproto_publish_release();
	if (c->used && c->dead)
		conn_close(c);
	if (c->used)
		conn_flush(c);
}

static void
listener_ready(void *aux)
{
	(void)aux;
	for (int i = 0; i < 16; i++) {		/* a few per wake-up */
		int fd = accept4(of_chan.listen_fd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct of_conn *c = NULL;

		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EINTR)
				of_chan.n.accept_errors++;
			return;
		}
		for (int j = 0; j < OF_CHAN_MAX_CONNS && !c; j++)
			if (!of_chan.conns[j].used)
				c = &of_chan.conns[j];
		if (!c) {
			of_chan.n.refused_limit++;
			close(fd);
			continue;
		}
		memset(c, 0, sizeof *c);
		c->rx = malloc(OF_RX_CAP);
		if (!c->rx || control_watch(fd, EPOLLIN, conn_ready, c)) {
			free(c->rx);
			c->rx = NULL;
			of_chan.n.accept_errors++;
			close(fd);
			continue;
		}
		c->used = true;
		c->fd = fd;
		c->id = ++of_chan.next_id;
		c->role = OFPCR_ROLE_EQUAL;
		c->connected_ms = c->last_rx_ms = vxs_now_ms();
		of_chan.n.accepted++;
		send_hello(c);
		if (c->dead)
			conn_close(c);
		else
			conn_flush(c);
	}
}

static void
listener_close(void)
{
	for (int i = 0; i < OF_CHAN_MAX_CONNS; i++)
		conn_close(&of_chan.conns[i]);
	if (of_chan.listen_fd >= 0) {
		control_unwatch(of_chan.listen_fd);
		close(of_chan.listen_fd);
		of_chan.listen_fd = -1;
		unlink(of_chan.path);
	}
	of_chan.path[0] = '\0';
}

/* A socket file left by a process that died is replaced; one that a
 * live process listens on (a real ovs-vswitchd) is not. */
static bool
socket_in_use(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool live;

	if (fd < 0)
		return false;
	live = !connect(fd, (const struct sockaddr *)sa, sizeof *sa);
	close(fd);
	return live;
}

static void
listener_open(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	static char last_error[sizeof of_chan.listen_error];
	const char *dir = daemon_ovs_rundir();
	int fd, n;

	of_chan.listen_error[0] = '\0';
	n = snprintf(sa.sun_path, sizeof sa.sun_path, "%s/%s.mgmt", dir,
		     of_chan.bridge);
	if (n < 0 || (size_t)n >= sizeof sa.sun_path) {
		snprintf(of_chan.listen_error, sizeof of_chan.listen_error,
			 "%s/%s.mgmt: path too long", dir, of_chan.bridge);
		goto fail;
	}
	mkdir(dir, 0755);	/* as OVS's run directory; may exist */
	if (socket_in_use(&sa)) {
		snprintf(of_chan.listen_error, sizeof of_chan.listen_error,
			 "%s: in use by another process", sa.sun_path);
		goto fail;
	}
	unlink(sa.sun_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) ||
	    chmod(sa.sun_path, 0750) || listen(fd, 64) ||
	    control_watch(fd, EPOLLIN, listener_ready, NULL)) {
		snprintf(of_chan.listen_error, sizeof of_chan.listen_error,
			 "%s: %s", sa.sun_path, strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(sa.sun_path);
		}
		goto fail;
	}
	of_chan.listen_fd = fd;
	last_error[0] = '\0';
	snprintf(of_chan.path, sizeof of_chan.path, "%s", sa.sun_path);
	VLOG_INFO(control, "openflow: %s: listening on punix:%s",
		  of_chan.bridge, of_chan.path);
	return;
fail:
	of_chan.n.listen_errors++;
	if (strcmp(last_error, of_chan.listen_error))	/* not every retry */
		VLOG_WARN(control, "openflow: no management socket: %s",
			  of_chan.listen_error);
	snprintf(last_error, sizeof last_error, "%s", of_chan.listen_error);
}

void
of_chan_set_bridge(const char *name)
{
	if (!of_chan.enabled)
		return;
	if (!name)
		name = "";
	if (!strcmp(name, of_chan.bridge) && (of_chan.listen_fd >= 0 ||
					      !*name))
		return;
	listener_close();
	snprintf(of_chan.bridge, sizeof of_chan.bridge, "%s", name);
	if (*name)
		listener_open();
}

int
of_chan_start(bool wait_for_bridge, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	for (int i = 0; i < OF_CHAN_MAX_CONNS; i++)
		of_chan.conns[i].fd = -1;
	of_chan.enabled = true;
	of_chan.frag_flags = OFPC_FRAG_NORMAL;
	if (!wait_for_bridge)
		of_chan_set_bridge(ofproto_bridge());
	return 0;
}

void
of_chan_run(void)
{
	static uint64_t last_ms, retry_ms;
	uint64_t now = vxs_now_ms();

	if (!of_chan.enabled || now - last_ms < 100)
		return;
	last_ms = now;
	if (of_chan.bridge[0] && of_chan.listen_fd < 0 &&
	    now - retry_ms >= 5000) {	/* a socket in use: try again */
		retry_ms = now;
		listener_open();
	}
	of_ports_track();
	for (int i = 0; i < OF_CHAN_MAX_CONNS; i++) {
		struct of_conn *c = &of_chan.conns[i];
		if (!c->used)
			continue;
		if (c->dead)			/* port status piled up */
			conn_close(c);
		else if (c->tx_len && !c->closing)
			conn_flush(c);		/* port status queued */
		if (!c->used)
			continue;
		if (c->closing) {
			if (now - c->closing_ms >= OF_LINGER_MS)
				conn_close(c);
			else
				conn_flush(c);
			continue;
		}
		if (now - c->last_rx_ms < OF_PROBE_MS)
			continue;
		if (c->probe_sent) {
			VLOG_WARN(control, "openflow: connection %llu: no "
				  "response to inactivity probe after %d "
				  "seconds: dropped", c->id,
				  OF_PROBE_MS / 1000);
			of_chan.n.probe_timeouts++;
			conn_close(c);
			continue;
		}
		uint8_t echo[8];
		of_put_header(echo, c->version ? c->version : OFP15_VERSION,
			      OFPT_ECHO_REQUEST, 8, 0);
		c->probe_sent = true;
		c->last_rx_ms = now;
		of_chan.n.probes_sent++;
		of_conn_send(c, echo, sizeof echo);
		if (c->dead)
			conn_close(c);
		else
			conn_flush(c);
	}
}

void
of_chan_stop(void)
{
	if (!of_chan.enabled)
		return;
	listener_close();
	of_chan.enabled = false;
	of_chan.bridge[0] = '\0';
}
