/* SPDX-License-Identifier: BSD-3-Clause
 * The OVSDB replica (app/control/ovsdb_replica.h): an initial monitor
 * reply, then insert, modify (a full "new" and a partial one), delete, as
 * ovsdb-server sends them; the datum readers; and the malformed updates a
 * hostile server could send, each refused whole with the replica left as
 * it was, and the row limit.
 */
#include <stdio.h>
#include <string.h>
#include "ovsdb_replica.h"
#include "unit_test.h"

#define U_OVS "00000000-0000-0000-0000-000000000001"
#define U_BR  "00000000-0000-0000-0000-0000000000b1"
#define U_P1  "00000000-0000-0000-0000-0000000000a1"
#define U_I1  "00000000-0000-0000-0000-0000000000c1"
#define U_I2  "00000000-0000-0000-0000-0000000000c2"

static const char *initial =
	"{\"Open_vSwitch\":{\"" U_OVS "\":{\"new\":{"
	"\"bridges\":[\"uuid\",\"" U_BR "\"],"
	"\"other_config\":[\"map\",[[\"pmd-cpu-mask\",\"0x2\"]]],"
	"\"next_cfg\":3}}},"
	"\"Bridge\":{\"" U_BR "\":{\"new\":{\"name\":\"br-int\","
	"\"datapath_type\":\"netdev\",\"ports\":[\"set\",[[\"uuid\",\""
	U_P1 "\"]]],\"controller\":[\"set\",[]],"
	"\"fail_mode\":[\"set\",[]]}}},"
	"\"Port\":{\"" U_P1 "\":{\"new\":{\"name\":\"vm1\","
	"\"interfaces\":[\"uuid\",\"" U_I1 "\"]}}},"
	"\"Interface\":{\"" U_I1 "\":{\"new\":{\"name\":\"vm1\","
	"\"type\":\"dpdkvhostuserclient\",\"options\":[\"map\","
	"[[\"vhost-server-path\",\"/tmp/x\"]]],\"mtu_request\":[\"set\",[]],"
	"\"ofport_request\":[\"set\",[7]]}}}}";

static int
apply(struct ovsdb_replica *r, const char *text, char *err, size_t len)
{
	json_error_t jerr;
	json_t *j = json_loads(text, 0, &jerr);

	if (!j) {
		printf("bad test JSON: %s: %s\n", jerr.text, text);
		return -100;
	}
	err[0] = '\0';
	int rc = ovsdb_replica_apply(r, j, err, len);
	json_decref(j);
	return rc;
}

static const json_t *
iface(struct ovsdb_replica *r, const char *uuid)
{
	return ovsdb_replica_get(r, OVSDB_T_INTERFACE, uuid);
}

