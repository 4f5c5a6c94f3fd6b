/* SPDX-License-Identifier: BSD-3-Clause
 * The real pipeline for a unit test, as perf/dpbench builds it: the
 * test's topology file through config_load, the ports, one PMD that is
 * created but never launched (the test drives dp_process_burst from its
 * own thread) and the slow path. Include after unit_test.h.
 */
#ifndef VXS_TEST_PIPELINE_RIG_H
#define VXS_TEST_PIPELINE_RIG_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>
#include <rte_arp.h>
#include <rte_eal.h>
#include <rte_mbuf.h>
#include "arp_frame.h"
#include "config.h"
#include "dp_actions.h"
#include "dp_snapshot.h"
#include "ofproto.h"
#include "pmd.h"
#include "port.h"

/* Opens a new topology file /tmp/NAME-XXXXXX.yaml (its name in path) and
 * writes what the rig's tests share: one PMD on core 1 (datapath_extra:
 * more datapath keys, each "  key: value\n"), the underlay on port "phy"
 * (VTEP 172.1.0.100/24 at 10:00:00:00:00:01; the remote VTEP 172.1.0.0
 * at 10:00:00:00:00:02) and "ports:\n"; the test adds its ports and
 * flows and closes it. NULL on failure. */
static inline FILE *
pipeline_rig_topology(char *path, size_t len, const char *name,
		      const char *datapath_extra)
{
	snprintf(path, len, "/tmp/%s-XXXXXX.yaml", name);
	int fd = mkstemps(path, 5);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
	if (!f)
		return NULL;
	fprintf(f, "datapath:\n  pmd-cores: [1]\n%s"
		   "underlay:\n  port: phy\n  local-ip: 172.1.0.100/24\n"
		   "  mac: '10:00:00:00:00:01'\n"
		   "  routes: [{prefix: 172.1.0.0/24}]\n"
		   "  arp: [{ip: 172.1.0.0, mac: '10:00:00:00:00:02'}]\n"
		   "ports:\n", datapath_extra);
	return f;
}

/* Ends what pipeline_rig_topology began: ports vm0..vm<n_vms - 1> and
 * phy on net_ring devices named <ring>vm<i> and <ring>phy, then flows;
 * closes f. 0 or -1. */
static inline int
pipeline_rig_finish(FILE *f, const char *ring, int n_vms,
		    const char *const flows[], size_t n_flows)
{
	if (!f)
		return -1;
	for (int i = 0; i < n_vms; i++)
		fprintf(f, "  - {name: vm%d, type: dpdk, "
			   "devargs: net_ring_%svm%d}\n", i, ring, i);
	fprintf(f, "  - {name: phy, type: dpdk, devargs: net_ring_%sphy}\n"
		   "flows:\n", ring);
	for (size_t i = 0; i < n_flows; i++)
		fprintf(f, "  - '%s'\n", flows[i]);
	return fclose(f);
}

/* Does a output to p? */
static inline bool
pipeline_rig_outputs_to(const struct dp_actions *a, const struct port *p)
{
	for (int i = 0; i < a->n; i++)
		if (a->act[i].type == DP_ACT_OUTPUT && a->act[i].port == p->idx)
			return true;
	return false;
}

/* Loads the topology write_topology writes (and removes it), starts an
 * EAL named name and everything above; *pool is also the datapath's pool
 * (output copies); *nic is the underlay port, vm[i] port "vm<i>" for i <
 * n_vms. Prints why and returns -1 on failure. */
static inline int
pipeline_rig_up(const char *name, int (*write_topology)(char *, size_t),
		struct vxs_config *cfg, struct rte_mempool **pool,
		struct pmd **pmd, struct port **nic, struct port *vm[],
		int n_vms)
{
	char err[CFG_ERR_MAX], path[64];

	if (write_topology(path, sizeof path)) {
		printf("cannot write a topology\n0 passed, 1 failed\n");
		return -1;
	}
	int rc = config_load(path, cfg, err, sizeof err);
	unlink(path);
	if (rc) {
		printf("%s\n0 passed, 1 failed\n", err);
		return -1;
	}
	if (unit_test_eal_init(name, "256"))
		return -1;
	*pool = rte_pktmbuf_pool_create(name, 2047, 0, 0,
					RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	pktmbuf_pool = *pool;
	if (!*pool || ports_create(cfg, *pool, 1, err, sizeof err) ||
	    pmds_init(err, sizeof err) ||
	    pmds_create(cfg, cfg->dp_opts, err, sizeof err) ||
	    ofproto_init(cfg, pmd_qsbr, err, sizeof err) ||
	    ports_start(err, sizeof err)) {
		printf("setup: %s\n0 passed, 1 failed\n", err);
		return -1;
	}
	*pmd = &pmds[0];
	(*pmd)->dp.snap = dp_snapshot_get();
	(*pmd)->dp.seen_gen = (*pmd)->dp.snap->gen;
	*nic = port_underlay();
	for (int i = 0; i < n_vms; i++) {
		char vm_name[16];
		snprintf(vm_name, sizeof vm_name, "vm%d", i);
		vm[i] = port_by_name(vm_name);
	}
	return 0;
}

/* A 60-byte ARP frame (opcode op, host order; addresses in network
 * order) from pool; NULL or an empty mbuf when the pool is empty. */
static inline struct rte_mbuf *
pipeline_rig_arp(struct rte_mempool *pool, const struct rte_ether_addr *dst,
		 uint16_t op, const struct rte_ether_addr *sha, rte_be32_t sip,
		 rte_be32_t tip)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	uint8_t *p = m ? (uint8_t *)rte_pktmbuf_append(m, 60) : NULL;
	if (!p)
		return m;
	memset(p, 0, 60);
	arp_frame_write(p, dst, op, sha, sip, tip);
	return m;
}

/* Checks that every mbuf came back, then takes it all down. */
static inline void
pipeline_rig_down(struct vxs_config *cfg, struct rte_mempool *pool)
{
	unsigned in_use = rte_mempool_in_use_count(pool);
	CHECK(in_use == 0, "%u mbufs in use at the end", in_use);
	ofproto_fini();
	pmds_fini();
	ports_destroy();
	rte_eal_cleanup();
	config_free(cfg);
}

#endif
