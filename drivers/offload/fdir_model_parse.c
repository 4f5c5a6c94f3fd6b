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
#include "fdir_model_priv.h"
#include "ice_fdir_msgs.h"

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

/* item->last (ice_fdir_filter.c ice_fdir_parse_pattern v22.11.11:
 * 1852-1859, v26.07:1926-1932): an IPv4 range whose last has any address,
 * length, ttl/tos/proto or checksum set is "Invalid IPv4 last." in every
 * release (v22.11.11:2036-2048, v26.07:2126-2138); any other IPv4 last is
 * ignored. On any other item, up to 26.03 ice sets "Not support range"
 * and goes on (no return): the range is ignored, the rule accepted (and
 * error keeps the message); 26.07 refuses it. */
static int
parse_range(const struct fdir_model *m, const struct rte_flow_item *x,
	    struct rte_flow_error *e)
{
	if (x->type == RTE_FLOW_ITEM_TYPE_IPV4) {
		const struct rte_flow_item_ipv4 *l = x->last;

		if (x->spec && x->mask &&
		    (l->hdr.version_ihl || l->hdr.type_of_service ||
		     l->hdr.time_to_live || l->hdr.total_length ||
		     l->hdr.next_proto_id || l->hdr.hdr_checksum ||
		     l->hdr.src_addr || l->hdr.dst_addr))
			return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, x,
				    "Invalid IPv4 last.");
		return 0;
	}
	if (m->profile == FDIR_PROFILE_ICE_2607)
		return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, x,
			    ICE_FDIR_MSG_RANGE);
	rte_flow_error_set(e, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, x,
			   ICE_FDIR_MSG_RANGE);
	return 0;
}

/* The IPv4 values of ice's duplicate key: from the spec whenever spec and
 * mask are given, whatever the mask (ice_fdir_filter.c v22.11.11:
 * 2070-2074, v26.07:2173-). */
static void
dup_ipv4(const struct rte_flow_item *it, struct fdir_dup_key *d)
{
	const struct rte_flow_item_ipv4 *s = it->spec;

	if (!it->spec || !it->mask)
		return;
	d->src = s->hdr.src_addr;
	d->dst = s->hdr.dst_addr;
	d->ttl = s->hdr.time_to_live;
	d->proto = s->hdr.next_proto_id;
	d->tos = s->hdr.type_of_service;
}

static int
parse_pattern(const struct fdir_model *m, const struct offload_rule *r,
	      struct fdir_key *key, struct fdir_dup_key *dup,
	      struct rte_flow_error *e)
{
	const struct rte_flow_item *it[OFFLOAD_MAX_ITEMS];
	unsigned n = 0;
	int ret;

	memset(key, 0, sizeof *key);
	memset(dup, 0, sizeof *dup);
	for (unsigned i = 0; ; i++) {
		if (i == OFFLOAD_MAX_ITEMS)
			return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_NUM,
				    NULL, "pattern not END-terminated");
		const struct rte_flow_item *x = &r->items[i];

		if (x->type == RTE_FLOW_ITEM_TYPE_END)
			break;
		if (x->type == RTE_FLOW_ITEM_TYPE_VOID)	/* ice skips it */
			continue;
		if (x->last && (ret = parse_range(m, x, e)))
			return ret;
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
	/* VXLAN over an IPv6 underlay: no ice engine lists the pattern, in
	 * any release to 26.07 (ice_fdir_msgs.h); ice's own words. */
	if (n > 3 && it[1]->type == RTE_FLOW_ITEM_TYPE_IPV6 &&
	    it[3]->type == RTE_FLOW_ITEM_TYPE_VXLAN)
		return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, it[1],
			    ICE_FDIR_MSG_PATTERN);
	if (n != nwant)
		return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, NULL,
			    "pattern is not eth/ipv4/udp[/vxlan/eth/ipv4]");
	for (unsigned i = 0; i < n; i++)
		if (it[i]->type != want[i])
			return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, it[i],
				    "pattern is not eth/ipv4/udp"
				    "[/vxlan/eth/ipv4]");
	key->type = r->type;
	dup->type = r->type;
	dup->tunnel = r->type == OFFLOAD_FT_VXLAN_IPV4;
	/* the key's IP fields: the only IPv4 header of a plain rule, the
	 * inner one of a tunnel rule (the outer goes to ip_outer, which is
	 * not in the key) */
	dup_ipv4(it[dup->tunnel ? 5 : 1], dup);
	if (!dup->tunnel && it[2]->spec && it[2]->mask) {
		const struct rte_flow_item_udp *u = it[2]->spec;

		dup->sport = u->hdr.src_port;
		dup->dport = u->hdr.dst_port;
	}

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

