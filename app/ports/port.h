/* SPDX-License-Identifier: BSD-3-Clause
 * Ports of the switch. The table (ports[], PORT_MAX slots) is filled from
 * the topology at start-up and changed at run time by the control thread
 * alone (add-port / del-port, port_live.c): a slot is published with an
 * atomic store, and a removed port is freed only after every PMD has let
 * go of it (it polls none of its queues, no megaflow outputs to it) and an
 * RCU grace period has passed. Readers other than the control thread (the
 * PMDs' upcalls, the rte_vhost thread) load slots with port_at() and skip
 * empty ones and ports being removed. What changes while a port lives (a
 * vhost-user guest connecting or going away) is per-port state published
 * with atomics and retired through RCU (port_vhost.c).
 *
 * Three kinds:
 *  - PORT_ETHDEV: any DPDK ethdev (the NIC, or a tap/af_packet/pcap port);
 *  - PORT_VHOST:  a vhost-user socket driven through the rte_vhost library,
 *                 not net_vhost, so the number of VMs is not bounded by
 *                 RTE_MAX_ETHPORTS (32 on Debian);
 *  - PORT_VXLAN:  the overlay's tunnel port; has no queues of its own:
 *                 output to it is encap + output to the underlay port.
 *
 * And one for benchmarks only, like OVS's dummy ports:
 *  - PORT_NULL:   "type: null" in the topology; receives nothing, and
 *                 transmit frees the packets and counts them as sent. It
 *                 stands in for the NIC and the VMs in perf/dpbench so that
 *                 output costs only an mbuf free. It can be the underlay
 *                 (then set underlay.mac: it has no MAC of its own).
 */
#ifndef VXS_PORT_H
#define VXS_PORT_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>
#include <rte_spinlock.h>
#include "config.h"

#define PORT_MAX_QUEUES 16
/* Ports in the table, all kinds: rte_vhost's own limit on sockets
 * (MAX_VHOST_SOCKET) is 1024. add-port past it is refused. */
#define PORT_MAX 1024
/* Threads that send: every PMD and the control thread. */
#define PORT_MAX_SENDERS (CFG_MAX_CORES + 1)
#define PORT_TX_QID_MASK 0xffffu
#define PORT_TX_LOCKED (1u << 16)
/* RTE_ETH_NAME_MAX_LEN: a capture ethdev's name */
#define PORT_CAPTURE_NAME_MAX 64

enum port_kind { PORT_ETHDEV, PORT_VHOST, PORT_VXLAN, PORT_NULL };

struct port {
	char name[CFG_NAME_MAX];
	enum port_kind kind;
	uint16_t idx;			/* datapath index: ports[idx] */
	uint32_t ofport;		/* OpenFlow port number */
	bool is_underlay;		/* the NIC carrying our VTEP */
	const struct cfg_port *cfg;	/* &cfg_own */
	struct cfg_port cfg_own;	/* as configured (topology or add-port) */
	/* del-port has begun: no longer found by name or number, so no new
	 * megaflow sends to it; set by the control thread only */
	bool removing;
	uint64_t added_ms;		/* when it joined (vxs_now_ms) */
	bool dev_created;		/* its device exists: close it */
	bool stopped;			/* port_stop() done */
	bool dev_started;		/* ethdev: started (its queues exist) */
	/* its rx burst may wait (port_pcap_rx_may_block): a PMD sends what
	 * it buffered before polling it (pmd.c) */
	bool rx_may_block;
	bool hotplugged;		/* we probed it: remove it with the port */

	uint16_t n_rxq;
	uint16_t n_txq;
	uint16_t rxd, txd;