static void
test_normal(struct ovsdb_replica *r)
{
	char err[256];
	const char *k, *v;
	long long n;

	CHECK(apply(r, initial, err, sizeof err) == 0, "initial: %s", err);
	CHECK_EXPR(ovsdb_replica_count(r, OVSDB_T_OPEN_VSWITCH) == 1);
	CHECK_EXPR(ovsdb_replica_count(r, OVSDB_T_BRIDGE) == 1);
	CHECK_EXPR(ovsdb_replica_count(r, OVSDB_T_INTERFACE) == 1);
	CHECK_EXPR(ovsdb_replica_count(r, OVSDB_T_CONTROLLER) == 0);

	const json_t *root = ovsdb_replica_get(r, OVSDB_T_OPEN_VSWITCH, U_OVS);
	const json_t *br = ovsdb_replica_get(r, OVSDB_T_BRIDGE, U_BR);
	const json_t *i1 = iface(r, U_I1);
	CHECK_EXPR(root && br && i1);
	/* a single UUID, and a set of one */
	CHECK_EXPR(!strcmp(ovsdb_datum_uuid_at(root, "bridges", 0), U_BR));
	CHECK_EXPR(!ovsdb_datum_uuid_at(root, "bridges", 1));
	CHECK_EXPR(!strcmp(ovsdb_datum_uuid_at(br, "ports", 0), U_P1));
	CHECK_EXPR(!ovsdb_datum_uuid_at(br, "controller", 0));
	CHECK_EXPR(!strcmp(ovsdb_datum_map_get(root, "other_config",
					       "pmd-cpu-mask"), "0x2"));
	CHECK_EXPR(!ovsdb_datum_map_get(root, "other_config", "nope"));
	CHECK_EXPR(!strcmp(ovsdb_datum_string(br, "name"), "br-int"));
	CHECK_EXPR(!ovsdb_datum_string(br, "fail_mode"));	/* empty set */
	CHECK_EXPR(ovsdb_datum_int(i1, "ofport_request", &n) && n == 7);
	CHECK_EXPR(!ovsdb_datum_int(i1, "mtu_request", &n));
	CHECK_EXPR(ovsdb_datum_int(root, "next_cfg", &n) && n == 3);
	CHECK_EXPR(ovsdb_datum_map_at(i1, "options", 0, &k, &v) &&
		   !strcmp(k, "vhost-server-path") && !strcmp(v, "/tmp/x"));
	CHECK_EXPR(!ovsdb_datum_map_at(i1, "options", 1, &k, &v));
	/* wrong shapes read as absent */
	CHECK_EXPR(!ovsdb_datum_string(i1, "options"));
	CHECK_EXPR(!ovsdb_datum_int(i1, "name", &n));
	CHECK_EXPR(!ovsdb_datum_map_get(i1, "name", "x"));
	CHECK_EXPR(!ovsdb_datum_uuid_at(i1, "name", 0));

	/* modify, "new" with every column (monitor v1) */
	CHECK(apply(r, "{\"Interface\":{\"" U_I1 "\":{\"old\":{"
		    "\"mtu_request\":[\"set\",[]]},\"new\":{\"name\":\"vm1\","
		    "\"type\":\"dpdkvhostuserclient\",\"options\":[\"map\","
		    "[[\"vhost-server-path\",\"/tmp/x\"]]],\"mtu_request\":1450,"
		    "\"ofport_request\":[\"set\",[7]]}}}}", err, sizeof err)
	      == 0, "modify: %s", err);
	CHECK_EXPR(ovsdb_datum_int(iface(r, U_I1), "mtu_request", &n) &&
		   n == 1450);
	/* modify, "new" with the changed column only: merged */
	CHECK(apply(r, "{\"Interface\":{\"" U_I1 "\":{\"old\":{\"type\":"
		    "\"dpdkvhostuserclient\"},\"new\":{\"type\":\"patch\"}}}}",
		    err, sizeof err) == 0, "partial modify: %s", err);
	CHECK_EXPR(!strcmp(ovsdb_datum_string(iface(r, U_I1), "type"),
			   "patch"));
	CHECK_EXPR(!strcmp(ovsdb_datum_string(iface(r, U_I1), "name"),
			   "vm1"));
	/* insert, then delete */
	CHECK(apply(r, "{\"Interface\":{\"" U_I2 "\":{\"new\":{\"name\":"
		    "\"vx\",\"type\":\"vxlan\"}}}}", err, sizeof err) == 0,
	      "insert: %s", err);
	CHECK_EXPR(ovsdb_replica_count(r, OVSDB_T_INTERFACE) == 2);
	CHECK(apply(r, "{\"Interface\":{\"" U_I2 "\":{\"old\":{\"name\":"
		    "\"vx\",\"type\":\"vxlan\"}}}}", err, sizeof err) == 0,
	      "delete: %s", err);
	CHECK_EXPR(ovsdb_replica_count(r, OVSDB_T_INTERFACE) == 1);
	CHECK_EXPR(!iface(r, U_I2));
	/* an empty table-updates changes nothing and is fine */
	CHECK(apply(r, "{}", err, sizeof err) == 0, "empty: %s", err);
}

