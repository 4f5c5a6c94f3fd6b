/* SPDX-License-Identifier: BSD-3-Clause
 * vhost-user ports through the rte_vhost library, as OVS drives them.
 *
 * Guests come and go at any time: rte_vhost tells us from its own thread
 * (new_device / destroy_device). A PMD only touches a guest's rings while
 * port->ready is set; destroy_device clears it and then waits for every PMD
 * to pass a quiescent state (rte_rcu_qsbr) before the vid is given back, so
 * no PMD is inside rte_vhost_{en,de}queue_burst on a dead device and the
 * PMD itself never takes a lock to find out.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <rte_log.h>
#include <rte_vhost.h>
#include "port_priv.h"

static struct rte_rcu_qsbr *vhost_qsbr;

void
port_vhost_set_rcu(struct rte_rcu_qsbr *qsbr)
{
	vhost_qsbr = qsbr;
}

/* On the rte_vhost thread: under the slot lock, so the port is not
 * freed while we look (a port is freed only after its socket is
 * unregistered, so once found it stays for this callback). */
static struct port *
port_by_vhost_path(const char *path)
{
	struct port *found = NULL, *p;

	pthread_mutex_lock(&ports_slot_lock);
	PORTS_FOREACH(p)
		if (p->kind == PORT_VHOST && !strcmp(p->path, path)) {
			found = p;
			break;
		}
	pthread_mutex_unlock(&ports_slot_lock);
	return found;
}

struct port *
port_vhost_by_vid(int vid)
{
	char path[CFG_PATH_MAX];

	if (rte_vhost_get_ifname(vid, path, sizeof path))
		return NULL;
	return port_by_vhost_path(path);
}

static int
vhost_new_device(int vid)
{
	struct port *p = port_vhost_by_vid(vid);

	if (!p || !port_vhost_rings_ok(p, vid, -1))
		return -1;
	/* We poll: the guest need not kick us, and we need not be kicked. */
	for (uint16_t q = 0; q < rte_vhost_get_vring_num(vid); q++)
		rte_vhost_enable_guest_notification(vid, q, 0);
	p->vid = vid;
	__atomic_fetch_add(&p->n_connects, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&p->ready, true, __ATOMIC_RELEASE);
	RTE_LOG(INFO, USER1, "vhost port %s: guest up (vid %d)\n", p->name,
		vid);
	return 0;
}

static void
vhost_destroy_device(int vid)
{
	struct port *p = port_vhost_by_vid(vid);

	if (p && p->vid == vid) {
		__atomic_store_n(&p->ready, false, __ATOMIC_RELEASE);
		if (vhost_qsbr)
			rte_rcu_qsbr_synchronize(vhost_qsbr,
						 RTE_QSBR_THRID_INVALID);
		p->vid = -1;
		RTE_LOG(INFO, USER1, "vhost port %s: guest down\n", p->name);
	}
}

/* Before the guest's first message: hook its messages and bound how long
 * one may take to arrive (port_vhost_guard.c). */
static int
vhost_new_connection(int vid)
{
	struct port *p = port_vhost_by_vid(vid);

	return p ? port_vhost_guard_connection(p, vid) : -1;
}

/* A vring of a running guest (another queue pair) coming up: it must be
 * as large as the others. Refused, the whole port stops being polled
 * (without waiting for the PMDs: the vhost thread holds the rings' locks
 * here and an enqueue may be spinning on one). */
static int
vhost_vring_state_changed(int vid, uint16_t vring, int enable)
{
	struct port *p = port_vhost_by_vid(vid);

	if (!p || !enable || p->vid != vid ||
	    port_vhost_rings_ok(p, vid, vring))
		return 0;
	__atomic_store_n(&p->ready, false, __ATOMIC_RELEASE);
	return -1;
}

static const struct rte_vhost_device_ops vhost_ops = {
	.new_device = vhost_new_device,
	.destroy_device = vhost_destroy_device,
	.new_connection = vhost_new_connection,
	.vring_state_changed = vhost_vring_state_changed,
};

/* No offloads either way: the guest must hand us complete checksums (we
 * encapsulate its packets and a partial checksum inside a tunnel would
 * reach the far VM broken), and we hand it plain frames. OVS does the same
 * unless userspace TSO is on.
 *
 * No mergeable rx buffers either: with them rte_vhost 22.11 may spread one
 * packet over up to ring-size - 1 guest buffers, each taking an entry of a
 * shadow ring as large as the guest's ring, so a guest posting tiny
 * buffers (and a jumped avail->idx) overflows it with a burst of a few
 * packets. Without, each packet takes one entry and a burst no larger than
 * the ring (VHOST_RING_MIN) stays inside it. */
static const uint64_t vhost_disabled_features =
	1ULL << VIRTIO_NET_F_MRG_RXBUF |
	1ULL << VIRTIO_NET_F_HOST_TSO4 | 1ULL << VIRTIO_NET_F_HOST_TSO6 |
	1ULL << VIRTIO_NET_F_HOST_ECN | 1ULL << VIRTIO_NET_F_HOST_UFO |
	1ULL << VIRTIO_NET_F_CSUM | 1ULL << VIRTIO_NET_F_GUEST_CSUM |
	1ULL << VIRTIO_NET_F_GUEST_TSO4 | 1ULL << VIRTIO_NET_F_GUEST_TSO6 |
	1ULL << VIRTIO_NET_F_GUEST_ECN | 1ULL << VIRTIO_NET_F_GUEST_UFO;

int
port_vhost_create(struct port *p, char *err, size_t errlen)
{
	struct stat st;
	uint64_t flags = p->vhost_server ? 0 : RTE_VHOST_USER_CLIENT;

	snprintf(p->path, sizeof p->path, "%s", p->cfg->path);
	/* A socket left by a killed run would make bind() fail. */
	if (p->vhost_server && stat(p->path, &st) == 0 && S_ISSOCK(st.st_mode))
		unlink(p->path);
	if (rte_vhost_driver_register(p->path, flags)) {
		snprintf(err, errlen, "%s: cannot register vhost-user socket %s",
			 p->name, p->path);
		return -1;
	}
	p->dev_created = true;		/* from here on, unregistered by port_stop */
	if (rte_vhost_driver_disable_features(p->path,
					      vhost_disabled_features) ||
	    rte_vhost_driver_callback_register(p->path, &vhost_ops)) {
		snprintf(err, errlen, "%s: cannot set up vhost-user %s",
			 p->name, p->path);
		return -1;
	}
	return 0;
}

int
port_vhost_start(struct port *p, char *err, size_t errlen)
{
	if (rte_vhost_driver_start(p->path)) {
		snprintf(err, errlen, "%s: cannot start vhost-user %s %s",
			 p->name, p->vhost_server ? "server" : "client",
			 p->path);
		return -1;
	}
	return 0;
}

void
port_vhost_stop(struct port *p)
{
	/* Unregistering fails with EBUSY while a connection is being set up
	 * by the vhost thread; it settles within a few milliseconds. */
	for (int i = 0; i < 100; i++) {
		if (rte_vhost_driver_unregister(p->path) == 0)
			break;
		usleep(10000);
	}
	if (p->vhost_server)
		unlink(p->path);
}
