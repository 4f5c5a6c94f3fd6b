/* SPDX-License-Identifier: BSD-3-Clause
 * The OVSDB session (ovsdb_client.h): one connection to ovsdb-server,
 * driven by ovsdb_client_run() from the control loop. Framing is
 * ovsdb_frame.c's, parsing and serialising jansson's, the tables
 * ovsdb_replica.c's. Requests carry string ids naming what they ask, so
 * a reply is matched without a table of requests in flight.
 */
#include "ovsdb_client.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "clock.h"
#include "control.h"
#include "ds.h"
#include "ovsdb_frame.h"
#include "ovsdb_plan.h"
#include "ovsdb_remote.h"
#include "ovsdb_sync.h"
#include "vlog.h"

#define OVSDB_DB "Open_vSwitch"
#define OVSDB_MONITOR_ID "vxswitch"
/* A connect() that neither succeeds nor fails within this is given up. */
#define OVSDB_CONNECT_TIMEOUT_MS 5000
#define OVSDB_READ_CHUNK 65536
#define OVSDB_READS_PER_RUN 16

enum session_state { S_BACKOFF, S_CONNECTING, S_CONNECTED };

static struct {
	bool enabled;
	char remote[256];
	struct sockaddr_storage addr;
	socklen_t addr_len;

	enum session_state state;
	int fd;
	long long deadline;		/* backoff end or connect give-up */
	long long backoff_ms;
	long long probe_ms;		/* 0: none */
	long long last_activity;	/* a message in, or backlog sent */
	long long probe_sent;		/* 0: no echo of ours unanswered */
	uint32_t watched;		/* events in control_poll()'s set */
	char *in;
	size_t in_len, in_cap;
	struct ovsdb_frame frame;
	struct ds out;
	size_t out_done;

	char schema_version[32];
	enum ovsdb_lock_state lock;
	bool monitored;
	bool changed;			/* to apply (ovsdb_sync.h) */
	char last_drop[256];
	struct ovsdb_replica replica;
	struct ovsdb_counters n;
} c = { .fd = -1 };

const char *
ovsdb_lock_state_name(enum ovsdb_lock_state s)
{
	switch (s) {
	case OVSDB_LOCK_NONE: return "none";
	case OVSDB_LOCK_ASKED: return "requested";
	case OVSDB_LOCK_HELD: return "held";
	case OVSDB_LOCK_CONTENDED: return "contended";
	}
	return "?";
}

/* ---- the connection ---- */

static void
schedule_retry(long long now)
{
	c.state = S_BACKOFF;
	c.deadline = now + c.backoff_ms;
	c.backoff_ms *= 2;
	if (c.backoff_ms > OVSDB_BACKOFF_MAX_MS)
		c.backoff_ms = OVSDB_BACKOFF_MAX_MS;
}

static void
close_fd(void)
{
	if (c.watched)
		control_unwatch(c.fd);
	c.watched = 0;
	if (c.fd >= 0)
		close(c.fd);
	c.fd = -1;
	free(c.in);
	c.in = NULL;
	c.in_len = c.in_cap = 0;
	ovsdb_frame_reset(&c.frame);
	ds_clear(&c.out);
	c.out_done = 0;
	c.lock = OVSDB_LOCK_NONE;
	c.monitored = false;
	c.changed = false;
	c.schema_version[0] = '\0';
	ovsdb_sync_reset();
}

/* Ends the connection, says why (counted by the caller), and waits for
 * the backoff. The replica goes with it: the next monitor refills it. */
