/* SPDX-License-Identifier: BSD-3-Clause
 * A rule's flow_mod flags and importance in ovs-ofctl's two forms, and
 * check_overlap's test (OVS's classifier_rule_overlaps). */
#include <stdio.h>
#include "ofp_rule.h"

static const char *const flag_names[OFP_N_FLAGS] = {
	"send_flow_rem", "check_overlap", "reset_counts", "no_packet_counts",
	"no_byte_counts",
};

const char *
ofp_flag_name(int i)
{
	return i >= 0 && i < OFP_N_FLAGS ? flag_names[i] : NULL;
}

/* snprintf that never passes len and keeps counting, as snprintf does */
#define PUT(...) (n += snprintf(buf + (n < len ? n : len), \
				n < len ? len - n : 0, __VA_ARGS__))

int
ofp_format_fmod_words(const struct ofp_rule *r, char *buf, size_t len)
{
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	for (int i = 0; i < OFP_N_FLAGS; i++)
		if (r->flags & (1u << i))
			PUT("%s,", flag_names[i]);
	if (r->importance)
		PUT("importance=%u,", r->importance);
	return (int)n;
}

/* ofp_print_flow_flags: each word and a space; then "importance=N, " */
int
ofp_format_fmod_dump(const struct ofp_rule *r, char *buf, size_t len)
{
	size_t n = 0;

	if (len)
		buf[0] = '\0';
	for (int i = 0; i < OFP_N_FLAGS; i++)
		if (r->flags & (1u << i))
			PUT("%s ", flag_names[i]);
	if (r->importance)
		PUT("importance=%u, ", r->importance);
	return (int)n;
}

bool
ofp_rule_overlaps(const struct ofp_rule *a, const struct ofp_rule *b)
{
	uint64_t diff = 0;

	if (a->table_id != b->table_id || a->priority != b->priority)
		return false;
	for (int i = 0; i < FLOW_KEY_WORDS; i++)
		diff |= (a->match.w[i] ^ b->match.w[i]) &
			a->mask.w[i] & b->mask.w[i];
	for (int i = 0; i < 8; i++)
		diff |= (a->meta_match.w[i] ^ b->meta_match.w[i]) &
			a->meta_mask.w[i] & b->meta_mask.w[i];
	return diff == 0;
}
