/* SPDX-License-Identifier: BSD-3-Clause
 * Between the parts of the software Flow Director (fdir_model*.c): the
 * model and rule layout, the rule parser the writer calls and the table
 * lookup the rx callback calls. Not for other modules.
 */
#ifndef VXS_FDIR_MODEL_PRIV_H
#define VXS_FDIR_MODEL_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_byteorder.h>
#include <rte_ethdev.h>
#include <rte_spinlock.h>
#include "fdir_model.h"
#include "nh_hash.h"
#include "ice_fdir_msgs.h"

/* input-set fields */
#define IS_O_SRC (1u << 0)
#define IS_O_DST (1u << 1)
#define IS_SPORT (1u << 2)
#define IS_DPORT (1u << 3)
#define IS_VNI   (1u << 4)
#define IS_I_SRC (1u << 5)
#define IS_I_DST (1u << 6)

/* Packet fields a rule can match, network order; masked by the input set,
 * which is part of the key. */
struct fdir_key {
	uint32_t type;
	uint32_t inset;
	rte_be32_t o_src, o_dst;
	rte_be16_t sport, dport;
	rte_be32_t vni;		/* 24 bits, host order */
	rte_be32_t i_src, i_dst;
};

/* ice's duplicate-rule key (ice_fdir_extract_fltr_key, ice_fdir_filter.c
 * v22.11.11:1243-1260, v26.07:1452-1481; struct ice_fdir_fltr_pattern,
 * ice_ethdev.h v22.11.11:354-369, v26.07:401-419): the flow type, the
 * IPv4 fields of
 * the non-tunnel header or, in a tunnel rule, of the INNER header (taken
 * from the item's spec whenever spec and mask are given, masked or not),
 * and the tunnel type. ice's key also has the masks, ext_data (inner eth)
 * and GTP fields: the masks are never filled in by ice's parser (so they
 * are always zero) and the rest is zero in every rule the whitelist
 * passes. NOT in it: the outer IPv4 of a tunnel rule, the VNI. */
struct fdir_dup_key {
	uint32_t type;
	uint32_t tunnel;		/* 1: VXLAN */
	rte_be32_t src, dst;
	rte_be16_t sport, dport;
	uint8_t ttl, proto, tos, pad;
};

struct fdir_model_rule {
	struct fdir_model_rule *next;	/* bucket chain (RCU) */
	struct fdir_model_rule *dup_next;	/* dup-key chain, writer only */
	struct fdir_dup_key dup;
	struct fdir_model_rule *all_prev, *all_next;	/* writer only; once
						 * destroyed, all_next
						 * links the retired */
	uint64_t retire_token;		/* destroyed: its RCU token */
	struct fdir_key key;
	uint32_t mark;
	uint16_t q_first, q_num;	/* RSS region, q_num 0: none */
	bool in_pool;
};

struct fdir_model_pool {
	uint32_t size;
	uint32_t used;		/* atomic */
};

struct fdir_model {
	uint16_t port;
	uint16_t n_rxq;
	enum fdir_model_profile profile;
	/* the registered VXLAN port, 0: none (read by the PMDs) */
	rte_be16_t tunnel_port;
	struct rte_rcu_qsbr *qsbr;
	rte_spinlock_t wlock;

	uint32_t guar;
	struct fdir_model_pool *pool;
	bool own_pool;

	/* per flow type profile: read by the PMDs. A profile is programmed
	 * by the first create with its input set (even one that then fails)
	 * and stays, without rules, until a create with another input set
	 * replaces it; prof_seq orders the profiles by when they were
	 * programmed (0: none yet), which decides who owns the packet types
	 * both can match (fdir_model_rx.c) */
	uint32_t inset[OFFLOAD_FT_N];
	uint64_t prof_seq[OFFLOAD_FT_N];
	uint64_t prof_clock;		/* writer */
	uint32_t n_rules[OFFLOAD_FT_N];	/* writer */

	struct fdir_model_rule *all;	/* writer */
	/* destroyed rules readers may still be on, oldest first: freed once
	 * their grace period has passed (writer) */
	struct fdir_model_rule *retired, *retired_tail;
	uint32_t n_retired;
	struct fdir_model_stats st;	/* writer fields; rx counters atomic */

	const struct rte_eth_rxtx_callback *cbs[RTE_MAX_QUEUES_PER_PORT];
	uint16_t cb_port, n_cbs;

	uint32_t bucket_mask;
	/* keys rule keys and dup keys: the rules come from megaflows, whose
	 * keys a tenant chooses (fdir_model.c, key_hash) */
	struct nh_secret hsecret;
	struct fdir_model_rule **buckets;
	struct fdir_model_rule **dup_buckets;	/* writer only */
};

/* A rule that passed the whitelist: its table key and its actions. */
struct fdir_parsed {
	struct fdir_key key;
	struct fdir_dup_key dup;
	uint32_t mark;
	uint16_t q_first, q_num;
};

/* Sets the rte_flow error (and so rte_errno); returns -code. */
static inline int
fail(struct rte_flow_error *e, int code, enum rte_flow_error_type t,
     const void *cause, const char *msg)
{
	rte_flow_error_set(e, code, t, cause, msg);
	return -code;
}

/* The ice checks, in ice's order: attr, pattern, actions; on refusal *why
 * says which (fdir_model_parse.c). */
int fdir_model_parse_rule(struct fdir_model *m, const struct offload_rule *r,
			  struct fdir_parsed *p, enum fdir_model_reject *why,
			  struct rte_flow_error *e);

/* The rule with exactly key k, or NULL; safe for RCU readers. */
struct fdir_model_rule *fdir_model_table_find(struct fdir_model *m,
					       const struct fdir_key *k);

#endif
