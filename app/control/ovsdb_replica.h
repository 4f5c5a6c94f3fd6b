/* SPDX-License-Identifier: BSD-3-Clause
 * The client's copy of the Open_vSwitch database: the rows of the tables
 * it monitors (OVSDB_TABLES), each keyed by its UUID, kept current by the
 * server's "update" notifications (RFC 7047 4.1.6, monitor v1: a row
 * update with "new" only is an insert (or an initial row), with "old"
 * only a delete, with both a modify).
 *
 * Hostile input is normal: ovsdb_replica_apply() checks a whole
 * table-updates object before it changes anything, so a malformed one
 * (a table not monitored, a UUID that is not one, an insert of a row
 * that exists, a delete or modify of one that does not, a row that is not
 * an object, a datum that is not an OVSDB datum, more rows than
 * max_rows in a table) leaves the replica as it was and says why. The
 * caller drops the connection; the next one starts from a clear replica.
 *
 * Rows are jansson objects, column name to datum as the server sent it
 * (an atom, or ["set", [...]], ["map", [[k, v]...]], ["uuid", "..."]);
 * the readers below take them apart. Control thread only.
 */
#ifndef VXS_OVSDB_REPLICA_H
#define VXS_OVSDB_REPLICA_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

/* The monitored tables, and their columns: what the design's mapping
 * table (doc/design-control-plane.md, "OVSDB") reads. */
#define OVSDB_TABLES(X)							\
	X(OPEN_VSWITCH, "Open_vSwitch", "bridges", "other_config",	\
	  "next_cfg", "datapaths")					\
	X(BRIDGE, "Bridge", "name", "datapath_type", "ports",		\
	  "controller", "fail_mode")					\
	X(PORT, "Port", "name", "interfaces")				\
	X(INTERFACE, "Interface", "name", "type", "options",		\
	  "other_config", "ofport_request", "mtu_request")		\
	X(CONTROLLER, "Controller", "target")

#define OVSDB_TABLE_ENUM(id, name, ...) OVSDB_T_##id,
enum ovsdb_table { OVSDB_TABLES(OVSDB_TABLE_ENUM) OVSDB_N_TABLES };
#undef OVSDB_TABLE_ENUM

/* Rows per table, by default; a table-updates that would pass it is
 * refused whole. A host with thousands of ports is far below. */
#define OVSDB_REPLICA_MAX_ROWS 16384

struct ovsdb_replica {
	json_t *rows[OVSDB_N_TABLES];	/* object: UUID -> row object */
	size_t max_rows;
	unsigned long long updates;	/* table-updates applied */
};

/* The table's name, and its monitored columns (NULL-terminated). */
const char *ovsdb_table_name(enum ovsdb_table t);
const char *const *ovsdb_table_columns(enum ovsdb_table t);

/* Empty, with max_rows OVSDB_REPLICA_MAX_ROWS. Returns 0, or -1 when out
 * of memory. */
int ovsdb_replica_init(struct ovsdb_replica *r);
void ovsdb_replica_clear(struct ovsdb_replica *r);
void ovsdb_replica_destroy(struct ovsdb_replica *r);

/* Applies one table-updates object, all of it or (with the reason in
 * 'err', and -1) none of it. OVSDB_REPLICA_TOO_MANY: -2 instead of -1,
 * so that the caller can count the row limit on its own. */
#define OVSDB_REPLICA_TOO_MANY (-2)
int ovsdb_replica_apply(struct ovsdb_replica *r, const json_t *updates,
			char *err, size_t errlen);

size_t ovsdb_replica_count(const struct ovsdb_replica *r, enum ovsdb_table t);

/* The row with this UUID, or NULL. */
const json_t *ovsdb_replica_get(const struct ovsdb_replica *r,
				enum ovsdb_table t, const char *uuid);

/* ---- reading datums (NULL / false / defaults for a wrong shape) ---- */

/* The column's value as a string: a string atom, or a set of one string
 * ("" for the empty set, which is how an optional column is absent). */
const char *ovsdb_datum_string(const json_t *row, const char *column);

/* An integer atom, or a set of one; false if absent or not one. */
bool ovsdb_datum_int(const json_t *row, const char *column, long long *v);

/* The value of 'key' in a map column of strings, or NULL. */
const char *ovsdb_datum_map_get(const json_t *row, const char *column,
				const char *key);

/* The n-th entry of a map column: its key and value (strings), false
 * past the end or for a pair that is not two strings. */
bool ovsdb_datum_map_at(const json_t *row, const char *column, size_t n,
			const char **key, const char **value);

/* The n-th UUID of a set (or single) of UUIDs column, or NULL. */
const char *ovsdb_datum_uuid_at(const json_t *row, const char *column,
				size_t n);

#endif
