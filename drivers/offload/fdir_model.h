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
 * What the ice PMD does, with the code it is checked against: DPDK
 * drivers/net/ice/ (drivers/net/intel/ice/ from 25.03) at v22.11.11
 * (Debian 12's) and v26.07 (the newest release), F = ice_fdir_filter.c,
 * G = ice_generic_flow.c; drivers/offload/ice-pmd-sources.md has every release.
 * The exact rte_flow_error texts are in ice_fdir_msgs.h.
 *  - Profiles (limits.profile): what attr.group does changed inside
 *    stable series. ice-22.11: any group "Not support group."
 *    (G 22.11.11:2066-2072). ice-23.11.0 (to .3, 24.03-24.11.1): the
 *    group picks one parser (G v23.11:2236-2248): 0 the switch, which
 *    refuses MARK ("Invalid action type"), 1 ACL (off on a PF), 2 FDIR,
 *    3+ none. ice-23.11.4 (24.11.2+, 25.03-26.03): group never read, ACL,
 *    switch, FDIR tried in turn (G v23.11.4:2253-2325). ice-26.07: the
 *    FDIR parser refuses a non-zero group ("Group not supported",
 *    F v26.07:3031, common/flow_check.h:333-338). Transfer is refused in
 *    all four; priority 1 too (no text of ice's own before 26.07).
 *  - Ranges (item->last): ignored on every item but IPv4 up to 26.03 (ice
 *    sets "Not support range" and goes on, F 22.11.11:1852-1859), refused
 *    by 26.07 (F v26.07:1926-1932); an IPv4 last with an address, length,
 *    ttl/tos/proto or checksum is "Invalid IPv4 last." everywhere.
 *  - ice_fdir_parse_pattern(): IPv4 src/dst and L4 ports are all-or-nothing;
 *    VXLAN flags mask -> EINVAL "Invalid vxlan field"; an eth type of
 *    IPv4/IPv6 as the last item -> "Unsupported ether_type".
 *  - ice_fdir_parse(): an empty input set, or fields outside the pattern's
 *    input_set_mask -> EINVAL "Invalid input set". For eth/ipv4/udp/vxlan/
 *    eth/ipv4 the outer mask is ICE_FDIR_INSET_ETH_IPV4_VXLAN (MACs, IPv4
 *    fields, VNI): it has NO UDP port, so the outer udp item of the VXLAN
 *    form must carry no mask (the tunnel port is what makes it VXLAN).
 *  - ice_fdir_parse_action(): MARK, RSS, QUEUE, DROP, PASSTHRU, COUNT; at
 *    most one destination, one mark; ice_fdir_parse_action_qregion(): RSS
 *    queue_num 2..128, power of two, contiguous, last < nb_rx_queues.
 *  - validate runs the parsers only: duplicates, profiles, the tunnel port
 *    and capacity are create's (F 22.11.11:1316-1472, v26.07:1539-1696),
 *    in this order:
 *    1. duplicate: ice's key (ice_fdir_extract_fltr_key, F 22.11.11:
 *       1243-1260, v26.07:1452-1481) is the flow type, the IPv4 fields of
 *       the plain header or of the INNER header of a tunnel rule (from the
 *       spec, masked or not), inner MACs and the tunnel type; not the
 *       outer IPv4 (the VTEP), not the VNI. So two VXLAN rules with the
 *       same inner destination on two VNIs or two VTEPs collide: EEXIST
 *       "Rule already exists!" (F 22.11.11:1392-1397). The hardware would
 *       tell them apart; ice's software table does not.
 *    2. profile: ice_fdir_input_set_conf -> ice_fdir_cur_prof_conflict
 *       (F 22.11.11:674-707, 1410-1418): a different input set for a flow
 *       type that has rules -> EINVAL "Profile configure failed."; the same
 *       one is kept; an empty profile is replaced. A profile is programmed
 *       here, before step 3, and nothing removes it when its last rule
 *       goes. (ice compares only the inner segment of a tunnel profile;
 *       the model compares the whole input set, the safe side.)
 *    3. the training packet: a tunnel rule needs an open VXLAN (or
 *       GENEVE) port (base/ice_fdir.c 22.11.11:4052-4053, v26.07:
 *       4077-4078); none -> log "Generate dummy packet failed", EINVAL
 *       "Add filter rule failed." (F 22.11.11:1233-1236, 1434-1439). The
 *       model, like ice, starts with no tunnel port:
 *       fdir_model_udp_tunnel_port_add() opens one.
 *    4. programming: a full table fails the hardware's programming status:
 *       EINVAL "Add filter rule failed." (below).
 *  - Tunnel port (ice_dev_udp_tunnel_port_add, ice_ethdev.c 22.11.11:
 *    5793-5817 -> base/ice_flex_pipe.c ice_create_tunnel:542-615): the same
 *    port again is a reference (0); no free VXLAN entry returns the ice
 *    status ICE_ERR_OUT_OF_RANGE (-13) unchanged. The model has one VXLAN
 *    entry (how many the DDP package has per PF is not known here).
 *  - Destroy: up to 26.03 a profile outlives its last rule (nothing
 *    removes it: it keeps its packet types, below); 26.07 removes it with
 *    its last rule (F v26.07:1782-1791).
 *  - Rx: until a port is registered, UDP to 4789 is plain UDP to the NIC
 *    (plain rules match it, VXLAN rules never do). Once registered, the
 *    NIC parses it as VXLAN; a VXLAN packet with inner IPv4/UDP then has
 *    packet types that both the VXLAN profile and the plain eth/ipv4/udp
 *    profile cover (base/ice_flow.c 22.11.11:1166, 1198: the plain profile
 *    takes any packet whose first L3 is IPv4 and innermost L4 UDP, and
 *    reads the first IPv4 and the innermost UDP ports, :1399, 1495). The
 *    profile programmed last owns them (issue 14; which one wins is
 *    INFERRED, not seen on a card): a plain rule "VTEP, udp dst P" created
 *    after the VXLAN profile marks VXLAN packets whose inner UDP dst is
 *    P, and the VXLAN rules stop matching inner-UDP packets; inner
 *    non-UDP packets stay the VXLAN profile's. Open (research guide
 *    11.1-2): profiles claim packet-type GROUPS from the DDP package, so
 *    whether the VXLAN profile covers inner TCP/ICMP at all (the model:
 *    yes) and how far the plain one reaches is not known from source.
 *  - Rx: VLAN tags do not change the packet type: an eth/ipv4 rule with no
 *    vlan item matches the packet with one 802.1Q tag, or an 802.1ad (or
 *    802.1Q) tag and an 802.1Q tag (QinQ: INFERRED from the double-VLAN
 *    mode parser, not seen on a card); tags in the inner frame are not
 *    matched (unknown).
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
 * IPv4 fragments (outer or inner), more than two VLAN tags, and anything
 * not eth/IPv4/UDP (to the tunnel port: /VXLAN/eth/IPv4) are never
 * matched; IPv4 options are parsed over, as the NIC's parser does.
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

