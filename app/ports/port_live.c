/* SPDX-License-Identifier: BSD-3-Clause
 * The port table at run time: add-port and del-port's part in app/ports.
 * Only the control thread changes the table; see port.h for who reads it
 * and how a port is let go of before it is freed. */
#include <stdio.h>
#include <string.h>
#include <rte_malloc.h>
#include "port_priv.h"

pthread_mutex_t ports_slot_lock = PTHREAD_MUTEX_INITIALIZER;

void
ports_reader_lock(void)
{
	pthread_mutex_lock(&ports_slot_lock);
}

void
ports_reader_unlock(void)
{
	pthread_mutex_unlock(&ports_slot_lock);
}

uint32_t
ports_in_use(void)
{
	uint32_t n = 0;
	struct port *p;

	PORTS_FOREACH(p)
		n++;
	return n;
}

/* OpenFlow numbers by name, kept after their port goes (OVS keeps an
 * interface's ofport in its database): a port added again under the same
 * name gets its number back, and a flow may name a port that does not
 * exist yet (the number is set aside for the name). Bounded; a name past
 * the limit is refused and counted. */
static struct port_name {
	char name[CFG_NAME_MAX];
	uint32_t ofport;
} port_names[PORT_NAMES_MAX];
static uint32_t n_port_names;
uint64_t port_names_refused;
uint64_t ports_refused;

static struct port_name *
port_name_find(const char *name)
{
	for (uint32_t i = 0; i < n_port_names; i++)
		if (!strcmp(port_names[i].name, name))
			return &port_names[i];
	return NULL;
}

static bool
ofport_in_use(uint32_t ofport)
{
	struct port *p;

	PORTS_FOREACH(p)
		if (p->ofport == ofport)
			return true;
	for (uint32_t i = 0; i < n_port_names; i++)
		if (port_names[i].ofport == ofport)
			return true;
	return false;
}

/* the last number ports_next_ofport() gave */
static uint32_t last;

void
ports_ofport_unused(uint32_t ofport)
{
	if (ofport && ofport == last)
		last--;
}

uint32_t
ports_next_ofport(void)
{
	/* OVS: past the last number given, so that a flow left behind for a
	 * removed port does not catch the next new one; from the bottom once
	 * the numbers run out. */
	for (uint32_t n = 0; n < 0xfeff; n++) {
		last = last >= 0xfeff ? 1 : last + 1;
		if (!ofport_in_use(last))
			return last;
	}
	return 0;
}

void
ports_remember_name(const char *name, uint32_t ofport)
{
	struct port_name *n = port_name_find(name);

	if (n) {
		n->ofport = ofport;
		return;
	}
	if (n_port_names == PORT_NAMES_MAX) {
		port_names_refused++;
		return;
	}
	n = &port_names[n_port_names++];
	snprintf(n->name, sizeof n->name, "%s", name);
	n->ofport = ofport;
}

uint32_t
ports_ofport_for_name(const char *name, bool reserve)
{
	struct port_name *n = port_name_find(name);
	uint32_t ofport;

	if (n)
		return n->ofport;
	/* only what add-port would take as a name (config_ports.c) */
	if (!reserve || strlen(name) >= CFG_NAME_MAX ||
	    !config_is_port_name(name))
		return 0;
	if (n_port_names == PORT_NAMES_MAX) {
		port_names_refused++;
		return 0;
	}
	ofport = ports_next_ofport();
	if (ofport)
		ports_remember_name(name, ofport);
	return ofport;
}

const char *
ports_name_of_ofport(uint32_t ofport)
{
	for (uint32_t i = 0; i < n_port_names; i++)
		if (port_names[i].ofport == ofport)
			return port_names[i].name;
	return NULL;
}

uint32_t
ports_names_known(void)
{
	return n_port_names;
}

void
ports_name_at(uint32_t i, const char **name, uint32_t *ofport)
{
	*name = port_names[i].name;
	*ofport = port_names[i].ofport;
}

void
ports_remember_config_names(const struct vxs_config *cfg)
{
	for (uint32_t i = 0; i < cfg->n_ofport_names; i++) {
		const struct cfg_ofport_name *o = &cfg->ofport_names[i];
		struct port *p = port_by_ofport(o->ofport);
		if (port_by_name(o->name) || (p && strcmp(p->name, o->name)))
			continue;	/* a port has the name or the number */
		ports_remember_name(o->name, o->ofport);
	}
	/* and the topology's own ports, for add-port after a del-port */
	struct port *p;
	PORTS_FOREACH(p)
		ports_remember_name(p->name, p->ofport);
}

struct port *
ports_add(const struct cfg_port *c, uint16_t n_pmds, char *err,
	  size_t errlen)
{
	uint16_t slot;
	struct port *p;

	for (slot = 0; slot < PORT_MAX && ports[slot]; slot++)
		;
	if (slot == PORT_MAX) {
		ports_refused++;
		snprintf(err, errlen, "port table full (%d ports)", PORT_MAX);
		return NULL;
	}
	p = rte_zmalloc("port", sizeof *p, 64);
	if (!p) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	/* In the table before its device starts, so that the rte_vhost
	 * thread finds it for the guest's first message; not findable by
	 * name or number until the caller has given its queues out. */
	p->removing = true;
	pthread_mutex_lock(&ports_slot_lock);
	__atomic_store_n(&ports[slot], p, __ATOMIC_RELEASE);
	if (slot >= n_ports)
		n_ports = slot + 1;
	pthread_mutex_unlock(&ports_slot_lock);
	if (port_create(p, c, slot, n_pmds, false, err, errlen) ||
	    port_start(p, err, errlen)) {
		ports_remove_end(p, NULL);
		return NULL;
	}
	ports_remember_name(p->name, p->ofport);
	return p;
}

void
ports_publish(struct port *p)
{
	__atomic_store_n(&p->removing, false, __ATOMIC_RELEASE);
}

void
ports_remove_begin(struct port *p)
{
	__atomic_store_n(&p->removing, true, __ATOMIC_RELEASE);
}

void
ports_remove_end(struct port *p, struct rte_rcu_qsbr *qsbr)
{
	uint16_t slot = p->idx;

	port_stop(p);
	port_vxlan_gone(p);
	ports_removed_mbufs_kept += p->mbufs_kept;
	pthread_mutex_lock(&ports_slot_lock);
	__atomic_store_n(&ports[slot], NULL, __ATOMIC_RELEASE);
	while (n_ports && !ports[n_ports - 1])
		n_ports--;
	pthread_mutex_unlock(&ports_slot_lock);
	if (qsbr)
		rte_rcu_qsbr_synchronize(qsbr, RTE_QSBR_THRID_INVALID);
	rte_free(p);
}