/* Each refused, with its reason, the replica as it was. */
static void
test_malformed(struct ovsdb_replica *r)
{
	static const struct {
		const char *update, *why;
	} cases[] = {
		{ "[]", "not an object" },
		{ "{\"Flow_Table\":{}}", "not monitored" },
		{ "{\"Interface\":[]}", "not an object" },
		{ "{\"Interface\":{\"not-a-uuid\":{\"new\":{}}}}",
		  "not a UUID" },
		{ "{\"Interface\":{\"" U_I2 "x\":{\"new\":{}}}}",
		  "not a UUID" },
		{ "{\"Interface\":{\"" U_I2 "\":5}}", "not an object" },
		{ "{\"Interface\":{\"" U_I2 "\":{}}}", "neither" },
		{ "{\"Interface\":{\"" U_I2 "\":{\"new\":[]}}}",
		  "not an object" },
		{ "{\"Interface\":{\"" U_I1 "\":{\"new\":{\"name\":\"a\"}}}}",
		  "exists" },
		{ "{\"Interface\":{\"" U_I2 "\":{\"old\":{}}}}",
		  "no such row" },
		{ "{\"Interface\":{\"" U_I2 "\":{\"old\":{},\"new\":{}}}}",
		  "no such row" },
		{ "{\"Interface\":{\"" U_I2 "\":{\"new\":{\"ifindex\":1}}}}",
		  "not monitored" },
		{ "{\"Interface\":{\"" U_I2 "\":{\"new\":{\"name\":null}}}}",
		  "not an OVSDB datum" },
		{ "{\"Interface\":{\"" U_I2 "\":{\"new\":{\"name\":{}}}}}",
		  "not an OVSDB datum" },
		{ "{\"Interface\":{\"" U_I2 "\":{\"new\":{\"options\":"
		  "[\"map\",[[\"a\"]]]}}}}", "not an OVSDB datum" },
		{ "{\"Interface\":{\"" U_I2 "\":{\"new\":{\"options\":"
		  "[\"set\",1]}}}}", "not an OVSDB datum" },
		{ "{\"Interface\":{\"" U_I2 "\":{\"new\":{\"options\":"
		  "[\"bag\",[]]}}}}", "not an OVSDB datum" },
		{ "{\"Interface\":{\"" U_I2 "\":{\"new\":{\"name\":"
		  "[\"uuid\",\"zz\"]}}}}", "not an OVSDB datum" },
		{ "{\"Interface\":{\"" U_I2 "\":{\"new\":{\"options\":"
		  "[\"set\",[[\"set\",[]]]]}}}}", "not an OVSDB datum" },
		/* a good table first, a bad one after: neither applied */
		{ "{\"Controller\":{\"" U_I2 "\":{\"new\":{\"target\":"
		  "\"tcp:1.2.3.4:6653\"}}},\"Port\":{\"" U_P1 "\":"
		  "{\"new\":{}}}}", "exists" },
	};
	char err[256];

	for (size_t i = 0; i < RTE_DIM(cases); i++) {
		int rc = apply(r, cases[i].update, err, sizeof err);
		CHECK(rc == -1 && strstr(err, cases[i].why), "case %zu '%s': "
		      "rc %d '%s', want '%s'", i, cases[i].update, rc, err,
		      cases[i].why);
		CHECK(ovsdb_replica_count(r, OVSDB_T_INTERFACE) == 1 &&
		      ovsdb_replica_count(r, OVSDB_T_CONTROLLER) == 0 &&
		      !strcmp(ovsdb_datum_string(iface(r, U_I1), "type"),
			      "patch"),
		      "case %zu changed the replica", i);
	}
}

static void
test_row_limit(struct ovsdb_replica *r)
{
	char err[256], buf[1024];

	r->max_rows = 2;
	/* 1 + 1 = 2: fine */
	CHECK(apply(r, "{\"Interface\":{\"" U_I2 "\":{\"new\":{}}}}", err,
		    sizeof err) == 0, "second row: %s", err);
	/* a third: refused, with its own code */
	snprintf(buf, sizeof buf, "{\"Interface\":{\"%s\":{\"new\":{}}}}",
		 "00000000-0000-0000-0000-0000000000c3");
	CHECK(apply(r, buf, err, sizeof err) == OVSDB_REPLICA_TOO_MANY &&
	      strstr(err, "more than 2 rows"), "third row: '%s'", err);
	CHECK_EXPR(ovsdb_replica_count(r, OVSDB_T_INTERFACE) == 2);
	/* one out and one in, in one update: still 2, fine */
	snprintf(buf, sizeof buf, "{\"Interface\":{\"%s\":{\"new\":{}},"
		 "\"" U_I2 "\":{\"old\":{}}}}",
		 "00000000-0000-0000-0000-0000000000c3");
	CHECK(apply(r, buf, err, sizeof err) == 0, "swap: %s", err);
	CHECK_EXPR(ovsdb_replica_count(r, OVSDB_T_INTERFACE) == 2);
	CHECK_EXPR(!iface(r, U_I2));
	/* the other tables have their own count */
	CHECK(apply(r, "{\"Controller\":{\"" U_I2 "\":{\"new\":{}}}}", err,
		    sizeof err) == 0, "controller: %s", err);
	ovsdb_replica_clear(r);
	for (int t = 0; t < OVSDB_N_TABLES; t++)
		CHECK(ovsdb_replica_count(r, t) == 0, "%s not cleared",
		      ovsdb_table_name(t));
	CHECK(apply(r, initial, err, sizeof err) == 0, "again: %s", err);
}

int
main(void)
{
	struct ovsdb_replica r;

	if (ovsdb_replica_init(&r)) {
		printf("out of memory\n0 passed, 1 failed\n");
		return 1;
	}
	CHECK_EXPR(!strcmp(ovsdb_table_name(OVSDB_T_INTERFACE), "Interface"));
	CHECK_EXPR(!strcmp(ovsdb_table_columns(OVSDB_T_PORT)[1],
			   "interfaces"));
	test_normal(&r);
	test_malformed(&r);
	test_row_limit(&r);
	ovsdb_replica_destroy(&r);
	return unit_test_report();
}
