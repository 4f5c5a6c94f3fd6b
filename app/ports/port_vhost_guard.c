/* SPDX-License-Identifier: BSD-3-Clause
 * What a vhost-user frontend must not be able to do to the switch, checked
 * where DPDK 22.11's rte_vhost does not check it itself:
 *
 *  - a memory table whose regions run past the end of their file: rte_vhost
 *    maps them without looking at the file size, and the first access to a
 *    page beyond the end is a SIGBUS in the PMD or the vhost thread. The
 *    pre-message hook checks SET_MEM_TABLE against fstat and refuses it;
 *  - a ring smaller than our burst: rte_vhost sizes its shadow used ring
 *    by the guest's ring size and fills one entry per dequeued packet up to
 *    the burst asked for, trusting avail->idx; an 8-entry ring with
 *    avail->idx jumped to 60,000 writes 32 entries into 8 (a SEGV). The
 *    hook refuses SET_VRING_NUM below VHOST_RING_MIN, and new_device checks
 *    again, so no burst (at most BATCH_MAX <= VHOST_RING_MIN) can be larger
 *    than a ring. (Checking avail->idx ourselves would race with the guest.)
 *  - a header with no payload: rte_vhost's single event thread blocks in
 *    read() and no other guest can attach. The connection's socket gets a
 *    receive (and send) timeout, so the read fails and the library closes
 *    that connection instead.
 *
 * A refused message is counted on the port (vhost_refused_mem,
 * vhost_refused_ring), logged, and closes the connection.
 */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>
#include <rte_common.h>
#include <rte_log.h>
#include <rte_vhost.h>
#include "port.h"
#include "vlog.h"

unsigned int port_vhost_msg_timeout_ms = VHOST_MSG_TIMEOUT_MS_DEFAULT;

/* The message as rte_vhost 22.11 hands it to a pre_msg_handle hook: its
 * struct vhu_msg_context (lib/vhost/vhost_user.h, not installed; the
 * header says it "can't be changed carelessly as external message handlers
 * rely on them"). Only the members we read are spelled out; the union is
 * as large as its largest member there (VhostUserCryptoSessionParam, 632
 * bytes), which places fds[] where the library writes them. */
#define VHU_MAX_REGIONS 8
#define VHU_SET_MEM_TABLE 5
#define VHU_SET_VRING_NUM 8
#define VHU_NEED_REPLY (1u << 3)

struct vhu_region {
	uint64_t guest_phys_addr;
	uint64_t memory_size;
	uint64_t userspace_addr;
	uint64_t mmap_offset;
};

struct __rte_packed vhu_msg {
	uint32_t request;
	uint32_t flags;
	uint32_t size;
	union {
		uint64_t u64;
		struct { uint32_t index, num; } state;
		struct {
			uint32_t nregions, padding;
			struct vhu_region regions[VHU_MAX_REGIONS];
		} memory;
		uint8_t largest[632];
	} payload;
};

struct __rte_packed vhu_msg_ctx {
	struct vhu_msg msg;
	int fds[VHU_MAX_REGIONS];
	int fd_num;
};

_Static_assert(offsetof(struct vhu_msg_ctx, fds) == 12 + 632,
	       "fds[] must sit where rte_vhost 22.11 puts them");

/* NULL when every region lies inside its file, else why not. */
static const char *
mem_table_check(const struct vhu_msg_ctx *ctx, char *why, size_t len)
{
	uint32_t n = ctx->msg.payload.memory.nregions;

	/* Counts that do not match are refused by rte_vhost itself, and
	 * fds[] past fd_num are not ours to read. */
	if (n > VHU_MAX_REGIONS || ctx->fd_num < 0 ||
	    (uint32_t)ctx->fd_num != n)
		return NULL;
	for (uint32_t i = 0; i < n; i++) {
		struct vhu_region r;
		struct stat st;

		memcpy(&r, (const char *)ctx + offsetof(struct vhu_msg_ctx,
			msg.payload.memory.regions) + i * sizeof r, sizeof r);

		if (fstat(ctx->fds[i], &st) || !S_ISREG(st.st_mode)) {
			snprintf(why, len, "region %u: fd is not a file", i);
			return why;
		}
		if (r.mmap_offset > (uint64_t)st.st_size ||
		    r.memory_size > (uint64_t)st.st_size - r.mmap_offset) {
			snprintf(why, len,
				 "region %u: offset %#" PRIx64 " + size %#"
				 PRIx64 " past the end of its file (%#" PRIx64
				 " bytes)", i, r.mmap_offset, r.memory_size,
				 (uint64_t)st.st_size);
			return why;
		}
	}
	return NULL;
}

