/* SPDX-License-Identifier: BSD-3-Clause
 * An ethdev port: the NIC (E810 in production) or any vdev used in its
 * place (net_pcap, net_af_packet, net_tap, net_af_xdp, virtio-user). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include "port.h"
#include "port_priv.h"
#include "vlog.h"

/* "0000:18:00.0" or "18:00.0": EAL already probed it (unless --no-pci). */
static bool
devargs_is_pci(const char *devargs)
{
	unsigned d, b, s, f;
	char tail;
	return sscanf(devargs, "%x:%x:%x.%x%c", &d, &b, &s, &f, &tail) == 4 ||
	       sscanf(devargs, "%x:%x.%x%c", &b, &s, &f, &tail) == 3;
}

static int
find_or_probe(const char *devargs, uint16_t *port_id, bool *hotplugged,
	      char *err, size_t errlen)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	size_t n = strcspn(devargs, ",");

	if (n >= sizeof name) {
		snprintf(err, errlen, "device name too long in '%s'", devargs);
		return -1;
	}
	memcpy(name, devargs, n);
	name[n] = '\0';
	if (rte_eth_dev_get_port_by_name(name, port_id) == 0)
		return 0;
	int rc = rte_dev_probe(devargs);
	*hotplugged = rc == 0;
	if (rc) {
		snprintf(err, errlen, "cannot probe device '%s': %s%s", devargs,
			 strerror(-rc),
			 devargs_is_pci(devargs) ?
				 " (is it bound to vfio-pci, and no-pci off?)" :
				 "");
		return -1;
	}
	if (rte_eth_dev_get_port_by_name(name, port_id) == 0)
		return 0;
	snprintf(err, errlen, "device '%s' probed but no ethdev named '%s'",
		 devargs, name);
	return -1;
}

/* A NIC rule's MARK reaches the mbuf only if the driver delivers it: some
 * PMDs must be told before rte_eth_dev_configure() (the call is refused
 * once the port is configured). ice has no such op and always delivers
 * the FDIR flow id (ENOTSUP, fine). The result is judged by
 * offload_init(): another error, or USER_MARK refused, turns offload off
 * for the port. */
static void
port_ethdev_negotiate_mark(struct port *p, uint16_t id)
{
	if (p->cfg->offload != CFG_OFFLOAD_RTE_FLOW || p->rx_meta_asked)
		return;
	p->rx_meta_features = RTE_ETH_RX_METADATA_USER_MARK;
	p->rx_meta_rc = rte_eth_rx_metadata_negotiate(id,
						      &p->rx_meta_features);
	p->rx_meta_asked = true;
	if (p->rx_meta_rc == -ENOTSUP)
		VLOG_DBG(ports, "%s: rx metadata negotiation not supported "
			 "by the driver (marks delivered as is)", p->name);
	else if (p->rx_meta_rc)
		VLOG_WARN(ports, "%s: rx metadata negotiation (USER_MARK) "
			  "failed: %s", p->name, strerror(-p->rx_meta_rc));
	else if (!(p->rx_meta_features & RTE_ETH_RX_METADATA_USER_MARK))
		VLOG_WARN(ports, "%s: the driver will not deliver USER_MARK",
			  p->name);
}

