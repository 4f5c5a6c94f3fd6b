/* SPDX-License-Identifier: BSD-3-Clause
 * openflow/show: the OpenFlow channel (of_chan.h): the bridge and its
 * management socket (or why there is none), each connection with its
 * version, role and counters, the channel's counters (refusals at the
 * connection limit among them) and the messages received by type,
 * handled or refused. --json: the same content as one object, written
 * with jansson.
 */
#include <stdio.h>
#include <stdlib.h>

#include <jansson.h>

#include "json_reply.h"
#include "clock.h"
#include "control.h"
#include "of_conn.h"

static const char *
version_name(uint8_t v)
{
	switch (v) {
	case OFP10_VERSION: return "OpenFlow10";
	case OFP13_VERSION: return "OpenFlow13";
	case OFP14_VERSION: return "OpenFlow14";
	case OFP15_VERSION: return "OpenFlow15";
	default: return "none";	/* before the hello */
	}
}

static const char *
role_name(uint32_t role)
{
	return role == OFPCR_ROLE_MASTER ? "master"
	       : role == OFPCR_ROLE_SLAVE ? "slave" : "equal";
}

static int
put_json(struct ds *out)
{
	json_t *conns = json_array(), *counters = json_object();
	json_t *types = json_array();
	uint64_t now = vxs_now_ms();

	for (int i = 0; i < OF_CHAN_MAX_CONNS; i++) {
		const struct of_conn *c = &of_chan.conns[i];
		if (!c->used)
			continue;
		json_array_append_new(conns, json_pack(
			"{s:I, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:b}",
			"id", (json_int_t)c->id,
			"version", version_name(c->version),
			"role", role_name(c->role),
			"age_ms", (json_int_t)(now - c->connected_ms),
			"msgs_in", (json_int_t)c->msgs_in,
			"msgs_out", (json_int_t)c->msgs_out,
			"errors_out", (json_int_t)c->errors_out,
			"tx_queued", (json_int_t)c->tx_len,
			"closing", c->closing));
	}
#define SET_COUNTER(name) json_object_set_new(counters, #name, \
	json_integer((json_int_t)of_chan.n.name));
	OF_COUNTERS(SET_COUNTER)
#undef SET_COUNTER
	for (int f = 0; f < 2; f++)
		for (unsigned t = 0; t < 256; t++) {
			unsigned long long h = of_chan.types.handled[f][t];
			unsigned long long r = of_chan.types.refused[f][t];
			const char *name = of_type_name(f, t);
			if (!h && !r)
				continue;
			json_array_append_new(types, json_pack(
				"{s:s, s:I, s:s?, s:I, s:I}",
				"family", f ? "1.3+" : "1.0",
				"type", (json_int_t)t, "name", name,
				"handled", (json_int_t)h,
				"refused", (json_int_t)r));
		}
	json_t *o = json_pack(
		"{s:s?, s:s?, s:s?, s:I, s:I, s:o, s:o, s:o}",
		"bridge", *of_chan.bridge ? of_chan.bridge : NULL,
		"socket", *of_chan.path ? of_chan.path : NULL,
		"socket_error", *of_chan.listen_error ? of_chan.listen_error
						      : NULL,
		"max_connections", (json_int_t)OF_CHAN_MAX_CONNS,
		"tx_max", (json_int_t)OF_CHAN_TX_MAX,
		"connections", conns, "counters", counters,
		"messages", types);
	return json_reply(out, o, "openflow/show");
}

static int
cmd_openflow_show(int argc, const char *argv[], bool json, struct ds *out,
		  void *aux)
{
	uint64_t now = vxs_now_ms();
	int n = 0;

	(void)argc, (void)argv, (void)aux;
	if (!of_chan.enabled) {
		ds_put_cstr(out, "the OpenFlow channel is off");
		return -1;
	}
	if (json)
		return put_json(out);
	ds_put_format(out, "bridge: %s\n", *of_chan.bridge ? of_chan.bridge
			: "none (no OpenFlow bridge in the database yet)");
	if (*of_chan.path)
		ds_put_format(out, "socket: punix:%s\n", of_chan.path);
	else
		ds_put_format(out, "socket: none%s%s\n",
			      *of_chan.listen_error ? ": " : "",
			      of_chan.listen_error);
	for (int i = 0; i < OF_CHAN_MAX_CONNS; i++)
		n += of_chan.conns[i].used;
	ds_put_format(out, "connections: %d (at most %d, %d bytes queued "
		      "each)\n", n, OF_CHAN_MAX_CONNS, OF_CHAN_TX_MAX);
	for (int i = 0; i < OF_CHAN_MAX_CONNS; i++) {
		const struct of_conn *c = &of_chan.conns[i];
		if (!c->used)
			continue;
		ds_put_format(out, "  #%llu: %s, role %s, %llu s, in %llu, "
			      "out %llu, errors %llu, queued %zu%s\n", c->id,
			      version_name(c->version), role_name(c->role),
			      (unsigned long long)(now - c->connected_ms) /
				      1000, c->msgs_in, c->msgs_out,
			      c->errors_out, c->tx_len,
			      c->closing ? ", closing" : "");
	}
	ds_put_cstr(out, "counters:\n");
#define PUT_COUNTER(name) \
	ds_put_format(out, "  %s: %llu\n", #name, of_chan.n.name);
	OF_COUNTERS(PUT_COUNTER)
#undef PUT_COUNTER
	ds_put_cstr(out, "messages (handled/refused):\n");
	for (int f = 0; f < 2; f++)
		for (unsigned t = 0; t < 256; t++) {
			unsigned long long h = of_chan.types.handled[f][t];
			unsigned long long r = of_chan.types.refused[f][t];
			const char *name = of_type_name(f, t);
			if (!h && !r)
				continue;
			ds_put_format(out, "  %s ", f ? "1.3+" : "1.0");
			if (name)
				ds_put_cstr(out, name);
			else
				ds_put_format(out, "type %u", t);
			ds_put_format(out, ": %llu/%llu\n", h, r);
		}
	return 0;
}

void
of_chan_register(void)
{
	control_register("openflow/show", "", 0, 0, cmd_openflow_show, NULL);
}
