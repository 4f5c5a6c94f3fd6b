/* SPDX-License-Identifier: BSD-3-Clause
 * vhost-user ports through the rte_vhost library, as OVS drives them.
 *
 * Guests come and go at any time: rte_vhost tells us from its own thread
 * (new_device / destroy_device). A PMD only touches a guest's rings while
 * port->ready is set; destroy_device clears it and then waits for every PMD
 * to pass a quiescent state (rte_rcu_qsbr) before the vid is given back, so
 * no PMD is inside rte_vhost_{en,de}queue_burst on a dead device and the
 * PMD itself never takes a lock to find out.
 *
 * Multi-queue guests: a guest enables queue pairs one by one, before and
 * after it is up (vring_state_changed). The PMDs poll guest tx ring q (rx
 * queue q of the port, q < n-rxq) only while it is enabled; the PMDs send
 * on the guest's enabled rx rings, one each when there are enough (no
 * lock), shared under the lock when fewer (port_tx.c). The vhost thread
 * only records the change: it may hold the rings' locks while it tells us
 * (a PMD may be spinning on one), so it cannot wait for the PMDs; the
 * control thread moves the tx routes (ports_tick).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <linux/virtio_config.h>
#include <rte_log.h>
#include <rte_vhost.h>
#include "port_priv.h"
#include "vlog.h"

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

/* The queue pairs counted from 0 whose guest rx ring is enabled. */
static uint16_t
guest_queues_of(uint32_t vrings)
{
	uint16_t n = 0;

	while (n < PORT_MAX_QUEUES && (vrings >> VHOST_QUEUE_RX(n) & 1))
		n++;
	return n;
}

static void
vrings_publish(struct port *p, uint32_t vrings)
{
	__atomic_store_n(&p->vring_enabled, vrings, __ATOMIC_RELEASE);
	uint16_t n = guest_queues_of(vrings);
	if (n != __atomic_load_n(&p->guest_queues, __ATOMIC_RELAXED)) {
		__atomic_store_n(&p->guest_queues, n, __ATOMIC_RELAXED);
		__atomic_store_n(&p->tx_routes_stale, true, __ATOMIC_RELEASE);
	}
}

/* rx-prefetch: where guest tx ring q's avail ring is (split rings) */
static void
vhost_avail_learn(struct port *p, int vid, uint16_t q)
{
	struct rte_vhost_vring vr;
	const void *avail = NULL;

	if (q >= PORT_MAX_QUEUES)
		return;
	if (!p->vhost_packed &&
	    !rte_vhost_get_vhost_vring(vid, VHOST_QUEUE_TX(q), &vr))
		avail = vr.avail;
	__atomic_store_n(&p->vhost_avail[q], avail, __ATOMIC_RELAXED);
}

static int
vhost_new_device(int vid)
{
	struct port *p = port_vhost_by_vid(vid);

	if (!p || !port_vhost_rings_ok(p, vid, -1))
		return -1;
	/* Ready means pair 0 is (rte_vhost's virtio_is_ready), whether or
	 * not it told us through vring_state_changed. */
	uint32_t vrings = __atomic_load_n(&p->vring_enabled, __ATOMIC_RELAXED);
	vrings_publish(p, vrings | 1u << VHOST_QUEUE_RX(0) |
				  1u << VHOST_QUEUE_TX(0));
	/* We poll: the guest need not kick us, and we need not be kicked. */
	for (uint16_t q = 0; q < rte_vhost_get_vring_num(vid); q++)
		rte_vhost_enable_guest_notification(vid, q, 0);
	uint64_t features = 0;
	p->vhost_packed = rte_vhost_get_negotiated_features(vid, &features) == 0
			  && (features & 1ull << VIRTIO_F_RING_PACKED);
	for (uint16_t q = 0; q < PORT_MAX_QUEUES; q++)
		vhost_avail_learn(p, vid, q);
	p->vid = vid;
	__atomic_fetch_add(&p->n_connects, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&p->ready, true, __ATOMIC_RELEASE);
	VLOG_INFO(ports, "vhost port %s: guest up (vid %d, %u queue "
		"pairs, %s rings)\n", p->name, vid, p->guest_queues,
		p->vhost_packed ? "packed" : "split");
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
		for (uint16_t q = 0; q < PORT_MAX_QUEUES; q++)
			__atomic_store_n(&p->vhost_avail[q], NULL,
					 __ATOMIC_RELAXED);
		VLOG_INFO(ports, "vhost port %s: guest down\n", p->name);
	}
}

