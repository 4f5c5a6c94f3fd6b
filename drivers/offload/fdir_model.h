/* SPDX-License-Identifier: BSD-3-Clause
 * A software model of the E810 Flow Director (DPDK ice PMD), for ports with
 * no rte_flow and for every offload test. It takes the same struct
 * offload_rule the E810 builder (ice_fdir_rule.c) produces, accepts and
 * rejects as the ice PMD does (within our whitelist), enforces the same
 * capacity, and marks received mbufs exactly as ice_rxtx.c does, from an
 * ethdev rx callback, so the datapath sees what an E810 would give it.
 *
 * Threads: create/destroy run on the offload thread (one writer at a time;
 * a spinlock makes concurrent writers safe anyway). fdir_model_rx_mark()
 * runs on the PMDs, never locks, and is O(1) per packet. Rules are
 * published with RCU: a destroyed rule is freed only after every reader
 * registered on the qsbr given at create has passed a quiescent state.
 *
 * What the ice PMD does, with the code it is checked against (DPDK
 * drivers/net/ice/ice_fdir_filter.c, stored main-line revision 01b8739f;
 * the parser is the same shape in 22.11 and 23.11):
 *  - ice_fdir_parse_pattern(): IPv4 src/dst and L4 ports are all-or-nothing
 *    ("Mask for IPv4 src/dst addrs not supported"); VXLAN flags mask ->
 *    EINVAL "Invalid vxlan field"; an eth type of IPv4/IPv6 -> "Unsupported
 *    ether_type"; item->last only for IPv4.
 *  - ice_fdir_parse(): an empty input set, or fields outside the pattern's
 *    input_set_mask -> EINVAL "Invalid input set". For eth/ipv4/udp/vxlan/
 *    eth/ipv4 the outer mask is ICE_FDIR_INSET_ETH_IPV4_VXLAN (MACs, IPv4
 *    fields, VNI): it has NO UDP port, so the outer udp item of the VXLAN
 *    form must carry no mask (the tunnel port is what makes it VXLAN).
 *  - ice_fdir_parse_action(): MARK, RSS, QUEUE, DROP, PASSTHRU, COUNT; at
 *    most one destination, one mark; ice_fdir_parse_action_qregion(): RSS
 *    queue_num 2..128, power of two, contiguous, last < nb_rx_queues.
 *  - ice_fdir_create_filter(): a rule whose pattern key (flow type, values,
 *    masks, tunnel type; not the actions) equals an installed one -> EEXIST
 *    "Rule already exists!"; then ice_fdir_input_set_conf() ->
 *    ice_fdir_hw_tbl_conf() -> ice_fdir_cur_prof_conflict(): a different
 *    input set for a flow type that still has rules -> -EINVAL, reported as
 *    rte_flow error EINVAL "Profile configure failed."; an empty profile is
 *    replaced. (ice compares only the inner segment of a tunnel profile;
 *    the model compares both, the safe side.) ice_fdir_cross_prof_conflict()
 *    also refuses IPV4_OTHER vs IPV4_UDP profiles with rules: not reachable
 *    with our two flow types.
 *  - Rx (ice_rxtx.c, ice_rxd_to_pkt_fields_by_comms_generic/_ovs): when the
 *    descriptor's flow_id != 0xFFFFFFFF: ol_flags |= RTE_MBUF_F_RX_FDIR |
 *    RTE_MBUF_F_RX_FDIR_ID and hash.fdir.hi = flow_id (the MARK id). So a
 *    MARK of 0xFFFFFFFF is indistinguishable from "no match": ice accepts
 *    it, our whitelist refuses it (EINVAL).
 *
 * Capacity (ice base code, ice_common.c ice_parse_fdir_func_caps()): the
 * driver reads GLQF_FD_SIZE at start-up; fd_fltr_guar = FD_GSIZE divided
 * among the device's PFs (ice_get_num_per_func()), fd_fltr_best_effort =
 * FD_BSIZE, a pool shared by the whole device; ice_fdir_setup() logs both
 * ("FDIR HW Capabilities: fd_fltr_guar = %u, fd_fltr_best_effort = %u").
 * The numbers (16K filters per device; 512 or 1024 guaranteed per port
 * depending on the card's port count) are the issue's, not verified in a
 * datasheet here. A full table is not refused by the ice parser: the
 * hardware's programming status fails and rte_flow_create() returns an
 * error EINVAL ("Add filter rule failed."), as the model does.
 *
 * Not modelled: RSS queue regions cannot move a packet to another rx queue
 * from an rx callback; the model validates them like ice and counts the
 * packets the NIC would have delivered on another queue (rss_misqueued).
 * Packets with a VLAN tag, IPv4 fragments, and anything not eth/IPv4/UDP
 * (to the VXLAN port: /VXLAN/eth/IPv4) are never matched; IPv4 options
 * are parsed over, as the NIC's parser does.
 */
