/* SPDX-License-Identifier: BSD-3-Clause
 * Recirculation ids (app/ofproto/recirc_id.c), the frozen states of
 * ct(table=):
 *  - the same state gets the same id, another state another one;
 *  - ids run 1..RECIRC_ID_MAX; one more state is refused (0) and counted,
 *    and the states already there keep working;
 *  - an id lives while it has references: the last unref frees it and
 *    its number then names a new state, whose registers a ref returns;
 *  - ref on a free id or on 0 fails (a stale packet), unref of 0 is
 *    ignored.
 */
#include <string.h>
#include "recirc_id.h"
#include "unit_test.h"

static struct recirc_frozen
state(uint32_t n)
{
	struct recirc_frozen f;

	memset(&f, 0, sizeof f);
	f.regs[5] = n;		/* Neutron's port register */
	f.regs[6] = 0x284;	/* and its zone */
	f.set_in_port = true;
	f.in_port = 1 + n % 7;
	f.table = 72;
	return f;
}

int
main(void)
{
	struct recirc_id_stats st;
	struct recirc_frozen f, got;
	uint8_t ids[RECIRC_ID_MAX + 1];
	bool seen[RECIRC_ID_MAX + 1] = { false };

	if (unit_test_eal_init("test_recirc_id", "64"))
		return 1;

	for (uint32_t i = 0; i < RECIRC_ID_MAX; i++) {
		f = state(i);
		ids[i] = recirc_id_get(&f);
		CHECK(ids[i] && !seen[ids[i]], "state %u: id %u", i, ids[i]);
		seen[ids[i]] = true;
	}
	recirc_id_get_stats(&st);
	CHECK(st.in_use == RECIRC_ID_MAX && st.refused == 0, "%u %lu",
	      st.in_use, (unsigned long)st.refused);

	/* the same state: the same id, one more reference */
	f = state(7);
	CHECK_EXPR(recirc_id_get(&f) == ids[7]);
	/* full: refused, counted */
	f = state(RECIRC_ID_MAX);
	CHECK_EXPR(recirc_id_get(&f) == 0);
	recirc_id_get_stats(&st);
	CHECK_EXPR(st.refused == 1 && st.in_use == RECIRC_ID_MAX);

	/* a recirculated translation finds the registers again */
	CHECK_EXPR(recirc_id_ref(ids[9], &got));
	CHECK_EXPR(got.regs[5] == 9 && got.regs[6] == 0x284 &&
		   got.in_port == 1 + 9 % 7 && got.table == 72);
	recirc_id_unref(ids[9]);

	/* two references on state 7: freed by the second unref only */
	recirc_id_unref(ids[7]);
	CHECK_EXPR(recirc_id_ref(ids[7], &got) && got.regs[5] == 7);
	recirc_id_unref(ids[7]);
	recirc_id_unref(ids[7]);
	CHECK_EXPR(!recirc_id_ref(ids[7], &got));
	recirc_id_get_stats(&st);
	CHECK_EXPR(st.in_use == RECIRC_ID_MAX - 1);

	/* the freed number names the next new state */
	f = state(1000);
	uint8_t id = recirc_id_get(&f);
	CHECK(id == ids[7], "id %u, freed %u", id, ids[7]);
	CHECK_EXPR(recirc_id_ref(id, &got) && got.regs[5] == 1000);
	recirc_id_unref(id);

	CHECK_EXPR(!recirc_id_ref(0, &got));
	recirc_id_unref(0);

	/* everything given back: the table is empty */
	recirc_id_unref(id);
	for (uint32_t i = 0; i < RECIRC_ID_MAX; i++)
		if (i != 7)
			recirc_id_unref(ids[i]);
	recirc_id_get_stats(&st);
	CHECK(st.in_use == 0, "in use %u", st.in_use);
	return unit_test_report();
}
