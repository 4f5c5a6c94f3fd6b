/* SPDX-License-Identifier: BSD-3-Clause
 * OVSDB mode's start (ovsdb_boot.h): one "transact" of a "select" of
 * Open_vSwitch's other_config, on a blocking socket bounded by poll()
 * timeouts, before the EAL and before the session.
 */
#include "ovsdb_boot.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <jansson.h>

#include "clock.h"
#include "config.h"
#include "ovsdb_eal.h"
#include "ovsdb_frame.h"
#include "ovsdb_remote.h"
#include "vlog.h"

#define BOOT_MAX_REPLY (1u << 20)	/* one row's other_config */

static void
fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vsnprintf(err, errlen, fmt, args);
	va_end(args);
}

/* Waits for 'events' on fd until 'deadline' (vxs_now_ms()); 0 or -1. */
static int
wait_fd(int fd, short events, long long deadline)
{
	for (;;) {
		long long left = deadline - (long long)vxs_now_ms();
		struct pollfd p = { .fd = fd, .events = events };
		if (left <= 0)
			return -1;
		int n = poll(&p, 1, (int)left);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -1;
	}
}

/* The reply to our request, whole, into a new buffer. */
static char *
exchange(int fd, const char *request, long long deadline, size_t *len,
	 char *err, size_t errlen)
{
	struct ovsdb_frame f;
	size_t n = strlen(request), done = 0, have = 0, end;
	char *buf = malloc(BOOT_MAX_REPLY);

	if (!buf) {
		fail(err, errlen, "out of memory");
		return NULL;
	}
	while (done < n) {
		if (wait_fd(fd, POLLOUT, deadline))
			goto timeout;
		ssize_t w = send(fd, request + done, n - done, MSG_NOSIGNAL);
		if (w < 0 && errno != EINTR && errno != EAGAIN) {
			fail(err, errlen, "send: %s", strerror(errno));
			goto out;
		}
		done += w > 0 ? (size_t)w : 0;
	}
	ovsdb_frame_reset(&f);
	for (;;) {
		if (wait_fd(fd, POLLIN, deadline))
			goto timeout;
		ssize_t r = recv(fd, buf + have, BOOT_MAX_REPLY - have, 0);
		if (r == 0 || (r < 0 && errno != EINTR && errno != EAGAIN)) {
			fail(err, errlen, "connection closed before the answer");
			goto out;
		}
		have += r > 0 ? (size_t)r : 0;
		enum ovsdb_frame_rc rc = ovsdb_frame_scan(&f, buf, have,
							  BOOT_MAX_REPLY, &end);
		if (rc == OVSDB_FRAME_DONE) {
			*len = end;
			return buf;
		}
		if (rc != OVSDB_FRAME_MORE) {
			fail(err, errlen, "answer %s", ovsdb_frame_rc_name(rc));
			goto out;
		}
	}
timeout:
	fail(err, errlen, "no answer in time");
out:
	free(buf);
	return NULL;
}

/* other_config of the one Open_vSwitch row, as an object; NULL with the
 * reason. */
static json_t *
read_other_config(const char *remote, long long timeout_ms, char *err,
		  size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	long long deadline = (long long)vxs_now_ms() + timeout_ms;
	static const char request[] =
		"{\"method\":\"transact\",\"id\":\"boot\",\"params\":"
		"[\"Open_vSwitch\",{\"op\":\"select\",\"table\":"
		"\"Open_vSwitch\",\"where\":[],\"columns\":[\"other_config\"]}]}";
	json_t *oc = NULL;
	size_t len;
	char *buf;

	if (ovsdb_remote_parse(remote, &ss, &sl, err, errlen))
		return NULL;
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC |
			SOCK_NONBLOCK, 0);
	if (fd < 0) {
		fail(err, errlen, "socket: %s", strerror(errno));
		return NULL;
	}
	if (connect(fd, (struct sockaddr *)&ss, sl) &&
	    (errno != EINPROGRESS || wait_fd(fd, POLLOUT, deadline))) {
		fail(err, errlen, "cannot connect (%s)", strerror(errno));
		close(fd);
		return NULL;
	}
	buf = exchange(fd, request, deadline, &len, err, errlen);
	close(fd);
	if (!buf)
		return NULL;
	json_error_t jerr;
	json_t *msg = json_loadb(buf, len, JSON_DISABLE_EOF_CHECK, &jerr);
	free(buf);
	const json_t *rows = json_object_get(json_array_get(
		json_object_get(msg, "result"), 0), "rows");
	const json_t *map = json_object_get(json_array_get(rows, 0),
					    "other_config");
	const char *tag = json_string_value(json_array_get(map, 0));
	if (!tag || strcmp(tag, "map")) {
		fail(err, errlen, "no Open_vSwitch other_config in the answer");
		json_decref(msg);
		return NULL;
	}
	oc = json_object();
	size_t i;
	const json_t *pair;
	json_array_foreach(json_array_get(map, 1), i, pair) {
		const char *k = json_string_value(json_array_get(pair, 0));
		const json_t *v = json_array_get(pair, 1);
		if (k && json_is_string(v))
			json_object_set(oc, k, (json_t *)v);
	}
	json_decref(msg);
	return oc;
}

