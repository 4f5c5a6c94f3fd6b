/* SPDX-License-Identifier: BSD-3-Clause
 * The software Flow Director's whitelist: an offload_rule's attr, pattern
 * and actions checked as ice_fdir_parse_pattern() / _action() check them
 * (narrowed to what vxswitch offloads), into the table key and actions.
 * See fdir_model.h for the ice code each check follows.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_ip.h>
#include <rte_version.h>
#include "fdir_model_priv.h"

/* ---- parsing a rule (ice_fdir_parse_pattern / _action, narrowed) ---- */

static bool
zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i])
			return false;
	return true;
}

/* An item with no spec/mask, or an all-zero mask: matches anything. */
static bool
item_empty(const struct rte_flow_item *it, size_t sz)
{
	return !it->mask || !it->spec || zero(it->mask, sz);
}

/* IPv4: only src/dst addresses, each all-or-nothing (ice: "Mask for IPv4
 * src/dst addrs not supported"; version_ihl/total_length/checksum masks
 * -> "Invalid IPv4 mask"). ice also takes tos/ttl/proto; our whitelist
 * does not. */
static int
parse_ipv4(const struct rte_flow_item *it, uint32_t src_bit, uint32_t dst_bit,
	   uint32_t *inset, rte_be32_t *src, rte_be32_t *dst,
	   struct rte_flow_error *e)
{
	const struct rte_flow_item_ipv4 *s = it->spec, *k = it->mask;
	struct rte_ipv4_hdr rest;

	if (item_empty(it, sizeof *k))
		return 0;
	rest = k->hdr;
	rest.src_addr = rest.dst_addr = 0;
	if (!zero(&rest, sizeof rest))
		return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_MASK, it,
			    "IPv4: only src/dst addresses are matched");
	if ((k->hdr.src_addr && k->hdr.src_addr != UINT32_MAX) ||
	    (k->hdr.dst_addr && k->hdr.dst_addr != UINT32_MAX))
		return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_MASK, it,
			    "IPv4 address masks are all or nothing");
	if (k->hdr.src_addr) {
		*inset |= src_bit;
		*src = s->hdr.src_addr;
	}
	if (k->hdr.dst_addr) {
		*inset |= dst_bit;
		*dst = s->hdr.dst_addr;
	}
	return 0;
}

static int
parse_eth_empty(const struct rte_flow_item *it, struct rte_flow_error *e)
{
	if (!item_empty(it, sizeof(struct rte_flow_item_eth)))
		return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_MASK, it,
			    "eth item must be empty (no MAC/ethertype match)");
	return 0;
}

static int
parse_pattern(const struct fdir_model *m, const struct offload_rule *r,
	      struct fdir_key *key, struct rte_flow_error *e)
{
	const struct rte_flow_item *it[OFFLOAD_MAX_ITEMS];
	unsigned n = 0;
	int ret;

	(void)m;
	memset(key, 0, sizeof *key);
	for (unsigned i = 0; ; i++) {
		if (i == OFFLOAD_MAX_ITEMS)
			return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_NUM,
				    NULL, "pattern not END-terminated");
		const struct rte_flow_item *x = &r->items[i];

