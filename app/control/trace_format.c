/* SPDX-License-Identifier: BSD-3-Clause
 * trace show's rendering of the records (trace_format.h). Keys and
 * megaflows print as dpctl/dump-flows prints them (odp_format.c), ports
 * by name with their ofport, drop reasons by their counter names.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <rte_cycles.h>
#include "cmd_util.h"
#include "conntrack.h"
#include "dp_actions.h"
#include "dp_pmtud.h"
#include "json_out.h"
#include "odp_format.h"
#include "port.h"
#include "trace_format.h"

static const char *const action_names[] = {
	[DP_ACT_OUTPUT] = "output",
	[DP_ACT_TNL_PUSH] = "tnl_push",
	[DP_ACT_TNL_CLONE] = "tnl_clone",
	[DP_ACT_TNL_POP] = "tnl_pop",
	[DP_ACT_SET_ETH_SRC] = "set_eth_src",
	[DP_ACT_SET_ETH_DST] = "set_eth_dst",
	[DP_ACT_ARP_RESPOND] = "arp_respond",
	[DP_ACT_DROP] = "drop",
	[DP_ACT_SG] = "sg",
	[DP_ACT_DROP_COPY] = "drop_copy",
	[DP_ACT_CT] = "ct",
	[DP_ACT_RECIRC] = "recirc",
};

static const char *
action_name(uint16_t type)
{
	return type < RTE_DIM(action_names) && action_names[type] ?
	       action_names[type] : "?";
}

/* ct_state as OVS prints a key's: flags joined by '|' (odp_format.c) */
static void
put_ct_state(struct ds *out, uint32_t state)
{
	static const char *const names[] = {
		"new", "est", "rel", "rpl", "inv", "trk", "snat", "dnat",
	};
	bool any = false;

	for (unsigned b = 0; b < RTE_DIM(names); b++) {
		if (!(state & (1u << b)))
			continue;
		ds_put_format(out, "%s%s", any ? "|" : "", names[b]);
		any = true;
	}
	if (!any)
		ds_put_cstr(out, "-");
}

static void
put_port(struct ds *out, uint16_t idx)
{
	struct port *p = idx < n_ports ? port_at(idx) : NULL;

	if (p)
		ds_put_format(out, "%s (ofport %" PRIu32 ")", p->name,
			      p->ofport);
	else
		ds_put_format(out, "port #%u (gone)", idx);
}

/* A tnl_pop or tnl_push entry's outer address: an IPv6 underlay's is in
 * the entry's key (dp_trace.h), an IPv4 one in u64. NULL: no IPv6 key. */
static const struct flow_in6_addr *
tnl_addr6(const struct dp_trace_pkt *r, const struct dp_trace_entry *e,
	  bool src)
{
	if (e->key >= r->n_keys || !flow_key_has_line3(&r->keys[e->key].key))
		return NULL;
	return src ? &r->keys[e->key].key.tun_ipv6_src
		   : &r->keys[e->key].key.tun_ipv6_dst;
}

static const char *
tnl_addr_str(const struct dp_trace_pkt *r, const struct dp_trace_entry *e,
	     bool src, uint32_t host_order, char buf[INET6_ADDRSTRLEN])
{
	const struct flow_in6_addr *a6 = tnl_addr6(r, e, src);

	if (a6)
		return inet_ntop(AF_INET6, a6->a, buf, INET6_ADDRSTRLEN) ?
		       buf : "?";
	return ip_str(rte_cpu_to_be_32(host_order), buf);
}

static void
put_key(struct ds *out, const struct dp_trace_pkt *r, uint8_t slot)
{
	static const struct odp_format_opts o = { .names = true };

	if (slot >= r->n_keys) {
		ds_put_cstr(out, "(key not kept)");
		return;
	}
	odp_format_key(out, &r->keys[slot].key, &r->keys[slot].mask, &o);
}

static const char *
pass_name(uint8_t pass, char *buf, size_t len)
{
	if (pass == 0)
		return "outer";
	if (pass == 1)
		return "inner";
	snprintf(buf, len, "recirc %u", pass - 1);
	return buf;
}

