/* SPDX-License-Identifier: BSD-3-Clause
 * The replica of the monitored tables (ovsdb_replica.h): check a whole
 * table-updates, then apply it. Two passes, so that a message refused
 * halfway through leaves nothing half done.
 */
#include "ovsdb_replica.h"

#include <stdio.h>
#include <string.h>

#define OVSDB_TABLE_NAME(id, name, ...) name,
static const char *const table_names[] = { OVSDB_TABLES(OVSDB_TABLE_NAME) };
#undef OVSDB_TABLE_NAME

#define OVSDB_TABLE_COLS(id, name, ...) \
	static const char *const cols_##id[] = { __VA_ARGS__, NULL };
OVSDB_TABLES(OVSDB_TABLE_COLS)
#undef OVSDB_TABLE_COLS

#define OVSDB_TABLE_COLP(id, name, ...) cols_##id,
static const char *const *const table_cols[] = {
	OVSDB_TABLES(OVSDB_TABLE_COLP)
};
#undef OVSDB_TABLE_COLP

const char *
ovsdb_table_name(enum ovsdb_table t)
{
	return t < OVSDB_N_TABLES ? table_names[t] : "?";
}

const char *const *
ovsdb_table_columns(enum ovsdb_table t)
{
	return table_cols[t];
}

int
ovsdb_replica_init(struct ovsdb_replica *r)
{
	memset(r, 0, sizeof *r);
	r->max_rows = OVSDB_REPLICA_MAX_ROWS;
	for (int t = 0; t < OVSDB_N_TABLES; t++)
		if (!(r->rows[t] = json_object())) {
			ovsdb_replica_destroy(r);
			return -1;
		}
	return 0;
}

void
ovsdb_replica_clear(struct ovsdb_replica *r)
{
	for (int t = 0; t < OVSDB_N_TABLES; t++)
		if (r->rows[t])
			json_object_clear(r->rows[t]);
}

void
ovsdb_replica_destroy(struct ovsdb_replica *r)
{
	for (int t = 0; t < OVSDB_N_TABLES; t++) {
		json_decref(r->rows[t]);
		r->rows[t] = NULL;
	}
}

size_t
ovsdb_replica_count(const struct ovsdb_replica *r, enum ovsdb_table t)
{
	return json_object_size(r->rows[t]);
}

const json_t *
ovsdb_replica_get(const struct ovsdb_replica *r, enum ovsdb_table t,
		  const char *uuid)
{
	return uuid ? json_object_get(r->rows[t], uuid) : NULL;
}

/* ---- checking ---- */

static int
table_of(const char *name)
{
	for (int t = 0; t < OVSDB_N_TABLES; t++)
		if (!strcmp(name, table_names[t]))
			return t;
	return -1;
}

static bool
column_monitored(int t, const char *col)
{
	for (const char *const *c = table_cols[t]; *c; c++)
		if (!strcmp(*c, col))
			return true;
	return false;
}

/* 8-4-4-4-12 hex digits (RFC 7047 3.1's <uuid>). */
static bool
uuid_ok(const char *s)
{
	if (strlen(s) != 36)
		return false;
	for (int i = 0; i < 36; i++) {
		char c = s[i];
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;
		if (dash ? c != '-'
			 : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
			     (c >= 'A' && c <= 'F')))
			return false;
	}
	return true;
}

/* <atom>: string, number, boolean, ["uuid", U] or ["named-uuid", N]. */
static bool
atom_ok(const json_t *a)
{
	if (json_is_string(a) || json_is_number(a) || json_is_boolean(a))
		return true;
	if (!json_is_array(a) || json_array_size(a) != 2 ||
	    !json_is_string(json_array_get(a, 0)) ||
	    !json_is_string(json_array_get(a, 1)))
		return false;
	const char *kind = json_string_value(json_array_get(a, 0));
	if (!strcmp(kind, "uuid"))
		return uuid_ok(json_string_value(json_array_get(a, 1)));
	return !strcmp(kind, "named-uuid");
}

