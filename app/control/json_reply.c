/* SPDX-License-Identifier: BSD-3-Clause
 * A command's --json answer from a jansson object (json_reply.h). */
#include "json_reply.h"

#include <stdlib.h>

int
json_reply(struct ds *out, json_t *o, const char *verb)
{
	char *text = o ? json_dumps(o, JSON_INDENT(2) |
				    JSON_PRESERVE_ORDER) : NULL;

	json_decref(o);
	if (!text) {
		ds_put_format(out, "%s: out of memory", verb);
		return -1;
	}
	ds_put_cstr(out, text);
	ds_put_char(out, '\n');
	free(text);
	return 0;
}
