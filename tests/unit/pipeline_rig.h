/* SPDX-License-Identifier: BSD-3-Clause
 * The real pipeline for a unit test, as perf/dpbench builds it: the
 * test's topology file through config_load, the ports, one PMD that is
 * created but never launched (the test drives dp_process_burst from its
 * own thread) and the slow path. Include after unit_test.h.
 */
#ifndef VXS_TEST_PIPELINE_RIG_H
#define VXS_TEST_PIPELINE_RIG_H

#include <stdio.h>
#include <unistd.h>
#include <rte_eal.h>
#include <rte_mbuf.h>
#include "config.h"
#include "dp_snapshot.h"
#include "ofproto.h"
#include "pmd.h"
#include "port.h"

/* Loads the topology write_topology writes (and removes it), starts an
 * EAL named name and everything above; *pool is also the datapath's pool
 * (output copies). Prints why and returns -1 on failure. */
static inline int
pipeline_rig_up(const char *name, int (*write_topology)(char *, size_t),
		struct vxs_config *cfg, struct rte_mempool **pool,
		struct pmd **pmd)
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
	    pmds_create(cfg, err, sizeof err) ||
	    ofproto_init(cfg, pmd_qsbr, err, sizeof err) ||
	    ports_start(err, sizeof err)) {
		printf("setup: %s\n0 passed, 1 failed\n", err);
		return -1;
	}
	*pmd = &pmds[0];
	(*pmd)->snap = dp_snapshot_get();
	(*pmd)->seen_gen = (*pmd)->snap->gen;
	return 0;
}

/* Checks that every mbuf came back, then takes it all down. */
static inline void
pipeline_rig_down(struct vxs_config *cfg, struct rte_mempool *pool)
{
	unsigned in_use = rte_mempool_in_use_count(pool);
	CHECK(in_use == 0, "%u mbufs in use at the end", in_use);
	ofproto_fini();
	pmds_destroy();
	ports_destroy();
	rte_eal_cleanup();
	config_free(cfg);
}

#endif
