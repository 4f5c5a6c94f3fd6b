/* SPDX-License-Identifier: BSD-3-Clause
 * The OpenFlow channel (doc/design-control-plane.md, "The OpenFlow
 * channel", step 6): the OpenFlow bridge's management socket,
 * punix:<rundir>/<bridge>.mgmt as ovs-vswitchd makes it (bridge.c), so
 * that plain `ovs-ofctl show br-int` reaches vxswitch, <rundir> being
 * daemon_ovs_rundir() (OVS_RUNDIR, else /var/run/openvswitch).
 *
 * Connections are served from the control thread's epoll set
 * (control_watch()), never blocking: each has a receive buffer of one
 * largest message and a send buffer: a client whose earlier replies
 * still wait past OF_CHAN_TX_MAX bytes when it sends a request is dropped
 * (counted), so it never stalls the loop or the other clients; one
 * request's own reply (a flow dump of the whole table) is queued whole,
 * up to OF_CHAN_TX_REPLY_MAX. At most OF_CHAN_MAX_CONNS
 * connections; one more is accepted and closed at once (counted).
 *
 * Messages (of_handlers.c): hello and version negotiation (1.0, 1.3,
 * 1.4, 1.5), echo, features, get/set_config, barrier, desc and port
 * description multipart, role (one equal controller), port status when
 * ports come and go; everything else answered with the error OVS 3.1
 * sends for a message it does not handle, and counted by type.
 * flow_mod and the flow/aggregate stats requests: of_flows.c.
 *
 * Control thread only.
 */
#ifndef VXS_OF_CHAN_H
#define VXS_OF_CHAN_H

#include <stdbool.h>
#include <stddef.h>

#define OF_CHAN_MAX_CONNS 64
#define OF_CHAN_TX_MAX (256 * 1024)
/* a reply of max-flows rules with their actions fits */
#define OF_CHAN_TX_REPLY_MAX (64u << 20)

/* The channel on: without 'wait_for_bridge', it listens at once for
 * ofproto_bridge(); with it (OVSDB mode), only once of_chan_set_bridge()
 * names the bridge ovs-vsctl made. 0, or -1 with the reason. */
int of_chan_start(bool wait_for_bridge, char *err, size_t errlen);

/* The OpenFlow bridge is now 'name' (NULL or "": none): the socket of
 * another name is closed with its connections, and this one opened. */
void of_chan_set_bridge(const char *name);

/* One turn from the control loop: port status messages for ports that
 * came, went or changed state, inactivity probes, closing connections
 * whose last words are sent. Never blocks. */
void of_chan_run(void);

/* Closes every connection and the socket, and removes its file. */
void of_chan_stop(void);

/* The verb openflow/show (of_show.c). */
void of_chan_register(void);

#endif
