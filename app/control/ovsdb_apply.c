/* SPDX-License-Identifier: BSD-3-Clause
 * OVSDB mode's reconfiguration (ovsdb_apply.h): the verdicts' commands
 * run through the control socket's own dispatcher, so a port made from
 * the database is checked, refused and reported exactly as one made by
 * `vxswitch-ctl add-port`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control_priv.h"
#include "ds.h"
#include "ovsdb_apply.h"
#include "ovsdb_client.h"
#include "port.h"
#include "vlog.h"

#define AFFINITY_WORD "rxq-affinity="

/* name -> the add-port words last applied for it (applied_entry()):
 * the ports this module made */
static json_t *applied;
/* the core list pmd-cpu-mask last set */
static char applied_pmd[512];
/* ovsdb_apply() is running its commands */
static bool applying;

bool
ovsdb_apply_refuses(const char *command, struct ds *out)
{
	if (!ovsdb_client_enabled() || applying)
		return false;
	ds_put_format(out, "%s: OVSDB mode: the database is the source of "
		      "truth (use ovs-vsctl)", command);
	return true;
}

static const char *
vstr(const json_t *v, const char *key)
{
	return json_string_value(json_object_get(v, key));
}

/* The words as one string (a NUL-free separator), without the
 * rxq-affinity word when 'affinity' is false. */
static void
join(const json_t *argv, bool affinity, struct ds *out)
{
	size_t i;
	const json_t *w;

	ds_clear(out);
	json_array_foreach(argv, i, w) {
		const char *s = json_string_value(w);
		if (!affinity && !strncmp(s, AFFINITY_WORD,
					  strlen(AFFINITY_WORD)))
			continue;
		ds_put_format(out, "%s\x1f", s);
	}
}

/* An ofport=N word whose number another port holds: OVS gives the port
 * a number of its own then, no refusal (alloc_ofp_port()). */
static bool
ofport_taken(const char *word, const char *name)
{
	const struct port *owner;

	if (strncmp(word, "ofport=", 7))
		return false;
	owner = port_by_ofport((uint32_t)strtoul(word + 7, NULL, 10));
	return owner && strcmp(owner->name, name);
}

/* Runs one command; 0, or -1 with its error text in 'err'. */
static int
run(const json_t *argv, const char *extra, struct ds *err)
{
	const char *args[72];
	const char *name = json_string_value(json_array_get(argv, 1));
	int n = 0;
	size_t i;
	const json_t *w;

	json_array_foreach(argv, i, w)
		if (n < 70 && !(name && ofport_taken(json_string_value(w),
							name)))
			args[n++] = json_string_value(w);
	if (extra)
		args[n++] = extra;
	args[n] = NULL;
	ds_clear(err);
	return control_execute_argv(n, args, false, false, err);
}

/* Records the row's outcome under its uuid; returns the record (NULL
 * when the row has no uuid or memory ran out), for a caller adding more. */
static json_t *
result(json_t *results, const json_t *v, long long ofport,
       const char *error, const char *port)
{
	const char *uuid = vstr(v, "uuid");
	json_t *r;

	if (!uuid)
		return NULL;
	r = json_pack("{s:s, s:I, s:s?}", "name", vstr(v, "name"), "ofport",
		      (json_int_t)ofport, "error", error);
	if (r && port)
		json_object_set_new(r, "port", json_string(port));
	json_object_set_new(results, uuid, r);
	return r;
}

/* The rxq-affinity word of the words, or NULL. */
static const char *
affinity_word(const json_t *argv)
{
	size_t i;
	const json_t *w;

	json_array_foreach(argv, i, w)
		if (!strncmp(json_string_value(w), AFFINITY_WORD,
			     strlen(AFFINITY_WORD)))
			return json_string_value(w);
	return NULL;
}

/* What 'applied' keeps for a port: its words joined, with and without
 * the affinity. */