static void
drop(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
drop(const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vsnprintf(c.last_drop, sizeof c.last_drop, fmt, args);
	va_end(args);
	VLOG_WARN(control, "ovsdb %s: connection dropped: %s", c.remote,
		  c.last_drop);
	c.n.disconnects++;
	close_fd();
	ovsdb_replica_clear(&c.replica);
	schedule_retry((long long)vxs_now_ms());
}

/* Queues one message. */
static void
send_json(json_t *msg)
{
	char *text = json_dumps(msg, JSON_COMPACT);

	json_decref(msg);
	if (!text) {
		drop("out of memory");
		return;
	}
	if (c.out.len - c.out_done + strlen(text) > OVSDB_MAX_SEND) {
		free(text);
		c.n.send_full++;
		drop("more than %u bytes queued: the server does not read",
		     OVSDB_MAX_SEND);
		return;
	}
	ds_put_cstr(&c.out, text);
	free(text);
	c.n.msgs_out++;
}

static void
send_request(const char *method, json_t *params, const char *id)
{
	send_json(json_pack("{s:s, s:o, s:s}", "method", method,
			    "params", params, "id", id));
}

static void
send_monitor(void)
{
	json_t *reqs = json_object();

	for (int t = 0; t < OVSDB_N_TABLES; t++) {
		json_t *cols = json_array();
		for (const char *const *col = ovsdb_table_columns(t); *col;
		     col++)
			json_array_append_new(cols, json_string(*col));
		json_object_set_new(reqs, ovsdb_table_name(t),
				    json_pack("{s:o}", "columns", cols));
	}
	send_request("monitor", json_pack("[s, s, o]", OVSDB_DB,
					  OVSDB_MONITOR_ID, reqs), "monitor");
}

static void
connected(void)
{
	c.state = S_CONNECTED;
	c.n.connects++;
	c.last_activity = (long long)vxs_now_ms();
	c.probe_sent = 0;
	VLOG_INFO(control, "ovsdb %s: connected", c.remote);
	send_request("get_schema", json_pack("[s]", OVSDB_DB), "get_schema");
}

static void
try_connect(long long now)
{
	c.fd = socket(c.addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
		      SOCK_CLOEXEC, 0);
	if (c.fd < 0)
		goto failed;
	if (connect(c.fd, (struct sockaddr *)&c.addr, c.addr_len) == 0) {
		connected();
		return;
	}
	if (errno == EINPROGRESS) {
		c.state = S_CONNECTING;
		c.deadline = now + OVSDB_CONNECT_TIMEOUT_MS;
		return;
	}
failed:
	snprintf(c.last_drop, sizeof c.last_drop, "connection attempt "
		 "failed (%s)", strerror(errno));
	VLOG_INFO(control, "ovsdb %s: %s", c.remote, c.last_drop);
	c.n.connect_failures++;
	close_fd();
	schedule_retry(now);
}

/* A connect() under way: done, failed, or too slow. */
static void
check_connect(long long now)
{
	struct pollfd p = { .fd = c.fd, .events = POLLOUT };
	int soerr = 0;
	socklen_t len = sizeof soerr;

	if (poll(&p, 1, 0) == 0) {
		if (now < c.deadline)
			return;
		soerr = ETIMEDOUT;
	} else if (getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &soerr, &len)) {
		soerr = errno;
	}
	if (!soerr) {
		connected();
		return;
	}
	errno = soerr;
	snprintf(c.last_drop, sizeof c.last_drop, "connection attempt "
		 "failed (%s)", strerror(soerr));
	VLOG_INFO(control, "ovsdb %s: %s", c.remote, c.last_drop);
	c.n.connect_failures++;
	close_fd();
	schedule_retry(now);
}

/* ---- messages ---- */

static void
contended(void)
{
	c.lock = OVSDB_LOCK_CONTENDED;
	c.n.lock_contended++;
	/* vswitchd/bridge.c:3231's words, so that tools grepping OVS's log
	 * find it here too */
	VLOG_ERR(control, "another ovs-vswitchd process is running, "
		 "disabling this process (pid %ld) until it goes away",
		 (long)getpid());
}

/* get_schema's answer: the version we know, and every column we
 * monitor. 0, or -1 after drop(). */