/* ice_fdir_parse_action_qregion, ice_fdir_filter.c v22.11.11:1664-1666,
 * v26.07:2918-2920 */
#define REGION_MSG(first) "The region size should be any of the following " \
	"values:" first "4, 8, 16, 32, 64, 128 as long as the total number " \
	"of queues do not exceed the VSI allocation."

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
					    m->profile == FDIR_PROFILE_ICE_2607 ?
					    REGION_MSG("2, ") : REGION_MSG("1, 2, "));
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

/* attr, per release. Returns 0, or -EINVAL with *why ATTR or GROUP. */
static int
check_attr(const struct fdir_model *m, const struct offload_rule *r,
	   enum fdir_model_reject *why, struct rte_flow_error *e)
{
	const struct rte_flow_attr *a = &r->attr;
	enum fdir_model_profile p = m->profile;

	*why = FDIR_REJ_ATTR;
	if (p == FDIR_PROFILE_ICE_2607) {
		/* the FDIR parser's ci_flow_check_attr(attr, NULL)
		 * (ice_fdir_filter.c v26.07:3031; drivers/net/intel/common/
		 * flow_check.h): the generic layer no longer checks attr */
		if (!a->ingress || a->egress)
			return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ATTR_INGRESS,
				    a, "Ingress attribute is required");
		if (a->transfer)
			return fail(e, EINVAL,
				    RTE_FLOW_ERROR_TYPE_ATTR_TRANSFER, a,
				    "Transfer not supported");
		if (a->group) {
			*why = FDIR_REJ_GROUP;
			return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ATTR_GROUP,
				    a, ICE_FDIR_MSG_GROUP_2607);
		}
		if (a->priority)
			return fail(e, EINVAL,
				    RTE_FLOW_ERROR_TYPE_ATTR_PRIORITY, a,
				    "Priority not supported");
		return 0;
	}
	/* ice_flow_valid_attr (ice_generic_flow.c v22.11.11:2019-2077;
	 * v23.11:1886-1921, the same without the group check) */
	if (!a->ingress)
		return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ATTR_INGRESS, a,
			    "Only support ingress.");
	if (a->egress)
		return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ATTR_EGRESS, a,
			    "Not support egress.");
	/* (v22.11.0 did not look at transfer; 22.11.x refuses it) */
	if (a->transfer)
		return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ATTR_TRANSFER, a,
			    "Not support transfer.");
	if (a->priority > 1)
		return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ATTR_PRIORITY, a,
			    "Only support priority 0 and 1.");
	/* priority 1 without the pipeline-mode devarg: ice_fdir_parse
	 * returns -rte_errno without a message of its own
	 * (ice_fdir_filter.c v22.11.11:2476-2477; gone in 23.11.5, 24.11.3,
	 * 25.07: commit 1f332499adc5), leaving the last parser's text; ours
	 * names the cause */
	if (a->priority)
		return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ATTR_PRIORITY, a,
			    "priority must be 0");
	*why = FDIR_REJ_GROUP;
	switch (p) {
	case FDIR_PROFILE_ICE_2211:
		if (a->group)
			return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ATTR_GROUP,
				    a, ICE_FDIR_MSG_GROUP_2211);
		break;
	case FDIR_PROFILE_ICE_2311_0:
		/* get_flow_parser(group) (ice_generic_flow.c v23.11:
		 * 2236-2248, 2285-2315): one parser, chosen by the group; the
		 * switch parses our patterns (ice_switch_filter.c v23.11:217)
		 * and refuses MARK (:1745-1749) */
		if (a->group == 0)	/* the switch filter: no MARK */
			return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION,
				    r->actions, ICE_FDIR_MSG_SWITCH_ACTION);
		if (a->group == 1)	/* ACL: DCF only, disabled on a PF */
			return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
				    NULL, ICE_FDIR_MSG_ENGINE_OFF);
		if (a->group > 2)
			return fail(e, EINVAL, RTE_FLOW_ERROR_TYPE_ATTR, NULL,
				    ICE_FDIR_MSG_NO_PARSER);
		break;
	default:
		/* 23.11.4 / 24.11.2 / 25.03-26.03, "net/ice: fix flows
		 * handling" (fabc9e1322e2): ACL, switch, FDIR tried in turn,
		 * attr.group never read (ice_generic_flow.c v23.11.4:
		 * 2253-2325) */
		break;
	}
	*why = FDIR_REJ_ATTR;
	return 0;
}

int
fdir_model_parse_rule(struct fdir_model *m, const struct offload_rule *r,
		      struct fdir_parsed *p, enum fdir_model_reject *why,
		      struct rte_flow_error *e)
{
	int ret;

	if ((ret = check_attr(m, r, why, e)))
		return ret;
	if ((ret = parse_pattern(m, r, &p->key, &p->dup, e))) {
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
