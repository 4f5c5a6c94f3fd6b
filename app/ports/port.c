/* SPDX-License-Identifier: BSD-3-Clause
 * The port table: built from the topology, looked up by name and ofport. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_malloc.h>
#include "port.h"

struct port **ports;
uint16_t n_ports;

static struct port *underlay, *vxlan_port;

struct port *
port_by_name(const char *name)
{
	for (uint16_t i = 0; i < n_ports; i++)
		if (!strcmp(ports[i]->name, name))
			return ports[i];
	return NULL;
}

struct port *
port_by_ofport(uint32_t ofport)
{
	for (uint16_t i = 0; i < n_ports; i++)
		if (ports[i]->ofport == ofport)
			return ports[i];
	return NULL;
}

struct port *
port_underlay(void)
{
	return underlay;
}

struct port *
port_vxlan(void)
{
	return vxlan_port;
}

static uint32_t
map_port_by_name(const char *name, void *aux)
{
	(void)aux;
	struct port *p = port_by_name(name);
	return p && !p->is_underlay ? p->ofport : 0;
}

static const char *
map_name_by_port(uint32_t ofport, void *aux)
{
	(void)aux;
	struct port *p = port_by_ofport(ofport);
	return p ? p->name : NULL;
}

const struct ofp_port_map *
ports_ofp_map(void)
{
	static const struct ofp_port_map map = {
		.port_by_name = map_port_by_name,
		.name_by_port = map_name_by_port,
	};
	return &map;
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
static struct rte_mempool *ports_pool;

static uint32_t
pool_in_use(void)
{
	return ports_pool ? ports_pool->size -
				    rte_mempool_avail_count(ports_pool)
			  : 0;
}

int
ports_create(const struct vxs_config *cfg, struct rte_mempool *pool,
	     uint16_t n_pmds, char *err, size_t errlen)
{
	ports_pool = pool;
	ports = calloc(cfg->n_ports, sizeof *ports);
	if (!ports) {
		snprintf(err, errlen, "out of memory");
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
		snprintf(p->name, sizeof p->name, "%s", c->name);
		p->idx = i;
		p->ofport = c->ofport;
		p->cfg = c;
		p->vid = -1;
		p->n_rxq = c->n_rxq ? c->n_rxq : 1;
		p->rxd = c->rxd ? c->rxd : 1024;
		p->txd = c->txd ? c->txd : 1024;
		p->tx_max_frame = p->rx_max_frame = UINT32_MAX;
		for (int q = 0; q < PORT_MAX_QUEUES; q++)
			rte_spinlock_init(&p->tx_lock[q]);

		int rc = 0;
		switch (c->type) {
		case CFG_PORT_DPDK:
			p->kind = PORT_ETHDEV;
			p->is_underlay = !strcmp(c->name, cfg->underlay_port);
			if (p->is_underlay)
				underlay = p;
			/* Ask for one tx queue per PMD plus one for the
			 * control thread (ARP), so none is shared if the
			 * device has that many. */
			uint32_t before = pool_in_use();
			rc = port_ethdev_create(p, pool, n_pmds + 1, err,
						errlen);
			p->mbufs_taken = pool_in_use() - before;
			break;
		case CFG_PORT_VHOST_SERVER:
		case CFG_PORT_VHOST_CLIENT:
			p->kind = PORT_VHOST;
			p->vhost_server = c->type == CFG_PORT_VHOST_SERVER;
			/* The PMDs send (never the control thread: it sends
			 * only to the underlay); the guest's rx queues are
			 * known once it enables them (port_vhost.c). */
			port_tx_init(p, 1, n_pmds);
			if (c->mtu)	/* the guest's MTU, both ways */
				p->tx_max_frame = p->rx_max_frame =
					c->mtu + RTE_ETHER_HDR_LEN;
			rc = port_vhost_create(p, err, errlen);
			break;
		case CFG_PORT_VXLAN:
			p->kind = PORT_VXLAN;
			p->n_rxq = 0;
			vxlan_port = p;
			break;
		case CFG_PORT_NULL:	/* benchmarking sink, see port.h */
			p->kind = PORT_NULL;
			port_tx_init(p, n_pmds + 1, n_pmds + 1);
			p->is_underlay = !strcmp(c->name, cfg->underlay_port);
			if (p->is_underlay)
				underlay = p;
			break;
		}
		if (rc)
			return -1;
	}
	return 0;
}

int
ports_start(char *err, size_t errlen)
{
	for (uint16_t i = 0; i < n_ports; i++) {
		struct port *p = ports[i];
		int rc = 0;
		if (p->kind == PORT_ETHDEV) {
			uint32_t before = pool_in_use();
			rc = port_ethdev_start(p, err, errlen);
			p->mbufs_taken += pool_in_use() - before;
		}
		else if (p->kind == PORT_VHOST)
			rc = port_vhost_start(p, err, errlen);
		if (rc)
			return -1;
	}
	return 0;
}

void
ports_stop(void)
{
	for (uint16_t i = 0; i < n_ports; i++) {
		struct port *p = ports[i];
		if (p->kind == PORT_ETHDEV) {
			/* The PMDs are stopped: only the driver moves mbufs
			 * now. What it gives back at close, against what it
			 * took, tells its rings from a datapath leak. */
			uint32_t before = pool_in_use();
			port_ethdev_stop(p);
			uint32_t returned = before - pool_in_use();
			p->mbufs_kept = returned < p->mbufs_taken
					? p->mbufs_taken - returned : 0;
		} else if (p->kind == PORT_VHOST) {
			port_vhost_stop(p);
		}
	}
}

uint32_t
ports_mbufs_kept(FILE *f)
{
	uint32_t kept = 0;

	for (uint16_t i = 0; i < n_ports; i++) {
		if (!ports[i]->mbufs_kept)
			continue;
		kept += ports[i]->mbufs_kept;
		if (f)
			fprintf(f, "vxswitch: %s: its driver kept %u mbufs of "
				"its rings at close (of %u it took)\n",
				ports[i]->name, ports[i]->mbufs_kept,
				ports[i]->mbufs_taken);
	}
	return kept;
}

void
ports_destroy(void)
{
	for (uint16_t i = 0; i < n_ports; i++)
		rte_free(ports[i]);
	free(ports);
	ports = NULL;
	n_ports = 0;
	underlay = vxlan_port = NULL;
	ports_pool = NULL;
}
