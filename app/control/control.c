/* SPDX-License-Identifier: BSD-3-Clause
 * The control commands: the table of registered commands, the built-ins,
 * and running one complete request (control_execute). The socket and its
 * clients are control_server.c's; the protocol is described in control.h.
 */
#include "control.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control_priv.h"
#include "json_out.h"

struct control_cmd {
	char *name;
	char *usage;
	int min_args, max_args;
	control_cmd_fn fn;
	void *aux;
};

/* Kept sorted by name, for lookup and for list-commands. */
static struct control_cmd *cmds;
static size_t n_cmds, cap_cmds;

/* ---- the command table ---- */

/* Index of 'name', or where it would go (with *found false). */
static size_t
cmd_search(const char *name, bool *found)
{
	size_t lo = 0, hi = n_cmds;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, cmds[mid].name);
		if (!c) {
			*found = true;
			return mid;
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	*found = false;
	return lo;
}

static const struct control_cmd *
cmd_find(const char *name)
{
	bool found;
	size_t i = cmd_search(name, &found);
	return found ? &cmds[i] : NULL;
}

static bool
cmd_name_ok(const char *name)
{
	if (!name || !*name)
		return false;
	for (const char *p = name; *p; p++)
		if ((unsigned char)*p <= ' ')
			return false;
	return true;
}

static int
cmd_insert(const struct control_cmd *cmd)
{
	bool found;
	size_t at = cmd_search(cmd->name, &found);

	if (found)
		return -1;
	if (n_cmds == cap_cmds) {
		size_t cap = cap_cmds ? cap_cmds * 2 : 32;
		struct control_cmd *p = realloc(cmds, cap * sizeof *p);
		if (!p)
			return -1;
		cmds = p;
		cap_cmds = cap;
	}
	memmove(&cmds[at + 1], &cmds[at], (n_cmds - at) * sizeof *cmds);
	cmds[at] = *cmd;
	n_cmds++;
	return 0;
}

void
control_commands_forget(void)
{
	for (size_t i = 0; i < n_cmds; i++) {
		free(cmds[i].name);
		free(cmds[i].usage);
	}
	free(cmds);
	cmds = NULL;
	n_cmds = cap_cmds = 0;
}

/* ---- built-in commands ---- */

/* The dispatch under way speaks OVS's words (control_execute_argv). */
static bool dispatch_ovs;

static void
list_commands(bool json, struct ds *out)
{
	if (json) {
		jw_begin_array(out);
		for (size_t i = 0; i < n_cmds; i++) {
			jw_begin_object(out);
			jw_key(out, "name");
			jw_string(out, cmds[i].name);
			jw_key(out, "usage");
			jw_string(out, cmds[i].usage);
			jw_end_object(out);
		}
		jw_end_array(out);
		ds_put_char(out, '\n');
		return;
	}
	ds_put_cstr(out, "The available commands are:\n");
	for (size_t i = 0; i < n_cmds; i++) {
		if (dispatch_ovs)	/* lib/unixctl.c's layout */
			ds_put_format(out, "  %-23s %s\n", cmds[i].name,
				      cmds[i].usage);
		else if (*cmds[i].usage)
			ds_put_format(out, "  %-32s %s\n", cmds[i].name,
				      cmds[i].usage);
		else
			ds_put_format(out, "  %s\n", cmds[i].name);
	}
}

static int
cmd_list_commands(int argc, const char *argv[], bool json, struct ds *out,
		  void *aux)
{
	(void)argc, (void)argv, (void)aux;
	list_commands(json, out);
	return 0;
}

static int
cmd_help(int argc, const char *argv[], bool json, struct ds *out, void *aux)
{
	(void)aux;
	if (argc < 2) {
		list_commands(json, out);
		return 0;
	}
	const struct control_cmd *cmd = cmd_find(argv[1]);
	if (!cmd) {
		ds_put_format(out, "unknown command '%s'; use list-commands",
			      argv[1]);
		return -1;
	}
	ds_put_format(out, "usage: %s%s%s\n", cmd->name,
		      *cmd->usage ? " " : "", cmd->usage);
	return 0;
}

static int
cmd_add(const char *name, const char *usage, int min_args, int max_args,
	control_cmd_fn fn, void *aux)
{
	struct control_cmd cmd = {
		.name = strdup(name),
		.usage = strdup(usage ? usage : ""),
		.min_args = min_args,
		.max_args = max_args,
		.fn = fn,
		.aux = aux,
	};
	if (!cmd.name || !cmd.usage || cmd_insert(&cmd)) {
		free(cmd.name);
		free(cmd.usage);
		return -1;
	}
	return 0;
}

/* Built-ins go in first, so no module can take their names. */
void
control_register_builtins(void)
{
	if (cmd_find("help"))
		return;
	cmd_add("help", "[COMMAND]", 0, 1, cmd_help, NULL);
	cmd_add("list-commands", "", 0, 0, cmd_list_commands, NULL);
}