/* The device-wide best-effort pool, shared by the models of one card's
 * ports. */
struct fdir_model_pool;

struct fdir_model_pool *fdir_model_pool_create(uint32_t size);
void fdir_model_pool_free(struct fdir_model_pool *pool);
uint32_t fdir_model_pool_used(const struct fdir_model_pool *pool);

/* The ice releases whose behaviour the model can follow; they differ in
 * what attr.group means (drivers/offload/README.md, "ice behaviours"), so
 * each test of the probe (offload_probe.c) runs against each of them. */
/* One list: the enum, its names (fdir_model_profile_name/_parse). */
#define FDIR_MODEL_PROFILES(X)						\
	/* 22.11.x: a non-zero group is refused; engines tried in	\
	 * order */							\
	X(FDIR_PROFILE_ICE_2211, "ice-22.11")				\
	/* 23.11.0 to .3, and 24.03 to 24.11.1: the group picks the	\
	 * engine, 2 = FDIR; 0 = switch, which has no MARK */		\
	X(FDIR_PROFILE_ICE_2311_0, "ice-23.11.0")			\
	/* 24.11.2+, 25.03+: group ignored, engines tried in order */	\
	X(FDIR_PROFILE_ICE_2311_4, "ice-23.11.4")			\
	/* the FDIR parser refuses any non-zero group */		\
	X(FDIR_PROFILE_ICE_2607, "ice-26.07")

enum fdir_model_profile {
#define FDIR_X_ENUM(e, name) e,
	FDIR_MODEL_PROFILES(FDIR_X_ENUM)
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

/* One list: the enum, its names (fdir_model_reject_name) and the
 * counters stats.rejected[] they index. */
#define FDIR_MODEL_REJECTS(X)						\
	/* EINVAL: not ingress-only / priority */			\
	X(FDIR_REJ_ATTR, "attr")					\
	/* EINVAL: attr.group that does not reach the FDIR in the	\
	 * profile's release */						\
	X(FDIR_REJ_GROUP, "group")					\
	/* EINVAL: outside the whitelist */				\
	X(FDIR_REJ_PATTERN, "pattern")					\
	/* EINVAL: actions ice or the whitelist refuse */		\
	X(FDIR_REJ_ACTION, "action")					\
	/* EINVAL: other input set for the flow type */			\
	X(FDIR_REJ_INSET, "input-set-conflict")				\
	/* EEXIST: same pattern installed */				\
	X(FDIR_REJ_EXIST, "exists")					\
	/* EINVAL "Add filter rule failed.": the guaranteed share and	\
	 * shared pool full */						\
	X(FDIR_REJ_NOSPC, "no-space")					\
	/* EINVAL "Add filter rule failed.": a VXLAN rule with no	\
	 * tunnel port registered */					\
	X(FDIR_REJ_NO_TUNNEL, "no-tunnel-port")

enum fdir_model_reject {
	FDIR_MODEL_REJECTS(FDIR_X_ENUM)
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
 * it: 0 (also for the port already registered), -13 (ice's
 * ICE_ERR_OUT_OF_RANGE, passed up as is) for a second port, -EINVAL for
 * port 0 or m NULL. Until a port is registered the model, like ice,
 * validates VXLAN rules but fails their create, and sees 4789 as plain
 * UDP. */
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
 * reclaimed after the readers' grace period, by a later create or destroy
 * (never waits for it; fdir_model_free() does). */
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
