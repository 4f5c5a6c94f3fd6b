/* SPDX-License-Identifier: BSD-3-Clause
 * emc-bypass (emc_bypass.h), the decision per lookup pass:
 *  - off, recirculated passes and emc-insert-inv-prob 0 behave as before;
 *  - one missing burst does not bypass (EWMA), a run of them does, and a
 *    hit rate above ~22 % never does;
 *  - bypassed, one burst in DP_EMC_PROBE_EVERY probes; a probe that hits
 *    ends the bypass at once, one that misses keeps it;
 *  - each in_port is judged alone; a port taking another's slot starts
 *    afresh; switching the option resets the verdicts (megaflow.c).
 * The pipeline around it (hash skipped, same bytes) is what
 * tests/integration/test_optimisations.py checks.
 */
#include <stdio.h>
#include <string.h>
#include "emc_bypass.h"
#include "unit_test.h"

static struct dp_ctx ctx;
static struct flow_key port_key[3];	/* in_ports 3, 4, 3 + slots */

/* One pass of 32 keys from key's port that missed misses times. */
static enum emc_use
pass(const struct flow_key *key, uint32_t misses)
{
	struct dp_emc_pass *judge;
	enum emc_use use = emc_use_for(&ctx, key, false, &judge);

	CHECK((judge != NULL) == !!(ctx.opts & DP_OPT_BIT(DP_OPT_EMC_BYPASS)),
	      "judged with the option %s", judge ? "off" : "on");
	if (judge && (use == EMC_USE || use == EMC_PROBE))
		emc_pass_update(judge, 32, misses);
	return use;
}

/* Passes that all miss until the port is bypassed; how many it took. */
static unsigned
miss_until_bypass(const struct flow_key *key)
{
	unsigned n = 0;

	while (n < 100 && pass(key, 32) != EMC_BYPASS)
		n++;
	return n;
}

static void
test_off(void)
{
	ctx.opts = 0;
	ctx.emc_insert_inv_prob = 100;
	for (int i = 0; i < 50; i++)
		CHECK(pass(&port_key[0], 32) == EMC_USE, "off: pass %d", i);
	ctx.opts = DP_OPT_BIT(DP_OPT_EMC_BYPASS);
	struct dp_emc_pass *judge;

	CHECK(emc_use_for(&ctx, &port_key[0], true, &judge) == EMC_NONE &&
	      !judge, "recirc");
	ctx.emc_insert_inv_prob = 0;
	CHECK(emc_use_for(&ctx, &port_key[0], false, &judge) == EMC_NONE &&
	      !judge, "EMC off");
	ctx.emc_insert_inv_prob = 100;
	memset(ctx.emc_pass, 0, sizeof ctx.emc_pass);
}

static void
test_bypass_and_probe(void)
{
	ctx.opts = DP_OPT_BIT(DP_OPT_EMC_BYPASS);
	CHECK(pass(&port_key[0], 32) == EMC_USE, "one missing burst");
	unsigned n = miss_until_bypass(&port_key[0]);
	/* 0 -> 800/1024 at 1/8 a burst: 11 bursts */
	CHECK(n >= 5 && n < 20, "bypassed after %u more bursts", n);

	/* the bypass: 62 more, then the probe */
	for (unsigned i = 2; i < DP_EMC_PROBE_EVERY; i++)
		CHECK(pass(&port_key[0], 32) == EMC_BYPASS, "bypass %u", i);
	CHECK(pass(&port_key[0], 32) == EMC_PROBE, "no probe");
	/* the probe missed: bypassed again for DP_EMC_PROBE_EVERY - 1 */
	for (unsigned i = 1; i < DP_EMC_PROBE_EVERY; i++)
		CHECK(pass(&port_key[0], 0) == EMC_BYPASS, "bypass %u", i);
	/* the other port is not bypassed */
	CHECK(pass(&port_key[1], 32) == EMC_USE, "port 4 judged by port 3");
	/* a probe that hits ends it */
	CHECK(pass(&port_key[0], 0) == EMC_PROBE, "no second probe");
	CHECK(ctx.emc_pass[3].miss_ewma == 0,
	      "a probe's verdict averaged in: %u", ctx.emc_pass[3].miss_ewma);
	CHECK(pass(&port_key[0], 20) == EMC_USE, "hitting probe ignored");
	CHECK(pass(&port_key[0], 20) == EMC_USE, "hitting probe ignored");
}

static void
test_threshold(void)
{
	/* 30 % hits (22 of 32 miss) forever: never bypassed */
	unsigned bypassed = 0;

	for (int i = 0; i < 500; i++)
		bypassed += pass(&port_key[1], 22) != EMC_USE;
	CHECK(!bypassed, "30 %% hits bypassed %u times", bypassed);
	/* 12 % hits (28 of 32 miss): bypassed */
	unsigned n = 0;

	while (n < 100 && pass(&port_key[1], 28) != EMC_BYPASS)
		n++;
	CHECK(n < 100, "12 %% hits not bypassed");
}

static void
test_set_opts_resets(void)
{
	ctx.opts = DP_OPT_BIT(DP_OPT_EMC_BYPASS);
	CHECK(miss_until_bypass(&port_key[1]) < 100, "port 4 not bypassed");
	/* (specialised-dpcls unchanged: dp_set_opts leaves ctx.cls alone) */
	dp_set_opts(&ctx, 0);
	dp_set_opts(&ctx, DP_OPT_BIT(DP_OPT_EMC_BYPASS));
	CHECK(pass(&port_key[1], 32) == EMC_USE,
	      "verdict survived switching the option off and on");
	dp_set_opts(&ctx, DP_OPT_BIT(DP_OPT_EMC_BYPASS) |
		    DP_OPT_BIT(DP_OPT_HASH_REUSE));
	CHECK(miss_until_bypass(&port_key[1]) < 100 &&
	      ctx.emc_pass[4].miss_ewma >= DP_EMC_BYPASS_MISS,
	      "another option's switch reset the verdicts");
	dp_set_opts(&ctx, DP_OPT_BIT(DP_OPT_EMC_BYPASS));
	CHECK(pass(&port_key[1], 32) == EMC_BYPASS,
	      "another option's switch reset the verdicts");
}

static void
test_slot_sharing(void)
{
	memset(ctx.emc_pass, 0, sizeof ctx.emc_pass);
	CHECK(miss_until_bypass(&port_key[0]) < 100, "port 3 not bypassed");
	/* port 3 + DP_EMC_PASS_SLOTS takes the slot: starts afresh */
	CHECK(pass(&port_key[2], 32) == EMC_USE, "new port inherits bypass");
	CHECK(pass(&port_key[0], 32) == EMC_USE, "port 3 kept a stale slot");
}

int
main(void)
{
	for (int i = 0; i < 3; i++)
		flow_key_zero(&port_key[i]);
	port_key[0].in_port = 3;
	port_key[1].in_port = 4;
	port_key[2].in_port = 3 + DP_EMC_PASS_SLOTS;

	test_off();
	test_bypass_and_probe();
	test_threshold();
	test_set_opts_resets();
	test_slot_sharing();
	return unit_test_report();
}
