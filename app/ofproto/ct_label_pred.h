/* SPDX-License-Identifier: BSD-3-Clause
 * The ct_label predicates of the rule set. The flow key has no room for a
 * session's 128-bit ct_label, and rule sets match few distinct values of
 * it (Neutron's firewall driver: ct_label=0x1/0x1, "no longer allowed"),
 * so a recirculated key carries, instead of the label, one bit per
 * distinct ct_label=V/M the rules match: bit i = ((label & M_i) == V_i)
 * (flow_key.h ct_label_bits, set by ct_recirc.c). A megaflow then holds
 * one outcome per predicate it depends on, never one label value.
 *
 * The table has FLOW_CT_LABEL_PREDS slots. add-flow refuses (and counts)
 * a batch whose rules would need more; each publish (ofproto.c) frees the
 * slots no rule uses any more and gives the new predicates the lowest
 * free slots, so a predicate keeps its bit while rules use it. Control
 * thread only.
 */
#ifndef VXS_CT_LABEL_PRED_H
#define VXS_CT_LABEL_PRED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "dp_snapshot.h"
#include "ofp_rule.h"

/* r's ct_label=V/M as a predicate (V masked); false if it matches none. */
bool ct_label_pred_of(const struct ofp_rule *r, struct ct_label_pred *p);

/* Would the table hold the predicates of the current rules plus the n of
 * batch? 0 if so; else -1, *bad the index of the first rule that does not
 * fit, err naming its ct_label token, and the refusal counted. */
int ct_label_preds_admit(const struct ofp_rule *batch, int n, int *bad,
			 char *err, size_t errlen);

/* Builds s's predicate table from s's rules (s->gen already set): frees
 * the slots no rule uses, assigns the new predicates. */
void ct_label_preds_publish(struct dp_snapshot *s);

/* Slot of predicate p in s, -1 if none. */
int ct_label_pred_find(const struct dp_snapshot *s,
		       const struct ct_label_pred *p);

struct ct_label_pred_stats {
	uint32_t in_use;
	uint64_t refused;	/* add-flow(s) refused by the limit */
};
void ct_label_preds_get_stats(struct ct_label_pred_stats *st);
/* Forgets every slot (ofproto_fini) */
void ct_label_preds_reset(void);

#endif
