/* SPDX-License-Identifier: BSD-3-Clause
 * The offload manager's NIC side (offload_engine.h): engine calls, the
 * failure classification, the start-up probe and the tunnel port.
 */
#include "offload_engine.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_flow.h>
#include "fdir_model.h"

static void
note(struct offload_engine_error *e, int err, const char *msg)
{
	if (!e)
		return;
	e->err = err;
	snprintf(e->msg, sizeof e->msg, "%s", msg && *msg ? msg :
		 err ? strerror(err) : "");
}

/* ---- engine calls ---- */

int
offload_engine_validate(const struct offload_mgr_params *p,
			const struct offload_rule *r,
			struct offload_engine_error *e)
{
	struct rte_flow_error fe = { 0 };
	int rc;

	rte_errno = 0;
	if (p->engine == OFFLOAD_ENGINE_MODEL)
		rc = fdir_model_validate(p->model, r, &fe);
	else
		rc = rte_flow_validate(p->eth_port_id, &r->attr, r->items,
				       r->actions, &fe);
	if (rc)
		note(e, rc < 0 ? -rc : rc, fe.message);
	return rc > 0 ? -rc : rc;
}

void *
offload_engine_create(const struct offload_mgr_params *p,
		      const struct offload_rule *r,
		      struct offload_engine_error *e)
{
	struct rte_flow_error fe = { 0 };
	void *h;

	rte_errno = 0;
	if (p->engine == OFFLOAD_ENGINE_MODEL)
		h = fdir_model_create_rule(p->model, r, &fe);
	else
		h = rte_flow_create(p->eth_port_id, &r->attr, r->items,
				    r->actions, &fe);
	if (!h)
		note(e, rte_errno ? rte_errno : EIO, fe.message);
	return h;
}

int
offload_engine_destroy(const struct offload_mgr_params *p, void *h)
{
	struct rte_flow_error fe = { 0 };

	if (p->engine == OFFLOAD_ENGINE_MODEL)
		return fdir_model_destroy_rule(p->model, h, &fe);
	return rte_flow_destroy(p->eth_port_id, h, &fe);
}

/* ---- why ---- */

static bool
msg_is(const struct offload_engine_error *e, const char *want)
{
	/* ice's messages are fixed strings; a driver may add detail after */
	return !strncmp(e->msg, want, strlen(want));
}

enum offload_result
offload_engine_classify(const struct offload_engine_error *e)
{
	if (e->err == EEXIST || msg_is(e, ICE_FDIR_MSG_EXISTS))
		return OFFLOAD_FAIL_EXISTS;
	/* EINVAL: another input set on the flow type (or a cross-type
	 * conflict); the same text with ice's own status as errno is a
	 * profile that could not be programmed (HW table, memory): capacity
	 * (ice-pmd-sources.md s. 5.3) */
	if (e->err == EINVAL && msg_is(e, ICE_FDIR_MSG_PROFILE))
		return OFFLOAD_FAIL_PROFILE;
	/* ICE_FDIR_MSG_NOSPC (EINVAL or the programming status on ice: a
	 * full table; without a tunnel port too, but VXLAN rules are not
	 * asked for then), ENOSPC, or a refusal ice does not explain */
	return OFFLOAD_FAIL_CAPACITY;
}

enum offload_result
offload_engine_build_refusal(const struct ice_fdir_target *tgt,
			     const struct flow_key *outer_key,
			     const struct flow_key *outer_mask,
			     const struct flow_key *inner_key,
			     const struct flow_key *inner_mask,
			     struct offload_engine_error *e)
{
	struct offload_rule rule;
	struct ice_fdir_target with_port = *tgt;
	const char *why = NULL;

	ice_fdir_rule_build(outer_key, outer_mask, inner_key, inner_mask, 1,
			    tgt, &rule, &why);
	note(e, ENOTSUP, why);
	/* the same flow with its own UDP port registered as VXLAN */
	if (!inner_key || tgt->tunnel_port || !outer_key->tp_dst)
		return OFFLOAD_FAIL_NOT_CANONICAL;
	with_port.tunnel_port = rte_be_to_cpu_16(outer_key->tp_dst);
	if (ice_fdir_rule_build(outer_key, outer_mask, inner_key, inner_mask,
				1, &with_port, &rule, NULL) == 0)
		return OFFLOAD_FAIL_NO_TUNNEL;
	return OFFLOAD_FAIL_NOT_CANONICAL;
}

/* ---- start-up ---- */

/* A VXLAN rule as the datapath asks for them: outer dst and the VXLAN
 * port, VNI, inner dst /32 (TEST-NET addresses; validate creates
 * nothing). */
