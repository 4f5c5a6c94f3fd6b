/* SPDX-License-Identifier: BSD-3-Clause
 * --ovsdb's REMOTE (ovsdb_remote.h): "unix:PATH", "tcp:IPV4:PORT" or
 * "tcp:[IPV6]:PORT" as a socket address, checked at the command line and
 * used by the session. Addresses only, no names: OVS's tcp: takes none
 * either.
 */
#include "ovsdb_remote.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

int
ovsdb_remote_parse(const char *s, struct sockaddr_storage *ss,
		   socklen_t *len, char *err, size_t errlen)
{
	memset(ss, 0, sizeof *ss);
	if (!strncmp(s, "unix:", 5)) {
		struct sockaddr_un *un = (struct sockaddr_un *)ss;
		const char *path = s + 5;
		if (!*path || strlen(path) >= sizeof un->sun_path) {
			snprintf(err, errlen, "--ovsdb %s: a socket path of 1 "
				 "to %zu bytes", s, sizeof un->sun_path - 1);
			return -1;
		}
		un->sun_family = AF_UNIX;
		strcpy(un->sun_path, path);
		*len = sizeof *un;
		return 0;
	}
	if (strncmp(s, "tcp:", 4))
		goto bad;
	char host[64];
	const char *h = s + 4, *colon;
	size_t hlen;
	if (*h == '[') {
		const char *close = strchr(h, ']');
		if (!close || close[1] != ':')
			goto bad;
		h++;
		hlen = (size_t)(close - h);
		colon = close + 1;
	} else {
		colon = strrchr(h, ':');
		if (!colon)
			goto bad;
		hlen = (size_t)(colon - h);
	}
	if (hlen == 0 || hlen >= sizeof host)
		goto bad;
	memcpy(host, h, hlen);
	host[hlen] = '\0';
	char *end;
	unsigned long port = strtoul(colon + 1, &end, 10);
	if (!colon[1] || *end || port == 0 || port > 65535)
		goto bad;
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	if (inet_pton(AF_INET, host, &in4->sin_addr) == 1) {
		in4->sin_family = AF_INET;
		in4->sin_port = htons((uint16_t)port);
		*len = sizeof *in4;
		return 0;
	}
	if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
		*len = sizeof *in6;
		return 0;
	}
bad:
	snprintf(err, errlen, "--ovsdb '%s': expected unix:PATH or "
		 "tcp:IP:PORT (an IPv6 address in brackets)", s);
	return -1;
}

int
ovsdb_remote_check(const char *remote, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t len;
	return ovsdb_remote_parse(remote, &ss, &len, err, errlen);
}
