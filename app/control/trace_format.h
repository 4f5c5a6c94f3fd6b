/* SPDX-License-Identifier: BSD-3-Clause
 * A packet trace's records (app/datapath/dp_trace.h) as trace show prints
 * them: text, one block per packet and one line per entry, or JSON
 * (doc/operating.md, "Tracing packets"). Reads records the PMDs may still
 * be filling: each as far as it is published.
 */
#ifndef VXS_TRACE_FORMAT_H
#define VXS_TRACE_FORMAT_H

#include <stdbool.h>
#include "dp_trace.h"
#include "ds.h"

/* Packet i (0-based) of t; verbose adds the bytes as received. Nothing
 * for a record taken but not yet published (its rx entry). */
void trace_format_pkt_text(struct ds *out, const struct dp_trace *t,
			   uint32_t i, bool verbose);
void trace_format_pkt_json(struct ds *out, const struct dp_trace *t,
			   uint32_t i);

#endif