int
port_ethdev_create(struct port *p, struct rte_mempool *pool, uint16_t n_txq,
		   char *err, size_t errlen)
{
	struct rte_eth_dev_info info;
	struct rte_eth_conf conf = { 0 };
	uint16_t id;
	int rc;

	uint32_t max_frame = rte_pktmbuf_data_room_size(pool) -
			     RTE_PKTMBUF_HEADROOM;
	if (port_pcap_check_devargs(p->cfg->devargs, max_frame, err, errlen) ||
	    find_or_probe(p->cfg->devargs, &id, &p->hotplugged, err, errlen))
		return -1;
	p->eth_port_id = id;
	p->dev_created = true;		/* from here on, closed by port_stop */
	p->rx_may_block = port_pcap_rx_may_block(p->cfg->devargs);
	rc = rte_eth_dev_info_get(id, &info);
	if (rc) {
		snprintf(err, errlen, "%s: dev_info: %s", p->name,
			 strerror(-rc));
		return -1;
	}
	if (p->n_rxq > info.max_rx_queues) {
		snprintf(err, errlen, "%s: n-rxq %u > device maximum %u",
			 p->name, p->n_rxq, info.max_rx_queues);
		return -1;
	}
	/* n_txq: one per sender (the PMDs, the control thread) */
	port_tx_init(p, RTE_MIN(n_txq, info.max_tx_queues), n_txq);

	if (p->n_rxq > 1) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf =
			(RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP) &
			info.flow_type_rss_offloads;
	}
	if (p->tx_udp_csum_wanted &&
	    (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_UDP_CKSUM)) {
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_UDP_CKSUM;
		p->tx_udp_csum = true;
		VLOG_INFO(ports, "%s: outer UDP checksums over IPv6 by the "
			  "NIC (tx udp_cksum offload)", p->name);
	}
	port_ethdev_negotiate_mark(p, id);
	rc = rte_eth_dev_configure(id, p->n_rxq, p->n_txq, &conf);
	if (rc && p->n_txq != p->n_rxq && p->n_rxq <= info.max_tx_queues &&
	    p->n_rxq <= PORT_MAX_QUEUES) {
		/* Some PMDs take queues in pairs only (net_tap: one fd per
		 * rx/tx pair, and it refuses unequal counts): then as many tx
		 * queues as rx queues, shared by the senders if fewer. */
		VLOG_INFO(ports, "%s: retrying with %u tx queues (as many as "
		       "rx queues)\n", p->name, p->n_rxq);
		port_tx_init(p, p->n_rxq, n_txq);
		rc = rte_eth_dev_configure(id, p->n_rxq, p->n_txq, &conf);
	}
	if (rc) {
		snprintf(err, errlen, "%s: configure %u rxq %u txq: %s",
			 p->name, p->n_rxq, p->n_txq, strerror(-rc));
		return -1;
	}
	rte_eth_dev_adjust_nb_rx_tx_desc(id, &p->rxd, &p->txd);
	int socket = rte_eth_dev_socket_id(id);
	for (uint16_t q = 0; q < p->n_rxq; q++) {
		rc = rte_eth_rx_queue_setup(id, q, p->rxd, socket, NULL, pool);
		if (rc) {
			snprintf(err, errlen, "%s: rx queue %u: %s", p->name, q,
				 strerror(-rc));
			return -1;
		}
	}
	for (uint16_t q = 0; q < p->n_txq; q++) {
		rc = rte_eth_tx_queue_setup(id, q, p->txd, socket, NULL);
		if (rc) {
			snprintf(err, errlen, "%s: tx queue %u: %s", p->name, q,
				 strerror(-rc));
			return -1;
		}
	}
	if (p->cfg->mtu) {
		rc = rte_eth_dev_set_mtu(id, p->cfg->mtu);
		if (rc) {
			snprintf(err, errlen, "%s: mtu %u: %s", p->name,
				 p->cfg->mtu, strerror(-rc));
			return -1;
		}
	}
	uint16_t mtu;
	if (rte_eth_dev_get_mtu(id, &mtu) == 0 && mtu)
		p->tx_max_frame = mtu + RTE_ETHER_HDR_LEN;
	rte_eth_macaddr_get(id, &p->mac);
	return 0;
}

int
port_ethdev_start(struct port *p, char *err, size_t errlen)
{
	int rc = rte_eth_dev_start(p->eth_port_id);
	if (rc) {
		snprintf(err, errlen, "%s: start: %s", p->name, strerror(-rc));
		return -1;
	}
	/* Tunnel traffic is addressed to the VTEP MAC, which the topology
	 * may set apart from the NIC's own; overlay ethdevs switch any MAC. */
	rte_eth_promiscuous_enable(p->eth_port_id);
	p->dev_started = true;
	return 0;
}

/* A sent mbuf may stay with the driver after its tx burst returned:
 * net_af_xdp (copy or zero-copy) keeps each one until it reads the
 * socket's completion ring, which only its next tx burst does and its
 * close never does (DPDK 22.11), so after the last burst the last frames
 * were lost to the pool at every stop. The driver's tx_done_cleanup where
 * it has one, else an empty tx burst (for net_af_xdp: a completion ring
 * pull and a kick), until nothing more comes back for a few rounds. */
#define TX_DRAIN_QUIET_ROUNDS 3
#define TX_DRAIN_MAX_ROUNDS 50		/* 1 ms apart */

uint32_t
port_ethdev_tx_drain(struct port *p)
{
	const struct timespec tick = { 0, 1000000 };
	struct rte_mbuf *none[1];
	uint32_t start = pool_in_use(), last = start;

	if (!p->dev_started)
		return 0;
	for (int round = 0, quiet = 0; round < TX_DRAIN_MAX_ROUNDS &&
	     quiet < TX_DRAIN_QUIET_ROUNDS; round++) {
		for (uint16_t q = 0; q < p->n_txq; q++)
			if (rte_eth_tx_done_cleanup(p->eth_port_id, q, 0) < 0)
				rte_eth_tx_burst(p->eth_port_id, q, none, 0);
		uint32_t now = pool_in_use();
		quiet = now < last ? 0 : quiet + 1;
		last = now;
		nanosleep(&tick, NULL);
	}
	if (start > last)
		VLOG_INFO(ports, "%s: %u mbufs sent were still held by its "
			  "driver at stop: taken back\n", p->name, start - last);
	return start > last ? start - last : 0;
}

void
port_ethdev_stop(struct port *p)
{
	struct rte_eth_dev_info info;
	struct rte_device *dev = NULL;

	if (rte_eth_dev_info_get(p->eth_port_id, &info) == 0)
		dev = info.device;
	rte_eth_dev_stop(p->eth_port_id);
	rte_eth_dev_close(p->eth_port_id);
	/* del-port of a device we probed: unplug it, so that its name (and
	 * its pcap files, its tap) can be used again by a later add-port. */
	if (p->removing && p->hotplugged && dev)
		rte_dev_remove(dev);
}
