/* SPDX-License-Identifier: BSD-3-Clause
 * OVS's unixctl JSON-RPC (lib/unixctl.c, lib/jsonrpc.c of OVS 3.1), the
 * protocol of the second control socket (control_unixctl_init), so that
 * Debian's ovs-appctl drives vxswitch as it drives ovs-vswitchd:
 *
 *   request  {"id":ID,"method":"COMMAND","params":["ARG",...]}
 *	One JSON object, with no delimiter after it; several may follow
 *	each other on one connection (OVS's Python client reuses it).
 *   answer   {"id":ID,"result":"BODY\n","error":null}
 *	  or     {"id":ID,"error":"TEXT\n","result":null}
 *	ID is the request's own, written back as compact JSON. No other
 *	member (ovs-appctl rejects a "jsonrpc" one); BODY or TEXT end
 *	with a newline unless empty, as OVS's server adds one. ovs-appctl
 *	prints BODY, or TEXT on stderr and exits 2.
 *
 * The commands are control.c's (the same table as control.h's socket),
 * run in OVS's dialect: the dispatcher's errors in OVS's words and
 * list-commands in its layout. The server's own errors (limits,
 * time-outs) go out with "id":null, which ovs-appctl reports as a
 * protocol error. A request is read by unixctl_request.c (jansson); a
 * malformed one is answered with "bad JSON-RPC request: WHY" (OVS would
 * close the connection).
 */

#include "control.h"
#include "control_priv.h"
#include "json_out.h"
#include "unixctl_request.h"
#include "version.h"

/* ---- answering ---- */

/* The answer to request 'id' (its JSON text; NULL: none known), 'text' in
 * "result" or, if 'is_error', in "error"; a newline is added to a
 * non-empty text that lacks one, as OVS's server does. */
static void
put_answer(const char *id, bool is_error, struct ds *text, struct ds *answer)
{
	if (text->len && text->s[text->len - 1] != '\n')
		ds_put_char(text, '\n');
	ds_put_cstr(answer, "{\"id\":");
	ds_put_cstr(answer, id ? id : "null");
	jw_key(answer, is_error ? "error" : "result");
	jw_string(answer, ds_cstr(text));
	jw_key(answer, is_error ? "result" : "error");
	jw_null(answer);
	jw_end_object(answer);
}

static void
unixctl_error(const char *msg, struct ds *answer)
{
	struct ds text = DS_EMPTY_INITIALIZER;

	ds_put_cstr(&text, msg);
	put_answer(NULL, true, &text, answer);
	ds_destroy(&text);
}

static int
unixctl_run(const char *req, size_t len, struct ds *answer)
{
	struct unixctl_request q;
	struct ds body = DS_EMPTY_INITIALIZER;
	int rc = -1;

	if (!unixctl_request_parse(req, len, &q, &body))
		rc = control_execute_argv(q.argc, q.argv, false, true, &body);
	put_answer(q.id, rc != 0, &body, answer);
	unixctl_request_destroy(&q);
	ds_destroy(&body);
	return rc;
}

const struct control_proto control_unixctl_proto = {
	.request_end = unixctl_request_end,	/* unixctl_request.c */
	.run = unixctl_run,
	.error = unixctl_error,
	.keep_open = true,
};

/* OVS's built-in "version", which ovs-appctl users ask first. */
static int
cmd_version(int argc, const char *argv[], bool json, struct ds *out,
	    void *aux)
{
	(void)argc, (void)argv, (void)json, (void)aux;
	ds_put_cstr(out, "vxswitch (vxswitch) " VXSWITCH_VERSION "\n");
	return 0;
}

void
control_unixctl_register(void)
{
	control_register("version", "", 0, 0, cmd_version, NULL);
}
