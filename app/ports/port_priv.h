/* SPDX-License-Identifier: BSD-3-Clause
 * Inside app/ports only: one port's life (port.c), shared with the live
 * table's mutations (port_live.c). */
#ifndef VXS_PORT_PRIV_H
#define VXS_PORT_PRIV_H

#include <pthread.h>
#include "port.h"

extern struct rte_mempool *ports_pool;
extern uint32_t ports_removed_mbufs_kept;
/* Held by the control thread while it changes a slot, and by the
 * rte_vhost thread while it looks a socket's port up (port_vhost.c), so
 * that no port is freed under that thread's feet. PMDs never take it. */
extern pthread_mutex_t ports_slot_lock;

uint32_t pool_in_use(void);
int port_create(struct port *p, const struct cfg_port *c, uint16_t idx,
		uint16_t n_pmds, bool is_underlay, char *err, size_t errlen);
int port_start(struct port *p, char *err, size_t errlen);
void port_stop(struct port *p);
void port_set_senders(struct port *p, uint16_t n_pmds);
/* p leaves the table: if it is the tunnel port, there is none now. */
void port_vxlan_gone(const struct port *p);

#endif
