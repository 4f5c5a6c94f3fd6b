/* SPDX-License-Identifier: BSD-3-Clause
 * test_dpcls, cls-port-hint: dpcls_lookup_hint() tries the subtable that
 * last served the in_port first, keeps it while it serves most keys, and
 * forgets it when that subtable is destroyed; the answers are always
 * dpcls_lookup()'s (the random run in test_dpcls_oracle.c checks that
 * too).
 */
#include "dpcls_test.h"

static struct megaflow *
port_flow(uint16_t in_port, uint16_t dl_type, enum mask_shape shape,
	  uint64_t id)
{
	struct flow_key k, m;

	random_key(&k);
	k.in_port = in_port;
	k.dl_type = rte_cpu_to_be_16(dl_type);
	shape_mask(&m, shape);
	return megaflow_new(&k, &m, id);
}

/* n keys of in_port, dl_type; the rest random. */
static void
port_keys(struct flow_key keys[], unsigned from, unsigned n,
	  uint16_t in_port, uint16_t dl_type)
{
	for (unsigned i = from; i < from + n; i++) {
		random_key(&keys[i]);
		keys[i].in_port = in_port;
		keys[i].dl_type = rte_cpu_to_be_16(dl_type);
	}
}

void
test_port_hint(void)
{
	struct dpcls *cls = dpcls_create(SOCKET_ID_ANY, 100);
	/* A: in_port only (port 5); B: in_port + dl_type (port 7: IPv4,
	 * ARP) */
	struct megaflow *a = port_flow(5, 0x0800, SHAPE_IN_PORT, 1);
	struct megaflow *b_ip = port_flow(7, 0x0800, SHAPE_IN_PORT_DL_TYPE, 2);
	struct megaflow *b_arp = port_flow(7, 0x0806, SHAPE_IN_PORT_DL_TYPE,
					   3);
	struct megaflow *flows[BATCH_MAX];
	struct flow_key keys[BATCH_MAX];

	CHECK(!dpcls_insert(cls, a, test_mask(a)) &&
	      !dpcls_insert(cls, b_ip, test_mask(b_ip)) &&
	      !dpcls_insert(cls, b_arp, test_mask(b_arp)), "insert");
	CHECK(dpcls_hint_of(cls, 5) == NULL, "hint before any lookup");

	/* port 7: 30 IPv4, 2 ARP: both in B; the hint becomes B */
	port_keys(keys, 0, 30, 7, 0x0800);
	port_keys(keys, 30, 2, 7, 0x0806);
	CHECK(dpcls_lookup_hint(cls, keys, UINT32_MAX, flows) == 0,
	      "port 7 missed");
	CHECK(flows[0] == b_ip && flows[29] == b_ip && flows[30] == b_arp,
	      "port 7 answers");
	CHECK(dpcls_hint_of(cls, 7) == b_ip->subtable, "port 7 hint");

	/* port 5 (A), and a key of port 9 that nothing matches */
	port_keys(keys, 0, 31, 5, 0x0800);
	port_keys(keys, 31, 1, 9, 0x0800);
	flows[31] = &sentinel;
	CHECK(dpcls_lookup_hint(cls, keys, UINT32_MAX, flows) == 1u << 31,
	      "port 5: only the port 9 key may miss");
	CHECK(flows[0] == a && flows[30] == a && flows[31] == &sentinel,
	      "port 5 answers");
	CHECK(dpcls_hint_of(cls, 5) == a->subtable, "port 5 hint");
	CHECK(dpcls_hint_of(cls, 7) == b_ip->subtable, "port 7 hint kept");
	/* same slot (64 apart), another port: no hint for it */
	CHECK(dpcls_hint_of(cls, 5 + DPCLS_HINT_SLOTS) == NULL,
	      "hint of a port sharing the slot");

	/* Removing A destroys its subtable: port 5's hint goes with it. */
	dpcls_remove(cls, a);
	CHECK(dpcls_hint_of(cls, 5) == NULL,
	      "hint left pointing at a destroyed subtable");

	/* Port 5 again: IPv4 in B's subtable (a2), ARP to one nw_dst in an
	 * L3 subtable (c). The hint moves only to a subtable that serves
	 * more keys than the hint did. */
	struct megaflow *a2 = port_flow(5, 0x0800, SHAPE_IN_PORT_DL_TYPE, 5);
	struct megaflow *c = port_flow(5, 0x0806, SHAPE_L3_DST, 4);

	CHECK(!dpcls_insert(cls, a2, test_mask(a2)) &&
	      !dpcls_insert(cls, c, test_mask(c)), "insert c");
	port_keys(keys, 0, 30, 5, 0x0800);
	port_keys(keys, 30, 2, 5, 0x0806);
	keys[30].nw_dst = keys[31].nw_dst = c->key.nw_dst;
	CHECK(dpcls_lookup_hint(cls, keys, UINT32_MAX, flows) == 0 &&
	      flows[0] == a2 && flows[30] == c && flows[31] == c,
	      "port 5, two subtables: answers");
	CHECK(dpcls_hint_of(cls, 5) == a2->subtable, "hint: 30 keys' one");
	CHECK(dpcls_lookup_hint(cls, keys, UINT32_MAX, flows) == 0 &&
	      dpcls_hint_of(cls, 5) == a2->subtable,
	      "hint moved to the subtable serving 2 keys");
	port_keys(keys, 2, 30, 5, 0x0806);
	for (unsigned i = 2; i < 32; i++)
		keys[i].nw_dst = c->key.nw_dst;
	CHECK(dpcls_lookup_hint(cls, keys, UINT32_MAX, flows) == 0 &&
	      flows[1] == a2 && flows[2] == c &&
	      dpcls_hint_of(cls, 5) == c->subtable,
	      "hint stayed on the subtable serving 2 keys of 32");

	/* Destroy B (both its flows), then a new subtable, possibly at B's
	 * old address: port 7's lookups still answer right */
	dpcls_remove(cls, b_ip);
	dpcls_remove(cls, b_arp);
	dpcls_remove(cls, a2);
	CHECK(dpcls_hint_of(cls, 7) == NULL, "hint of destroyed B");
	port_keys(keys, 0, 32, 7, 0x0800);
	CHECK(dpcls_lookup_hint(cls, keys, UINT32_MAX, flows) == UINT32_MAX,
	      "port 7 hit after its flows went");
	struct megaflow *d = port_flow(7, 0x0800, SHAPE_L3_DST, 6);

	d->key.nw_dst = keys[0].nw_dst & test_mask(d)->nw_dst;
	CHECK(!dpcls_insert(cls, d, test_mask(d)), "insert d");
	flows[0] = flows[1] = &sentinel;
	uint32_t miss = dpcls_lookup_hint(cls, keys, 1, flows);
	CHECK(miss == 0 && flows[0] == d, "new subtable: miss %x", miss);

	dpcls_destroy(cls);
	free(a);
	free(a2);
	free(b_ip);
	free(b_arp);
	free(c);
	free(d);
}
