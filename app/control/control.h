/* SPDX-License-Identifier: BSD-3-Clause
 * The control socket: a unix-domain stream socket on which vxswitch-ctl asks
 * the running daemon to do things, in the spirit of ovs-appctl. It is served
 * from the daemon's control (main) thread, which calls control_poll() in its
 * loop; command handlers therefore run in the control thread too, one at a
 * time, while every other client's I/O waits in its own buffers.
 *
 * Wire protocol, one request per connection:
 *
 *   request  = [ "--json" NUL ] COMMAND NUL { ARG NUL } NUL
 *	Each string is sent with its terminating NUL, and an empty string
 *	(a lone extra NUL) ends the request, so no argument can be empty.
 *	Any other text goes through untouched: no quoting, no escaping.
 *	The optional first string "--json" asks for JSON output.
 *
 *   response = ( "OK\n" | "ERROR\n" ) BODY
 *	The status line, then the body (the command's output, or the
 *	error's text) until the server closes the connection. An error body
 *	is plain text even when JSON was asked for.
 *
 *   limits: a request of at most CONTROL_MAX_REQUEST bytes (the final NUL
 *	included) and at most CONTROL_MAX_ARGS arguments after the command
 *	name. Anything larger, or a request that is not complete within
 *	CONTROL_IO_TIMEOUT_MS of its first byte, gets an ERROR response (if
 *	the client still listens) and the connection is closed. So does a
 *	connection that sends nothing for CONTROL_IDLE_TIMEOUT_MS. A client
 *	that takes none of its response for CONTROL_IO_TIMEOUT_MS is dropped.
 *	A client may shut down its writing side after the request: it still
 *	gets the response.
 *
 *   clients: the server serves all its clients at once, none waiting for
 *	another (control_server.c). At most max_clients connections (default
 *	CONTROL_MAX_CLIENTS; RLIMIT_NOFILE is raised to fit) are open; when
 *	full, the oldest idle one (connected, nothing sent yet) is closed
 *	with an ERROR response to make room, and only when no client is idle
 *	is the new one refused ("ERROR\ntoo many control connections").
 *	The built-in command control/show counts all of these.
 *
 * Only the socket's owner may connect: it is created mode 0600.
 *
 * A second socket (control_unixctl_init) speaks OVS's unixctl JSON-RPC
 * instead, for ovs-appctl, with the same commands and client rules; its
 * connections stay open for more requests, as OVS's do.
 */
#ifndef VXS_CONTROL_H
#define VXS_CONTROL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ds.h"

#define CONTROL_DEFAULT_DIR "/var/run/vxswitch"
#define CONTROL_DEFAULT_SOCKET CONTROL_DEFAULT_DIR "/vxswitch.ctl"
#define CONTROL_JSON_OPTION "--json"
#define CONTROL_MAX_REQUEST (2 * 1024 * 1024)
#define CONTROL_MAX_ARGS 16384
/* How long one client may take to send its request, and again to take its
 * response, before the server gives up on it. It bounds how long a stuck
 * or hostile client can hold up the control loop. */
#define CONTROL_IO_TIMEOUT_MS 1000
/* How long a connection may stay open without sending a byte. */
#define CONTROL_IDLE_TIMEOUT_MS 60000
/* Open connections, at most (see "clients" above). */
#define CONTROL_MAX_CLIENTS 4096
/* max_args for commands that take any number of arguments (the request
 * limit still applies). */
#define CONTROL_ARGS_ANY INT_MAX

/* Called with argv[0] = the command name and argv[1..argc-1] its arguments
 * (argv[argc] is NULL), the way main() is. 'json' is true if the client
 * asked for JSON (see json_out.h). The strings last only for the call.
 * Returns 0 on success with the output in 'out', or nonzero with an error
 * message in 'out' (one line, no "error:" prefix or trailing newline
 * needed). 'out' starts empty. */
typedef int (*control_cmd_fn)(int argc, const char *argv[], bool json,
			      struct ds *out, void *aux);

/* Creates the socket at 'sock_path', with any missing parent directories
 * (mode 0700). A socket file left behind by a daemon that died is replaced;
 * one that a live process still listens on is not, and neither is anything
 * that is not a socket. Returns 0, or -1 with a message in 'err'. */
int control_init(const char *sock_path, char *err, size_t errlen);

/* Adds command 'name'. 'usage' describes its arguments ("[--strict] BRIDGE
 * FLOW", or "" for none). It takes 'min_args' to 'max_args' arguments, the
 * name not counted; max_args may be CONTROL_ARGS_ANY. 'aux' is passed to
 * 'fn' as is. Works before or after control_init(). Returns 0, or -1 if the
 * name is taken or empty or contains white space, or the counts make no
 * sense. */
int control_register(const char *name, const char *usage, int min_args,
		     int max_args, control_cmd_fn fn, void *aux);

/* Sets the connection limit (before or after control_init(), which raises
 * RLIMIT_NOFILE for it and may lower it to what the hard limit allows).
 * Returns the limit now in force, or -1 if 'max_clients' < 1. */
int control_set_max_clients(int max_clients);

/* Waits up to 'timeout_ms' (0: just looks; -1: forever) for something to do
 * on the socket or a client deadline, then does what can be done without
 * blocking: accepts new clients, reads requests, runs those complete,
 * sends answers, and deals with clients out of time. Never blocks on a
 * client. Returns how many complete requests were run (answered OK or
 * ERROR, the answer possibly still being sent); a client that never sent a
 * whole request doesn't count. Returns -1 if control_init() has not
 * succeeded. */
int control_poll(int timeout_ms);

/* Another file descriptor in control_poll()'s epoll set, so that a
 * module of the control thread (the OVSDB session) is woken as soon as its
 * socket is ready rather than at the loop's next turn: fn(aux) runs from
 * control_poll() when 'fd' is ready for 'events' (EPOLLIN, EPOLLOUT),
 * after the clients and listeners. Watching a watched fd changes its
 * events. 'fn' may unwatch its own fd and no other. At most
 * CONTROL_MAX_WATCHES. 0, or -1 (before control_init(), table full,
 * epoll_ctl failed): then the caller runs from the loop alone. */
#define CONTROL_MAX_WATCHES 80	/* the OVSDB session, the OpenFlow
					 * channel's socket and 64 connections */
int control_watch(int fd, uint32_t events, void (*fn)(void *aux),
		  void *aux);

/* Out of the set; before 'fd' is closed. */
void control_unwatch(int fd);

/* Opens a second socket at 'sock_path' (after control_init(), in the same
 * way) that speaks OVS's unixctl JSON-RPC, as ovs-vswitchd's
 * <rundir>/ovs-vswitchd.<pid>.ctl does, so that Debian's own
 * `ovs-appctl -t SOCKET COMMAND [ARG...]` drives the daemon: every
 * command above, by the same name, with the OVS dispatcher's error texts
 * (control_unixctl.c). Served by control_poll() with the same client
 * rules. 'sock_path' NULL or "": vxswitch.<pid>.ctl in the directory of
 * control_init()'s socket (OVS names its own <rundir>/NAME.<pid>.ctl).
 * Returns 0, or -1 with a message in 'err'. */
int control_unixctl_init(const char *sock_path, char *err, size_t errlen);

/* The unixctl socket's path, or NULL if it is not open. */
const char *control_unixctl_path(void);

/* Closes and unlinks the sockets (unless something else has replaced it
 * there since), and forgets every registered command. */
void control_fini(void);

#endif