/* <value>: an atom, ["set", [atoms]] or ["map", [[atom, atom]...]]. */
static bool
datum_ok(const json_t *d)
{
	if (atom_ok(d))
		return true;
	if (!json_is_array(d) || json_array_size(d) != 2 ||
	    !json_is_string(json_array_get(d, 0)) ||
	    !json_is_array(json_array_get(d, 1)))
		return false;
	const char *kind = json_string_value(json_array_get(d, 0));
	const json_t *elems = json_array_get(d, 1), *e;
	size_t i;
	bool map = !strcmp(kind, "map");

	if (!map && strcmp(kind, "set"))
		return false;
	json_array_foreach(elems, i, e) {
		if (!map ? !atom_ok(e)
			 : !json_is_array(e) || json_array_size(e) != 2 ||
			   !atom_ok(json_array_get(e, 0)) ||
			   !atom_ok(json_array_get(e, 1)))
			return false;
	}
	return true;
}

static int
row_ok(int t, const json_t *row, const char *what, const char *uuid,
       char *err, size_t errlen)
{
	const char *col;
	const json_t *v;

	if (!json_is_object(row)) {
		snprintf(err, errlen, "%s row %s: \"%s\" is not an object",
			 table_names[t], uuid, what);
		return -1;
	}
	json_object_foreach((json_t *)row, col, v) {
		if (!column_monitored(t, col)) {
			snprintf(err, errlen, "%s row %s: column '%.64s' not "
				 "monitored", table_names[t], uuid, col);
			return -1;
		}
		if (!datum_ok(v)) {
			snprintf(err, errlen, "%s row %s: column %s: not an "
				 "OVSDB datum", table_names[t], uuid, col);
			return -1;
		}
	}
	return 0;
}

/* Checks one table's updates; *net: rows it adds (less those it
 * deletes). */
static int
table_update_ok(const struct ovsdb_replica *r, int t, const json_t *tu,
		long long *net, char *err, size_t errlen)
{
	const char *uuid;
	const json_t *ru;

	if (!json_is_object(tu)) {
		snprintf(err, errlen, "%s: table-update is not an object",
			 table_names[t]);
		return -1;
	}
	*net = 0;
	json_object_foreach((json_t *)tu, uuid, ru) {
		if (!uuid_ok(uuid)) {
			snprintf(err, errlen, "%s: '%.64s' is not a UUID",
				 table_names[t], uuid);
			return -1;
		}
		if (!json_is_object(ru)) {
			snprintf(err, errlen, "%s row %s: row-update is not "
				 "an object", table_names[t], uuid);
			return -1;
		}
		const json_t *old = json_object_get(ru, "old");
		const json_t *new = json_object_get(ru, "new");
		bool exists = json_object_get(r->rows[t], uuid) != NULL;
		if (!old && !new) {
			snprintf(err, errlen, "%s row %s: neither \"old\" nor "
				 "\"new\"", table_names[t], uuid);
			return -1;
		}
		if ((old && row_ok(t, old, "old", uuid, err, errlen)) ||
		    (new && row_ok(t, new, "new", uuid, err, errlen)))
			return -1;
		if (!old && exists) {
			snprintf(err, errlen, "%s row %s: inserted, but it "
				 "exists", table_names[t], uuid);
			return -1;
		}
		if (old && !exists) {
			snprintf(err, errlen, "%s row %s: %s, but there is no "
				 "such row", table_names[t], uuid,
				 new ? "modified" : "deleted");
			return -1;
		}
		*net += !old ? 1 : !new ? -1 : 0;
	}
	return 0;
}

/* ---- applying ---- */

static int
table_update_apply(struct ovsdb_replica *r, int t, const json_t *tu)
{
	const char *uuid;
	json_t *ru;

	json_object_foreach((json_t *)tu, uuid, ru) {
		json_t *old = json_object_get(ru, "old");
		json_t *new = json_object_get(ru, "new");
		if (!new) {
			json_object_del(r->rows[t], uuid);
		} else if (!old) {
			/* shallow: the datums are never changed in place */
			if (json_object_set_new(r->rows[t], uuid,
						json_copy(new)))
				return -1;
		} else if (json_object_update(
				   json_object_get(r->rows[t], uuid), new)) {
			/* "new" has every monitored column, or (as some
			 * servers send) only those that changed: both
			 * merge the same */
			return -1;
		}
	}
	return 0;
}