static int
check_schema(const json_t *schema)
{
	const char *version = json_string_value(json_object_get(schema,
								"version"));
	const json_t *tables = json_object_get(schema, "tables");
	char *end;

	if (!version || !json_is_object(tables)) {
		c.n.schema_refused++;
		drop("get_schema: no version or tables in the answer");
		return -1;
	}
	long major = strtol(version, &end, 10);
	if (end == version || *end != '.' || major != OVSDB_SCHEMA_MAJOR) {
		c.n.schema_refused++;
		drop("schema %s version %.20s: vxswitch knows major version "
		     "%d only", OVSDB_DB, version, OVSDB_SCHEMA_MAJOR);
		return -1;
	}
	for (int t = 0; t < OVSDB_N_TABLES; t++) {
		const json_t *cols = json_object_get(
			json_object_get(tables, ovsdb_table_name(t)),
			"columns");
		for (const char *const *col = ovsdb_table_columns(t); *col;
		     col++)
			if (!json_object_get(cols, *col)) {
				c.n.schema_refused++;
				drop("schema %s %.20s has no column %s:%s",
				     OVSDB_DB, version, ovsdb_table_name(t),
				     *col);
				return -1;
			}
	}
	snprintf(c.schema_version, sizeof c.schema_version, "%s", version);
	return 0;
}

/* The plan may have changed: its refusals logged, each once, and
 * applied at the end of this turn (ovsdb_sync.h). */
static void
plan_changed(void)
{
	if (c.monitored && c.lock == OVSDB_LOCK_HELD) {
		ovsdb_plan_log_refusals(&c.replica);
		c.changed = true;
	}
}

static void
send_transact(json_t *params)
{
	send_request("transact", params, "transact");
}

static void
apply_updates(const json_t *updates, bool initial)
{
	char err[256];

	if (initial)
		ovsdb_replica_clear(&c.replica);
	int rc = ovsdb_replica_apply(&c.replica, updates, err, sizeof err);
	if (rc == OVSDB_REPLICA_TOO_MANY) {
		c.n.row_limit++;
		drop("%s", err);
	} else if (rc) {
		c.n.bad_update++;
		drop("bad update: %s", err);
	} else {
		c.n.updates++;
		if (initial) {
			c.monitored = true;
			c.backoff_ms = OVSDB_BACKOFF_MIN_MS;
		}
		plan_changed();
	}
}

static void
handle_reply(const char *id, const json_t *result, const json_t *error)
{
	if (error && !json_is_null(error)) {
		char *text = json_dumps(error, JSON_COMPACT | JSON_ENCODE_ANY);
		c.n.server_errors++;
		drop("error answer to %.32s: %.160s", id, text ? text : "?");
		free(text);
		return;
	}
	if (!strcmp(id, "get_schema")) {
		if (check_schema(result))
			return;
		VLOG_INFO(control, "ovsdb %s: schema %s %s", c.remote,
			  OVSDB_DB, c.schema_version);
		c.lock = OVSDB_LOCK_ASKED;
		send_request("lock", json_pack("[s]", OVSDB_LOCK_NAME),
			     "lock");
		if (c.fd >= 0)
			send_monitor();
	} else if (!strcmp(id, "lock")) {
		const json_t *locked = json_object_get(result, "locked");
		if (!json_is_boolean(locked)) {
			c.n.bad_rpc++;
			drop("lock: answer without \"locked\"");
		} else if (json_is_true(locked)) {
			c.lock = OVSDB_LOCK_HELD;
			VLOG_INFO(control, "ovsdb %s: lock %s held", c.remote,
				  OVSDB_LOCK_NAME);
			plan_changed();
		} else {
			contended();
		}
	} else if (!strcmp(id, "monitor")) {
		apply_updates(result, true);
	} else if (!strcmp(id, "transact")) {
		ovsdb_sync_reply(result, &c.n);
	} else if (!strcmp(id, "echo")) {
		/* our probe's answer: the activity it proves is counted for
		 * every message, in take_messages() */
	} else {
		c.n.unexpected++;	/* not ours: ignored */
	}
}

