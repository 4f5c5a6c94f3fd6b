/* SPDX-License-Identifier: BSD-3-Clause
 * The daemon's logging (vlog.h): the parts' DPDK log types, the three
 * destinations, the log file and its reopening, vlog/set's parser and
 * vlog/list's table.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <rte_log.h>

#include "json_out.h"
#include "vlog.h"

#define VLOG_REGISTER_TYPE(part) \
	RTE_LOG_REGISTER_SUFFIX(vxs_logtype_##part, part, INFO);
VLOG_FOR_EACH_PART(VLOG_REGISTER_TYPE)
#undef VLOG_REGISTER_TYPE

enum vlog_dest { DEST_CONSOLE, DEST_SYSLOG, DEST_FILE, N_DESTS };
static const char *const dest_names[N_DESTS] = { "console", "syslog",
						 "file" };

/* OVS's level names, and the DPDK level each stands for. */
static const struct { const char *name; uint32_t dpdk; } levels[] = {
	{ "OFF", 0 }, { "EMER", RTE_LOG_EMERG }, { "ERR", RTE_LOG_ERR },
	{ "WARN", RTE_LOG_WARNING }, { "INFO", RTE_LOG_INFO },
	{ "DBG", RTE_LOG_DEBUG },
};
#define N_LEVELS (sizeof levels / sizeof levels[0])

struct vlog_part {
	const char *name;
	int *type;		/* NULL: "dpdk", every type not ours */
	uint32_t level[N_DESTS];	/* DPDK levels */
	uint32_t dpdk_level;	/* what we last gave DPDK */
};

#define VLOG_PART_ROW(part) { #part, &vxs_logtype_##part, { 0 }, 0 },
static struct vlog_part parts[] = {
	VLOG_FOR_EACH_PART(VLOG_PART_ROW)
	{ "dpdk", NULL, { 0 }, 0 },
};
#undef VLOG_PART_ROW
#define N_PARTS (sizeof parts / sizeof parts[0])

/* Defaults: console and file at info; syslog off while there is a
 * console (under systemd both would reach the journal). */
static const uint32_t default_level[N_DESTS] = {
	RTE_LOG_INFO, 0, RTE_LOG_INFO
};

static int log_fd = -1;		/* fixed number: reopen dup2()s over it */
static char *log_path;
static uint32_t seq;
static FILE *dpdk_stream;
static bool syslog_open;

static struct vlog_part *
part_of_type(uint32_t type)
{
	for (size_t i = 0; i < N_PARTS - 1; i++)
		if (*parts[i].type >= 0 && (uint32_t)*parts[i].type == type)
			return &parts[i];
	return &parts[N_PARTS - 1];
}

static const char *
level_name(uint32_t dpdk)
{
	if (dpdk == 0)
		return "OFF";
	if (dpdk <= RTE_LOG_CRIT)
		return "EMER";
	if (dpdk == RTE_LOG_ERR)
		return "ERR";
	if (dpdk == RTE_LOG_WARNING)
		return "WARN";
	if (dpdk <= RTE_LOG_INFO)
		return "INFO";
	return "DBG";
}

static void
write_all(int fd, const char *buf, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, buf, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;		/* a log that cannot be written: drop */
		buf += w;
		n -= (size_t)w;
	}
}

/* One message (no newline) to every destination that wants it. */
static void
emit(const struct vlog_part *p, uint32_t level, const char *msg, size_t len)
{
	char line[2048];
	int n;

	if (level <= p->level[DEST_CONSOLE]) {
		/* ours as the daemon always printed them; DPDK's as DPDK does */
		n = snprintf(line, sizeof line, "%s%.*s\n",
			     p->type ? "vxswitch: " : "", (int)len, msg);
		write_all(p->type && level > RTE_LOG_WARNING ? STDOUT_FILENO
							      : STDERR_FILENO,
			  line, (size_t)n < sizeof line ? (size_t)n
							: sizeof line - 1);
	}
	if (level <= p->level[DEST_SYSLOG]) {
		if (!syslog_open) {
			openlog("vxswitch", LOG_PID | LOG_NDELAY, LOG_DAEMON);
			syslog_open = true;
		}
		syslog((int)level - 1, "%s|%s|%.*s", p->name, level_name(level),
		       (int)len, msg);
	}
	if (log_fd >= 0 && level <= p->level[DEST_FILE]) {
		struct timespec ts;
		struct tm tm;
		char when[32];

		clock_gettime(CLOCK_REALTIME, &ts);
		gmtime_r(&ts.tv_sec, &tm);
		strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
		n = snprintf(line, sizeof line, "%s.%03ldZ|%05u|%s|%s|%.*s\n",
			     when, ts.tv_nsec / 1000000,
			     __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED),
			     p->name, level_name(level), (int)len, msg);
		if ((size_t)n >= sizeof line) {
			n = sizeof line - 1;
			line[n - 1] = '\n';
		}
		write_all(log_fd, line, (size_t)n);
	}
}