	/* ethdev */
	uint16_t eth_port_id;
	struct rte_ether_addr mac;
	uint16_t ctl_txq;		/* tx queue reserved for the control thread */
	/* mbufs the driver took from the pool for its rings (set-up and
	 * start), and of those, how many it had not given back once closed
	 * (net_af_xdp keeps its fill ring's): see ports_mbufs_kept(). */
	uint32_t mbufs_taken, mbufs_kept;
	/* offload: rte_flow: rte_eth_rx_metadata_negotiate(USER_MARK) before
	 * configure (port_ethdev.c); its result, for offload_init() */
	bool rx_meta_asked;
	/* The outer UDP checksum over an IPv6 underlay in the NIC
	 * (RTE_ETH_TX_OFFLOAD_UDP_CKSUM): asked for on the underlay port
	 * when the VTEP has an IPv6 address (a TX checksum offload may cost
	 * a PMD its vector TX path, so never for nothing), and granted when
	 * the device offers it (port_ethdev.c). The encap stage then leaves
	 * the sum to the NIC (vxlan_encap.c, dp opt tx-csum-offload). */
	bool tx_udp_csum_wanted, tx_udp_csum;
	int rx_meta_rc;			/* 0 or -errno (-ENOTSUP: ice) */
	uint64_t rx_meta_features;	/* what the driver agreed to */

	/* vhost: vid and ready are written by the vhost-events thread */
	char path[CFG_PATH_MAX];
	bool vhost_server;
	int vid;			/* -1 when no guest */
	bool ready;			/* guest up: PMDs may poll/enqueue */
	/* The guest negotiated VIRTIO_F_RING_PACKED (new_device, before
	 * ready): rte_vhost 22.11's packed dequeue allocates and frees the
	 * whole ask on every poll, so PMDs ask it for less (vhost-rx-ask),
	 * and its enqueue batches by 4 (vhost-tx-align4). */
	bool vhost_packed;
	/* rx-prefetch: the avail ring of guest tx ring q (split rings; NULL
	 * when packed or unknown), read by PMDs only to prefetch its index
	 * line before they dequeue: a stale address after a new memory table
	 * is harmless, a prefetch never faults. */
	const void *vhost_avail[PORT_MAX_QUEUES];
	/* The guest's vrings that are enabled, bit VHOST_QUEUE_RX/TX(q)
	 * (vring_state_changed, vhost-events thread): a PMD polls guest
	 * tx ring q only while its bit is set, so a guest that enabled
	 * fewer queue pairs than n_rxq is not polled where it has none. */
	uint32_t vring_enabled;
	/* Capture (port_capture.c): dpdk-dumpcap sees ethdevs only, so a
	 * vhost port gets a stand-in ethdev (net_null, never polled) named
	 * capture_name; while a capture runs on it, its rx/tx callbacks are
	 * called on this port's bursts. capture_rx/tx: the stand-in's
	 * callback list heads per queue, as rte_eth_fp_ops has them (NULL
	 * while nobody captures), or an array of NULLs when it has none. */
	void *const *capture_rx;
	void *const *capture_tx;
	uint16_t capture_port_id;
	bool capture_created;
	char capture_name[PORT_CAPTURE_NAME_MAX];
	/* Queue pairs the guest has enabled, counted from 0 (as virtio-net
	 * enables them): the guest rx rings we may send on. */
	uint16_t guest_queues;
	/* guest_queues changed and the tx routes do not follow yet:
	 * ports_tick() (control thread) recomputes them. */
	bool tx_routes_stale;
	uint64_t n_connects;		/* how many times a guest came up */
	/* guest messages refused (port_vhost_guard.c), each one closing
	 * the connection: a memory table past the end of its file, a ring
	 * smaller than VHOST_RING_MIN */
	uint64_t vhost_refused_mem;
	uint64_t vhost_refused_ring;