/* An entry's details, for the text form (after the stage name). */
static void
entry_text(struct ds *out, const struct dp_trace_pkt *r,
	   const struct dp_trace_entry *e)
{
	char buf[INET6_ADDRSTRLEN];

	switch ((enum dp_trace_kind)e->kind) {
	case DP_TRACE_RX:
		put_port(out, e->port);
		ds_put_format(out, ", %" PRIu32 " bytes", e->u32);
		break;
	case DP_TRACE_MARK:
		ds_put_format(out, "NIC mark %" PRIu32 ": ", e->u32);
		if (e->u64) {
			odp_format_ufid(out, e->u64);
			ds_put_cstr(out, " (mark path: outer parse and "
				    "lookups skipped)");
		} else {
			ds_put_cstr(out, "not taken, to the full path");
		}
		break;
	case DP_TRACE_ARP:
		ds_put_cstr(out, e->u32 == DP_TRACE_ARP_REPLY ?
			    "request for our VTEP: answered" :
			    "reply to our request: learned");
		break;
	case DP_TRACE_EXTRACT:
		put_key(out, r, e->key);
		break;
	case DP_TRACE_HASH:
		ds_put_format(out, "0x%08" PRIx32 " (%s)", e->u32,
			      e->port ? "the NIC's, reused" : "computed");
		break;
	case DP_TRACE_EMC:
	case DP_TRACE_DPCLS:
	case DP_TRACE_UPCALL:
		if (!e->u64) {
			ds_put_cstr(out, "no megaflow installed (table full)");
			break;
		}
		ds_put_cstr(out, e->kind == DP_TRACE_EMC ? "hit " :
			    e->kind == DP_TRACE_DPCLS ? "hit " : "installed ");
		odp_format_ufid(out, e->u64);
		ds_put_cstr(out, " ");
		put_key(out, r, e->key);
		break;
	case DP_TRACE_SG:
	case DP_TRACE_CT:
		ds_put_format(out, "zone %u: ct_state ", e->port);
		put_ct_state(out, e->u32);
		if (e->kind == DP_TRACE_SG)
			ds_put_cstr(out, e->u64 ? " (sg allow)" : " (sg deny)");
		else if (e->u64)
			ds_put_cstr(out, " (commit)");
		break;
	case DP_TRACE_ACTION:
		ds_put_cstr(out, action_name(e->port));
		if (e->port == DP_ACT_DROP || e->port == DP_ACT_DROP_COPY)
			ds_put_format(out, " (%s)",
				      drop_reason_name((enum drop_reason)
						       e->u64));
		else if (e->port == DP_ACT_OUTPUT ||
			 e->port == DP_ACT_TNL_CLONE) {
			ds_put_cstr(out, " to ");
			put_port(out, (uint16_t)e->u32);
		} else if (e->port == DP_ACT_SG || e->port == DP_ACT_CT)
			ds_put_format(out, " zone %" PRIu32, e->u32);
		else if (e->port == DP_ACT_RECIRC)
			ds_put_format(out, " id %" PRIu32, e->u32);
		break;
	case DP_TRACE_TNL_POP:
		ds_put_format(out, "vni %" PRIu32 " from %s", e->u32,
			      tnl_addr_str(r, e, true,
					   (uint32_t)(e->u64 >> 32), buf));
		ds_put_format(out, " to %s",
			      tnl_addr_str(r, e, false, (uint32_t)e->u64,
					   buf));
		break;
	case DP_TRACE_TNL_PUSH:
		ds_put_format(out, "vni %" PRIu32 " to %s, udp src %u", e->u32,
			      tnl_addr_str(r, e, false,
					   (uint32_t)(e->u64 >> 32), buf),
			      (unsigned)(e->u64 & 0xffff));
		break;
	case DP_TRACE_RECIRC:
		ds_put_format(out, "recirc_id %u, ct_state ", e->port);
		put_ct_state(out, e->u32);
		break;
	case DP_TRACE_PMTUD:
		ds_put_format(out, "too long for the tunnel (mtu %" PRIu32
			      "): %s", e->u32,
			      dp_pmtud_verdict_text((enum dp_pmtud_verdict)
						    e->u64));
		if (e->u64 == DP_PMTUD_FRAG_NEEDED ||
		    e->u64 == DP_PMTUD_TOO_BIG) {
			ds_put_cstr(out, ", to ");
			put_port(out, e->port);
		}
		break;
	case DP_TRACE_OUTPUT:
		ds_put_cstr(out, "queued for ");
		put_port(out, e->port);
		break;
	case DP_TRACE_TX:
		ds_put_cstr(out, "sent by ");
		put_port(out, e->port);
		break;
	case DP_TRACE_DROP:
		ds_put_format(out, "%s%s", drop_reason_name((enum drop_reason)
							    e->port),
			      e->u32 ? " (a copy)" : "");
		break;
	case DP_TRACE_N_KINDS:
		break;
	}
}

