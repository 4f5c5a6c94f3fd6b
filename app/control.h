/* SPDX-License-Identifier: BSD-3-Clause
 * The control socket: a unix-domain stream socket on which vxswitch-ctl asks
 * the running daemon to do things, in the spirit of ovs-appctl. It is served
 * from the daemon's control (main) thread, which calls control_poll() in its
 * loop; command handlers therefore run in the control thread too.
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
 *	CONTROL_IO_TIMEOUT_MS, gets an ERROR response (if the client still
 *	listens) and the connection is closed.
 *
 * Only the socket's owner may connect: it is created mode 0600.
 */
#ifndef VXS_CONTROL_H
#define VXS_CONTROL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "ds.h"

#define CONTROL_DEFAULT_SOCKET "/var/run/vxswitch/vxswitch.ctl"
#define CONTROL_JSON_OPTION "--json"
#define CONTROL_MAX_REQUEST (2 * 1024 * 1024)
#define CONTROL_MAX_ARGS 16384
/* How long one client may take to send its request, and again to take its
 * response, before the server gives up on it. It bounds how long a stuck
 * or hostile client can hold up the control loop. */
#define CONTROL_IO_TIMEOUT_MS 1000
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

/* Waits up to 'timeout_ms' (0: just looks; -1: forever) for clients, and
 * serves those already waiting (a few at most, so the loop gets back to its
 * other work), each to completion or until it runs out of time. Returns
 * how many complete requests were answered, OK or ERROR; a client that
 * never sent a whole request doesn't count. Returns -1 if control_init()
 * has not succeeded. */
int control_poll(int timeout_ms);

/* Closes and unlinks the socket (unless something else has replaced it
 * there since), and forgets every registered command. */
void control_fini(void);

#endif