/* A notification or request from the server. */
static void
handle_method(const char *method, const json_t *params, const json_t *id)
{
	if (!json_is_array(params)) {
		c.n.bad_rpc++;
		drop("%.32s: params is not an array", method);
		return;
	}
	if (!strcmp(method, "echo") && id && !json_is_null(id)) {
		c.n.echo_replies++;
		send_json(json_pack("{s:O, s:n, s:O}", "result", params,
				    "error", "id", id));
	} else if (!strcmp(method, "update")) {
		const json_t *mid = json_array_get(params, 0);
		if (json_array_size(params) != 2 || !json_is_string(mid) ||
		    strcmp(json_string_value(mid), OVSDB_MONITOR_ID) ||
		    !c.monitored) {
			c.n.bad_rpc++;
			drop("update: not for our monitor");
			return;
		}
		apply_updates(json_array_get(params, 1), false);
	} else if (!strcmp(method, "locked") || !strcmp(method, "stolen")) {
		const char *name = json_string_value(json_array_get(params, 0));
		if (!name || strcmp(name, OVSDB_LOCK_NAME)) {
			c.n.unexpected++;
		} else if (method[0] == 'l') {
			c.lock = OVSDB_LOCK_HELD;
			VLOG_INFO(control, "ovsdb %s: lock %s granted",
				  c.remote, OVSDB_LOCK_NAME);
			plan_changed();
		} else {
			contended();
		}
	} else if (id && !json_is_null(id)) {
		/* a request we do not serve: answered, as OVS's jsonrpc
		 * answers an unknown method */
		c.n.unexpected++;
		send_json(json_pack("{s:n, s:s, s:O}", "result", "error",
				    "unknown method", "id", id));
	} else {
		c.n.unexpected++;
	}
}

static void
handle_message(const char *buf, size_t len)
{
	json_error_t jerr;
	json_t *msg = json_loadb(buf, len, JSON_DISABLE_EOF_CHECK |
				 JSON_REJECT_DUPLICATES, &jerr);

	c.n.msgs_in++;
	if (!msg) {
		c.n.bad_json++;
		drop("malformed JSON: %s (at byte %d)", jerr.text,
		     jerr.position);
		return;
	}
	const json_t *method = json_object_get(msg, "method");
	const json_t *id = json_object_get(msg, "id");
	if (json_is_string(method)) {
		handle_method(json_string_value(method),
			      json_object_get(msg, "params"), id);
	} else if (json_is_string(id) &&
		   json_object_get(msg, "result") &&
		   json_object_get(msg, "error")) {
		handle_reply(json_string_value(id),
			     json_object_get(msg, "result"),
			     json_object_get(msg, "error"));
	} else if (id && json_object_get(msg, "result")) {
		c.n.unexpected++;	/* an answer to no request of ours */
	} else {
		c.n.bad_rpc++;
		drop("not a JSON-RPC request, notification or reply");
	}
	json_decref(msg);
}

/* ---- I/O ---- */

static bool
grow_in(void)
{
	size_t cap = c.in_cap ? c.in_cap * 2 : OVSDB_READ_CHUNK;
	if (cap > OVSDB_MAX_MSG + OVSDB_READ_CHUNK)
		cap = OVSDB_MAX_MSG + OVSDB_READ_CHUNK;
	char *p = realloc(c.in, cap);
	if (!p)
		return false;
	c.in = p;
	c.in_cap = cap;
	return true;
}

/* Handles every complete message in the buffer. */
static void
take_messages(void)
{
	size_t used = 0;

	while (c.fd >= 0 && used < c.in_len) {
		size_t end;
		enum ovsdb_frame_rc rc = ovsdb_frame_scan(
			&c.frame, c.in + used, c.in_len - used, OVSDB_MAX_MSG,
			&end);
		if (rc == OVSDB_FRAME_MORE)
			break;
		if (rc != OVSDB_FRAME_DONE) {
			if (rc == OVSDB_FRAME_TOO_DEEP)
				c.n.too_deep++;
			else if (rc == OVSDB_FRAME_TOO_LONG)
				c.n.too_long++;
			else
				c.n.not_object++;
			drop("message %s (limits: %u bytes, depth %d)",
			     ovsdb_frame_rc_name(rc), OVSDB_MAX_MSG,
			     OVSDB_FRAME_MAX_DEPTH);
			return;
		}
		/* any message is activity, as jsonrpc_session_recv() says
		 * (a partial one is not: a server stuck mid-message is
		 * probed like a silent one) */
		c.last_activity = (long long)vxs_now_ms();
		c.probe_sent = 0;
		handle_message(c.in + used, end);
		used += end;
		ovsdb_frame_reset(&c.frame);
	}
	if (c.fd < 0 || !used)
		return;
	/* the scan's position is relative to the first byte kept */
	memmove(c.in, c.in + used, c.in_len - used);
	c.in_len -= used;
}