/* The record's published entries: n (acquire), fields before it. */
static uint32_t
rec_entries(const struct dp_trace_pkt *r)
{
	return __atomic_load_n(&r->n, __ATOMIC_ACQUIRE);
}

static double
rec_us(const struct dp_trace *t, const struct dp_trace_pkt *r)
{
	const struct dp_trace_pkt *first = &t->pkts[0];

	return r->tsc >= first->tsc ?
	       (double)(r->tsc - first->tsc) * 1e6 / (double)t->tsc_hz : 0;
}

void
trace_format_pkt_text(struct ds *out, const struct dp_trace *t, uint32_t i,
		      bool verbose)
{
	const struct dp_trace_pkt *r = &t->pkts[i];
	uint32_t n = rec_entries(r);
	char buf[16];

	if (!n)
		return;
	ds_put_format(out, "Packet %" PRIu32 ": pmd %u, +%.3f us, received "
		      "on ", i + 1, r->pmd, rec_us(t, r));
	put_port(out, r->in_port);
	ds_put_format(out, ", %" PRIu32 " bytes\n", r->len);
	if (verbose) {	/* 16 bytes a line, as the stages indented */
		for (unsigned j = 0; j < r->head_len; j++)
			ds_put_format(out, "%s%02x", j % 16 == 0 ?
				      (j ? "\n  " : "  ") : " ", r->head[j]);
		if (r->head_len)
			ds_put_char(out, '\n');
	}
	for (uint32_t k = 0; k < n; k++) {
		const struct dp_trace_entry *e = &r->e[k];
		ds_put_format(out, "  %-8s %-9s ",
			      pass_name(e->pass, buf, sizeof buf),
			      dp_trace_kind_name(e->kind));
		entry_text(out, r, e);
		ds_put_char(out, '\n');
	}
	/* lost counts keys too: entries past the last may all be there */
	if (r->lost)
		ds_put_format(out, "  (%" PRIu32 " entries or flow keys not "
			      "kept: a record keeps %d entries and %d keys)\n",
			      r->lost, DP_TRACE_MAX_ENTRIES, DP_TRACE_MAX_KEYS);
}

static void
json_ufid(struct ds *out, uint64_t id)
{
	struct ds u;

	ds_init(&u);
	odp_format_ufid(&u, id);
	jw_string(out, ds_cstr(&u) + 5);	/* without "ufid:" */
	ds_destroy(&u);
}

static void
json_key_str(struct ds *out, const struct dp_trace_pkt *r, uint8_t slot)
{
	struct ds k;

	ds_init(&k);
	put_key(&k, r, slot);
	jw_string(out, ds_cstr(&k));
	ds_destroy(&k);
}

static void
json_port(struct ds *out, const char *key, uint16_t idx)
{
	struct port *p = idx < n_ports ? port_at(idx) : NULL;

	jw_key(out, key);
	if (p)
		jw_string(out, p->name);
	else
		jw_null(out);
	jw_key(out, "ofport");
	if (p)
		jw_u64(out, p->ofport);
	else
		jw_null(out);
}

static void
json_ct_state(struct ds *out, uint32_t state)
{
	struct ds s;

	ds_init(&s);
	put_ct_state(&s, state);
	jw_key(out, "ct_state");
	jw_string(out, ds_cstr(&s));
	ds_destroy(&s);
}