static enum rte_vhost_msg_result
vhost_pre_msg(int vid, void *msg)
{
	struct vhu_msg_ctx *ctx = msg;
	struct port *p = port_vhost_by_vid(vid);
	uint64_t *counter = NULL;
	char why[160];
	const char *refused = NULL;

	if (!p)
		return RTE_VHOST_MSG_RESULT_NOT_HANDLED;
	switch (ctx->msg.request) {
	case VHU_SET_MEM_TABLE:
		refused = mem_table_check(ctx, why, sizeof why);
		counter = &p->vhost_refused_mem;
		break;
	case VHU_SET_VRING_NUM:
		if (ctx->msg.payload.state.num < VHOST_RING_MIN) {
			snprintf(why, sizeof why,
				 "vring %u: %u entries, fewer than %u",
				 ctx->msg.payload.state.index,
				 ctx->msg.payload.state.num, VHOST_RING_MIN);
			refused = why;
		}
		counter = &p->vhost_refused_ring;
		break;
	default:
		break;
	}
	if (!refused)
		return RTE_VHOST_MSG_RESULT_NOT_HANDLED;
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
	VLOG_WARN(ports, "vhost port %s: refused %s from the guest: %s; "
		"disconnecting it\n", p->name,
		ctx->msg.request == VHU_SET_MEM_TABLE ? "SET_MEM_TABLE"
						      : "SET_VRING_NUM",
		refused);
	/* A message the hook answers is "handled": the library will not
	 * close its fds, so we do. Without NEED_REPLY an error makes the
	 * library drop the connection rather than reply and go on. */
	for (int i = 0; i < ctx->fd_num && i < VHU_MAX_REGIONS; i++)
		if (ctx->fds[i] >= 0) {
			close(ctx->fds[i]);
			ctx->fds[i] = -1;
		}
	ctx->fd_num = 0;
	ctx->msg.flags &= ~VHU_NEED_REPLY;
	return RTE_VHOST_MSG_RESULT_ERR;
}

static const struct rte_vhost_user_extern_ops vhost_guard_ops = {
	.pre_msg_handle = vhost_pre_msg,
};

/* Does fd hold a connected AF_UNIX stream socket of this port? rte_vhost
 * does not give the callbacks the connection's fd, but its address names
 * the port: the peer's (we connected to the guest's socket) or our own
 * (an accepted connection carries the listening socket's name). */
static bool
is_port_connection(int fd, const struct port *p)
{
	struct sockaddr_un sa;
	socklen_t len = sizeof sa;
	int val;
	socklen_t vlen = sizeof val;

	if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &val, &vlen) ||
	    val != AF_UNIX)
		return false;
	vlen = sizeof val;
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &val, &vlen) || val)
		return false;
	memset(&sa, 0, sizeof sa);
	if ((p->vhost_server ? getsockname(fd, (struct sockaddr *)&sa, &len)
			     : getpeername(fd, (struct sockaddr *)&sa, &len)))
		return false;
	if (len <= offsetof(struct sockaddr_un, sun_path))
		return false;
	return !strncmp(sa.sun_path, p->path, sizeof sa.sun_path);
}

/* Every connection of the port gets the timeout (those already set are
 * set again: the same value). Returns how many. */
static int
set_msg_timeout(const struct port *p)
{
	struct timeval tv = {
		.tv_sec = port_vhost_msg_timeout_ms / 1000,
		.tv_usec = (port_vhost_msg_timeout_ms % 1000) * 1000,
	};
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char link[64], *end;
		char target[32];
		long fd = strtol(e->d_name, &end, 10);
		ssize_t k;

		if (*end || end == e->d_name || fd == dirfd(d))
			continue;
		snprintf(link, sizeof link, "/proc/self/fd/%ld", fd);
		k = readlink(link, target, sizeof target - 1);
		if (k < 8 || strncmp(target, "socket:", 7))
			continue;
		if (!is_port_connection((int)fd, p))
			continue;
		if (setsockopt((int)fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) ||
		    setsockopt((int)fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv))
			continue;
		n++;
	}
	closedir(d);
	return n;
}

int
port_vhost_guard_connection(struct port *p, int vid)
{
	if (rte_vhost_extern_callback_register(vid, &vhost_guard_ops, NULL)) {
		VLOG_ERR(ports, "vhost port %s: cannot hook messages\n",
			p->name);
		return -1;
	}
	if (port_vhost_msg_timeout_ms && !set_msg_timeout(p))
		VLOG_WARN(ports, "vhost port %s: no socket found for "
			"the message timeout\n", p->name);
	return 0;
}

/* Each vring the guest has set up (a desc table mapped) must have at
 * least VHOST_RING_MIN entries. SET_VRING_NUM is checked by the hook; this
 * catches a ring set up with no SET_VRING_NUM at all (size 0, and no
 * shadow ring behind it). */
bool
port_vhost_rings_ok(struct port *p, int vid, int only_vring)
{
	for (uint16_t q = 0; q < rte_vhost_get_vring_num(vid); q++) {
		struct rte_vhost_vring vr;

		if (only_vring >= 0 && q != only_vring)
			continue;
		if (rte_vhost_get_vhost_vring(vid, q, &vr) || !vr.desc)
			continue;	/* not set up: the library skips it */
		if (vr.size < VHOST_RING_MIN) {
			__atomic_fetch_add(&p->vhost_refused_ring, 1,
					   __ATOMIC_RELAXED);
			VLOG_WARN(ports, "vhost port %s: vring %u has "
				"%u entries, fewer than %u: refused\n",
				p->name, q, vr.size, VHOST_RING_MIN);
			return false;
		}
	}
	return true;
}