static int
probe_rule(uint32_t group, uint16_t vxlan_port, struct offload_rule *out)
{
	struct flow_key ok, om, ik, im;
	struct ice_fdir_target tgt = { .group = group,
				       .tunnel_port = vxlan_port };

	flow_key_zero(&ok);
	flow_key_zero(&om);
	flow_key_zero(&ik);
	flow_key_zero(&im);
	ok.in_port = 1;
	ok.dl_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	ok.nw_dst = RTE_BE32(0xc0000201);		/* 192.0.2.1 */
	ok.nw_proto = IPPROTO_UDP;
	ok.tp_dst = rte_cpu_to_be_16(vxlan_port);
	flow_mask_set_field(&om, MFF_IN_PORT);
	flow_mask_set_field(&om, MFF_DL_TYPE);
	flow_mask_set_field(&om, MFF_NW_DST);
	flow_mask_set_field(&om, MFF_NW_PROTO);
	flow_mask_set_field(&om, MFF_NW_FRAG);
	flow_mask_set_field(&om, MFF_TP_DST);
	ik.in_port = 2;
	ik.tun_id = 1;
	ik.dl_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	ik.nw_dst = RTE_BE32(0xc0000202);		/* 192.0.2.2 */
	flow_mask_set_field(&im, MFF_IN_PORT);
	flow_mask_set_field(&im, MFF_TUN_ID);
	flow_mask_set_field(&im, MFF_DL_TYPE);
	flow_mask_set_field(&im, MFF_NW_DST);
	return ice_fdir_rule_build(&ok, &om, &ik, &im, 1, &tgt, out, NULL);
}

int
offload_engine_probe(const struct offload_mgr_params *p, uint16_t vxlan_port,
		     struct offload_probe *out)
{
	static const uint32_t groups[] = { ICE_FDIR_GROUP_DEFAULT,
					   ICE_FDIR_GROUP_FDIR };
	struct offload_engine_error *refused[] = { &out->refused0,
						   &out->refused2 };
	struct offload_rule rule;

	memset(out, 0, sizeof *out);
	if (!p || !vxlan_port)
		return -EINVAL;
	for (unsigned i = 0; i < RTE_DIM(groups); i++) {
		if (probe_rule(groups[i], vxlan_port, &rule))
			return -EINVAL;
		if (offload_engine_validate(p, &rule, refused[i]) == 0) {
			out->ok = true;
			out->group = groups[i];
			break;
		}
	}
	out->group0_refused = out->refused0.err != 0;
	if (out->ok && !out->group0_refused)
		snprintf(out->why, sizeof out->why, "FDIR group %u",
			 out->group);
	else if (out->ok)
		snprintf(out->why, sizeof out->why,
			 "FDIR group %u (group 0 refused: %s)", out->group,
			 out->refused0.msg);
	else
		snprintf(out->why, sizeof out->why,
			 "group 0 refused: %s; group 2 refused: %s",
			 out->refused0.msg, out->refused2.msg);
	return 0;
}

int
offload_engine_tunnel_port_add(const struct offload_mgr_params *p,
			       uint16_t udp_port,
			       struct offload_tunnel_port *out)
{
	int rc;

	memset(out, 0, sizeof *out);
	out->udp_port = udp_port;
	if (p->engine == OFFLOAD_ENGINE_MODEL) {
		rc = fdir_model_udp_tunnel_port_add(p->model, udp_port);
	} else {
		struct rte_eth_udp_tunnel t = {
			.udp_port = udp_port,
			.prot_type = RTE_ETH_TUNNEL_TYPE_VXLAN,
		};
		rc = udp_port ? rte_eth_dev_udp_tunnel_port_add(
					p->eth_port_id, &t) : -EINVAL;
	}
	out->registered = rc == 0;
	out->err = rc < 0 ? -rc : rc;
	return rc > 0 ? -rc : rc;
}

/* ---- last failure per reason ---- */

void
offload_fail_log_init(struct offload_fail_log *l)
{
	memset(l, 0, sizeof *l);
	pthread_mutex_init(&l->lock, NULL);
}

void
offload_fail_log_set(struct offload_fail_log *l, enum offload_result r,
		     int err, const char *msg)
{
	if ((unsigned)r >= OFFLOAD_RESULT_N)
		return;
	pthread_mutex_lock(&l->lock);
	note(&l->last[r], err, msg);
	pthread_mutex_unlock(&l->lock);
}

bool
offload_fail_log_get(struct offload_fail_log *l, enum offload_result r,
		     struct offload_engine_error *out)
{
	if ((unsigned)r >= OFFLOAD_RESULT_N)
		return false;
	pthread_mutex_lock(&l->lock);
	*out = l->last[r];
	pthread_mutex_unlock(&l->lock);
	return out->err != 0 || out->msg[0];
}
