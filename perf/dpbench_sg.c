/* SPDX-License-Identifier: BSD-3-Clause
 * dpbench --sg: what the sg() action (seed 003) costs a packet, on the
 * same traffic and the same rules as the plain rows. Every VM gets the
 * security group "allow egress, deny ingress" in its own zone (zone =
 * VM + 1, one zone a port as Neutron's firewall gives):
 *
 *   ip,in_port=vhost-userI          sg(allow,zone=I+1), encap, output:vxlan
 *   in_port=vxlan,ip,nw_dst=VM I    sg(deny,zone=I+1), output:vhost-userI
 *
 * and three rule sets are measured side by side:
 *   no-sg     the same rules without sg() (the reference rate);
 *   sg        with sg(); before the measured packets every flow's session
 *             exists: the VMs sent each flow once (the encap direction,
 *             under sg(allow)), so the measured packets are +est in both
 *             directions and all pass (decap passes sg(deny) as a reply);
 *   sg-deny   both directions sg(deny) and the tracker empty: every packet
 *             is +new and dropped (sg_deny): what refusing one costs;
 *   sg-nat    as sg, with sg(allow,...,nat(src=VM's own address)) and
 *             sg(deny,...,nat): every session NATed (to itself: packets
 *             unchanged, the checksum update not measured), so sg() runs
 *             per megaflow group, not in the pass-wide sg stage.
 * The tracker is the daemon's (ct_ctl_init: created after the PMDs' QSBR
 * variable, before the PMD, which takes it) and sized for the largest
 * flow count; between rows it is flushed and swept on this thread.
 */
#include <stdio.h>
#include <rte_cycles.h>
#include "conntrack.h"
#include "dp_snapshot.h"
#include "dpbench.h"
#include "ofproto.h"
#include "pmd.h"

const char *const sg_mode_names[SG_N_MODES] = { "no-sg", "sg", "sg-deny",
						"sg-nat" };

/* The actions after sg() (or alone): what the topology file says; ipv6:
 * the rules on IPv6 (VM i fd00:1::i, as --ipv6's plain rules). */
static void
vm_rules(int vm, enum sg_mode mode, bool rewrite, bool ipv6, char *encap,
	 char *decap, size_t len)
{
	char dst[32];

	char sg_out[64] = "", sg_in[32] = "";

	if (mode == SG_NAT) {
		snprintf(sg_out, sizeof sg_out,
			 "sg(allow,zone=%d,nat(src=192.1.0.%d)),", vm + 1, vm);
		snprintf(sg_in, sizeof sg_in, "sg(deny,zone=%d,nat),", vm + 1);
	} else if (mode != SG_NONE) {
		snprintf(sg_out, sizeof sg_out, "sg(%s,zone=%d),",
			 mode == SG_EST ? "allow" : "deny", vm + 1);
		snprintf(sg_in, sizeof sg_in, "sg(deny,zone=%d),", vm + 1);
	}
	if (ipv6)
		snprintf(dst, sizeof dst, "ipv6,ipv6_dst=fd00:1::%x", vm);
	else
		snprintf(dst, sizeof dst, "ip,nw_dst=192.1.0.%d", vm);
	snprintf(encap, len, "%s,in_port=vhost-user%d,actions=%s"
		 "set_tunnel:%d,set_field:172.1.0.0->tun_dst,"
		 "set_field:172.1.0.100->tun_src,output:vxlan",
		 ipv6 ? "ipv6" : "ip", vm, sg_out, VNI);
	snprintf(decap, len, "in_port=vxlan,%s,actions=%s%s"
		 "output:vhost-user%d", dst, sg_in,
		 rewrite ? "mod_dl_dst:52:54:00:00:ff:00," : "", vm);
}

void
sg_write_rules(FILE *f, bool rewrite, bool ipv6)
{
	char encap[256], decap[256];

	for (int i = 0; i < N_VMS; i++) {
		vm_rules(i, SG_NONE, rewrite, ipv6, encap, decap,
			 sizeof encap);
		fprintf(f, "  - %s\n  - %s\n", encap, decap);
	}
}

