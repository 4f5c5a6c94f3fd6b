/* SPDX-License-Identifier: BSD-3-Clause
 * The daemon's logging, in the spirit of OVS's vlog, built on DPDK's log
 * types so that EAL options (--log-level=vxswitch.pmd:debug) and DPDK's
 * own messages go the same way.
 *
 * Parts: each part of the daemon has its own DPDK log type, registered as
 * "vxswitch.<part>" (RTE_LOG_REGISTER_SUFFIX, with the project-wide
 * -DRTE_LOG_DEFAULT_LOGTYPE=vxswitch). "dpdk" stands for every type that is
 * not ours (EAL, drivers, libraries).
 *
 * Destinations, each with its own level per part (vlog/list):
 *   console  the daemon's stdout/stderr: "vxswitch: MSG" for our parts
 *            (warnings and worse on stderr, the rest on stdout, as the
 *            daemon always printed them), DPDK's messages as DPDK prints
 *            them, on stderr
 *   syslog   syslog(3), ident "vxswitch", facility daemon
 *   file     --log-file: OVS's line format,
 *            2024-01-31T12:00:00.123Z|00042|pmd|INFO|MSG
 * Levels, as OVS names them: off emer err warn info dbg (DPDK's 0, 1, 4,
 * 5, 7, 8). A part's DPDK level is the most verbose of its three, so a
 * message no destination wants costs one comparison.
 *
 * The file is written with write(2) on a descriptor whose number never
 * changes: vlog_reopen() opens the path again and dup2()s it over that
 * descriptor, so threads logging at that moment write to the old or the
 * new file, never to a closed one (logrotate: rename, then SIGHUP).
 */
#ifndef VXS_VLOG_H
#define VXS_VLOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <rte_log.h>

#include "ds.h"

#define VLOG_DEFAULT_FILE "/var/log/vxswitch/vxswitch.log"

/* One DPDK log type per part: vxs_logtype_<part>, "vxswitch.<part>". */
#define VLOG_FOR_EACH_PART(X) \
	X(main) X(config) X(control) X(datapath) X(pmd) X(ofproto) \
	X(ports) X(conntrack) X(offload) X(vlog)
#define VLOG_DECLARE_TYPE(part) extern int vxs_logtype_##part;
VLOG_FOR_EACH_PART(VLOG_DECLARE_TYPE)
#undef VLOG_DECLARE_TYPE

/* VLOG_INFO(ports, "%s: link up", name): no trailing newline needed (one
 * is added; one given is dropped). The message is formatted only when some
 * destination wants it. */
#define VLOG(part, level, ...) do {					\
	if (rte_log_can_log(vxs_logtype_##part, RTE_LOG_##level))	\
		vlog_msg(vxs_logtype_##part, RTE_LOG_##level, __VA_ARGS__); \
} while (0)
#define VLOG_ERR(part, ...)  VLOG(part, ERR, __VA_ARGS__)
#define VLOG_WARN(part, ...) VLOG(part, WARNING, __VA_ARGS__)
#define VLOG_INFO(part, ...) VLOG(part, INFO, __VA_ARGS__)
#define VLOG_DBG(part, ...)  VLOG(part, DEBUG, __VA_ARGS__)

void vlog_msg(int type, uint32_t level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void vlog_vmsg(int type, uint32_t level, const char *fmt, va_list args);

/* Takes over DPDK's log stream (rte_openlog_stream), so that DPDK's
 * messages get the same destinations. Call first thing in main(): it is
 * safe before rte_eal_init(), and rte_eal_init() keeps the stream. */
int vlog_init(void);

/* After rte_eal_init(): a part whose DPDK level an EAL --log-level option
 * changed gets that level on every destination. */
void vlog_sync_eal_levels(void);

/* Logs to 'path' from now on (appending, created mode 0640). Returns 0, or
 * -1 with the reason in 'err'. */
int vlog_set_file(const char *path, char *err, size_t errlen);

/* Opens the log file again under its name (after logrotate renamed it).
 * 0, or -1 with the reason in 'err' ("Logging to file not configured" when
 * there is no file, as OVS says). */
int vlog_reopen(char *err, size_t errlen);

/* The console is gone (--detach: stdout/stderr are /dev/null now): parts
 * still at the default syslog level log to syslog at the console's. */
void vlog_console_detached(void);

/* vlog/set: applies OVS-style specs (each "PART:DEST:LEVEL" in any order
 * and subset; "ANY" for all). All are checked before any is applied.
 * 0, or -1 with OVS's message in 'err'. */
int vlog_set_specs(int n, const char *const specs[], struct ds *err);

/* vlog/list: OVS's table. */
void vlog_list(struct ds *out, bool json);

/* Closes the log file and gives DPDK its own stream back. */
void vlog_fini(void);

#endif
