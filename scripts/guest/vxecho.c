/* SPDX-License-Identifier: BSD-3-Clause
 * vxecho: the test guest's network tools, built statically by
 * scripts/guest-image.sh (busybox has no UDP echo, and its nc neither
 * half-closes a connection nor leaves the console alone in the background):
 *   vxecho [PORT]          echo (RFC 862) on TCP and UDP, one process
 *   vxecho sink PORT       accept one TCP connection, copy it to stdout
 *                          until the sender closes, exit
 *   vxecho send IP PORT    connect, copy stdin, half-close, wait for the
 *                          receiver to close, exit */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MAX_CONN 16

static int
copy(int from, int to)
{
	static char b[65536];
	for (;;) {
		ssize_t k = read(from, b, sizeof b), off = 0;
		if (k == 0)
			return 0;
		if (k < 0)
			return -1;
		while (off < k) {
			ssize_t w = write(to, b + off, (size_t)(k - off));
			if (w <= 0)
				return -1;
			off += w;
		}
	}
}

static int
sink(int port)
{
	int one = 1, l = socket(AF_INET, SOCK_STREAM, 0), c;
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((unsigned short)port) };
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(l, (struct sockaddr *)&a, sizeof a) || listen(l, 1) ||
	    (c = accept(l, NULL, NULL)) < 0) {
		perror("vxecho sink");
		return 1;
	}
	return copy(c, 1) ? 1 : 0;
}

static int
send_to(const char *ip, int port)
{
	int c = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((unsigned short)port) };
	char b[256];
	if (inet_pton(AF_INET, ip, &a.sin_addr) != 1 ||
	    connect(c, (struct sockaddr *)&a, sizeof a)) {
		perror("vxecho send");
		return 1;
	}
	if (copy(0, c))
		return 1;
	shutdown(c, SHUT_WR);
	while (read(c, b, sizeof b) > 0)
		;
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "sink"))
		return sink(atoi(argv[2]));
	if (argc > 3 && !strcmp(argv[1], "send"))
		return send_to(argv[2], atoi(argv[3]));
	int port = argc > 1 ? atoi(argv[1]) : 7, one = 1;
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons((unsigned short)port) };
	struct pollfd p[2 + MAX_CONN];
	int n = 2;
	char buf[65536];

	p[0].fd = socket(AF_INET, SOCK_STREAM, 0);
	p[1].fd = socket(AF_INET, SOCK_DGRAM, 0);
	setsockopt(p[0].fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(p[0].fd, (struct sockaddr *)&a, sizeof a) ||
	    bind(p[1].fd, (struct sockaddr *)&a, sizeof a) ||
	    listen(p[0].fd, 8)) {
		perror("vxecho");
		return 1;
	}
	p[0].events = p[1].events = POLLIN;
	for (;;) {
		if (poll(p, n, -1) < 0)
			continue;
		if (p[0].revents & POLLIN) {
			int c = accept(p[0].fd, NULL, NULL);
			if (c >= 0 && n < 2 + MAX_CONN) {
				p[n].fd = c;
				p[n++].events = POLLIN;
			} else if (c >= 0) {
				close(c);
			}
		}
		if (p[1].revents & POLLIN) {
			struct sockaddr_in from;
			socklen_t fl = sizeof from;
			ssize_t k = recvfrom(p[1].fd, buf, sizeof buf, 0,
					     (struct sockaddr *)&from, &fl);
			if (k >= 0)
				sendto(p[1].fd, buf, (size_t)k, 0,
				       (struct sockaddr *)&from, fl);
		}
		for (int i = 2; i < n; i++) {
			if (!p[i].revents)
				continue;
			ssize_t k = read(p[i].fd, buf, sizeof buf);
			if (k <= 0 || write(p[i].fd, buf, (size_t)k) != k) {
				close(p[i].fd);
				p[i--] = p[--n];
			}
		}
	}
}
