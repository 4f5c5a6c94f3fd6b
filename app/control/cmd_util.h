/* SPDX-License-Identifier: BSD-3-Clause
 * What the vxswitch-ctl command files (cmd_*.c) share: each family's
 * registration, called by commands_register(), the reports that more than
 * one of them prints, and address parsing and formatting. */
#ifndef VXS_CMD_UTIL_H
#define VXS_CMD_UTIL_H

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <rte_byteorder.h>
#include <rte_ether.h>

#include "ds.h"

#define UNUSED_ARGS (void)argc, (void)argv, (void)json, (void)aux

void cmd_show_register(void);		/* cmd_show.c */
void cmd_flows_register(void);		/* cmd_flows.c */
void cmd_dpctl_register(void);		/* cmd_dpctl.c */
void cmd_pmd_register(void);		/* cmd_pmd.c */
void cmd_tnl_register(void);		/* cmd_tnl.c */

/* show and dpif-netdev/pmd-stats-show, as text (print_exit_stats). */
void show_text(struct ds *out);		/* cmd_show.c */
void pmd_stats_show_text(struct ds *out);	/* cmd_pmd.c */

static inline const char *
ip_str(rte_be32_t ip, char *buf)
{
	inet_ntop(AF_INET, &ip, buf, INET_ADDRSTRLEN);
	return buf;
}

static inline void
mac_str(const struct rte_ether_addr *m, char *buf)
{
	rte_ether_format_addr(buf, RTE_ETHER_ADDR_FMT_SIZE, m);
}

static inline int
parse_ip(const char *s, rte_be32_t *ip)
{
	return inet_pton(AF_INET, s, ip) == 1 ? 0 : -1;
}

static inline int
parse_prefix(const char *s, rte_be32_t *ip, uint8_t *plen)
{
	char buf[64];
	const char *slash = strchr(s, '/');
	size_t n = slash ? (size_t)(slash - s) : strlen(s);
	char *end;

	if (n >= sizeof buf)
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (parse_ip(buf, ip))
		return -1;
	*plen = 32;
	if (slash) {
		long v = strtol(slash + 1, &end, 10);
		if (*end || end == slash + 1 || v < 0 || v > 32)
			return -1;
		*plen = v;
	}
	return 0;
}

#endif