void
vlog_vmsg(int type, uint32_t level, const char *fmt, va_list args)
{
	char msg[1024];
	int n = vsnprintf(msg, sizeof msg, fmt, args);
	size_t len;

	if (n < 0)
		return;
	len = (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1;
	while (len && msg[len - 1] == '\n')
		len--;
	emit(part_of_type((uint32_t)type), level, msg, len);
}

void
vlog_msg(int type, uint32_t level, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	vlog_vmsg(type, level, fmt, args);
	va_end(args);
}

/* DPDK's messages (and rte_log() calls of ours, drivers/offload's): the
 * stream is flushed after each message (rte_vlog), in its writer's
 * thread, so the current message's type and level are known here. */
static ssize_t
dpdk_stream_write(void *cookie, const char *buf, size_t size)
{
	const struct vlog_part *p = part_of_type(rte_log_cur_msg_logtype());
	uint32_t level = (uint32_t)rte_log_cur_msg_loglevel();
	size_t left = size;

	(void)cookie;
	while (left > 0) {
		const char *nl = memchr(buf, '\n', left);
		size_t len = nl ? (size_t)(nl - buf) : left;

		emit(p, level, buf, len);
		len += nl != NULL;
		buf += len;
		left -= len;
	}
	return (ssize_t)size;
}

static void
apply_dpdk_level(struct vlog_part *p)
{
	uint32_t max = 0;

	for (int d = 0; d < N_DESTS; d++)
		if (p->level[d] > max)
			max = p->level[d];
	if (p->type) {
		rte_log_set_level((uint32_t)*p->type, max);
	} else if (max != p->dpdk_level) {
		/* every type, then ours back to their own levels */
		rte_log_set_level_pattern("*", max);
		for (size_t i = 0; i < N_PARTS - 1; i++)
			rte_log_set_level((uint32_t)*parts[i].type,
					  parts[i].dpdk_level);
	}
	p->dpdk_level = max;
}

int
vlog_init(void)
{
	static cookie_io_functions_t fns = { .write = dpdk_stream_write };

	for (size_t i = 0; i < N_PARTS; i++) {
		memcpy(parts[i].level, default_level, sizeof default_level);
		if (parts[i].type)
			apply_dpdk_level(&parts[i]);
		else
			parts[i].dpdk_level = RTE_LOG_INFO;	/* not changed */
	}
	if (!dpdk_stream) {
		dpdk_stream = fopencookie(NULL, "w", fns);
		if (!dpdk_stream)
			return -1;
		/* whole messages: rte_vlog() flushes after each */
		setvbuf(dpdk_stream, NULL, _IOFBF, 4096);
		rte_openlog_stream(dpdk_stream);
	}
	return 0;
}

void
vlog_sync_eal_levels(void)
{
	for (size_t i = 0; i < N_PARTS - 1; i++) {
		int lvl = rte_log_get_level((uint32_t)*parts[i].type);
		if (lvl >= 0 && (uint32_t)lvl != parts[i].dpdk_level) {
			for (int d = 0; d < N_DESTS; d++)
				parts[i].level[d] = (uint32_t)lvl;
			parts[i].dpdk_level = (uint32_t)lvl;
		}
	}
}

static int
open_log(const char *path, char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);

	if (fd < 0)
		snprintf(err, errlen, "cannot open log file %s: %s", path,
			 strerror(errno));
	return fd;
}

