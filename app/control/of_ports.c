/* SPDX-License-Identifier: BSD-3-Clause
 * The OpenFlow bridge's ports as the channel describes them (features
 * reply in 1.0, port description, port status): each running port by
 * its ofport, name, MAC, link state and speed, and the bridge's own port
 * (OFPP_LOCAL, the bridge's name) as OVS shows its internal port with no
 * device up: PORT_DOWN, LINK_DOWN, 10GB-FD COPPER (the tap's; the
 * reference: tests/integration/ovs_ref/ofchan/reference.txt). Port status
 * messages come from comparing the set every 100 ms (of_chan_run), so
 * every way a port comes or goes (add-port, del-port, OVSDB, a guest
 * connecting) is seen without a hook in each.
 */
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>

#include "of_conn.h"
#include "ovsdb_client.h"
#include "ovsdb_write.h"
#include "port.h"

uint64_t
of_datapath_id(void)
{
	return ovsdb_bridge_mac(of_chan.bridge);
}

/* In OVSDB mode the underlay port is br-phy's, not the OpenFlow
 * bridge's (doc/design-control-plane.md's mapping table). */
static bool
in_bridge(const struct port *p)
{
	return !p->removing && !(p->is_underlay && ovsdb_client_enabled());
}

static void
mac_bytes(uint64_t m, uint8_t mac[6])
{
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)(m >> (40 - 8 * i));
}

/* A link speed (Mbps) as the 1.1+ feature bit. */
static uint32_t
speed_bits(uint32_t mbps)
{
	switch (mbps) {
	case 0: return 0;
	case 10: return OFPPF_10MB_FD;
	case 100: return OFPPF_100MB_FD;
	case 1000: return OFPPF_1GB_FD;
	case 10000: return OFPPF_10GB_FD;
	case 40000: return OFPPF_40GB_FD;
	case 100000: return OFPPF_100GB_FD;
	default: return OFPPF_OTHER;
	}
}

static void
describe(const struct port *p, struct of_port_desc *d)
{
	bool up = true;

	memset(d, 0, sizeof *d);
	d->port_no = p->ofport;
	memcpy(d->name, p->name, strnlen(p->name, sizeof d->name - 1));
	if (p->kind == PORT_ETHDEV) {
		struct rte_eth_link link = { 0 };
		memcpy(d->mac, p->mac.addr_bytes, 6);
		if (p->dev_started &&
		    !rte_eth_link_get_nowait(p->eth_port_id, &link)) {
			up = link.link_status == RTE_ETH_LINK_UP;
			if (up && link.link_speed !=
				  RTE_ETH_SPEED_NUM_UNKNOWN) {
				d->curr = speed_bits(link.link_speed);
				d->curr_speed = link.link_speed * 1000;
			}
		} else {
			up = false;
		}
	} else if (p->kind == PORT_VXLAN) {
		mac_bytes(ovsdb_bridge_mac(p->name), d->mac);
	} else {
		up = !strcmp(port_state_name(p), "up");
	}
	d->state = up ? OFPPS_LIVE : OFPPS_LINK_DOWN;
}

static int
by_port_no(const void *a, const void *b)
{
	uint32_t x = ((const struct of_port_desc *)a)->port_no;
	uint32_t y = ((const struct of_port_desc *)b)->port_no;

	return x < y ? -1 : x > y;
}

size_t
of_ports_collect(struct of_port_desc *out, size_t max)
{
	struct port *p;
	size_t n = 0;

	if (!max)
		return 0;
	PORTS_FOREACH(p) {
		if (n + 1 < max && in_bridge(p))
			describe(p, &out[n++]);
	}
	qsort(out, n, sizeof *out, by_port_no);
	struct of_port_desc *l = &out[n++];	/* OFPP_LOCAL sorts last */
	memset(l, 0, sizeof *l);
	l->port_no = OFPP_LOCAL;
	memcpy(l->name, of_chan.bridge,
	       strnlen(of_chan.bridge, sizeof l->name - 1));
	mac_bytes(ovsdb_bridge_mac(of_chan.bridge), l->mac);
	l->config = OFPPC_PORT_DOWN;
	l->state = OFPPS_LINK_DOWN;
	l->curr = OFPPF_10GB_FD | OFPPF_COPPER;
	l->curr_speed = 10000000;
	return n;
}

