/* SPDX-License-Identifier: BSD-3-Clause
 * Packet capture with Debian's dpdk-dumpcap (rte_pdump).
 *
 * dpdk-dumpcap is a secondary process: it asks us (the primary) over the
 * EAL's IPC to install rx/tx callbacks on an ethdev, and those callbacks
 * copy every packet into its own mempool and ring. rte_pdump_init()
 * answers that request; the NIC is an ethdev, so its own
 * rte_eth_rx_burst/rte_eth_tx_burst call the callbacks and nothing else
 * is needed.
 *
 * vhost-user ports are driven through rte_vhost, not through an ethdev,
 * and Debian's RTE_MAX_ETHPORTS (32) is too small to make each one a
 * net_vhost port. Each gets instead a stand-in ethdev named
 * "net_null_<port>" (the vdev bus picks a driver by the name's prefix,
 * and dumpcap has net_null too, so it sees the port): configured with the
 * port's rx queues and PORT_MAX_QUEUES tx queues (one per guest rx ring)
 * and started, so that pdump can hook each queue, but never polled. The
 * PMD's vhost burst (port.h) reads the stand-in's callback list head for
 * its queue and, when one is set, calls it on the burst itself, as
 * rte_eth_rx_burst would: no copy and one predictable branch when nobody
 * captures.
 *
 * Stand-ins take ethdev ids, so they are made only while more than
 * PORT_CAPTURE_ETHDEV_RESERVE ids are free: a NIC added later must still
 * fit. A vhost port without one is simply not capturable (its
 * capture_name is "" and list-ports says so).
 */
#include <stdio.h>
#include <string.h>
#include <rte_dev.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_pdump.h>
#include "port_priv.h"

/* The callback list heads of a port with no capture ethdev: all NULL. */
static void *const no_callbacks[PORT_MAX_QUEUES];

int
ports_capture_init(char *err, size_t errlen)
{
	if (rte_pdump_init() < 0) {
		snprintf(err, errlen, "cannot enable capture (rte_pdump_init): "
			 "%s", rte_strerror(rte_errno));
		return -1;
	}
	return 0;
}

void
ports_capture_fini(void)
{
	rte_pdump_uninit();
}

void
port_capture_none(struct port *p)
{
	p->capture_rx = no_callbacks;
	p->capture_tx = no_callbacks;
}

const char *
port_capture_name(const struct port *p)
{
	static char name[PORT_CAPTURE_NAME_MAX];

	if (p->kind == PORT_VHOST)
		return p->capture_name;
	if (p->kind != PORT_ETHDEV ||
	    rte_eth_dev_get_name_by_port(p->eth_port_id, name) != 0)
		return "";
	return name;
}

static bool
ethdev_ids_to_spare(void)
{
	return rte_eth_dev_count_total() + PORT_CAPTURE_ETHDEV_RESERVE <
	       RTE_MAX_ETHPORTS;
}

/* Configures and starts the stand-in: queues for pdump to hook. */
static int
capture_dev_start(struct port *p, uint16_t id)
{
	struct rte_eth_conf conf = { 0 };
	int socket = rte_eth_dev_socket_id(id);
	uint16_t n_rxq = p->n_rxq ? p->n_rxq : 1;

	if (rte_eth_dev_configure(id, n_rxq, PORT_MAX_QUEUES, &conf))
		return -1;
	for (uint16_t q = 0; q < n_rxq; q++)
		if (rte_eth_rx_queue_setup(id, q, 64, socket, NULL, ports_pool))
			return -1;
	for (uint16_t q = 0; q < PORT_MAX_QUEUES; q++)
		if (rte_eth_tx_queue_setup(id, q, 64, socket, NULL))
			return -1;
	return rte_eth_dev_start(id);
}

void
port_capture_create(struct port *p)
{
	char name[PORT_CAPTURE_NAME_MAX];
	uint16_t id;

	port_capture_none(p);
	if (p->kind != PORT_VHOST)
		return;
	if ((size_t)snprintf(name, sizeof name, "net_null_%s", p->name) >=
	    sizeof name) {
		RTE_LOG(WARNING, USER1, "%s: name too long for a capture "
			"ethdev: not capturable\n", p->name);
		return;
	}
	if (!ethdev_ids_to_spare()) {
		RTE_LOG(WARNING, USER1, "%s: no ethdev id to spare (%d at "
			"most, %d kept for NICs): not capturable\n", p->name,
			RTE_MAX_ETHPORTS, PORT_CAPTURE_ETHDEV_RESERVE);
		return;
	}
	/* rte_dev_probe, as a NIC's vdev: a running secondary (dumpcap)
	 * is told to attach it too */
	if (rte_dev_probe(name) != 0 ||
	    rte_eth_dev_get_port_by_name(name, &id) != 0) {
		RTE_LOG(WARNING, USER1, "%s: cannot create capture ethdev %s: "
			"not capturable\n", p->name, name);
		return;
	}
	p->capture_created = true;
	p->capture_port_id = id;
	if (capture_dev_start(p, id)) {
		RTE_LOG(WARNING, USER1, "%s: cannot start capture ethdev %s: "
			"not capturable\n", p->name, name);
		port_capture_destroy(p);
		return;
	}
	snprintf(p->capture_name, sizeof p->capture_name, "%s", name);
	/* the started ethdev's list heads (rte_ethdev_core.h): pdump sets
	 * and clears the entries, the array stays while the ethdev does */
	__atomic_store_n(&p->capture_tx, rte_eth_fp_ops[id].txq.clbk,
			 __ATOMIC_RELEASE);
	__atomic_store_n(&p->capture_rx, rte_eth_fp_ops[id].rxq.clbk,
			 __ATOMIC_RELEASE);
}

void
port_capture_destroy(struct port *p)
{
	if (!p->capture_created)
		return;
	port_capture_none(p);
	p->capture_created = false;
	p->capture_name[0] = '\0';
	/* stop, then remove the device (which closes it; secondaries are
	 * told) so that its name and id can serve again: a port added back
	 * under the same name */
	struct rte_eth_dev_info info;
	struct rte_device *dev = NULL;
	if (rte_eth_dev_info_get(p->capture_port_id, &info) == 0)
		dev = info.device;
	rte_eth_dev_stop(p->capture_port_id);
	if (!dev || rte_dev_remove(dev) != 0)
		rte_eth_dev_close(p->capture_port_id);
}