#ifndef VXS_FDIR_MODEL_H
#define VXS_FDIR_MODEL_H

#include <stdint.h>
#include <rte_flow.h>
#include <rte_mbuf.h>
#include <rte_rcu_qsbr.h>
#include "offload_rule.h"

#define FDIR_E810_TOTAL_FILTERS 16384	/* per device */
#define FDIR_E810_GUAR_8PORT	512	/* guaranteed per port, 8-port card */
#define FDIR_E810_GUAR_4PORT	1024	/* guaranteed per port, 2/4-port */
#define FDIR_VXLAN_PORT_DEFAULT 4789

/* The device-wide best-effort pool, shared by the models of one card's
 * ports. */
struct fdir_model_pool;

struct fdir_model_pool *fdir_model_pool_create(uint32_t size);
void fdir_model_pool_free(struct fdir_model_pool *pool);
uint32_t fdir_model_pool_used(const struct fdir_model_pool *pool);

/* The ice releases whose behaviour the model can follow; they differ in
 * what attr.group means (drivers/offload/README.md, "ice behaviours"), so
 * each test of the probe (offload_probe.c) runs against each of them. */
enum fdir_model_profile {
	FDIR_PROFILE_ICE_2211,		/* "ice-22.11": a non-zero group is
					 * refused; engines tried in order */
	FDIR_PROFILE_ICE_2311_0,	/* "ice-23.11.0" (to .3, and 24.03 to
					 * 24.11.1): the group picks the engine,
					 * 2 = FDIR; 0 = switch, which has no
					 * MARK */
	FDIR_PROFILE_ICE_2311_4,	/* "ice-23.11.4" (24.11.2+, 25.03+):
					 * group ignored, engines tried in
					 * order */
	FDIR_PROFILE_ICE_2607,		/* "ice-26.07": the FDIR parser refuses
					 * any non-zero group */
	FDIR_PROFILE_N
};

/* "ice-22.11" etc. -> profile: 0, or -EINVAL for an unknown name. */
int fdir_model_profile_parse(const char *name, enum fdir_model_profile *p);
const char *fdir_model_profile_name(enum fdir_model_profile p);

struct fdir_model_limits {
	enum fdir_model_profile profile;	/* 0: ice-22.11 */
	uint32_t guar;		/* this port's guaranteed filters */
	/* the shared best-effort pool; NULL: the model makes its own of
	 * FDIR_E810_TOTAL_FILTERS - n_ports * guar */
	struct fdir_model_pool *pool;
	uint16_t n_ports;	/* ports on the card (for the private pool) */
	uint16_t n_rxq;		/* rx queues when eth_port_id == UINT16_MAX */
};

