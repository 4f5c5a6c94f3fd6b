/* SPDX-License-Identifier: BSD-3-Clause
 * The running state: what the switch runs now (its ports, OpenFlow rules,
 * static neighbours and routes, the datapath settings changed at run
 * time) as a struct vxs_config, written as a topology file
 * (config_save.h) by `vxswitch-ctl save-config FILE` and, after every
 * run-time change, to the state file (by default <topology>.state), which
 * a restarted vxswitch loads instead of its topology (main.c) if the
 * topology is still the one it came from (state_origin.h).
 *
 * Whatever changes the running state calls state_changed(); the control
 * loop's state_tick() then rewrites the state file, atomically (write,
 * fsync, rename), at most once per STATE_WRITE_INTERVAL_MS, so a burst of
 * changes costs one write. All of it runs in the control thread.
 */
#ifndef VXS_STATE_H
#define VXS_STATE_H

#include <stddef.h>

#include "config.h"

#define STATE_WRITE_INTERVAL_MS 200

/* The state file changes after this; cheap, call it after every change
 * that took effect (add-flow, tnl/arp/set, add-port, set-pmd-cores...). */
void state_changed(void);

/* The topology as loaded (before the command line's one-run options such
 * as --eal-args changed it): kept, copied, for what the running state
 * cannot tell (the EAL's extra arguments, the control socket). -1 when
 * out of memory. */
int state_keep_loaded(const struct vxs_config *loaded);
/* The config that was loaded, kept by state_keep_loaded (NULL before). */
const struct vxs_config *state_loaded_config(void);

/* Once the switch runs: 'running' is the config it started from (it must
 * outlive the switch), 'path' the state file ("" or NULL: none, as with
 * --no-state). */
void state_init(const struct vxs_config *running, const char *path);
/* From the control loop: writes the state file when it is due. */
void state_tick(void);
/* At a clean shutdown: writes what is still pending. */
void state_flush(void);
/* Frees what state_keep_loaded kept. */
void state_fini(void);

/* The running state as a config; free it with config_free(). -1 with a
 * message in err. */
int state_build(struct vxs_config *out, char *err, size_t errlen);
/* state_build, written atomically to path. */
int state_save(const char *path, char *err, size_t errlen);

/* What the files state_save() writes record of the topology the switch
 * started from (state_origin.h): its path and the SHA-256 of its bytes
 * at start. Not called (or NULL): nothing recorded. */
void state_set_origin(const char *topology, const char *sha256_hex);

/* The state file's default path: "<topology>.state". */
void state_default_path(const char *topology, char *buf, size_t len);

/* save-config, state/show (commands_register). */
void cmd_state_register(void);

#endif
