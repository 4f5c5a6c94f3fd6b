/* SPDX-License-Identifier: BSD-3-Clause
 * dpif-netdev/set-param NAME VALUE: datapath settings changed on live
 * traffic, without a restart:
 *   tx-flush-interval-us N   how long a PMD may hold a tx buffer's oldest
 *                            packet waiting for more (0-1000; the
 *                            topology's datapath.tx-flush-interval-us)
 *   pmtud on|off             path MTU discovery for the tunnel (ICMP
 *                            errors for what the underlay MTU refuses,
 *                            app/datapath/dp_pmtud.h; datapath.pmtud)
 *   pmtud-rate N             their rate per PMD, per second (0: no limit;
 *   pmtud-burst N            burst), as datapath.pmtud-rate/-burst
 * Each PMD takes the new value between two bursts (pmd_call); the running
 * configuration follows, so save-config and set-pmd-cores keep it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "cmd_util.h"
#include "control.h"
#include "pmd.h"
#include "pmd_watch.h"
#include "run_state.h"
#include "state.h"

/* as config_keys.c allows */
#define TX_FLUSH_INTERVAL_US_MAX 1000
#define PMTUD_RATE_MAX 100000000
#define PMTUD_BURST_MAX 1000000

static void
pmd_set_tx_flush_interval(struct pmd_request *req)
{
	dp_set_tx_flush_interval(&req->pmd->dp, (uint32_t)(uintptr_t)req->arg);
}

/* arg: on << 63 | rate << 32 | burst (rate < 2^31, burst < 2^32) */
static void
pmd_set_pmtud(struct pmd_request *req)
{
	uint64_t v = (uint64_t)(uintptr_t)req->arg;

	dp_set_pmtud(&req->pmd->dp, v >> 63, (uint32_t)(v >> 32) & INT32_MAX,
		     (uint32_t)v);
}

/* A decimal number in [min, max], nothing else ("+5", "20x", "-1" are
 * not); false with the error in out. */
static bool
parse_uint(const char *name, const char *val, unsigned long min,
	   unsigned long max, const char *unit, unsigned long *v,
	   struct ds *out)
{
	char *end;

	errno = 0;
	*v = strtoul(val, &end, 10);
	if (val[0] < '0' || val[0] > '9' || *end || errno || *v < min ||
	    *v > max) {
		ds_put_format(out, "%s: expected %lu to %lu%s, not '%s'", name,
			      min, max, unit, val);
		return false;
	}
	return true;
}

static int
cmd_set_param(int argc, const char *argv[], bool json, struct ds *out,
	      void *aux)
{
	(void)argc, (void)json, (void)aux;
	const char *name = argv[1], *val = argv[2];
	struct vxs_config *cfg = run_state_config();
	unsigned long v = 0;

	if (!strcmp(name, "tx-flush-interval-us")) {
		if (!parse_uint(name, val, 0, TX_FLUSH_INTERVAL_US_MAX,
				" microseconds", &v, out) ||
		    pmds_answering_or_refuse(out))
			return -1;
		for (uint16_t i = 0; i < n_pmds; i++)
			pmd_call(&pmds[i], pmd_set_tx_flush_interval,
				 (void *)(uintptr_t)v);
		cfg->tx_flush_interval_us = (uint32_t)v;
		state_changed();
		ds_put_format(out, "%s %lu\n", name, v);
		return 0;
	}

	bool on = cfg->pmtud;
	uint32_t rate = cfg->pmtud_rate, burst = cfg->pmtud_burst;
	if (!strcmp(name, "pmtud")) {
		if (!strcmp(val, "on") || !strcmp(val, "true")) {
			on = true;
		} else if (!strcmp(val, "off") || !strcmp(val, "false")) {
			on = false;
		} else {
			ds_put_format(out, "%s: expected on or off, not '%s'",
				      name, val);
			return -1;
		}
	} else if (!strcmp(name, "pmtud-rate")) {
		if (!parse_uint(name, val, 0, PMTUD_RATE_MAX,
				" ICMP errors a second (0: no limit)", &v, out))
			return -1;
		rate = (uint32_t)v;
	} else if (!strcmp(name, "pmtud-burst")) {
		if (!parse_uint(name, val, 1, PMTUD_BURST_MAX, "", &v, out))
			return -1;
		burst = (uint32_t)v;
	} else {
		ds_put_format(out, "unknown parameter '%s' (known: "
			      "tx-flush-interval-us, pmtud, pmtud-rate, "
			      "pmtud-burst)", name);
		return -1;
	}
	if (pmds_answering_or_refuse(out))
		return -1;
	uint64_t arg = (uint64_t)on << 63 | (uint64_t)rate << 32 | burst;
	for (uint16_t i = 0; i < n_pmds; i++)
		pmd_call(&pmds[i], pmd_set_pmtud, (void *)(uintptr_t)arg);
	cfg->pmtud = on;
	cfg->pmtud_rate = rate;
	cfg->pmtud_burst = burst;
	state_changed();
	if (!strcmp(name, "pmtud"))
		ds_put_format(out, "%s %s\n", name, on ? "on" : "off");
	else
		ds_put_format(out, "%s %lu\n", name, v);
	return 0;
}

void
cmd_dp_param_register(void)
{
	control_register("dpif-netdev/set-param",
			 "tx-flush-interval-us N | pmtud on|off | "
			 "pmtud-rate N | pmtud-burst N", 2, 2, cmd_set_param,
			 NULL);
}
