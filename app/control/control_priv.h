/* SPDX-License-Identifier: BSD-3-Clause
 * Between the two halves of the control socket: the command table
 * (control.c) and the server that reads requests and writes answers
 * (control_server.c). Not for other modules.
 */
#ifndef VXS_CONTROL_PRIV_H
#define VXS_CONTROL_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ds.h"

/* A wire protocol the server speaks on one of its listeners. */
struct control_proto {
	/* The length of the first complete request in buf[0..len), or 0
	 * if it is not complete yet. buf[0..scanned) was looked at by an
	 * earlier call, which left what it needs in *scan (0 at first). */
	size_t (*request_end)(const char *buf, size_t scanned, size_t len,
			      uint64_t *scan);
	/* Runs the complete request req[0..len) and puts the whole answer,
	 * framed, in 'answer'. Returns 0 if the command succeeded. */
	int (*run)(const char *req, size_t len, struct ds *answer);
	/* Frames the server's own error 'msg' (limits, time-outs). */
	void (*error)(const char *msg, struct ds *answer);
	/* After an answer the connection stays open for more requests;
	 * else it ends with the answer. */
	bool keep_open;
};

extern const struct control_proto control_vxs_proto;	  /* control.c */
extern const struct control_proto control_unixctl_proto; /* control_unixctl.c */

/* Runs argv[0] with arguments argv[1..argc-1] (argv[argc] NULL). 'ovs':
 * the dispatcher's own errors (unknown command, argument counts) in OVS
 * unixctl's words, and list-commands in its layout. Returns 0, or -1
 * with the error's text in 'out'. */
int control_execute_argv(int argc, const char *argv[], bool json, bool ovs,
			 struct ds *out);

/* Runs the complete request req[0..len), which ends with its terminating
 * empty string (so req[len - 1] is NUL). Returns 0 for OK, -1 for ERROR,
 * with the body in 'out'. */
int control_execute(const char *req, size_t len, struct ds *out);

/* Adds "help" and "list-commands" unless they are there already. */
void control_register_builtins(void);

/* Adds "version" (control_unixctl.c). */
void control_unixctl_register(void);

/* Forgets every registered command. */
void control_commands_forget(void);

/* What an epoll event's data.ptr points at: each starts with this. */
enum endpoint_kind { ENDPOINT_LISTENER, ENDPOINT_CLIENT, ENDPOINT_WATCH };

/* The server's epoll set, -1 before control_init() (control_server.c). */
int control_epfd(void);

/* A watch's event came (control_watch.c): its fn runs, unless it was
 * unwatched since. */
void control_watch_ready(void *endpoint);

/* Every watch forgotten (control_fini()). */
void control_watch_fini(void);

#endif
