/* SPDX-License-Identifier: BSD-3-Clause
 * dpbench's topology (dpbench.h): the seed's 32-VM VXLAN topology with
 * null ports, over an IPv4 or (--underlay6) an IPv6 underlay.
 */
#include <stdlib.h>
#include <unistd.h>
#include "dpbench.h"

/* The two underlays: our VTEP address, the remote VTEP's (the next hop
 * of every tunnel output, statically resolved) and their subnet. */
static const struct underlay {
	const char *local, *remote, *subnet, *tun_dst, *tun_src;
	unsigned plen;
} underlays[2] = {
	{ "172.1.0.100", "172.1.0.0", "172.1.0.0", "tun_dst", "tun_src", 24 },
	{ "fd00:172::100", "fd00:172::", "fd00:172::", "tun_ipv6_dst",
	  "tun_ipv6_src", 64 },
};

/* What scripts/gen-topology.py --vms 32 writes, with the NIC and the VMs
 * as null ports, one PMD, and room for the megaflows. */
int
dpbench_write_topology(char *path, size_t len, const struct topo_opts *o,
		       uint32_t max_flows, uint32_t max_conns)
{
	const struct underlay *u = &underlays[o->underlay6];

	snprintf(path, len, "/tmp/dpbench-XXXXXX.yaml");
	int fd = mkstemps(path, 5);
	if (fd < 0)
		return -1;
	FILE *f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -1;
	}
	fprintf(f, "eal: {lcores: '0-1', main-lcore: 0}\n"
		   "datapath:\n  pmd-cores: [1]\n"
		   "  emc-insert-inv-prob: %u\n  max-megaflows: %u\n"
		   "  ct-max-conns: %u\n"
		   "underlay:\n  port: dpdk-phy\n  local-ip: '%s/%u'\n"
		   "  mac: '10:00:00:00:00:01'\n"
		   "  routes: [{prefix: '%s/%u'}]\n"
		   "  arp: [{ip: '%s', mac: '10:00:00:00:00:02'}]\n"
		   "ports:\n", o->emc_prob, max_flows, max_conns, u->local,
		   u->plen, u->subnet, u->plen, u->remote);
	for (int i = 0; i < N_VMS; i++)
		fprintf(f, "  - {name: vhost-user%d, type: 'null'}\n", i);
	fprintf(f, "  - {name: vxlan, type: vxlan, options: {remote_ip: flow, "
		   "local_ip: flow, key: flow, dst_port: 4789, vnis: [%d]}}\n"
		   "  - {name: dpdk-phy, type: 'null'}\n"
		   "flows:\n", VNI);
	if (o->sg)	/* the same rules, in the form sg() can replace */
		sg_write_rules(f, o->rewrite, o->ipv6);
	if (o->zipf)	/* --zipf: a /32 megaflow per inner dst in 10/8 (the
			 * /32 rules above it un-wildcard nw_dst) */
		fprintf(f, "  - priority=1,in_port=vxlan,ip,nw_dst=10.0.0.0/8,"
			   "actions=output:vhost-user0\n");
	for (int i = 0; i < N_VMS && !o->sg; i++) {
		fprintf(f, "  - in_port=vhost-user%d,actions=set_tunnel:%d,"
			   "set_field:%s->%s,set_field:%s->%s,output:vxlan\n",
			i, VNI, u->remote, u->tun_dst, u->local, u->tun_src);
		if (o->ipv6)
			fprintf(f, "  - in_port=vxlan,ipv6,ipv6_dst=fd00:1::%x,"
				   "actions=%soutput:vhost-user%d\n", i,
				o->rewrite ? "mod_dl_dst:52:54:00:00:ff:00,"
					     : "", i);
		else
			fprintf(f, "  - in_port=vxlan,ip,nw_dst=192.1.0.%d,"
				   "actions=%soutput:vhost-user%d\n", i,
				o->rewrite ? "mod_dl_dst:52:54:00:00:ff:00,"
					     : "", i);
	}
	return fclose(f);
}