static json_t *
applied_entry(const json_t *argv, struct ds *scratch)
{
	json_t *e = json_object();

	join(argv, true, scratch);
	json_object_set_new(e, "all", json_string(ds_cstr(scratch)));
	join(argv, false, scratch);
	json_object_set_new(e, "base", json_string(ds_cstr(scratch)));
	return e;
}

/* A running port the database names with other words: only a new
 * pmd-rxq-affinity is set in place (queues move, the guest stays);
 * anything else needs the port made again. True when done in place. */
static bool
changed_in_place(const char *name, const json_t *argv, struct ds *scratch)
{
	const json_t *last = json_object_get(applied, name);
	const char *aff = affinity_word(argv);

	if (!last || !aff)
		return false;
	join(argv, false, scratch);
	if (strcmp(vstr(last, "base"), ds_cstr(scratch)))
		return false;
	const char *set[] = { "set", "Interface", name, aff, NULL };
	ds_clear(scratch);
	if (control_execute_argv(4, set, false, false, scratch))
		VLOG_WARN(control, "ovsdb: Interface %s: %s", name,
			  ds_cstr(scratch));
	json_object_set_new(applied, name, applied_entry(argv, scratch));
	return true;
}

/* The ports the database no longer names, or names with other words
 * (made again below), removed; 'again' gets the numbers of those made
 * again, by name. */
static void
remove_stale(const json_t *desired, json_t *again, struct ds *scratch)
{
	char (*names)[CFG_NAME_MAX] = calloc(PORT_MAX, sizeof *names);
	struct port *p;
	unsigned n = 0;

	if (!names)
		return;
	PORTS_FOREACH(p)
		if (!p->removing && !p->is_underlay)
			snprintf(names[n++], CFG_NAME_MAX, "%s", p->name);
	for (unsigned i = 0; i < n; i++) {
		const json_t *v = json_object_get(desired, names[i]);
		const json_t *argv = json_object_get(v, "argv");

		if (v) {
			const json_t *last = json_object_get(applied,
							     names[i]);
			join(argv, true, scratch);
			if (last && !strcmp(vstr(last, "all"),
					    ds_cstr(scratch)))
				continue;	/* as it is */
			if (changed_in_place(names[i], argv, scratch))
				continue;
			p = port_by_name(names[i]);
			if (p)
				json_object_set_new(again, names[i],
						    json_integer(p->ofport));
		}
		const char *del[] = { "del-port", names[i], NULL };
		ds_clear(scratch);
		if (control_execute_argv(2, del, false, false, scratch))
			VLOG_WARN(control, "ovsdb: del-port %s: %s", names[i],
				  ds_cstr(scratch));
		else
			VLOG_INFO(control, "ovsdb: %s removed%s", names[i],
				  v ? " (to be made again)" : "");
		json_object_del(applied, names[i]);
	}
	free(names);
}

static void
apply_pmd_cores(const json_t *v, struct ds *scratch)
{
	const json_t *argv = json_object_get(v, "argv");
	const char *list = json_string_value(json_array_get(argv, 1));
	if (!list || !strcmp(applied_pmd, list))
		return;
	if (run(argv, NULL, scratch)) {
		VLOG_WARN(control, "ovsdb: other_config:pmd-cpu-mask: %s",
			  ds_cstr(scratch));
		return;
	}
	snprintf(applied_pmd, sizeof applied_pmd, "%s", list);
}

static bool
has_ofport_word(const json_t *argv)
{
	size_t i;
	const json_t *w;

	json_array_foreach(argv, i, w)
		if (!strncmp(json_string_value(w), "ofport=", 7))
			return true;
	return false;
}

/* OVS's words for the refusals it has words for (lib/netdev-dpdk.c:1870,
 * :1990), from add-port's; vxswitch's own stay in the log. */