/* Before the guest's first message: hook its messages and bound how long
 * one may take to arrive (port_vhost_guard.c). */
static int
vhost_new_connection(int vid)
{
	struct port *p = port_vhost_by_vid(vid);

	if (!p)
		return -1;
	vrings_publish(p, 0);	/* a new guest: it enables its own */
	return port_vhost_guard_connection(p, vid);
}

/* A vring enabled or disabled (a queue pair of the guest coming up or
 * going, before or after new_device). One coming up must be as large as
 * the others; refused, the whole port stops being polled (without waiting
 * for the PMDs: the vhost thread holds the rings' locks here and an
 * enqueue may be spinning on one). */
static int
vhost_vring_state_changed(int vid, uint16_t vring, int enable)
{
	struct port *p = port_vhost_by_vid(vid);

	if (!p)
		return 0;
	if (enable && p->vid == vid && !port_vhost_rings_ok(p, vid, vring)) {
		__atomic_store_n(&p->ready, false, __ATOMIC_RELEASE);
		return -1;
	}
	if (vring >= 32)	/* past PORT_MAX_QUEUES pairs: never used */
		return 0;
	uint32_t vrings = __atomic_load_n(&p->vring_enabled, __ATOMIC_RELAXED);
	vrings = enable ? vrings | 1u << vring : vrings & ~(1u << vring);
	vrings_publish(p, vrings);
	if (enable && p->vid == vid && vring % 2)
		vhost_avail_learn(p, vid, vring / 2);
	VLOG_INFO(ports, "vhost port %s: vring %u %s: %u queue pairs\n",
		p->name, vring, enable ? "enabled" : "disabled",
		p->guest_queues);
	return 0;
}

void
ports_tick(void)
{
	for (uint16_t i = 0; i < n_ports; i++) {
		struct port *p = ports[i];
		if (!p || p->kind != PORT_VHOST ||
		    !__atomic_exchange_n(&p->tx_routes_stale, false,
					 __ATOMIC_ACQ_REL))
			continue;
		/* not done (a PMD not answering): again next tick */
		if (!port_tx_set_queues(p, __atomic_load_n(&p->guest_queues,
							   __ATOMIC_RELAXED),
					vhost_qsbr))
			__atomic_store_n(&p->tx_routes_stale, true,
					 __ATOMIC_RELEASE);
	}
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

/* Whether a vhost-user server socket may be made at path: nothing is
 * there, or a socket nobody listens on (one a killed run left: unlinked
 * here). Anything else (a socket in use, e.g. ovsdb-server's db.sock that
 * a port name from the database names; a file; a directory) is left to
 * its owner, as OVS leaves it: the port is refused before port_stop()
 * could unlink it. */
static bool
path_free(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	struct stat st;
	int fd, rc;

	if (lstat(path, &st))
		return errno == ENOENT;
	if (!S_ISSOCK(st.st_mode) || strlen(path) >= sizeof sa.sun_path)
		return false;
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return false;
	rc = connect(fd, (struct sockaddr *)&sa, sizeof sa);
	rc = rc && errno == ECONNREFUSED;
	close(fd);
	return rc && unlink(path) == 0;
}

int
port_vhost_create(struct port *p, char *err, size_t errlen)
{
	uint64_t flags = p->vhost_server ? 0 : RTE_VHOST_USER_CLIENT;

	if (p->n_rxq > PORT_MAX_QUEUES) {
		snprintf(err, errlen, "%s: n-rxq %u: a vhost port has at most "
			 "%u queue pairs", p->name, p->n_rxq, PORT_MAX_QUEUES);
		return -1;
	}
	snprintf(p->path, sizeof p->path, "%s", p->cfg->path);
	if (p->vhost_server && !path_free(p->path)) {
		snprintf(err, errlen, "%s: %s is in use (not a socket left by "
			 "an earlier run)", p->name, p->path);
		return -1;
	}
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