static void
do_read(void)
{
	for (int i = 0; i < OVSDB_READS_PER_RUN && c.fd >= 0; i++) {
		if (c.in_len == c.in_cap && !grow_in()) {
			drop("out of memory");
			return;
		}
		ssize_t n = recv(c.fd, c.in + c.in_len, c.in_cap - c.in_len,
				 MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n == 0) {
			c.n.eof++;
			drop("connection closed by the server");
			return;
		}
		if (n < 0) {
			c.n.io_errors++;
			drop("recv: %s", strerror(errno));
			return;
		}
		c.in_len += (size_t)n;
		take_messages();
	}
}

static void
do_write(void)
{
	while (c.fd >= 0 && c.out_done < c.out.len) {
		ssize_t n = send(c.fd, c.out.s + c.out_done,
				 c.out.len - c.out_done,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			c.out_done += (size_t)n;
		} else if (n < 0 && errno == EINTR) {
			continue;
		} else if (n < 0 && (errno == EAGAIN ||
				     errno == EWOULDBLOCK)) {
			return;
		} else {
			c.n.io_errors++;
			drop("send: %s", strerror(errno));
			return;
		}
	}
	if (c.fd >= 0) {
		ds_clear(&c.out);
		c.out_done = 0;
	}
}

/* reconnect_run()'s S_ACTIVE and S_IDLE: the probe sent after an idle
 * interval, the connection dropped after another one. Called after a
 * read, so a message that came in time is never taken for silence. */
static void
probe(long long now)
{
	if (c.fd < 0 || !c.probe_ms)
		return;
	if (c.probe_sent) {
		if (now - c.probe_sent < c.probe_ms)
			return;
		c.n.probe_timeouts++;
		drop("no response to inactivity probe after %.3g seconds",
		     (double)(now - c.probe_sent) / 1000.0);
	} else if (now - c.last_activity >= c.probe_ms) {
		c.probe_sent = now;
		c.n.probes_sent++;
		VLOG_DBG(control, "ovsdb %s: idle %lld ms, sending inactivity "
			 "probe", c.remote, now - c.last_activity);
		send_request("echo", json_array(), "echo");
	}
}

int
ovsdb_probe_check(const char *arg, long long *ms, char *err, size_t errlen)
{
	char *end;
	long long v = strtoll(arg, &end, 10);

	if (end == arg || *end || (v && (v < OVSDB_PROBE_MIN_MS ||
					 v > OVSDB_PROBE_MAX_MS))) {
		snprintf(err, errlen, "--ovsdb-probe-ms '%s': 0 (no probe) or "
			 "%d to %d milliseconds", arg, OVSDB_PROBE_MIN_MS,
			 OVSDB_PROBE_MAX_MS);
		return -1;
	}
	*ms = v;
	return 0;
}

/* ---- the module ---- */