static void
ovs_words(const char *name, const char *text, struct ds *out)
{
	char dev[256], owner[64];
	size_t n = strlen(name);

	if (strncmp(text, name, n) || strncmp(text + n, ": ", 2)) {
		ds_put_cstr(out, text);
		return;
	}
	text += n + 2;
	if (sscanf(text, "cannot probe device '%255[^']'", dev) == 1)
		ds_put_format(out, "Error attaching device '%s' to DPDK", dev);
	else if (sscanf(text, "device '%255[^']' is already port '%63[^']'",
			dev, owner) == 2)
		ds_put_format(out, "'%s' is trying to use device '%s' which is "
			      "already in use by '%s'", name, dev, owner);
	else
		ds_put_format(out, "%s: %s", name, text);
}

json_t *
ovsdb_apply(const json_t *verdicts)
{
	json_t *results = json_object(), *desired = json_object();
	json_t *again = json_object();
	struct ds scratch, words;
	const json_t *v;
	size_t i;

	if (!applied)
		applied = json_object();
	if (!results || !desired || !again || !applied) {
		json_decref(desired);
		json_decref(again);
		json_decref(results);
		return NULL;
	}
	ds_init(&scratch);
	ds_init(&words);
	applying = true;
	json_array_foreach(verdicts, i, v) {
		const char *verdict = vstr(v, "verdict");
		const char *role = vstr(v, "role");
		const json_t *argv = json_object_get(v, "argv");

		if (!strcmp(vstr(v, "table"), "Open_vSwitch")) {
			if (argv && !strcmp(verdict, "do"))
				apply_pmd_cores(v, &scratch);
			continue;
		}
		if (strcmp(vstr(v, "table"), "Interface"))
			continue;
		if (!strcmp(verdict, "refused") && role &&
		    !strcmp(role, "not-netdev")) {
			continue;	/* as OVS: its bridge was never made */
		} else if (!strcmp(verdict, "refused")) {
			result(results, v, -1, vstr(v, "text"), NULL);
		} else if (strcmp(verdict, "do")) {
			continue;	/* wait */
		} else if (role && !strcmp(role, "underlay")) {
			const struct port *u = port_underlay();
			result(results, v, u ? (long long)u->ofport : -1,
			       u ? NULL : "vxswitch: no underlay port",
			       u ? u->name : NULL);
		} else if (role) {	/* a bridge's own internal port */
			json_t *r = result(results, v, OVSDB_OFPP_LOCAL,
					   NULL, NULL);
			if (r)
				json_object_set_new(r, "local", json_true());
		} else if (argv) {
			json_object_set(desired, vstr(v, "name"), (json_t *)v);
		}
	}
	remove_stale(desired, again, &scratch);

	const char *name;
	json_object_foreach(desired, name, v) {
		const json_t *argv = json_object_get(v, "argv");
		const struct port *p = port_by_name(name);
		char keep[32] = "";

		if (p && p->is_underlay) {
			result(results, v, -1, "vxswitch: the underlay port "
			       "goes on the underlay bridge", NULL);
			continue;
		}
		if (p) {	/* as it was */
			result(results, v, p->ofport, NULL, p->name);
			continue;
		}
		const json_t *num = json_object_get(again, name);
		if (num && !has_ofport_word(argv))
			snprintf(keep, sizeof keep, "ofport=%lld",
				 (long long)json_integer_value(num));
		if (run(argv, keep[0] ? keep : NULL, &scratch)) {
			VLOG_WARN(control, "ovsdb: Interface %s: %s", name,
				  ds_cstr(&scratch));
			ds_clear(&words);
			ovs_words(name, ds_cstr(&scratch), &words);
			result(results, v, -1, ds_cstr(&words), NULL);
			continue;
		}
		p = port_by_name(name);
		VLOG_INFO(control, "ovsdb: %s added as ofport %u", name,
			  p ? p->ofport : 0);
		json_object_set_new(applied, name, applied_entry(argv, &words));
		result(results, v, p ? (long long)p->ofport : -1, NULL, name);
	}
	applying = false;
	ds_destroy(&scratch);
	ds_destroy(&words);
	json_decref(desired);
	json_decref(again);
	return results;
}

void
ovsdb_apply_forget(void)
{
	json_decref(applied);
	applied = NULL;
	applied_pmd[0] = '\0';
}