int
ovsdb_replica_apply(struct ovsdb_replica *r, const json_t *updates,
		    char *err, size_t errlen)
{
	const char *name;
	const json_t *tu;

	if (!json_is_object(updates)) {
		snprintf(err, errlen, "table-updates is not an object");
		return -1;
	}
	json_object_foreach((json_t *)updates, name, tu) {
		int t = table_of(name);
		long long net;
		if (t < 0) {
			snprintf(err, errlen, "table '%.64s' not monitored",
				 name);
			return -1;
		}
		if (table_update_ok(r, t, tu, &net, err, errlen))
			return -1;
		if ((long long)json_object_size(r->rows[t]) + net >
		    (long long)r->max_rows) {
			snprintf(err, errlen, "%s: more than %zu rows",
				 table_names[t], r->max_rows);
			return OVSDB_REPLICA_TOO_MANY;
		}
	}
	json_object_foreach((json_t *)updates, name, tu)
		if (table_update_apply(r, table_of(name), tu)) {
			/* out of memory halfway: no longer a copy of
			 * anything; the caller starts again */
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	r->updates++;
	return 0;
}

/* ---- reading datums ---- */

/* A column's value as one atom: the atom itself, or a set of exactly
 * one; NULL otherwise (also for an empty set). */
static const json_t *
single(const json_t *row, const char *column)
{
	const json_t *d = json_object_get(row, column);

	if (json_is_array(d) && json_array_size(d) == 2 &&
	    json_is_string(json_array_get(d, 0)) &&
	    !strcmp(json_string_value(json_array_get(d, 0)), "set")) {
		const json_t *elems = json_array_get(d, 1);
		return json_array_size(elems) == 1 ? json_array_get(elems, 0)
						   : NULL;
	}
	return d;
}

const char *
ovsdb_datum_string(const json_t *row, const char *column)
{
	const json_t *a = single(row, column);
	return json_is_string(a) ? json_string_value(a) : NULL;
}

bool
ovsdb_datum_int(const json_t *row, const char *column, long long *v)
{
	const json_t *a = single(row, column);

	if (!json_is_integer(a))
		return false;
	*v = json_integer_value(a);
	return true;
}

static const json_t *
map_pairs(const json_t *row, const char *column)
{
	const json_t *d = json_object_get(row, column);

	if (!json_is_array(d) || json_array_size(d) != 2 ||
	    !json_is_string(json_array_get(d, 0)) ||
	    strcmp(json_string_value(json_array_get(d, 0)), "map"))
		return NULL;
	return json_array_get(d, 1);
}

bool
ovsdb_datum_map_at(const json_t *row, const char *column, size_t n,
		   const char **key, const char **value)
{
	const json_t *pair = json_array_get(map_pairs(row, column), n);
	const json_t *k = json_array_get(pair, 0), *v = json_array_get(pair, 1);

	if (!json_is_string(k) || !json_is_string(v))
		return false;
	*key = json_string_value(k);
	*value = json_string_value(v);
	return true;
}

const char *
ovsdb_datum_map_get(const json_t *row, const char *column, const char *key)
{
	const json_t *pairs = map_pairs(row, column), *pair;
	size_t i;

	json_array_foreach(pairs, i, pair) {
		const json_t *k = json_array_get(pair, 0);
		const json_t *v = json_array_get(pair, 1);
		if (json_is_string(k) && json_is_string(v) &&
		    !strcmp(json_string_value(k), key))
			return json_string_value(v);
	}
	return NULL;
}

static const char *
uuid_of(const json_t *a)
{
	if (!json_is_array(a) || json_array_size(a) != 2 ||
	    !json_is_string(json_array_get(a, 0)) ||
	    strcmp(json_string_value(json_array_get(a, 0)), "uuid"))
		return NULL;
	return json_string_value(json_array_get(a, 1));
}

const char *
ovsdb_datum_uuid_at(const json_t *row, const char *column, size_t n)
{
	const json_t *d = json_object_get(row, column);

	if (uuid_of(d))		/* a single UUID, not in a set */
		return n ? NULL : uuid_of(d);
	if (!json_is_array(d) || json_array_size(d) != 2 ||
	    !json_is_string(json_array_get(d, 0)) ||
	    strcmp(json_string_value(json_array_get(d, 0)), "set"))
		return NULL;
	return uuid_of(json_array_get(json_array_get(d, 1), n));
}
