/* SPDX-License-Identifier: BSD-3-Clause
 * Between the two halves of the control socket: the command table
 * (control.c) and the server that reads requests and writes answers
 * (control_server.c). Not for other modules.
 */
#ifndef VXS_CONTROL_PRIV_H
#define VXS_CONTROL_PRIV_H

#include <stddef.h>

#include "ds.h"

/* Runs the complete request req[0..len), which ends with its terminating
 * empty string (so req[len - 1] is NUL). Returns 0 for OK, -1 for ERROR,
 * with the body in 'out'. */
int control_execute(const char *req, size_t len, struct ds *out);

/* Adds "help" and "list-commands" unless they are there already. */
void control_register_builtins(void);

/* Forgets every registered command. */
void control_commands_forget(void);

#endif
