/* SPDX-License-Identifier: BSD-3-Clause
 * PMD liveness: who is not answering, where, and how to make a blocked
 * driver call return (pmd_watch.h). */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <rte_cycles.h>
#include "datapath.h"
#include "json_out.h"
#include "pmd.h"
#include "pmd_watch.h"
#include "port.h"
#include "vlog.h"

#define PMD_INTERRUPT_SIGNAL SIGUSR2

/* Does nothing: being delivered is the point (a blocking system call in
 * the PMD's thread returns EINTR, as there is no SA_RESTART). */
static void
on_pmd_interrupt(int sig)
{
	(void)sig;
}

void
pmd_watch_init(void)
{
	struct sigaction sa = { .sa_handler = on_pmd_interrupt };

	sigemptyset(&sa.sa_mask);
	sigaction(PMD_INTERRUPT_SIGNAL, &sa, NULL);
}

void
pmd_interrupt(struct pmd *pmd)
{
	if (__atomic_load_n(&pmd->running, __ATOMIC_ACQUIRE))
		pthread_kill(pmd->thread, PMD_INTERRUPT_SIGNAL);
}

static uint64_t
silent_tsc(const struct pmd *pmd)
{
	if (!__atomic_load_n(&pmd->running, __ATOMIC_ACQUIRE))
		return 0;
	uint64_t hb = __atomic_load_n(&pmd->heartbeat_tsc, __ATOMIC_RELAXED);
	uint64_t now = rte_rdtsc();
	return now > hb ? now - hb : 0;
}

double
pmd_silent_s(const struct pmd *pmd)
{
	return (double)silent_tsc(pmd) / rte_get_tsc_hz();
}

bool
pmd_answering(const struct pmd *pmd)
{
	return silent_tsc(pmd) < rte_get_tsc_hz() / 1000 * PMD_ANSWER_MS;
}

void
pmd_where_text(const struct pmd *pmd, struct ds *out)
{
	static const char *const texts[DP_N_WHERE] = {
#define X(id, text) [DP_IN_##id] = text,
		DP_WHERE(X)
#undef X
	};
	uint32_t w = __atomic_load_n(&pmd->dp.io_where, __ATOMIC_RELAXED);
	unsigned step = w >> 16;

	if (step >= DP_N_WHERE) {
		ds_put_cstr(out, "?");
		return;
	}
	ds_put_cstr(out, texts[step]);
	if (step == DP_IN_RX || step == DP_IN_TX)
		ds_put_format(out, " %s", port_name_at(w & 0xffff));
}

void
pmd_silence_text(const struct pmd *pmd, struct ds *out)
{
	ds_put_format(out, "pmd %u (core %u): not answering for %.1f s "
		      "(inside ", pmd->idx, pmd->lcore, pmd_silent_s(pmd));
	pmd_where_text(pmd, out);
	ds_put_char(out, ')');
}

void
pmd_silence_json(const struct pmd *pmd, struct ds *out)
{
	struct ds where;

	ds_init(&where);
	pmd_where_text(pmd, &where);
	jw_begin_object(out);
	jw_key(out, "pmd"); jw_u64(out, pmd->idx);
	jw_key(out, "core"); jw_u64(out, pmd->lcore);
	jw_key(out, "silent_s"); jw_double(out, pmd_silent_s(pmd));
	jw_key(out, "inside"); jw_string(out, ds_cstr(&where));
	jw_end_object(out);
	ds_destroy(&where);
}

int
pmds_answering_or_refuse(struct ds *out)
{
	int rc = 0;

	for (uint16_t i = 0; i < n_pmds; i++) {
		if (pmd_answering(&pmds[i]))
			continue;
		if (rc)
			ds_put_cstr(out, "; ");
		pmd_silence_text(&pmds[i], out);
		rc = -1;
	}
	if (rc)
		ds_put_cstr(out, ": nothing changed");
	return rc;
}

void
pmds_silence_json(struct ds *out, const char *key)
{
	jw_key(out, key);
	jw_begin_array(out);
	for (uint16_t i = 0; i < n_pmds; i++)
		if (!pmd_answering(&pmds[i]))
			pmd_silence_json(&pmds[i], out);
	jw_end_array(out);
}

void
pmd_watch_tick(void)
{
	static uint64_t next;
	uint64_t now = rte_rdtsc();

	if (now < next)
		return;
	next = now + rte_get_tsc_hz() / 10;
	for (uint16_t i = 0; i < n_pmds; i++) {
		struct pmd *pmd = &pmds[i];
		uint64_t hb = __atomic_load_n(&pmd->heartbeat_tsc,
					      __ATOMIC_RELAXED);
		/* a heartbeat since: it went round its loop again, even if
		 * it is stuck once more (a command's wait may hide the
		 * moment from these ticks) */
		if (pmd->silent_logged) {
			if (hb == pmd->silent_hb)
				continue;
			pmd->silent_logged = false;
			VLOG_INFO(pmd, "pmd %u (core %u): answering again after "
				  "%.1f s\n", pmd->idx, pmd->lcore,
				  (double)(hb - pmd->silent_hb) /
					  rte_get_tsc_hz());
		}
		if (pmd_answering(pmd))
			continue;
		pmd->silent_logged = true;
		pmd->silent_hb = hb;
		struct ds s;
		ds_init(&s);
		pmd_silence_text(pmd, &s);
		VLOG_WARN(pmd, "%s: commands report its counters as last "
			  "seen\n", ds_cstr(&s));
		ds_destroy(&s);
	}
}
