/* SPDX-License-Identifier: BSD-3-Clause
 * vxswitch as a client of ovsdb-server (--ovsdb unix:PATH | tcp:IP:PORT),
 * as ovs-vswitchd is one: a JSON-RPC session (RFC 7047) run from the
 * control thread's loop, never blocking it; its socket is in
 * control_poll()'s epoll set, so input is read as it comes.
 *
 *   connect   non-blocking; on failure or loss, again after a backoff of
 *             1 s doubling to 8 s (rconn's), back to 1 s once a monitor
 *             has answered
 *   get_schema "Open_vSwitch": a major version other than
 *             OVSDB_SCHEMA_MAJOR, or a monitored column missing, is
 *             refused (logged, counted) and the connection dropped
 *   lock      "ovs_vswitchd", as vswitchd/bridge.c takes it: while another
 *             client holds it, vxswitch logs OVS's line ("another
 *             ovs-vswitchd process is running, ...") and configures
 *             nothing; a "locked" notification gives it, "stolen" takes
 *             it away again
 *   monitor   the tables and columns of ovsdb_replica.h, the replica
 *             cleared and filled from the reply, then kept by "update"
 *             notifications
 *   echo      the server's echo requests answered
 *   probe     as OVS's jsonrpc session (lib/reconnect.c): after the
 *             probe interval with no message received, an "echo"
 *             request; no message within another interval drops the
 *             connection ("no response to inactivity probe after N
 *             seconds"), then the backoff. The interval is ovs-vswitchd's:
 *             5 s on tcp:, none on unix: (OVS's stream-unix.c needs no
 *             probes: the kernel says when the peer is gone), unless
 *             --ovsdb-probe-ms sets it
 *
 * Bounds, each breach counted and logged and ending the connection
 * (then reconnect): a message longer than OVSDB_MAX_MSG or nested deeper
 * than OVSDB_FRAME_MAX_DEPTH, one that is not a JSON object or not
 * JSON-RPC, an update the replica refuses (ovsdb_replica.h: shape, rows
 * per table), an error reply to our requests, more than OVSDB_MAX_SEND
 * bytes queued for a server that does not read.
 *
 * While the lock is held and the replica current, ovsdb_sync.h applies
 * the database and writes the results back (step 3 of
 * doc/design-control-plane.md); ovsdb/show reports it all.
 */
#ifndef VXS_OVSDB_CLIENT_H
#define VXS_OVSDB_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

#include "ovsdb_remote.h"
#include "ovsdb_replica.h"

#define OVSDB_SCHEMA_MAJOR 8	/* OVS 2.x-3.x's vswitch.ovsschema: 8.y.z */
#define OVSDB_MAX_MSG (16u << 20)
#define OVSDB_MAX_SEND (1u << 20)
#define OVSDB_BACKOFF_MIN_MS 1000
#define OVSDB_BACKOFF_MAX_MS 8000
#define OVSDB_LOCK_NAME "ovs_vswitchd"
/* reconnect.h's RECONNECT_DEFAULT_PROBE_INTERVAL, and its floor */
#define OVSDB_PROBE_DEFAULT_MS 5000
#define OVSDB_PROBE_MIN_MS 1000
#define OVSDB_PROBE_MAX_MS 3600000

/* Everything counted, by name (ovsdb/show prints them in this order). */
#define OVSDB_COUNTERS(X)						\
	X(connects) X(connect_failures) X(disconnects) X(msgs_in)	\
	X(msgs_out) X(echo_replies) X(updates) X(lock_contended)	\
	X(too_long) X(too_deep) X(not_object) X(bad_json) X(bad_rpc)	\
	X(bad_update) X(row_limit) X(send_full) X(server_errors)	\
	X(schema_refused) X(unexpected) X(eof) X(io_errors)		\
	X(probes_sent) X(probe_timeouts) X(reconfigures) X(txns)	\
	X(txn_errors)

#define OVSDB_COUNTER_FIELD(name) unsigned long long name;
struct ovsdb_counters { OVSDB_COUNTERS(OVSDB_COUNTER_FIELD) };
#undef OVSDB_COUNTER_FIELD

enum ovsdb_lock_state {
	OVSDB_LOCK_NONE,	/* not asked (not connected) */
	OVSDB_LOCK_ASKED,	/* no answer yet */
	OVSDB_LOCK_HELD,
	OVSDB_LOCK_CONTENDED,	/* another client has it */
};

/* What ovsdb/show reports. */
struct ovsdb_client_view {
	const char *remote;		/* as given to --ovsdb */
	const char *state;		/* "connecting", "connected", "backoff" */
	enum ovsdb_lock_state lock;
	bool monitored;			/* the replica is current */
	const char *schema_version;	/* "" before get_schema answered */
	long long backoff_ms;		/* the next wait */
	long long probe_ms;		/* 0: no inactivity probe */
	bool polled;			/* in control_poll()'s epoll set */
	const char *last_drop;		/* why the last connection ended */
	const struct ovsdb_counters *counters;
	const struct ovsdb_replica *replica;
};

/* Checks an --ovsdb-probe-ms value: 0 (none) or OVSDB_PROBE_MIN_MS to
 * OVSDB_PROBE_MAX_MS. 0 and the value in *ms, or -1 with the reason. */
int ovsdb_probe_check(const char *arg, long long *ms, char *err,
		      size_t errlen);

/* OVSDB mode on: connects to 'remote' from the next ovsdb_client_run(),
 * with an inactivity probe every 'probe_ms' (0: none; -1: ovs-vswitchd's
 * default for the remote's kind). 0, or -1 with the reason in 'err'. */
int ovsdb_client_start(const char *remote, long long probe_ms, char *err,
		       size_t errlen);

/* Whether ovsdb_client_start() succeeded (and stop has not run). */
bool ovsdb_client_enabled(void);

/* One turn of the session: connects, reads and handles what came,
 * sends what is queued, times the backoff. Never blocks. Nothing when
 * OVSDB mode is off. */
void ovsdb_client_run(void);

/* Closes the connection and frees the replica. */
void ovsdb_client_stop(void);

void ovsdb_client_get_view(struct ovsdb_client_view *v);

const char *ovsdb_lock_state_name(enum ovsdb_lock_state s);

#endif