static int
add_extra(struct vxs_config *cfg, const char *arg)
{
	char **v = realloc(cfg->eal_extra, (cfg->n_eal_extra + 1) * sizeof *v);

	if (!v)
		return -1;
	cfg->eal_extra = v;
	if (!(v[cfg->n_eal_extra] = strdup(arg)))
		return -1;
	cfg->n_eal_extra++;
	return 0;
}

static void
note(enum ovsdb_eal_level level, const char *text, void *aux)
{
	(void)aux;
	if (level == OVSDB_EAL_ERR)
		VLOG_ERR(control, "%s", text);
	else
		VLOG_WARN(control, "%s", text);
}

/* The database's words replace what the topology says of the same thing:
 * the EAL refuses -m beside --socket-mem, and takes one --huge-dir. */
static void
topology_gives_way(struct vxs_config *cfg, const struct ovsdb_eal_words *w)
{
	if ((ovsdb_eal_words_has(w, "-m") ||
	     ovsdb_eal_words_has(w, "--socket-mem")) &&
	    (cfg->eal_memory_mb || cfg->eal_socket_mem[0])) {
		VLOG_INFO(control, "ovsdb: the database's memory option "
			  "replaces the topology's eal memory");
		cfg->eal_memory_mb = 0;
		cfg->eal_socket_mem[0] = '\0';
	}
	if (ovsdb_eal_words_has(w, "--huge-dir") && cfg->eal_huge_dir[0]) {
		VLOG_INFO(control, "ovsdb: the database's --huge-dir replaces "
			  "the topology's eal huge-dir");
		cfg->eal_huge_dir[0] = '\0';
	}
}

/* The keys ovsdb_eal.c reads */
static bool
eal_key(const char *k)
{
	static const char *const keys[] = {
		"dpdk-extra", "dpdk-hugepage-dir", "dpdk-socket-limit",
		"dpdk-alloc-mem", "dpdk-socket-mem",
	};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
		if (!strcmp(k, keys[i]))
			return true;
	return false;
}

int
ovsdb_boot_eal(const char *remote, long long timeout_ms,
	       struct vxs_config *cfg, char *err, size_t errlen)
{
	json_t *oc = read_other_config(remote, timeout_ms, err, errlen);
	const struct ovsdb_eal_notes notes = { note, NULL };
	struct ovsdb_eal_words w;
	const char *k;
	json_t *jv;
	int rc = 0;

	if (!oc)
		return -1;
	json_object_foreach(oc, k, jv) {
		if (eal_key(k))
			VLOG_INFO(control, "ovsdb: other_config:%s=%s for the "
				  "EAL", k, json_string_value(jv));
		else if (!strncmp(k, "dpdk-", 5))
			VLOG_INFO(control, "ovsdb: other_config:%s not used: "
				  "%s", k, !strcmp(k, "dpdk-init")
				  ? "vxswitch always runs DPDK"
				  : "the topology's eal and datapath keys "
				    "say it");
	}
	if (ovsdb_eal_words(oc, &w, &notes)) {
		json_decref(oc);
		fail(err, errlen, "other_config:dpdk-extra: out of memory or "
		     "more than %d words", OVSDB_EAL_MAX_WORDS);
		return -1;
	}
	topology_gives_way(cfg, &w);
	for (int i = 0; i < w.n && !rc; i++)
		rc = add_extra(cfg, w.v[i]);
	ovsdb_eal_words_free(&w);
	json_decref(oc);
	if (rc)
		fail(err, errlen, "out of memory");
	return rc;
}
