/* SPDX-License-Identifier: BSD-3-Clause
 * The rule table's life, for ofproto.c: its public side (add, modify,
 * delete, the rules in order) is ofproto.h's.
 */
#ifndef VXS_FLOW_TABLE_H
#define VXS_FLOW_TABLE_H

#include <stddef.h>
#include "config.h"

/* Sizes the table (datapath max-flows) and adds the topology's flows:;
 * an error names the flow's file:line:col. */
int flow_table_load(const struct vxs_config *cfg, char *err, size_t errlen);
void flow_table_fini(void);

#include <stdint.h>

/* For the publish (ofproto.c): the tables changed since the last publish
 * (bit t % 64 of word t / 64), and their clearing once it is built. */
void flow_table_dirty(uint64_t dirty[4]);
void flow_table_dirty_clear(void);
/* The rule objects dropped since the last call, which no slot holds any
 * more: the caller frees them (and the array) once no PMD can read the
 * snapshot published before. */
struct ofp_rule;
uint32_t flow_table_take_dropped(struct ofp_rule ***dropped);

#endif
