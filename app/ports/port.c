/* SPDX-License-Identifier: BSD-3-Clause
 * The port table: built from the topology, looked up by name and ofport;
 * creating, starting and stopping one port of any kind. Run-time changes
 * to the table are port_live.c's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_malloc.h>
#include <rte_lcore.h>
#include "clock.h"
#include "port.h"
#include "port_priv.h"
#include "vlog.h"

struct port **ports;
uint16_t n_ports;

static struct port *underlay, *vxlan_port;

/* What removed ports' drivers kept at close (ports_mbufs_kept). */
uint32_t ports_removed_mbufs_kept;

/* Called from PMD upcalls too: a slot may change under us, but a port
 * found here is freed only after this PMD's next quiescent state. */
struct port *
port_by_name(const char *name)
{
	for (uint16_t i = 0; i < n_ports; i++) {
		struct port *p = port_at(i);
		if (p && !p->removing && !strcmp(p->name, name))
			return p;
	}
	return NULL;
}

struct port *
port_by_ofport(uint32_t ofport)
{
	for (uint16_t i = 0; i < n_ports; i++) {
		struct port *p = port_at(i);
		if (p && !p->removing && p->ofport == ofport)
			return p;
	}
	return NULL;
}

struct port *
port_underlay(void)
{
	return underlay;
}

/* The tunnel port, none while it is being added or removed: every
 * snapshot built then is without it (ofproto.c). The topology's, or one
 * add-port made; one at a time (cmd_port.c refuses a second). */
struct port *
port_vxlan(void)
{
	struct port *t = vxlan_port;

	return t && !__atomic_load_n(&t->removing, __ATOMIC_ACQUIRE) ? t
								    : NULL;
}

void
port_vxlan_gone(const struct port *p)
{
	if (p == vxlan_port)
		vxlan_port = NULL;
}

const char *
port_kind_name(const struct port *p)
{
	switch (p->kind) {
	case PORT_ETHDEV: return "dpdk";
	case PORT_VHOST: return p->vhost_server ? "dpdkvhostuser"
						: "dpdkvhostuserclient";
	case PORT_VXLAN: return "vxlan";
	case PORT_NULL: return "null";
	}
	return "?";
}

const char *
port_state_name(const struct port *p)
{
	if (p->kind == PORT_VHOST)
		return port_vhost_ready(p) ? "up" : "down";
	return "up";
}

/* The pool the ports' drivers fill their rx rings from. */
struct rte_mempool *ports_pool;

uint32_t
pool_in_use(void)
{
	return ports_pool ? ports_pool->size -
				    rte_mempool_avail_count(ports_pool)
			  : 0;
}

/* Fills in p from c and creates its device (not started). */
int
port_create(struct port *p, const struct cfg_port *c, uint16_t idx,
	    uint16_t n_pmds, bool is_underlay, char *err, size_t errlen)
{
	p->cfg_own = *c;
	p->cfg = &p->cfg_own;
	c = p->cfg;
	snprintf(p->name, sizeof p->name, "%s", c->name);
	p->idx = idx;
	p->ofport = c->ofport;
	p->vid = -1;
	p->n_rxq = c->n_rxq ? c->n_rxq : 1;
	p->rxd = c->rxd ? c->rxd : 1024;
	p->txd = c->txd ? c->txd : 1024;
	p->tx_max_frame = p->rx_max_frame = UINT32_MAX;
	p->added_ms = vxs_now_ms();
	port_capture_none(p);
	for (int q = 0; q < PORT_MAX_QUEUES; q++)
		rte_spinlock_init(&p->tx_lock[q]);

	switch (c->type) {
	case CFG_PORT_DPDK: {
		p->kind = PORT_ETHDEV;
		p->is_underlay = is_underlay;
		/* One tx queue per sender (every lcore the EAL has: a PMD
		 * may start on any, set-pmd-cores) plus one for the control
		 * thread (ARP), so that none is shared if the device has
		 * that many. */
		uint16_t senders = RTE_MAX((unsigned)n_pmds + 1, rte_lcore_count());
		uint32_t before = pool_in_use();
		int rc = port_ethdev_create(p, ports_pool, senders, err,
					    errlen);
		p->mbufs_taken = pool_in_use() - before;
		if (!rc)
			port_set_senders(p, n_pmds);
		return rc;
	}
	case CFG_PORT_VHOST_SERVER:
	case CFG_PORT_VHOST_CLIENT:
		p->kind = PORT_VHOST;
		p->vhost_server = c->type == CFG_PORT_VHOST_SERVER;
		/* The PMDs send (never the control thread: it sends only to
		 * the underlay); the guest's rx queues are known once it
		 * enables them (port_vhost.c). */
		p->n_txq = 1;
		port_set_senders(p, n_pmds);
		if (c->mtu)	/* the guest's MTU, both ways */
			p->tx_max_frame = p->rx_max_frame =
				c->mtu + RTE_ETHER_HDR_LEN;
		return port_vhost_create(p, err, errlen);
	case CFG_PORT_VXLAN:
		p->kind = PORT_VXLAN;
		p->n_rxq = 0;
		vxlan_port = p;
		return 0;
	case CFG_PORT_NULL:	/* benchmarking sink, see port.h */
		p->kind = PORT_NULL;
		p->n_rxq = 0;	/* receives nothing: nothing to poll */
		port_set_senders(p, n_pmds);
		p->is_underlay = is_underlay;
		return 0;
	}
	return 0;
}

