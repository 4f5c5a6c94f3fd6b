/* SPDX-License-Identifier: BSD-3-Clause
 * The NIC side of the offload manager: the calls that reach the port's
 * flow engine (rte_flow on an ethdev, or the software Flow Director
 * model), what the port is found to accept at start-up, and why a rule
 * failed.
 *
 *  - validate / create / destroy: rte_flow_* or fdir_model_*, with the
 *    engine's errno and rte_flow_error message kept (ice says EINVAL for
 *    a full table and for a profile conflict alike: only the message
 *    tells them apart, see offload_engine_classify()).
 *  - the probe: which attr.group reaches ice's Flow Director on this port
 *    (it changed inside stable series: drivers/offload/README.md), found
 *    by validating a VXLAN MARK rule with group 0, then group 2, never
 *    from the DPDK headers we were built against. 22.11 refuses group 2
 *    ("Not support group."), 23.11.0-.3 and 24.03-24.11.1 send group 0 to
 *    the switch filter, which refuses MARK ("Invalid action type"),
 *    23.11.4+/24.11.2+ ignore the group, 26.07 refuses a non-zero one
 *    ("Group not supported"): the probe picks 0, 2, 0, 0. It must use
 *    the real rule with MARK: with QUEUE only, the switch would take
 *    group 0 on 23.11.0 (ice-pmd-sources.md s. 1.3).
 *  - the VXLAN tunnel port: ice recognises VXLAN only by a UDP port
 *    registered with rte_eth_dev_udp_tunnel_port_add(); without one a
 *    VXLAN rule validates and every create fails, so the result is
 *    checked and VXLAN rules are not asked for when it failed.
 * Called by the offload thread (validate/create/destroy) and by the
 * control thread at start-up (probe, tunnel port), never by a PMD.
 */
#ifndef VXS_OFFLOAD_ENGINE_H
#define VXS_OFFLOAD_ENGINE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include "fdir_model.h"
#include "flow_key.h"
#include "ice_fdir_rule.h"
#include "offload_mgr.h"
#include "offload_rule.h"

/* ice's rte_flow_error messages that tell its create failures apart
 * (ice-pmd-sources.md s. 2.3, 3.1, 5; F = drivers/net/ice/
 * ice_fdir_filter.c at v22.11.11 / drivers/net/intel/ice/ at v26.07):
 *   EEXIST "Rule already exists!"        duplicate key   F:1392-1397 / 1615-1620
 *   EINVAL "Profile configure failed."   input-set conflict F:1410-1418 / 1633-1641
 *   EINVAL "Add filter rule failed."     programming failed: a full table,
 *                                        or a VXLAN rule with no tunnel port
 *                                        (the builder never asks for those)
 *                                        F:1434-1439 / 1657-1662
 * The strings are ice_fdir_msgs.h's (the model says what ice says). */
#include "ice_fdir_msgs.h"

/* "vxswitch.offload" (registered in offload_mgr.c) */
extern int offload_mgr_logtype;

#define OFFLOAD_ENGINE_MSG_MAX 128

/* What the engine said when it refused: errno and rte_flow_error's
 * message (or the builder's reason). */
struct offload_engine_error {
	int err;			/* positive errno; 0: none */
	char msg[OFFLOAD_ENGINE_MSG_MAX];
};

/* rte_flow_validate(): 0, or -errno with *e filled. */
int offload_engine_validate(const struct offload_mgr_params *p,
			    const struct offload_rule *r,
			    struct offload_engine_error *e);
/* rte_flow_create(): the handle, or NULL with *e filled. */
void *offload_engine_create(const struct offload_mgr_params *p,
			    const struct offload_rule *r,
			    struct offload_engine_error *e);
int offload_engine_destroy(const struct offload_mgr_params *p, void *h);

/* Why rte_flow_create() refused a rule that validated, by errno AND
 * message (ice gives EINVAL for a full table and for another input set
 * on the flow type alike): OFFLOAD_FAIL_EXISTS (EEXIST: the NIC holds the
 * key, not for us, since our own keys are checked before the create),
 * OFFLOAD_FAIL_PROFILE, else OFFLOAD_FAIL_CAPACITY (ice's "Add filter
 * rule failed.", ENOSPC, or a refusal ice does not explain: the flow
 * stays in software either way; the raw errno and message are kept). */
enum offload_result offload_engine_classify(const struct offload_engine_error *e);

/* A request that does not build: OFFLOAD_FAIL_NO_TUNNEL when it is a
 * VXLAN flow that would build with a registered tunnel port, else
 * OFFLOAD_FAIL_NOT_CANONICAL; e gets the builder's reason. */
enum offload_result
offload_engine_build_refusal(const struct ice_fdir_target *tgt,
			     const struct flow_key *outer_key,
			     const struct flow_key *outer_mask,
			     const struct flow_key *inner_key,
			     const struct flow_key *inner_mask,
			     struct offload_engine_error *e);

/* ---- start-up ---- */

/* The probe's answer for a port. */
struct offload_probe {
	bool ok;			/* a group validates: offload on */
	uint32_t group;			/* the one to use (ok) */
	bool group0_refused;
	struct offload_engine_error refused0, refused2;	/* group 0, 2 */
	char why[2 * OFFLOAD_ENGINE_MSG_MAX + 64];	/* for logs, show */
};

/* Validates a VXLAN MARK rule (ice_fdir_rule_build, outer udp dst
 * vxlan_port) with attr.group 0, then 2; the first accepted is the
 * port's group. Creates nothing. out->why: "FDIR group 0" or "FDIR group
 * 2 (group 0 refused: MSG)" or, refused both, "group 0 refused: MSG;
 * group 2 refused: MSG". Returns 0 (out->ok says which) or -EINVAL. */
int offload_engine_probe(const struct offload_mgr_params *p,
			 uint16_t vxlan_port, struct offload_probe *out);

/* rte_eth_dev_udp_tunnel_port_add(port, {udp_port, VXLAN}) or the
 * model's. ice registers it on a configured port, started or not, and a
 * repeated call only counts a reference; it returns ice's own status,
 * not an errno: -13 (ICE_ERR_OUT_OF_RANGE, no free tunnel entry in the
 * DDP package, e.g. safe mode) reads as EACCES (ice-pmd-sources.md
 * s. 3.2: ice_ethdev.c:5793-5817 @22.11.11, base/ice_flex_pipe.c:542-615). */
struct offload_tunnel_port {
	uint16_t udp_port;		/* asked for */
	bool registered;
	int err;			/* positive errno when refused */
};

/* 0 if registered, else -errno (out->err); out->registered says it. */
int offload_engine_tunnel_port_add(const struct offload_mgr_params *p,
				   uint16_t udp_port,
				   struct offload_tunnel_port *out);

/* ---- the last failure per reason, for offload/show ---- */

struct offload_fail_log {
	pthread_mutex_t lock;		/* writer: offload thread; reader:
					 * control thread; rare both */
	struct offload_engine_error last[OFFLOAD_RESULT_N];
};

void offload_fail_log_init(struct offload_fail_log *l);
void offload_fail_log_set(struct offload_fail_log *l, enum offload_result r,
			  int err, const char *msg);
/* false when nothing was noted for r */
bool offload_fail_log_get(struct offload_fail_log *l, enum offload_result r,
			  struct offload_engine_error *out);

#endif