		if (x->type == RTE_FLOW_ITEM_TYPE_END)
			break;
		if (x->type == RTE_FLOW_ITEM_TYPE_VOID)	/* ice skips it */
			continue;
		if (x->last)	/* ice: "Not support range" */
			return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_LAST,
				    x, "ranges are not supported");
		it[n++] = x;
	}

	static const enum rte_flow_item_type plain[] = {
		RTE_FLOW_ITEM_TYPE_ETH, RTE_FLOW_ITEM_TYPE_IPV4,
		RTE_FLOW_ITEM_TYPE_UDP };
	static const enum rte_flow_item_type vxlan[] = {
		RTE_FLOW_ITEM_TYPE_ETH, RTE_FLOW_ITEM_TYPE_IPV4,
		RTE_FLOW_ITEM_TYPE_UDP, RTE_FLOW_ITEM_TYPE_VXLAN,
		RTE_FLOW_ITEM_TYPE_ETH, RTE_FLOW_ITEM_TYPE_IPV4 };
	const enum rte_flow_item_type *want;
	unsigned nwant;

	if (r->type == OFFLOAD_FT_IPV4_UDP) {
		want = plain;
		nwant = RTE_DIM(plain);
	} else if (r->type == OFFLOAD_FT_VXLAN_IPV4) {
		want = vxlan;
		nwant = RTE_DIM(vxlan);
	} else {
		return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
			    "unknown flow type");
	}
	if (n != nwant)
		return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, NULL,
			    "pattern is not eth/ipv4/udp[/vxlan/eth/ipv4]");
	for (unsigned i = 0; i < n; i++)
		if (it[i]->type != want[i])
			return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, it[i],
				    "pattern is not eth/ipv4/udp"
				    "[/vxlan/eth/ipv4]");
	key->type = r->type;

	if ((ret = parse_eth_empty(it[0], e)))
		return ret;
	if ((ret = parse_ipv4(it[1], IS_O_SRC, IS_O_DST, &key->inset,
			      &key->o_src, &key->o_dst, e)))
		return ret;

	/* udp */
	const struct rte_flow_item_udp *us = it[2]->spec, *um = it[2]->mask;

	if (!item_empty(it[2], sizeof *um)) {
		if (r->type == OFFLOAD_FT_VXLAN_IPV4)
			/* ice_fdir_parse(): ICE_FDIR_INSET_ETH_IPV4_VXLAN has
			 * no UDP port -> "Invalid input set" */
			return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_SPEC,
				    it[2], "Invalid input set: no outer UDP "
				    "port match in a VXLAN rule");
		if (um->hdr.dgram_len || um->hdr.dgram_cksum)
			return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_MASK,
				    it[2], "Invalid UDP mask");
		if ((um->hdr.src_port && um->hdr.src_port != UINT16_MAX) ||
		    (um->hdr.dst_port && um->hdr.dst_port != UINT16_MAX))
			return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_MASK,
				    it[2], "UDP port masks are all or nothing");
		if (um->hdr.src_port) {
			key->inset |= IS_SPORT;
			key->sport = us->hdr.src_port;
		}
		if (um->hdr.dst_port) {
			key->inset |= IS_DPORT;
			key->dport = us->hdr.dst_port;
		}
	}

	if (r->type == OFFLOAD_FT_VXLAN_IPV4) {
		const struct rte_flow_item_vxlan *vs = it[3]->spec,
						 *vm = it[3]->mask;

		if (!item_empty(it[3], sizeof *vm)) {
			if (vm->hdr.vx_flags)
				return fail(e, EINVAL,
					    RTE_FLOW_ERROR_TYPE_ITEM_MASK,
					    it[3], "Invalid vxlan field");
			/* ice takes any non-zero VNI mask as the whole VNI;
			 * we accept only the full mask, not to change the
			 * rule's meaning silently. */
			if ((vm->hdr.vx_vni & RTE_BE32(0xffffff00)) !=
			    RTE_BE32(0xffffff00) || vm->hdr.vx_vni &
			    RTE_BE32(0xff))
				return fail(e, EINVAL,
					    RTE_FLOW_ERROR_TYPE_ITEM_MASK,
					    it[3], "VNI must be fully masked");
			key->inset |= IS_VNI;
			key->vni = rte_be_to_cpu_32(vs->hdr.vx_vni) >> 8;
		}
		if ((ret = parse_eth_empty(it[4], e)))
			return ret;
		if ((ret = parse_ipv4(it[5], IS_I_SRC, IS_I_DST, &key->inset,
				      &key->i_src, &key->i_dst, e)))
			return ret;
	}
	if (!key->inset)	/* ice_fdir_parse(): "Invalid input set" */
		return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, NULL,
			    "Invalid input set (empty)");
	return 0;
}

static int
parse_actions(const struct fdir_model *m, const struct offload_rule *r,
	      uint32_t *mark, uint16_t *q_first, uint16_t *q_num,
	      struct rte_flow_error *e)
{
	unsigned n_mark = 0, n_dest = 0;

	*q_first = *q_num = 0;
	for (unsigned i = 0; ; i++) {
		if (i == OFFLOAD_MAX_ACTIONS)
			return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_NUM,
				    NULL, "actions not END-terminated");
		const struct rte_flow_action *a = &r->actions[i];