/* Empties the tracker and gives every session back to its pool (no PMD
 * runs: the grace period is over at once). */
static void
sg_flush(void)
{
	conntrack_flush(pmd_conntrack);
	conntrack_sweep(pmd_conntrack, rte_rdtsc(), UINT32_MAX);
}

/* The VMs send each of the first `flows` flows at least once. */
static int
sg_establish(struct pmd *pmd, const struct traffic_src *src, uint32_t flows)
{
	struct traffic t = { .src = src, .dir = DIR_ENCAP, .flows = flows };
	/* a burst is 32 packets of one VM; VMs in turn: flows / 32 bursts
	 * see every flow once when flows is a multiple of 32 x 32, and a
	 * round of VMs more covers the rest (run > 1 repeats each) */
	uint64_t bursts = ((uint64_t)flows * src->run + BATCH_MAX - 1) /
			  BATCH_MAX + 2 * N_VMS;
	struct pkt_batch b;
	struct port *in;

	for (uint64_t n = 0; n < bursts; n++) {
		if (traffic_refill(&t, &b, &in))
			return -1;
		dp_process_burst(&pmd->dp, in, &b);
		dp_tx_flush_all(&pmd->dp);
	}
	uint32_t have = conntrack_get_nconns(pmd_conntrack);
	if (have < flows) {
		fprintf(stderr, "dpbench: --sg: %u sessions established for "
			"%u flows (datapath ct-max-conns too small?)\n", have,
			flows);
		return -2;
	}
	return 0;
}

int
sg_set_mode(struct pmd *pmd, const struct traffic_src *src, enum sg_mode mode,
	    uint32_t flows, bool rewrite, bool ipv6)
{
	char encap[N_VMS][256], decap[N_VMS][256], err[256];
	const char *rules[2 * N_VMS];
	int bad;

	for (int i = 0; i < N_VMS; i++) {
		vm_rules(i, mode, rewrite, ipv6, encap[i], decap[i],
			 sizeof encap[i]);
		rules[2 * i] = encap[i];
		rules[2 * i + 1] = decap[i];
	}
	/* same priorities and matches: the actions are replaced, and the
	 * snapshot published */
	if (ofproto_add_flows(rules, 2 * N_VMS, &bad, err, sizeof err)) {
		fprintf(stderr, "dpbench: --sg: rule %d: %s\n", bad, err);
		return -1;
	}
	pmd->dp.snap = dp_snapshot_get();
	pmd->dp.seen_gen = pmd->dp.snap->gen;
	pmd_flush_flows(pmd);
	sg_flush();
	if (mode == SG_EST || mode == SG_NAT)
		return sg_establish(pmd, src, flows);
	return 0;
}

/* The side-by-side table: each (no-sg, sg[, sg-deny]) group of rows.
 * "rate loss" is what the target is about: how much of the
 * no-SG packet rate sg() takes, 1 - no-sg / sg cycles. */
void
sg_print(const struct sg_row *rows, int n, int per_group)
{
	printf("\nsg(): total cycles per packet, the same traffic and rules "
	       "without sg, with sg (every packet +est, passes)%s%s\n",
	       per_group > 2 ? ", sg(deny) on new packets (all dropped)" : "",
	       per_group > 3 ? " and sg with nat (+est, NATed sessions)" : "");
	printf("%-5s %-24s %8s %8s %8s %8s %9s %8s %8s\n", "path", "config",
	       "flows", "no-sg", "sg", "delta", "rate loss", "sg-deny",
	       per_group > 3 ? "sg-nat" : "");
	for (int i = 0; i + per_group <= n; i += per_group) {
		double none = rows[i].cpp, sg = rows[i + 1].cpp;
		printf("%-5s %-24s %8u %8.1f %8.1f %+8.1f %8.1f%%", rows[i].dir,
		       rows[i].config, rows[i].flows, none, sg, sg - none,
		       100.0 * (1 - none / sg));
		for (int k = 2; k < per_group; k++)
			printf(" %8.1f", rows[i + k].cpp);
		printf("\n");
	}
}
