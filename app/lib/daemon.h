/* SPDX-License-Identifier: BSD-3-Clause
 * Running as a daemon, as OVS's daemon-unix.c does it:
 *
 *   --detach   daemon_detach_start() forks before rte_eal_init() (DPDK does
 *              not survive a fork once its threads run). The foreground
 *              process waits on a pipe: it exits 0 when the daemon calls
 *              daemon_ready() (ports up, PMDs running, control socket
 *              listening), or with the daemon's own exit code (1 if it
 *              died from a signal) when the daemon dies first. Until
 *              ready, the daemon keeps the caller's stderr, so start-up
 *              errors reach the terminal; then stdin/out/err go to
 *              /dev/null (the log file and syslog remain, vlog.h).
 *   --pidfile  daemon_make_pidfile(): written as PATH.tmp, locked
 *              (fcntl F_SETLK, held for the process's life) and renamed
 *              onto PATH; a locked pidfile means another daemon runs
 *              ("already running as pid N, aborting").
 *   systemd    daemon_ready() and daemon_stopping() send READY=1 and
 *              STOPPING=1 to $NOTIFY_SOCKET (sd_notify, when built with
 *              libsystemd; a no-op without the variable).
 */
#ifndef VXS_DAEMON_H
#define VXS_DAEMON_H

#include <stdbool.h>
#include <stddef.h>

#define DAEMON_DEFAULT_PIDFILE "/var/run/vxswitch/vxswitch.pid"

/* OVSDB mode (--ovsdb) stands in for ovs-vswitchd, so its pidfile and
 * unixctl socket default to ovs-vswitchd's, where OVS's ovs-appctl (no
 * -t) and ovs-ofctl look: DIR/ovs-vswitchd.pid and
 * DIR/ovs-vswitchd.<pid>.ctl, DIR being $OVS_RUNDIR if set, else
 * DAEMON_OVS_RUNDIR (OVS's lib/dirs.c, Debian's build). */
#define DAEMON_OVS_RUNDIR "/var/run/openvswitch"
const char *daemon_ovs_rundir(void);

/* Forks. Returns only in the daemon (0), or -1 if the fork failed; the
 * foreground process exits from here. */
int daemon_detach_start(void);

/* Creates the pidfile (its folder must exist). 0, or -1 with the reason in
 * 'err'. */
int daemon_make_pidfile(const char *path, char *err, size_t errlen);

/* Removes the pidfile made above, if any. */
void daemon_remove_pidfile(void);

/* Start-up is complete: tells the waiting foreground process (with
 * --detach) and systemd; 'status' is systemd's STATUS= line. */
void daemon_ready(const char *status);

/* Shutting down (systemd's STOPPING=1). */
void daemon_stopping(void);

/* True once daemon_detach_start() forked. */
bool daemon_is_detached(void);

#endif
