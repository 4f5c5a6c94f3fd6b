/* SPDX-License-Identifier: BSD-3-Clause
 * dpbench's private header: what the benchmark (dpbench.c: options, the
 * topology, the measured runs, the output) and its synthetic traffic
 * (dpbench_traffic.c: templates, per-flow patches, burst refill) share.
 */
#ifndef VXS_PERF_DPBENCH_H
#define VXS_PERF_DPBENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include "datapath.h"
#include "fdir_model.h"
#include "port.h"

#define N_VMS 32
#define VNI 1001

enum dir { DIR_DECAP, DIR_ENCAP };

/* Where the traffic enters and how it is shaped: set once by main(). */
struct traffic_src {
	uint32_t run;			/* consecutive packets per flow */
	bool rx_csum_good;		/* --rx-csum-good */
	struct port *nic_port, *vm_port[N_VMS];
	struct fdir_model *marker;	/* --nic-marked: the "NIC", or NULL */
	bool ipv6;			/* --ipv6: the inner frames IPv6 */
};

/* One configuration's stream: the flow of the next packet walks flows
 * vm, vm + 32, ... when only VM vm sends (encap), all flows in turn
 * otherwise. */
struct traffic {
	const struct traffic_src *src;
	enum dir dir;
	uint32_t flows;
	uint64_t k;			/* packets so far */
	uint32_t vm;			/* encap: this burst's VM */
	uint64_t vm_k[N_VMS];
};

/* The topology (dpbench_topo.c): written to a fresh file whose name goes
 * to path; 0, or -1 (errno). */
struct topo_opts {
	uint32_t emc_prob;
	bool sg, rewrite, ipv6, zipf;
	bool underlay6;			/* --underlay6: an IPv6 underlay */
};
int dpbench_write_topology(char *path, size_t len, const struct topo_opts *o,
			   uint32_t max_flows, uint32_t max_conns);

/* Builds the per-VM templates and the patches of flows 0..max_flows-1
 * (underlay6: decap frames with an IPv6 outer header); -1 when out of
 * memory. */
int traffic_build(uint32_t max_flows, bool ipv6, bool underlay6);
void traffic_free(void);

/* Fills b with the next burst (fresh mbufs from pktmbuf_pool) and sets
 * *in to the port it arrives on; -1 when out of mbufs. */
int traffic_refill(struct traffic *t, struct pkt_batch *b, struct port **in);

/* The decap frame VM vm receives from the remote VTEP (DECAP_LEN bytes:
 * outer eth/ipv4/udp/vxlan, then the inner eth/ipv4/udp), and the outer
 * UDP source port Linux would hash from an inner 5-tuple. */
#define DECAP_LEN 128
#define DECAP_O_UDP 34			/* outer UDP header */
#define DECAP_I_IP 64			/* inner IPv4 header */
const uint8_t *traffic_decap_template(int vm);
uint16_t traffic_outer_sport(rte_be32_t src, rte_be32_t dst, uint16_t sp,
			     uint16_t dp);

struct pmd;
/* --zipf (dpbench_zipf.c): flows microflows, each its own inner megaflow
 * (inner dst 10.0.0.0/8 + i, the topology's catch-all rule), Zipf(s) for
 * each s of s_list, fifo vs weight admission side by side; 0 or -1. */
int zipf_bench(struct pmd *pmd, const struct traffic_src *src,
	       const char *s_list, uint32_t flows);
#define ZIPF_DEFAULT_FLOWS 250000

/* --tx-lock (dpbench_txlock.c): port_tx_burst's cycles per packet on
 * null port p with 1 and 2 senders (this lcore and the next), with and
 * without the tx lock, printed as a table; -1 if it could not run. */
int txlock_contended(struct port *p, struct rte_mempool *pool,
		     uint64_t bursts);

/* --sg (dpbench_sg.c): the rule sets measured side by side. */
/* SG_NAT: SG_EST with nat() both ways (the VM's own address as its SNAT
 * address: sessions NATed, packets unchanged): what leaving the sg stage
 * costs (an sg() with nat runs per megaflow group). */
enum sg_mode { SG_NONE, SG_EST, SG_DENY_NEW, SG_NAT, SG_N_MODES };
extern const char *const sg_mode_names[SG_N_MODES];

struct pmd;
struct sg_row {				/* one row of the --sg table */
	const char *dir, *config;
	uint32_t flows;
	double cpp;			/* total cycles per packet */
};

/* The topology's 64 rules (no sg(), with "ip" on the encap rules too,
 * so that the sg() sets replace only their actions), as YAML list items. */
void sg_write_rules(FILE *f, bool rewrite, bool ipv6);
/* Replaces the rules by mode's set, flushes the megaflows and the tracker;
 * SG_EST then has the VMs send flows 0..flows-1 once (sessions created
 * under sg(allow)). 0, -1 (rules refused, out of mbufs) or -2 (fewer
 * sessions than flows). */
int sg_set_mode(struct pmd *pmd, const struct traffic_src *src,
		enum sg_mode mode, uint32_t flows, bool rewrite, bool ipv6);
void sg_print(const struct sg_row *rows, int n, int per_group);

/* RTE_IPV4 shifts an int: 192 << 24 overflows (UBSan) */
#define IPV4_HOST(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | \
			       (uint32_t)(c) << 8 | (uint32_t)(d))

/* dpbench_churn.c: one rewrite of a rule of table 200 (a publish), then
 * the PMD's revalidation (everything with all); its cycles. */
struct pmd;
uint64_t dpbench_churn(struct pmd *pmd, uint64_t k, bool all);

#endif
