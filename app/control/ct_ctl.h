/* SPDX-License-Identifier: BSD-3-Clause
 * The connection tracker in the daemon (cmd_ct.c): created after the
 * PMDs' RCU variable (pmds_init) and before the PMDs (their datapaths
 * take pmd_conntrack), swept by the control loop, destroyed after the
 * PMDs stopped. */
#ifndef VXS_CT_CTL_H
#define VXS_CT_CTL_H

#include <stddef.h>
#include "config.h"

int ct_ctl_init(const struct vxs_config *cfg, char *err, size_t errlen);
void ct_ctl_tick(void);
void ct_ctl_fini(void);

#endif
