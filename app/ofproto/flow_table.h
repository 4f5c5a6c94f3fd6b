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

#endif