enum fdir_model_reject {
	FDIR_REJ_ATTR,		/* EINVAL: not ingress-only / priority */
	FDIR_REJ_GROUP,		/* EINVAL: attr.group that does not reach
				 * the FDIR in the profile's release */
	FDIR_REJ_PATTERN,	/* EINVAL: outside the whitelist */
	FDIR_REJ_ACTION,	/* EINVAL: actions ice or the whitelist refuse */
	FDIR_REJ_INSET,		/* EINVAL: other input set for the flow type */
	FDIR_REJ_EXIST,		/* EEXIST: same pattern installed */
	FDIR_REJ_NOSPC,		/* EINVAL "Add filter rule failed.": the
				 * guaranteed share and shared pool full */
	FDIR_REJ_NO_TUNNEL,	/* EINVAL "Add filter rule failed.": a VXLAN
				 * rule with no tunnel port registered */
	FDIR_REJ_N
};

struct fdir_model_stats {
	uint32_t installed;	/* rules now */
	uint32_t guar_used;	/* of limits.guar */
	uint32_t pool_used;	/* this port's rules in the shared pool */
	uint32_t guar;
	uint32_t pool_size;
	uint64_t created, destroyed;
	uint64_t rejected[FDIR_REJ_N];
	uint64_t pkts_marked;
	uint64_t rss_misqueued;	/* marked on a queue outside its region */
};

struct fdir_model;
struct fdir_model_rule;		/* handle */

/* eth_port_id: the port whose rx the model marks (its nb_rx_queues bounds
 * RSS regions), or UINT16_MAX for a unit test with no port (lim->n_rxq).
 * qsbr: the readers' RCU variable (the PMDs'); NULL only when no reader
 * runs concurrently with destroy. NULL on error (rte_errno). */
struct fdir_model *fdir_model_create(uint16_t eth_port_id,
				     const struct fdir_model_limits *lim,
				     struct rte_rcu_qsbr *qsbr);
/* Detaches, frees every rule (after an RCU grace period) and the model. */
void fdir_model_free(struct fdir_model *m);

/* rte_eth_dev_udp_tunnel_port_add(port, {udp_port, VXLAN}) as ice does
 * it: 0, or -errno. Until a port is registered the model, like ice,
 * validates VXLAN rules but fails their create. */
int fdir_model_udp_tunnel_port_add(struct fdir_model *m, uint16_t udp_port);

/* rte_flow_validate(): 0, or -errno with *error set (may be NULL).
 * Checks everything create does except duplicates and capacity, as ice's
 * validate runs the parser only. */
int fdir_model_validate(struct fdir_model *m, const struct offload_rule *r,
			struct rte_flow_error *error);

/* rte_flow_create(): a handle, or NULL with *error and rte_errno set:
 * EINVAL or EEXIST, with ice's messages (ice_fdir_msgs.h); the model's
 * own reason is counted in stats.rejected (enum fdir_model_reject). */
struct fdir_model_rule *fdir_model_create_rule(struct fdir_model *m,
					       const struct offload_rule *r,
					       struct rte_flow_error *error);

/* rte_flow_destroy(): the rule stops matching at once; its memory is
 * reclaimed after the readers' grace period (blocks on the qsbr). */
int fdir_model_destroy_rule(struct fdir_model *m, struct fdir_model_rule *h,
			    struct rte_flow_error *error);

void fdir_model_get_stats(const struct fdir_model *m,
			  struct fdir_model_stats *st);
const char *fdir_model_reject_name(enum fdir_model_reject r);

/* What the NIC does on rx: marks matching packets in place; others are
 * untouched. queue: the rx queue they came from (for rss_misqueued;
 * UINT16_MAX: unknown). Returns n. Lock-free; call from a reader
 * registered on the model's qsbr (or with no concurrent destroy). */
uint16_t fdir_model_rx_mark(struct fdir_model *m, uint16_t queue,
			    struct rte_mbuf **pkts, uint16_t n);

/* Registers fdir_model_rx_mark as an rx callback on queues 0..n_queues-1
 * of port, so rte_eth_rx_burst() returns marked mbufs. 0 or -errno. */
int fdir_model_attach(struct fdir_model *m, uint16_t port, uint16_t n_queues);
/* Removes the callbacks (port stopped, or readers quiescent after). */
void fdir_model_detach(struct fdir_model *m);

#endif
