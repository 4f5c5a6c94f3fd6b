/* SPDX-License-Identifier: BSD-3-Clause
 * A struct vxs_config written back as a topology file, which config_load()
 * reads into an equal config (positions aside): every key the loader
 * accepts is written when it differs from its default (the key tables of
 * config_keys.c drive it, so a new plain key is written with no change
 * here), flows as ovs-ofctl text. libyaml's emitter does the quoting.
 * vxswitch-ctl save-config and the running state file (state.h) use it.
 */
#ifndef VXS_CONFIG_SAVE_H
#define VXS_CONFIG_SAVE_H

#include <stddef.h>
#include <stdio.h>

#include "config.h"

/* The comment line that carries the time a file was written. */
#define CONFIG_SAVED_PREFIX "# saved: "

/* Writes cfg to f, after comment lines naming 'generator' and the time,
 * then 'notes' (NULL, or more comment lines: "# ...\n" each). Returns 0, or -1 with a message in err (nothing is half-valid: a value
 * the loader would read differently, such as one containing "${", is
 * refused before anything is written). */
int config_save(const struct vxs_config *cfg, FILE *f, const char *generator,
		const char *notes, char *err, size_t errlen);

/* config_save() to path atomically: path.tmp, fsync, rename over path,
 * fsync of the directory. A failure leaves path as it was; so does a new
 * version that config_load() would refuse (it is left in path.tmp). */
int config_save_file(const struct vxs_config *cfg, const char *path,
		     const char *generator, const char *notes, char *err,
		     size_t errlen);

/* The time written in a file config_save() wrote ("" if none). */
void config_saved_time(const char *path, char *buf, size_t len);

/* A deep copy (ports, flows, EAL arguments); -1 when out of memory (dst
 * is then empty). Free with config_free(). */
int config_copy(struct vxs_config *dst, const struct vxs_config *src);

#endif