int
control_register(const char *name, const char *usage, int min_args,
		 int max_args, control_cmd_fn fn, void *aux)
{
	if (!cmd_name_ok(name) || !fn || min_args < 0 || max_args < min_args)
		return -1;
	control_register_builtins();
	return cmd_add(name, usage, min_args, max_args, fn, aux);
}

/* ---- running a request ---- */

static void
put_arg_count_error(const struct control_cmd *cmd, struct ds *out)
{
	int lo = cmd->min_args, hi = cmd->max_args;

	ds_put_format(out, "'%s' takes ", cmd->name);
	if (hi == CONTROL_ARGS_ANY)
		ds_put_format(out, "at least %d argument%s", lo,
			      lo == 1 ? "" : "s");
	else if (lo == hi && !lo)
		ds_put_cstr(out, "no arguments");
	else if (lo == hi)
		ds_put_format(out, "%d argument%s", lo, lo == 1 ? "" : "s");
	else
		ds_put_format(out, "%d to %d arguments", lo, hi);
	ds_put_format(out, " (usage: %s%s%s)", cmd->name,
		      *cmd->usage ? " " : "", cmd->usage);
}

/* The same errors as OVS's unixctl dispatcher (lib/unixctl.c). */
static int
check_ovs(const struct control_cmd *cmd, const char *name, int nargs,
	  struct ds *out)
{
	if (!cmd)
		ds_put_format(out, "\"%s\" is not a valid command (use "
			      "\"list-commands\" to see a list of valid "
			      "commands)", name);
	else if (nargs < cmd->min_args)
		ds_put_format(out, "\"%s\" command requires at least %d "
			      "arguments", name, cmd->min_args);
	else if (nargs > cmd->max_args)
		ds_put_format(out, "\"%s\" command takes at most %d "
			      "arguments", name, cmd->max_args);
	else
		return 0;
	return -1;
}

/* Runs the command named in argv[0] with 'nargs' arguments after it. */
static int
dispatch(int nargs, const char *argv[], bool json, struct ds *out)
{
	const struct control_cmd *cmd = cmd_find(argv[0]);

	if (dispatch_ovs) {
		if (check_ovs(cmd, argv[0], nargs, out))
			return -1;
	} else if (!cmd) {
		ds_put_format(out, "unknown command '%s'; use list-commands",
			      argv[0]);
		return -1;
	} else if (nargs < cmd->min_args || nargs > cmd->max_args) {
		put_arg_count_error(cmd, out);
		return -1;
	}
	/* A handler may register commands, moving the table under 'cmd'. */
	control_cmd_fn fn = cmd->fn;
	void *aux = cmd->aux;
	int rc = fn(nargs + 1, argv, json, out, aux);
	if (rc && !out->len)
		ds_put_cstr(out, "command failed");
	return rc ? -1 : 0;
}

int
control_execute(const char *req, size_t len, struct ds *out)
{
	static const char *argv[CONTROL_MAX_ARGS + 2];
	const char *p = req, *end = req + len - 1;
	bool json = false;
	int argc = 0;

	if (p < end && !strcmp(p, CONTROL_JSON_OPTION)) {
		json = true;
		p += strlen(p) + 1;
	}
	for (; p < end; p += strlen(p) + 1) {
		if (argc == CONTROL_MAX_ARGS + 1) {
			ds_put_format(out, "too many arguments (limit %d)",
				      CONTROL_MAX_ARGS);
			return -1;
		}
		argv[argc++] = p;
	}
	argv[argc] = NULL;
	if (!argc) {
		ds_put_cstr(out, "empty request: no command given");
		return -1;
	}
	return dispatch(argc - 1, argv, json, out);
}

int
control_execute_argv(int argc, const char *argv[], bool json, bool ovs,
		     struct ds *out)
{
	if (argc < 1) {
		ds_put_cstr(out, "empty request: no command given");
		return -1;
	}
	dispatch_ovs = ovs;
	int rc = dispatch(argc - 1, argv, json, out);
	dispatch_ovs = false;
	return rc;
}

/* control.h's protocol: the request ends with its first empty string (a
 * NUL at the very start or right after another NUL); the answer is a
 * status line and the body, and the connection ends with it. */
static size_t
vxs_request_end(const char *buf, size_t scanned, size_t len, uint64_t *scan)
{
	(void)scan;
	for (size_t i = scanned; i < len; i++)
		if (!buf[i] && (i == 0 || !buf[i - 1]))
			return i + 1;
	return 0;
}

static void
vxs_error(const char *msg, struct ds *answer)
{
	ds_put_format(answer, "ERROR\n%s", msg);
}

static int
vxs_run(const char *req, size_t len, struct ds *answer)
{
	struct ds body = DS_EMPTY_INITIALIZER;
	int status = control_execute(req, len, &body);

	ds_put_cstr(answer, status ? "ERROR\n" : "OK\n");
	ds_put_buf(answer, ds_cstr(&body), body.len);
	ds_destroy(&body);
	return status;
}

const struct control_proto control_vxs_proto = {
	.request_end = vxs_request_end,
	.run = vxs_run,
	.error = vxs_error,
	.keep_open = false,
};
