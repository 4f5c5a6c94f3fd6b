/* SPDX-License-Identifier: BSD-3-Clause
 * The OpenFlow channel's rule messages (of_flows.c): flow_mod, flow and
 * aggregate stats, and Nicira's settings for them, for of_handlers.c.
 * Each takes one whole message of a negotiated connection and answers it
 * (a reply, or OVS's error), counting it once.
 */
#ifndef VXS_OF_FLOWS_H
#define VXS_OF_FLOWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct of_conn;

/* OFPT_FLOW_MOD, or Nicira's NXT_FLOW_MOD. */
void of_flow_mod(struct of_conn *c, const uint8_t *msg, size_t len);
/* A flow or aggregate stats request: 1.0's OFPST_FLOW/AGGREGATE and
 * NXST_FLOW/AGGREGATE (OFPST_VENDOR), 1.3+'s OFPMP_FLOW/AGGREGATE. */
void of_flow_stats(struct of_conn *c, const uint8_t *msg, size_t len);
/* A Nicira message (OFPT_EXPERIMENTER with Nicira's id) of this file's:
 * NXT_FLOW_MOD, NXT_SET_FLOW_FORMAT, NXT_FLOW_MOD_TABLE_ID; false (and
 * nothing answered) for another subtype. */
bool of_flows_nx_message(struct of_conn *c, const uint8_t *msg, size_t len);

#endif