int
vlog_set_file(const char *path, char *err, size_t errlen)
{
	int fd = open_log(path, err, errlen);
	char *copy;

	if (fd < 0)
		return -1;
	copy = strdup(path);
	if (!copy) {
		close(fd);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	free(log_path);
	log_path = copy;
	if (log_fd >= 0) {
		dup2(fd, log_fd);
		close(fd);
	} else {
		log_fd = fd;
	}
	VLOG_INFO(vlog, "opened log file %s", log_path);
	return 0;
}

int
vlog_reopen(char *err, size_t errlen)
{
	int fd;

	if (!log_path) {
		snprintf(err, errlen, "Logging to file not configured");
		return -1;
	}
	fd = open_log(log_path, err, errlen);
	if (fd < 0)
		return -1;
	dup2(fd, log_fd);	/* atomic for every thread writing to it */
	close(fd);
	VLOG_INFO(vlog, "opened log file %s", log_path);
	return 0;
}

void
vlog_console_detached(void)
{
	for (size_t i = 0; i < N_PARTS; i++) {
		struct vlog_part *p = &parts[i];
		if (p->level[DEST_SYSLOG] == default_level[DEST_SYSLOG])
			p->level[DEST_SYSLOG] = p->level[DEST_CONSOLE];
		apply_dpdk_level(p);
	}
}

/* ---- vlog/set ------------------------------------------------------------ */

struct vlog_spec {
	int part;		/* -1: all */
	int dest;		/* -1: all */
	uint32_t level;
};

static int
find_level(const char *word)
{
	for (size_t i = 0; i < N_LEVELS; i++)
		if (!strcasecmp(word, levels[i].name))
			return (int)i;
	return -1;
}

static int
find_part(const char *word)
{
	if (!strncasecmp(word, "vxswitch.", 9))
		word += 9;
	for (size_t i = 0; i < N_PARTS; i++)
		if (!strcasecmp(word, parts[i].name))
			return (int)i;
	return -1;
}

static int
find_dest(const char *word)
{
	for (int d = 0; d < N_DESTS; d++)
		if (!strcasecmp(word, dest_names[d]))
			return d;
	return -1;
}

/* As OVS's vlog_set_levels_from_string(): the words of one spec, split
 * on " ,:\t", each a part, a destination, a level or "ANY", in any order;
 * no level means dbg. */
static int
parse_spec(const char *s, struct vlog_spec *spec, struct ds *err)
{
	char *copy = strdup(s), *save = NULL;
	int lvl = -1, rc = 0;

	if (!copy) {
		ds_put_cstr(err, "out of memory");
		return -1;
	}
	spec->part = spec->dest = -1;
	for (char *w = strtok_r(copy, " ,:\t", &save); w && !rc;
	     w = strtok_r(NULL, " ,:\t", &save)) {
		int v;

		if (!strcasecmp(w, "ANY"))
			continue;
		if ((v = find_dest(w)) >= 0) {
			if (spec->dest >= 0) {
				ds_put_cstr(err,
					"cannot specify multiple destinations");
				rc = -1;
			}
			spec->dest = v;
		} else if ((v = find_level(w)) >= 0) {
			if (lvl >= 0) {
				ds_put_cstr(err,
					    "cannot specify multiple levels");
				rc = -1;
			}
			lvl = v;
		} else if ((v = find_part(w)) >= 0) {
			if (spec->part >= 0) {
				ds_put_cstr(err,
					    "cannot specify multiple modules");
				rc = -1;
			}
			spec->part = v;
		} else {
			ds_put_format(err, "no destination, level, or module "
				      "\"%s\"", w);
			rc = -1;
		}
	}
	free(copy);
	spec->level = levels[lvl >= 0 ? lvl : (int)N_LEVELS - 1].dpdk;
	return rc;
}

static void
apply_spec(const struct vlog_spec *spec)
{
	for (size_t i = 0; i < N_PARTS; i++) {
		if (spec->part >= 0 && (size_t)spec->part != i)
			continue;
		for (int d = 0; d < N_DESTS; d++)
			if (spec->dest < 0 || spec->dest == d)
				parts[i].level[d] = spec->level;
		apply_dpdk_level(&parts[i]);
	}
}

int
vlog_set_specs(int n, const char *const specs[], struct ds *err)
{
	struct vlog_spec *parsed = calloc(n > 0 ? (size_t)n : 1,
					  sizeof *parsed);
	static const struct vlog_spec all_dbg = { -1, -1, RTE_LOG_DEBUG };

	if (!parsed) {
		ds_put_cstr(err, "out of memory");
		return -1;
	}
	for (int i = 0; i < n; i++)
		if (parse_spec(specs[i], &parsed[i], err)) {
			free(parsed);
			return -1;
		}
	if (n == 0)
		apply_spec(&all_dbg);
	for (int i = 0; i < n; i++)
		apply_spec(&parsed[i]);
	free(parsed);
	return 0;
}

/* ---- vlog/list ----------------------------------------------------------- */

static int
cmp_part_names(const void *a, const void *b)
{
	return strcmp((*(const struct vlog_part *const *)a)->name,
		      (*(const struct vlog_part *const *)b)->name);
}

void
vlog_list(struct ds *out, bool json)
{
	const struct vlog_part *sorted[N_PARTS];

	for (size_t i = 0; i < N_PARTS; i++)
		sorted[i] = &parts[i];
	qsort(sorted, N_PARTS, sizeof sorted[0], cmp_part_names);
	if (json) {
		jw_begin_object(out);
		for (size_t i = 0; i < N_PARTS; i++) {
			jw_key(out, sorted[i]->name);
			jw_begin_object(out);
			for (int d = 0; d < N_DESTS; d++) {
				jw_key(out, dest_names[d]);
				jw_string(out,
					  level_name(sorted[i]->level[d]));
			}
			jw_end_object(out);
		}
		jw_end_object(out);
		ds_put_char(out, '\n');
		return;
	}
	ds_put_cstr(out, "                 console    syslog    file\n"
			 "                 -------    ------    ------\n");
	for (size_t i = 0; i < N_PARTS; i++)
		ds_put_format(out, "%-16s  %4s       %4s       %4s\n",
			      sorted[i]->name,
			      level_name(sorted[i]->level[DEST_CONSOLE]),
			      level_name(sorted[i]->level[DEST_SYSLOG]),
			      level_name(sorted[i]->level[DEST_FILE]));
}

void
vlog_fini(void)
{
	rte_openlog_stream(NULL);
	if (dpdk_stream) {
		fclose(dpdk_stream);
		dpdk_stream = NULL;
	}
	if (log_fd >= 0) {
		close(log_fd);
		log_fd = -1;
	}
	free(log_path);
	log_path = NULL;
	if (syslog_open) {
		closelog();
		syslog_open = false;
	}
}