size_t
of_port_encode(uint8_t version, const struct of_port_desc *d, uint8_t *out)
{
	if (version == OFP10_VERSION) {
		/* 1.0: 16-bit numbers, no LIVE, COPPER is bit 7, no
		 * feature past 10 Gb/s */
		uint32_t curr = (d->curr & 0x7f) |
				(d->curr & OFPPF_COPPER ? OFPPF10_COPPER : 0);
		memset(out, 0, 48);
		be_put16(out, d->port_no == OFPP_LOCAL ? OFPP10_LOCAL
						       : (uint16_t)d->port_no);
		memcpy(out + 2, d->mac, 6);
		memcpy(out + 8, d->name, OFP_MAX_PORT_NAME_LEN);
		be_put32(out + 24, d->config);
		be_put32(out + 28, d->state & OFPPS_LINK_DOWN);
		be_put32(out + 32, curr);
		return 48;
	}
	size_t len = version >= OFP14_VERSION ? 72 : 64;
	uint8_t *eth = out + 40;	/* 1.4+: the ethernet property's */

	memset(out, 0, len);
	be_put32(out, d->port_no);
	if (version >= OFP14_VERSION) {
		be_put16(out + 4, 72);
		be_put16(eth, 0);		/* OFPPDPT_ETHERNET */
		be_put16(eth + 2, 32);
		eth += 8;
	}	/* 1.3: curr right after state, at 40 */
	memcpy(out + 8, d->mac, 6);
	memcpy(out + 16, d->name, OFP_MAX_PORT_NAME_LEN);
	be_put32(out + 32, d->config);
	be_put32(out + 36, d->state);
	be_put32(eth, d->curr);
	be_put32(eth + 16, d->curr_speed);
	return len;
}

/* ---- port status ---- */

static struct of_port_desc seen[PORT_MAX + 1], now_ports[PORT_MAX + 1];
static size_t n_seen;
static bool seen_valid;

static void
port_status(uint8_t reason, const struct of_port_desc *d)
{
	uint8_t msg[16 + 72];

	for (int i = 0; i < OF_CHAN_MAX_CONNS; i++) {
		struct of_conn *c = &of_chan.conns[i];
		/* a service connection gets asynchronous messages only
		 * once it set a miss_send_len (OVS's connmgr.c:1437):
		 * `ovs-ofctl monitor br-int 65535` does, a plain one not */
		if (!c->used || !c->version || c->closing ||
		    !c->miss_send_len)
			continue;
		size_t len = 16 + of_port_encode(c->version, d, msg + 16);
		of_put_header(msg, c->version, OFPT_PORT_STATUS,
			      (uint16_t)len, 0);
		msg[8] = reason;
		memset(msg + 9, 0, 7);
		of_chan.n.port_status_sent++;
		of_conn_send(c, msg, len);
	}
}

void
of_ports_track(void)
{
	size_t n, i = 0, j = 0;

	if (of_chan.listen_fd < 0) {
		seen_valid = false;
		return;
	}
	n = of_ports_collect(now_ports, sizeof now_ports / sizeof *now_ports);
	if (seen_valid) {
		while (i < n_seen || j < n) {
			const struct of_port_desc *a = i < n_seen ? &seen[i]
								  : NULL;
			const struct of_port_desc *b = j < n ? &now_ports[j]
							     : NULL;
			if (b && (!a || b->port_no < a->port_no)) {
				port_status(OFPPR_ADD, b);
				j++;
			} else if (a && (!b || a->port_no < b->port_no)) {
				port_status(OFPPR_DELETE, a);
				i++;
			} else {
				if (memcmp(a, b, sizeof *a))
					port_status(OFPPR_MODIFY, b);
				i++;
				j++;
			}
		}
	}
	memcpy(seen, now_ports, n * sizeof *seen);
	n_seen = n;
	seen_valid = true;
}
