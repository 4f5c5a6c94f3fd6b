/* SPDX-License-Identifier: BSD-3-Clause
 * --ovsdb's REMOTE as a socket address (ovsdb_remote.c).
 */
#ifndef VXS_OVSDB_REMOTE_H
#define VXS_OVSDB_REMOTE_H

#include <stddef.h>
#include <sys/socket.h>

/* "unix:PATH" or "tcp:IP:PORT" (an IPv6 address in brackets) into *ss
 * and *len. 0, or -1 with the reason in 'err'. */
int ovsdb_remote_parse(const char *remote, struct sockaddr_storage *ss,
		       socklen_t *len, char *err, size_t errlen);

/* The same, only checked. */
int ovsdb_remote_check(const char *remote, char *err, size_t errlen);

#endif