	/* Transmit (port_tx.c). Each sender (PMD index; n_pmds, the last,
	 * for the control thread) has a route: its tx queue, with
	 * PORT_TX_LOCKED when another sender may use the same queue (more
	 * senders than queues: a pcap port with one tx_pcap, a guest with
	 * fewer rx queues than PMDs), as OVS's XPS. A sender reads its
	 * route once per burst, so the lock it takes is the lock it
	 * releases; with a queue per sender no lock is ever taken. */
	uint16_t n_senders;
	uint16_t ctl_sender;		/* the control thread's sender index */
	bool tx_lock_forced;		/* dpbench --tx-lock: every route locked */
	uint32_t tx_route[PORT_MAX_SENDERS];
	/* a step of port_tx_set_queues stored whose grace period has not
	 * been seen to end: the token it waits for */
	bool tx_grace_pending;
	uint64_t tx_grace_token;
	rte_spinlock_t tx_lock[PORT_MAX_QUEUES];

	/* The longest frame sent (tx) or taken from the port (rx): its MTU
	 * plus the Ethernet header, 4 more with a VLAN tag (dp_frame_fits);
	 * UINT32_MAX: no limit. tx: an ethdev's MTU as DPDK reports it (the
	 * topology's mtu:, else the driver's), a vhost port's mtu:. rx: a
	 * vhost port's mtu: only (a NIC enforces its own). Longer frames
	 * are dropped as mtu_exceeded (drop_reason.h). */
	uint32_t tx_max_frame, rx_max_frame;
};

/* ports[0..n_ports-1] may hold NULL (a removed port's slot, reused by
 * the next add-port): n_ports is one past the highest slot in use. */
extern struct port **ports;
extern uint16_t n_ports;

static inline struct port *
port_at(uint16_t i)
{
	return __atomic_load_n(&ports[i], __ATOMIC_ACQUIRE);
}

/* A slot's port name for reports; "?" once the slot is empty. */
static inline const char *
port_name_at(uint16_t i)
{
	struct port *p = i < n_ports ? port_at(i) : NULL;
	return p ? p->name : "?";
}