static void
entry_json(struct ds *out, const struct dp_trace_pkt *r,
	   const struct dp_trace_entry *e)
{
	char buf[INET6_ADDRSTRLEN];

	switch ((enum dp_trace_kind)e->kind) {
	case DP_TRACE_RX:
		json_port(out, "port", e->port);
		jw_key(out, "len"); jw_u64(out, e->u32);
		break;
	case DP_TRACE_MARK:
		jw_key(out, "mark"); jw_u64(out, e->u32);
		jw_key(out, "taken"); jw_bool(out, e->u64 != 0);
		if (e->u64) {
			jw_key(out, "ufid"); json_ufid(out, e->u64);
		}
		break;
	case DP_TRACE_ARP:
		jw_key(out, "result");
		jw_string(out, e->u32 == DP_TRACE_ARP_REPLY ? "reply"
							    : "learned");
		break;
	case DP_TRACE_EXTRACT:
		jw_key(out, "key"); json_key_str(out, r, e->key);
		break;
	case DP_TRACE_HASH:
		jw_key(out, "hash"); jw_u64(out, e->u32);
		jw_key(out, "from_nic"); jw_bool(out, e->port);
		break;
	case DP_TRACE_EMC:
	case DP_TRACE_DPCLS:
	case DP_TRACE_UPCALL:
		jw_key(out, "ufid");
		if (e->u64)
			json_ufid(out, e->u64);
		else
			jw_null(out);
		if (e->u64) {
			jw_key(out, "megaflow");
			json_key_str(out, r, e->key);
		}
		break;
	case DP_TRACE_SG:
	case DP_TRACE_CT:
		jw_key(out, "zone"); jw_u64(out, e->port);
		json_ct_state(out, e->u32);
		jw_key(out, e->kind == DP_TRACE_SG ? "allow" : "commit");
		jw_bool(out, e->u64);
		break;
	case DP_TRACE_ACTION:
		jw_key(out, "action"); jw_string(out, action_name(e->port));
		if (e->port == DP_ACT_DROP || e->port == DP_ACT_DROP_COPY) {
			jw_key(out, "reason");
			jw_string(out, drop_reason_name((enum drop_reason)
							e->u64));
		} else if (e->port == DP_ACT_OUTPUT ||
			   e->port == DP_ACT_TNL_CLONE) {
			json_port(out, "port", (uint16_t)e->u32);
		} else {
			jw_key(out, "arg"); jw_u64(out, e->u32);
		}
		break;
	case DP_TRACE_TNL_POP:
	case DP_TRACE_TNL_PUSH:
		jw_key(out, "vni"); jw_u64(out, e->u32);
		if (e->kind == DP_TRACE_TNL_POP) {
			jw_key(out, "src");
			jw_string(out, tnl_addr_str(r, e, true,
						    (uint32_t)(e->u64 >> 32),
						    buf));
			jw_key(out, "dst");
			jw_string(out, tnl_addr_str(r, e, false,
						    (uint32_t)e->u64, buf));
		} else {
			jw_key(out, "dst");
			jw_string(out, tnl_addr_str(r, e, false,
						    (uint32_t)(e->u64 >> 32),
						    buf));
			jw_key(out, "udp_src");
			jw_u64(out, e->u64 & 0xffff);
		}
		break;
	case DP_TRACE_RECIRC:
		jw_key(out, "recirc_id"); jw_u64(out, e->port);
		json_ct_state(out, e->u32);
		break;
	case DP_TRACE_PMTUD:
		jw_key(out, "mtu"); jw_u64(out, e->u32);
		jw_key(out, "verdict");
		jw_string(out, dp_pmtud_verdict_name((enum dp_pmtud_verdict)
						     e->u64));
		if (e->u64 == DP_PMTUD_FRAG_NEEDED ||
		    e->u64 == DP_PMTUD_TOO_BIG)
			json_port(out, "port", e->port);
		break;
	case DP_TRACE_OUTPUT:
	case DP_TRACE_TX:
		json_port(out, "port", e->port);
		break;
	case DP_TRACE_DROP:
		jw_key(out, "reason");
		jw_string(out, drop_reason_name((enum drop_reason)e->port));
		jw_key(out, "copy"); jw_bool(out, e->u32);
		break;
	case DP_TRACE_N_KINDS:
		break;
	}
}

void
trace_format_pkt_json(struct ds *out, const struct dp_trace *t, uint32_t i)
{
	const struct dp_trace_pkt *r = &t->pkts[i];
	uint32_t n = rec_entries(r);
	char buf[16];

	if (!n)		/* taken, not yet published: as the text form */
		return;
	jw_begin_object(out);
	jw_key(out, "packet"); jw_u64(out, i + 1);
	jw_key(out, "pmd"); jw_u64(out, r->pmd);
	json_port(out, "port", r->in_port);
	jw_key(out, "len"); jw_u64(out, r->len);
	jw_key(out, "us"); jw_double(out, rec_us(t, r));
	struct ds hex;
	ds_init(&hex);
	for (unsigned j = 0; j < r->head_len; j++)
		ds_put_format(&hex, "%02x", r->head[j]);
	jw_key(out, "head"); jw_string(out, ds_cstr(&hex));
	ds_destroy(&hex);
	jw_key(out, "lost"); jw_u64(out, r->lost);
	jw_key(out, "stages");
	jw_begin_array(out);
	for (uint32_t k = 0; k < n; k++) {
		const struct dp_trace_entry *e = &r->e[k];
		jw_begin_object(out);
		jw_key(out, "stage");
		jw_string(out, dp_trace_kind_name(e->kind));
		jw_key(out, "pass");
		jw_string(out, pass_name(e->pass, buf, sizeof buf));
		entry_json(out, r, e);
		jw_end_object(out);
	}
	jw_end_array(out);
	jw_end_object(out);
}
