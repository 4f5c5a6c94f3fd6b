/* SPDX-License-Identifier: BSD-3-Clause
 * add-port's and del-port's work (cmd_port.c), for the commands and for
 * other callers in the control thread (OVSDB mode: ovsdb_*.c). Any port
 * type, the VXLAN tunnel port included. Each answers 0, or -1 with the
 * refusal in out and nothing changed.
 *
 * cmd_port_add: c as config_port_from_args() made it (the topology's
 * checks done); then a name or socket or device already in use, a taken
 * ofport_request, the table full, the device refusing; for a tunnel port
 * (type vxlan) also "NAME: more than one vxlan port: 'T' is the tunnel
 * port", "NAME: missing underlay 'port' for vxlan port 'NAME'", and
 * config_tunnel_port_check()'s texts prefixed "NAME: " (no underlay
 * local-ip; "vxlan port 'NAME': remote_ip is IPv6 but the underlay has
 * no IPv6 'local-ip'"; a local_ip not the VTEP's), and a rule that would
 * not fit the datapath with its output to the port a tunnel's. Fills in
 * c's ofport, and a tunnel's local_ip when not given.
 *
 * cmd_port_del: "no port named NAME", "NAME: the underlay port cannot be
 * removed at run time", or PMDs not answering. Returns once every PMD has
 * let go of the port and it is freed (RCU). */
#ifndef VXS_CMD_PORT_H
#define VXS_CMD_PORT_H

#include "config.h"
#include "ds.h"

int cmd_port_add(struct cfg_port *c, struct ds *out);
int cmd_port_del(const char *name, struct ds *out);

#endif