/* The ports in use, for the control thread and reports. */
#define PORTS_FOREACH(p)                                                    \
	for (uint16_t p##_i = 0; p##_i < n_ports; p##_i++)                  \
		if (((p) = port_at(p##_i)) != NULL)

/* For threads other than the control thread and the PMDs (telemetry):
 * while held, no port is freed. */
void ports_reader_lock(void);
void ports_reader_unlock(void);

/* The live port table's mutations, control thread only (port_live.c).
 * ports_add: creates and starts the port (probing its device, or
 * registering its vhost-user socket) in the lowest free slot; NULL and
 * err on failure, the table unchanged. The caller then gives its queues
 * to PMDs and publishes (pmd_reconf.c). */
struct port *ports_add(const struct cfg_port *c, uint16_t n_pmds,
		       char *err, size_t errlen);
/* Makes a port ports_add() created findable by name and number, once its
 * queues are polled. */
void ports_publish(struct port *p);
/* del-port, first half: the port can no longer be found by name or
 * number. The caller then republishes and makes every PMD let go. */
void ports_remove_begin(struct port *p);
/* Second half: stops its device, empties its slot, waits for an RCU
 * grace period and frees it. */
void ports_remove_end(struct port *p, struct rte_rcu_qsbr *qsbr);
/* OpenFlow numbers by name, kept after a port goes (port_live.c): the
 * number of a live or remembered name, else 0; reserve: set one aside for
 * an unknown name (a flow naming a port to come). */
uint32_t ports_ofport_for_name(const char *name, bool reserve);
void ports_remember_name(const char *name, uint32_t ofport);
/* The name remembered for a number (no live port has it), or NULL. */
const char *ports_name_of_ofport(uint32_t ofport);
uint32_t ports_names_known(void);
void ports_name_at(uint32_t i, const char **name, uint32_t *ofport);
/* At start, once the ports exist: the topology's ofport-names. */
void ports_remember_config_names(const struct vxs_config *cfg);
extern uint64_t port_names_refused;
extern uint64_t ports_refused;		/* add-port: table full */
#define PORT_NAMES_MAX 4096
/* Senders (PMDs + the control thread) have changed: which tx queue each
 * uses and whether queues are shared (set-pmd-cores, PMDs stopped). */
void ports_set_senders(uint16_t n_pmds);
uint32_t ports_in_use(void);
/* The lowest OpenFlow number free for a new port (OVS: not the most
 * recently freed ones first, so old flows do not catch a new port). */
uint32_t ports_next_ofport(void);
/* The number ports_next_ofport() just gave was not used after all (the
 * port could not be made): the next port gets it, as in OVS, where a
 * port that fails is given no number. */
void ports_ofport_unused(uint32_t ofport);

int ports_create(const struct vxs_config *cfg, struct rte_mempool *pool,
		 uint16_t n_pmds, char *err, size_t errlen);
int ports_start(char *err, size_t errlen);
void ports_stop(void);
/* After ports_stop(): the mbufs that closed drivers still hold (never to
 * come back to the pool, not lost by the datapath). Prints each such port
 * on 'f' if not NULL. */
uint32_t ports_mbufs_kept(FILE *f);
void ports_destroy(void);

struct port *port_by_name(const char *name);
struct port *port_by_ofport(uint32_t ofport);
struct port *port_underlay(void);
/* The tunnel port (the topology's or add-port's; one at most), NULL when
 * there is none or while add-port or del-port is making or removing it.
 * Control thread only: PMDs read the snapshot's copy (has_tunnel). */
struct port *port_vxlan(void);

const char *port_kind_name(const struct port *p);
const char *port_state_name(const struct port *p);

/* ethdev */
int port_ethdev_create(struct port *p, struct rte_mempool *pool,
		       uint16_t n_txq, char *err, size_t errlen);
/* net_pcap devargs the driver would leak mbufs on (port_pcap.c): -1 and
 * err; max_frame: the data room of one mbuf. */
int port_pcap_check_devargs(const char *devargs, uint32_t max_frame,
			    char *err, size_t errlen);
/* net_pcap reading a FIFO or a device: its rx burst waits for data */
bool port_pcap_rx_may_block(const char *devargs);
int port_ethdev_start(struct port *p, char *err, size_t errlen);
/* Takes back what the driver still holds of the mbufs sent (before
 * port_ethdev_stop, once no PMD sends on the port): how many came back. */
uint32_t port_ethdev_tx_drain(struct port *p);
void port_ethdev_stop(struct port *p);

/* vhost */
int port_vhost_create(struct port *p, char *err, size_t errlen);
int port_vhost_start(struct port *p, char *err, size_t errlen);
void port_vhost_stop(struct port *p);

/* Capture (port_capture.c). ports_capture_init: rte_pdump_init, after the
 * EAL, before the ports (ports_create); ports_capture_fini: its undo
 * (ports_destroy). port_capture_create: a vhost port's capture ethdev,
 * when the EAL has ethdev ids to spare (PORT_CAPTURE_ETHDEV_RESERVE stay
 * free for NICs added later); none is no error (capture_name stays "").
 * port_capture_destroy: once no PMD polls the port. */
#define PORT_CAPTURE_ETHDEV_RESERVE 4
int ports_capture_init(char *err, size_t errlen);
void ports_capture_fini(void);
void port_capture_none(struct port *p);
void port_capture_create(struct port *p);
void port_capture_destroy(struct port *p);
/* What an operator types after dpdk-dumpcap -i to capture port p: the
 * ethdev's name (the NIC's, or a vhost port's capture ethdev), or "" */
const char *port_capture_name(const struct port *p);
void port_vhost_set_rcu(struct rte_rcu_qsbr *qsbr);
struct port *port_vhost_by_vid(int vid);

/* Transmit routes (port_tx.c). port_tx_init: before the PMDs run, for
 * n_senders senders over n_txq queues. port_tx_set_queues: the queue count
 * changed while PMDs may be sending: the routes move in steps separated
 * by RCU grace periods (qsbr: the PMDs'; NULL when none runs), so no two
 * senders are ever on one queue without both taking its lock. Control
 * thread only: it waits at most PORT_TX_GRACE_WAIT_US for a grace period
 * and returns false when one had not ended (a PMD stuck in a driver call):
 * the routes are then in a safe intermediate step, and a later call goes
 * on from there. port_tx_force_lock: every route locked (dpbench measures
 * the lock's cost). port_tx_shared: some route is locked. */
#define PORT_TX_GRACE_WAIT_US 20000
void port_tx_init(struct port *p, uint16_t n_txq, uint16_t n_senders);
bool port_tx_set_queues(struct port *p, uint16_t n_txq,
			struct rte_rcu_qsbr *qsbr);
void port_tx_force_lock(struct port *p, bool on);
bool port_tx_shared(const struct port *p);
/* Control thread, every loop: applies guest queue changes to the tx
 * routes of vhost ports (the vhost thread cannot wait for the PMDs). */
void ports_tick(void);

/* Guest guards (port_vhost_guard.c). Rings smaller than this are refused,
 * so that no burst (at most BATCH_MAX, as rte_vhost's own MAX_PKT_BURST)
 * is ever larger than a guest's ring. */
#define VHOST_RING_MIN 32
/* A vhost-user message must arrive whole within this (ms; 0 = wait
 * forever): rte_vhost reads every guest's messages in one thread. */
#define VHOST_MSG_TIMEOUT_MS_DEFAULT 1000
extern unsigned int port_vhost_msg_timeout_ms;
int port_vhost_guard_connection(struct port *p, int vid);
bool port_vhost_rings_ok(struct port *p, int vid, int only_vring);

/* Which I/O stages a port's bursts are charged to (dp_stats.h: rx_vhost,
 * tx_vhost, the _vhost counters): vhost for vhost-user ports and for
 * dpbench's null VM ports (not the underlay), NIC for the rest (ethdev:
 * the NIC, tap, af_packet, pcap). */
static inline bool
port_io_vhost(const struct port *p)
{
	return p->kind == PORT_VHOST ||
	       (p->kind == PORT_NULL && !p->is_underlay);
}

/* The per-packet I/O, inline so the PMD loop has no indirect calls.
 * Transmit consumes every packet: sent or freed. Returns the number sent. */
#include <rte_ethdev.h>
#include <rte_vhost.h>

/* The route of a sender (PMD index, or n_pmds for the control thread) on
 * port p: tx queue | PORT_TX_LOCKED. */
static inline uint32_t
port_tx_route(const struct port *p, uint16_t sender)
{
	return __atomic_load_n(&p->tx_route[sender], __ATOMIC_ACQUIRE);
}

static inline uint16_t
port_txq_for(const struct port *p, uint16_t sender)
{
	return port_tx_route(p, sender) & PORT_TX_QID_MASK;
}

#define VHOST_QUEUE_RX(q) ((q) * 2 + 0)	/* guest rx ring: we enqueue */
#define VHOST_QUEUE_TX(q) ((q) * 2 + 1)	/* guest tx ring: we dequeue */

static inline bool
port_vhost_ready(const struct port *p)
{
	return __atomic_load_n(&p->ready, __ATOMIC_ACQUIRE);
}

static inline bool
port_vhost_vring_on(const struct port *p, uint16_t vring)
{
	return vring < 32 &&
	       (__atomic_load_n(&p->vring_enabled, __ATOMIC_RELAXED) >> vring & 1);
}

/* rx queue qid of p has a ring to poll (a vhost guest may have fewer). */
static inline bool
port_rxq_enabled(const struct port *p, uint16_t qid)
{
	return p->kind != PORT_VHOST ||
	       (port_vhost_ready(p) && port_vhost_vring_on(p, VHOST_QUEUE_TX(qid)));
}

/* p is a vhost port whose guest uses packed rings (read after ready). */
static inline bool
port_vhost_packed(const struct port *p)
{
	return p->kind == PORT_VHOST && p->vhost_packed;
}

/* rx-prefetch: start loading the line of rx queue qid's ring that its
 * next dequeue reads first (the guest writes it from another core) */
static inline void
port_rx_prefetch(const struct port *p, uint16_t qid)
{
	if (p->kind != PORT_VHOST)
		return;
	const void *avail = __atomic_load_n(&p->vhost_avail[qid],
					    __ATOMIC_RELAXED);
	if (avail)
		rte_prefetch0(avail);
}

static inline uint16_t
port_rx_burst(struct port *p, uint16_t qid, struct rte_mempool *pool,
	      struct rte_mbuf **pkts, uint16_t n)
{
	if (p->kind == PORT_ETHDEV)
		return rte_eth_rx_burst(p->eth_port_id, qid, pkts, n);
	if (p->kind != PORT_VHOST || !port_vhost_ready(p) ||
	    !port_vhost_vring_on(p, VHOST_QUEUE_TX(qid)))
		return 0;
	/* never more than the smallest ring a guest may have */
	uint16_t got = rte_vhost_dequeue_burst(p->vid, VHOST_QUEUE_TX(qid),
					       pool, pkts,
					       RTE_MIN(n, VHOST_RING_MIN));
	/* dpdk-dumpcap on the port's capture ethdev: what rte_eth_rx_burst
	 * would do after its driver's burst (the list head is published
	 * with release ordering and read relaxed, as there). */
	void *cb = __atomic_load_n((void **)&p->capture_rx[qid],
				   __ATOMIC_RELAXED);
	if (unlikely(cb != NULL) && got)
		got = rte_eth_call_rx_callbacks(p->capture_port_id, qid, pkts,
						got, n, cb);
	return got;
}

/* Sends as sender 'sender' (see port_tx_route). */
static inline uint16_t
port_tx_burst(struct port *p, uint16_t sender, struct rte_mbuf **pkts,
	      uint16_t n)
{
	uint32_t route = port_tx_route(p, sender);
	uint16_t qid = route & PORT_TX_QID_MASK;
	uint16_t sent = 0;

	if (unlikely(route & PORT_TX_LOCKED))
		rte_spinlock_lock(&p->tx_lock[qid]);
	if (unlikely(p->kind == PORT_NULL)) {
		rte_pktmbuf_free_bulk(pkts, n);
		sent = n;
	} else if (p->kind == PORT_ETHDEV) {
		/* A NIC ring that is momentarily full usually drains within a
		 * couple of retries; give up when no progress is made. */
		for (int tries = 0; sent < n && tries < 4; tries++) {
			uint16_t k = rte_eth_tx_burst(p->eth_port_id, qid,
						      pkts + sent, n - sent);
			if (!k)
				break;
			sent += k;
		}
		if (sent < n)
			rte_pktmbuf_free_bulk(pkts + sent, n - sent);
	} else {
		/* dpdk-dumpcap on the capture ethdev: what rte_eth_tx_burst
		 * does before its driver's burst (a callback that keeps
		 * packets back frees them itself; pdump passes all on). */
		void *cb = __atomic_load_n((void **)&p->capture_tx[qid],
					   __ATOMIC_RELAXED);
		if (unlikely(cb != NULL))
			n = rte_eth_call_tx_callbacks(p->capture_port_id, qid,
						      pkts, n, cb);
		/* In bursts no larger than the smallest ring a guest may
		 * have; a short one means the ring is full. */
		while (sent < n && port_vhost_ready(p)) {
			uint16_t k = RTE_MIN(n - sent, VHOST_RING_MIN);
			uint16_t done = rte_vhost_enqueue_burst(
				p->vid, VHOST_QUEUE_RX(qid), pkts + sent, k);
			sent += done;
			if (done < k)
				break;
		}
		/* rte_vhost copies into guest memory: we free all either
		 * way. */
		rte_pktmbuf_free_bulk(pkts, n);
	}
	if (unlikely(route & PORT_TX_LOCKED))
		rte_spinlock_unlock(&p->tx_lock[qid]);
	return sent;
}

#endif