int
ovsdb_client_start(const char *remote, long long probe_ms, char *err,
		   size_t errlen)
{
	if (c.enabled) {
		snprintf(err, errlen, "ovsdb: already started");
		return -1;
	}
	if (strlen(remote) >= sizeof c.remote) {
		snprintf(err, errlen, "--ovsdb: remote too long");
		return -1;
	}
	if (ovsdb_remote_parse(remote, &c.addr, &c.addr_len, err,
			       errlen))
		return -1;
	if (ovsdb_replica_init(&c.replica)) {
		snprintf(err, errlen, "ovsdb: out of memory");
		return -1;
	}
	snprintf(c.remote, sizeof c.remote, "%s", remote);
	ds_init(&c.out);
	memset(&c.n, 0, sizeof c.n);
	c.fd = -1;
	c.state = S_BACKOFF;
	c.deadline = 0;		/* connect at once */
	c.backoff_ms = OVSDB_BACKOFF_MIN_MS;
	/* ovs-vswitchd's: jsonrpc_session_open() leaves reconnect's default
	 * for a stream that needs probes, none for unix: */
	c.probe_ms = probe_ms >= 0 ? probe_ms : strncmp(remote, "unix:", 5)
		? OVSDB_PROBE_DEFAULT_MS : 0;
	c.last_drop[0] = '\0';
	ovsdb_frame_reset(&c.frame);
	c.enabled = true;
	VLOG_INFO(control, "OVSDB mode: %s", remote);
	return 0;
}

bool
ovsdb_client_enabled(void)
{
	return c.enabled;
}

static void
fd_ready(void *aux)
{
	(void)aux;
	ovsdb_client_run();
}

/* The socket in control_poll()'s epoll set, so that what the server sends
 * is read at once, not at the loop's next turn (20 ms at most); readable
 * always, writable while a connect or a backlog waits. The timers
 * (backoff, connect, probe) are kept by the loop's call. Where the set
 * takes no more, the loop's call does it all, a turn later. */
static void
watch_fd(void)
{
	uint32_t ev = c.state == S_CONNECTING || c.out_done < c.out.len
		      ? EPOLLIN | EPOLLOUT : EPOLLIN;

	if (c.fd < 0 || ev == c.watched)
		return;
	c.watched = control_watch(c.fd, ev, fd_ready, NULL) ? 0 : ev;
}

void
ovsdb_client_run(void)
{
	if (!c.enabled)
		return;
	long long now = (long long)vxs_now_ms();
	switch (c.state) {
	case S_BACKOFF:
		if (now >= c.deadline)
			try_connect(now);
		break;
	case S_CONNECTING:
		check_connect(now);
		break;
	case S_CONNECTED:
		break;
	}
	if (c.state != S_CONNECTED) {
		watch_fd();
		return;
	}
	/* What waited since the last run and now went out is activity, as
	 * in jsonrpc_session_run(); what is sent at once proves nothing
	 * (kernel buffers take it from a stalled connection too). */
	size_t backlog = c.out.len - c.out_done;
	do_write();
	if (c.fd >= 0 && c.out.len - c.out_done < backlog)
		c.last_activity = now;
	do_read();
	probe(now);
	if (c.fd >= 0 && c.monitored && c.lock == OVSDB_LOCK_HELD)
		ovsdb_sync_run(&c.replica, &c.changed, now, &c.n,
			       send_transact);
	do_write();	/* the answers to what was read, the probe */
	watch_fd();
}

void
ovsdb_client_stop(void)
{
	if (!c.enabled)
		return;
	close_fd();
	ds_destroy(&c.out);
	ovsdb_replica_destroy(&c.replica);
	ovsdb_plan_forget();
	ovsdb_sync_stop();
	c.enabled = false;
}

void
ovsdb_client_get_view(struct ovsdb_client_view *v)
{
	static const char *const states[] = {
		[S_BACKOFF] = "backoff", [S_CONNECTING] = "connecting",
		[S_CONNECTED] = "connected",
	};

	v->remote = c.remote;
	v->state = states[c.state];
	v->lock = c.lock;
	v->monitored = c.monitored;
	v->schema_version = c.schema_version;
	v->backoff_ms = c.state == S_BACKOFF ? c.deadline - (long long)
			vxs_now_ms() : 0;
	if (v->backoff_ms < 0)
		v->backoff_ms = 0;
	v->probe_ms = c.probe_ms;
	v->polled = c.watched != 0;
	v->last_drop = c.last_drop;
	v->counters = &c.n;
	v->replica = &c.replica;
}