		if (a->type == RTE_FLOW_ACTION_TYPE_END)
			break;
		switch (a->type) {
		case RTE_FLOW_ACTION_TYPE_VOID:
			break;
		case RTE_FLOW_ACTION_TYPE_MARK: {
			const struct rte_flow_action_mark *mk = a->conf;

			if (!mk)
				return fail(e, EINVAL,
					    RTE_FLOW_ERROR_TYPE_ACTION_CONF,
					    a, "MARK without conf");
			if (++n_mark > 1)
				return fail(e, EINVAL,
					    RTE_FLOW_ERROR_TYPE_ACTION, a,
					    "Too many mark actions");
			/* ice_rxtx.c: flow_id 0xFFFFFFFF = no match */
			if (mk->id == UINT32_MAX)
				return fail(e, EINVAL,
					    RTE_FLOW_ERROR_TYPE_ACTION_CONF,
					    a, "mark 0xFFFFFFFF reads as no "
					    "match on the E810");
			*mark = mk->id;
			break;
		}
		case RTE_FLOW_ACTION_TYPE_RSS: {
			/* ice_fdir_parse_action_qregion() */
			const struct rte_flow_action_rss *rss = a->conf;

			if (++n_dest > 1)
				return fail(e, EINVAL,
					    RTE_FLOW_ERROR_TYPE_ACTION, a,
					    "Unsupported action combination");
			if (!rss || !rss->queue || rss->queue_num <= 1)
				return fail(e, EINVAL,
					    RTE_FLOW_ERROR_TYPE_ACTION, a,
					    "Queue region size can't be 0 "
					    "or 1.");
			for (uint32_t q = 0; q + 1 < rss->queue_num; q++)
				if (rss->queue[q + 1] != rss->queue[q] + 1)
					return fail(e, EINVAL,
						RTE_FLOW_ERROR_TYPE_ACTION, a,
						"Discontinuous queue region");
			if (rss->queue[rss->queue_num - 1] >= m->n_rxq)
				return fail(e, EINVAL,
					    RTE_FLOW_ERROR_TYPE_ACTION, a,
					    "Invalid queue region indexes.");
			if (!rte_is_power_of_2(rss->queue_num) ||
			    rss->queue_num > OFFLOAD_MAX_RSS_QUEUES)
				return fail(e, EINVAL,
					    RTE_FLOW_ERROR_TYPE_ACTION, a,
					    "The region size should be a power"
					    " of two up to 128");
			*q_first = rss->queue[0];
			*q_num = rss->queue_num;
			break;
		}
		default:
			/* ice also takes QUEUE, DROP, PASSTHRU, COUNT; the
			 * builder never makes them */
			return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION, a,
				    "Invalid action.");
		}
	}
	if (!n_mark)
		return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION, NULL,
			    "a MARK action is required");
	return 0;
}

static int
check_attr(const struct offload_rule *r, struct rte_flow_error *e)
{
	const struct rte_flow_attr *a = &r->attr;
	/* 22.11: group must be 0; from 23.11 group selects the engine and
	 * the Flow Director is group 2 (group 0: the switch filter, no
	 * MARK). */
	uint32_t fdir_group =
		RTE_VERSION >= RTE_VERSION_NUM(23, 11, 0, 0) ? 2 : 0;

	if (!a->ingress || a->egress || a->transfer)
		return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ATTR, a,
			    "ingress only");
	if (a->priority)	/* without pipe-mode-support devarg */
		return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ATTR_PRIORITY, a,
			    "priority must be 0");
	if (a->group != fdir_group)
		return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ATTR_GROUP, a,
			    "group is not the Flow Director's");
	return 0;
}

int
fdir_model_parse_rule(struct fdir_model *m, const struct offload_rule *r,
		      struct fdir_parsed *p, enum fdir_model_reject *why,
		      struct rte_flow_error *e)
{
	int ret;

	if ((ret = check_attr(r, e))) {
		*why = FDIR_REJ_ATTR;
		return ret;
	}
	if ((ret = parse_pattern(m, r, &p->key, e))) {
		*why = FDIR_REJ_PATTERN;
		return ret;
	}
	if ((ret = parse_actions(m, r, &p->mark, &p->q_first, &p->q_num,
				 e))) {
		*why = FDIR_REJ_ACTION;
		return ret;
	}
	return 0;
}

int
fdir_model_validate(struct fdir_model *m, const struct offload_rule *r,
		    struct rte_flow_error *error)
{
	struct fdir_parsed p;
	enum fdir_model_reject why;

	int ret = fdir_model_parse_rule(m, r, &p, &why, error);
	if (ret)
		rte_errno = -ret;
	return ret;
}