/* Senders: the PMDs (index 0..n_pmds-1) and, on an ethdev or null port,
 * the control thread (n_pmds); over the queues the port has (port_tx.c).
 * Only while no PMD sends: at creation, and on set-pmd-cores. */
void
port_set_senders(struct port *p, uint16_t n_pmds)
{
	switch (p->kind) {
	case PORT_ETHDEV:
		port_tx_init(p, p->n_txq, n_pmds + 1);
		break;
	case PORT_VHOST:
		port_tx_init(p, p->n_txq, n_pmds);
		break;
	case PORT_NULL:
		port_tx_init(p, n_pmds + 1, n_pmds + 1);
		break;
	case PORT_VXLAN:
		break;
	}
}

void
ports_set_senders(uint16_t n_pmds)
{
	struct port *p;

	PORTS_FOREACH(p)
		port_set_senders(p, n_pmds);
}

int
ports_create(const struct vxs_config *cfg, struct rte_mempool *pool,
	     uint16_t n_pmds, char *err, size_t errlen)
{
	ports_pool = pool;
	ports = calloc(PORT_MAX, sizeof *ports);
	if (!ports) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (ports_capture_init(err, errlen))
		return -1;
	if (cfg->n_ports > PORT_MAX) {
		snprintf(err, errlen, "%u ports: more than %d", cfg->n_ports,
			 PORT_MAX);
		return -1;
	}
	for (uint16_t i = 0; i < cfg->n_ports; i++) {
		const struct cfg_port *c = &cfg->ports[i];
		struct port *p = rte_zmalloc("port", sizeof *p, 64);
		if (!p) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		ports[n_ports++] = p;
		bool is_underlay = !strcmp(c->name, cfg->underlay_port);
		p->tx_udp_csum_wanted = is_underlay && cfg->vtep_ip6_set;
		if (port_create(p, c, i, n_pmds, is_underlay, err, errlen))
			return -1;
		if (p->is_underlay)
			underlay = p;
	}
	return 0;
}

int
port_start(struct port *p, char *err, size_t errlen)
{
	if (p->kind == PORT_ETHDEV) {
		uint32_t before = pool_in_use();
		int rc = port_ethdev_start(p, err, errlen);
		p->mbufs_taken += pool_in_use() - before;
		return rc;
	}
	if (p->kind == PORT_VHOST) {
		port_capture_create(p);	/* none is no error */
		return port_vhost_start(p, err, errlen);
	}
	return 0;
}

void
port_stop(struct port *p)
{
	if (p->stopped || !p->dev_created)
		return;
	p->stopped = true;
	if (p->kind == PORT_ETHDEV) {
		/* The PMDs let go of it: only the driver moves mbufs now.
		 * First what it holds of what was sent (not its rings'), then
		 * what it gives back at close, against what it took, tells
		 * its rings from a datapath leak. */
		port_ethdev_tx_drain(p);
		uint32_t before = pool_in_use();
		port_ethdev_stop(p);
		uint32_t returned = before - pool_in_use();
		p->mbufs_kept = returned < p->mbufs_taken
				? p->mbufs_taken - returned : 0;
	} else if (p->kind == PORT_VHOST) {
		port_vhost_stop(p);
		port_capture_destroy(p);
	}
}

int
ports_start(char *err, size_t errlen)
{
	struct port *p;

	PORTS_FOREACH(p)
		if (port_start(p, err, errlen))
			return -1;
	return 0;
}

void
ports_stop(void)
{
	struct port *p;

	PORTS_FOREACH(p)
		port_stop(p);
}

uint32_t
ports_mbufs_kept(FILE *f)
{
	uint32_t kept = 0;

	struct port *p;

	PORTS_FOREACH(p) {
		if (!p->mbufs_kept)
			continue;
		kept += p->mbufs_kept;
		if (f)
			VLOG_INFO(ports, "%s: its driver kept %u mbufs of "
				"its rings at close (of %u it took)\n",
				p->name, p->mbufs_kept, p->mbufs_taken);
	}
	return kept + ports_removed_mbufs_kept;
}

void
ports_destroy(void)
{
	for (uint16_t i = 0; ports && i < n_ports; i++)
		rte_free(ports[i]);
	if (ports)
		ports_capture_fini();
	free(ports);
	ports = NULL;
	n_ports = 0;
	underlay = vxlan_port = NULL;
	ports_pool = NULL;
}
