/* SPDX-License-Identifier: BSD-3-Clause
 * Whether each PMD is answering, and if not, where it is stuck.
 *
 * A PMD stores the TSC at the top of every iteration (pmd->heartbeat_tsc)
 * and, before each step that may block or run long, what it is doing
 * (pmd->dp.io_where: rx or tx on a port, the datapath, a control call, the
 * idle sleep; datapath.h, DP_WHERE). A PMD whose heartbeat is older than
 * PMD_ANSWER_MS is "not answering": a driver call that blocks (net_pcap
 * reading a FIFO nobody writes yet), a wedged device, a bug. Then:
 *
 *  - pmd_call() does not wait on it: the command answers with what it has
 *    (counters as last seen), marked as such (show, pmd-stats-show);
 *  - pmd_watch_tick() (the control loop) logs it once, and again when it
 *    answers again;
 *  - pmds_stop() interrupts it (pmd_interrupt: a signal whose handler does
 *    nothing, installed without SA_RESTART, so a blocking read() or poll()
 *    in the driver returns EINTR and the driver's burst returns), and gives
 *    up after PMD_STOP_MS, so SIGTERM stops the switch in bounded time.
 *
 * A healthy PMD's longest iteration is its idle back-off sleep (at most
 * 100 ms, pmd-idle-backoff-us) or a revalidation: well under the bound.
 */
#ifndef VXS_PMD_WATCH_H
#define VXS_PMD_WATCH_H

#include <stdbool.h>
#include "ds.h"

struct pmd;

#define PMD_ANSWER_MS 1000	/* silent this long: not answering */
#define PMD_STOP_MS 3000	/* pmds_stop gives up on a PMD after this */
#define PMD_INTERRUPT_MS 100	/* pmds_stop's interrupts, this far apart */

/* Installs pmd_interrupt's signal handler (before the EAL starts). */
void pmd_watch_init(void);

/* Seconds since the PMD's last iteration began; 0 if it is not running. */
double pmd_silent_s(const struct pmd *pmd);
/* Running, and silent for less than PMD_ANSWER_MS. */
bool pmd_answering(const struct pmd *pmd);
/* What it is doing, e.g. "rx on dpdk-phy" (DP_WHERE). */
void pmd_where_text(const struct pmd *pmd, struct ds *out);
/* "pmd 1 (core 3): not answering for 2.3 s (inside rx on dpdk-phy)" */
void pmd_silence_text(const struct pmd *pmd, struct ds *out);
/* {"pmd": 1, "core": 3, "silent_s": 2.3, "inside": "rx on dpdk-phy"} */
void pmd_silence_json(const struct pmd *pmd, struct ds *out);
/* For a command that changes what PMDs do: 0 when every PMD answers;
 * else -1 and, in out, which does not and that nothing was changed. */
int pmds_answering_or_refuse(struct ds *out);
/* For the commands that report (show, pmd-stats-show): "key": [...] of
 * the PMDs not answering (pmd_silence_json), empty when all answer. */
void pmds_silence_json(struct ds *out, const char *key);

/* Makes a blocking system call in the PMD's thread return (EINTR). */
void pmd_interrupt(struct pmd *pmd);

/* The control loop's watchdog: logs a PMD that stopped answering, once,
 * and when it answers again. */
void pmd_watch_tick(void);

#endif
