/* SPDX-License-Identifier: BSD-3-Clause
 * Between the parts of the rule formatter (ofp_format*.c): the
 * snprintf-like buffer and the value printers both use. Not for other
 * modules.
 */
#ifndef VXS_OFP_FORMAT_PRIV_H
#define VXS_OFP_FORMAT_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include "ofp_rule.h"

/* snprintf-like accumulation: keeps counting past the end of buf so that
 * the caller learns the length it would have needed. */
struct sbuf {
	char *buf;
	size_t size;
	size_t len;
	bool need_comma;	/* between match items */
};

void sbuf_init(struct sbuf *b, char *buf, size_t size);
int sbuf_result(const struct sbuf *b);
void __attribute__((format(printf, 2, 3)))
put(struct sbuf *b, const char *fmt, ...);
/* A comma-separated match item. */
void __attribute__((format(printf, 2, 3)))
item(struct sbuf *b, const char *fmt, ...);
void put_ipv4(struct sbuf *b, rte_be32_t ip);
void put_port(struct sbuf *b, const struct ofp_port_map *ports,
	      uint32_t port);
/* NAME=MAC[/MASK] as a match item */
void put_mac_masked(struct sbuf *b, const char *name,
		    const struct rte_ether_addr *mac,
		    const struct rte_ether_addr *mask);

/* ofp_format_ipv6.c: ipv6_src, ipv6_dst, ipv6_label (where ovs-ofctl
 * prints nw_src and nw_dst for IPv4), and nd_target, nd_sll, nd_tll
 * (after icmp_type and icmp_code). */
void put_ipv6_l3(struct sbuf *b, const struct flow_key *match,
		 const struct flow_key *mask);
/* tun_ipv6_src, tun_ipv6_dst (after tun_src and tun_dst, as match_format) */
void put_tun_ipv6(struct sbuf *b, const struct flow_key *match,
		  const struct flow_key *mask);
void put_nd(struct sbuf *b, const struct flow_key *match,
	    const struct flow_key *mask);

/* ofp_format_ct.c: what ovs-ofctl prints before the protocol (ct_state,
 * ct_zone, ct_mark, ct_label) and after it (reg0..reg7), and the
 * pipeline and conntrack actions. */
void put_meta_ct(struct sbuf *b, const struct ofp_meta *v,
		 const struct ofp_meta *m);
void put_meta_regs(struct sbuf *b, const struct ofp_meta *v,
		   const struct ofp_meta *m);
/* true if a is one of the actions this part prints */
bool put_pipeline_action(struct sbuf *b, const struct ofp_rule *r,
			 const struct ofp_action *a,
			 const struct ofp_port_map *ports);

#endif
