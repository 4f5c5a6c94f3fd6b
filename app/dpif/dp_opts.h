/* SPDX-License-Identifier: BSD-3-Clause
 * The seed's fast-path optimisations, each one switchable so that its gain
 * is measured rather than assumed (perf/). On by default where it helps.
 * Set in the topology (datapath.optimisations) or at run time with
 * `vxswitch-ctl dpif-netdev/set-opt NAME on|off`; a PMD reads its own copy,
 * changed only between bursts through pmd_call().
 */
#ifndef VXS_DP_OPTS_H
#define VXS_DP_OPTS_H

#include <stdbool.h>
#include <stdint.h>

/*  name              config/ctl name        default */
#define DP_OPTS(X)                                                          \
	X(ADAPTIVE_POLLING, "adaptive-polling", true)  /* skip idle rxqs  */ \
	X(HASH_REUSE,       "hash-reuse",       true)  /* same key: reuse */ \
	X(SPECIALISED_DPCLS,"specialised-dpcls",true)  /* per-shape lookups */\
	X(FAST_EXTRACT,     "fast-extract",     true)  /* eth/ip/udp fast */ \
	X(BATCHED_TUNNEL,   "batched-tunnel",   true)  /* encap/decap/batch*/\
	X(IDLE_BACKOFF,     "idle-backoff",     false) /* sleep when idle */ \
	X(IO_TIMING,        "io-timing",        true)  /* rdtsc rx/tx/empty */\
	X(DECAP_TRUST_OUTER,"decap-trust-outer",true)  /* tnl_pop: no re-check*/\
	X(HASH_REUSE_ADAPTIVE,"hash-reuse-adaptive",true) /* stop if no hits */\
	X(VHOST_RX_ASK,     "vhost-rx-ask",     false) /* packed: ask less */ \
	X(VHOST_TX_ALIGN4,  "vhost-tx-align4",  false) /* packed: tx by 4s */ \
	X(RX_PREFETCH,      "rx-prefetch",      false) /* next vring line */ \
	X(TX_PENDING_LIST,  "tx-pending-list",  false) /* flush: no scan */  \
	X(EMC_BYPASS,       "emc-bypass",       true)  /* skip a missing EMC*/\
	X(CLS_PORT_HINT,    "cls-port-hint",    true)  /* in_port's subtable*/\
	X(TX_CSUM_OFFLOAD,  "tx-csum-offload",  true)  /* NIC sums UDP/IPv6*/

enum dp_opt {
#define X(id, name, def) DP_OPT_##id,
	DP_OPTS(X)
#undef X
	DP_N_OPTS
};

#define DP_OPT_BIT(o) (1u << (o))

/* The defaults, as a bit set. */
uint32_t dp_opts_default(void);
const char *dp_opt_name(enum dp_opt o);
/* Returns the option named name, or -1. */
int dp_opt_by_name(const char *name);

#endif
