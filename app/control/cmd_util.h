/* SPDX-License-Identifier: BSD-3-Clause
 * What the vxswitch-ctl command files (cmd_*.c) share: each family's
 * registration, called by commands_register(), the reports that more than
 * one of them prints, and address parsing and formatting. */
#ifndef VXS_CMD_UTIL_H
#define VXS_CMD_UTIL_H

#include <arpa/inet.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_byteorder.h>
#include <rte_ether.h>

#include "ds.h"
#include "ipv4_prefix.h"

#define UNUSED_ARGS (void)argc, (void)argv, (void)json, (void)aux

void cmd_show_register(void);		/* cmd_show.c */
void cmd_flows_register(void);		/* cmd_flows.c */
void cmd_dpctl_register(void);		/* cmd_dpctl.c */
void cmd_pmd_register(void);		/* cmd_pmd.c */
void cmd_pmd_rxq_register(void);	/* cmd_pmd_rxq.c, by cmd_pmd_register */
void cmd_dp_param_register(void);	/* cmd_dp_param.c, by cmd_pmd_register */
void cmd_tnl_register(void);		/* cmd_tnl.c */
void cmd_vlog_register(void);		/* cmd_vlog.c: vlog/... */
void cmd_port_register(void);		/* cmd_port.c */
void cmd_ct_register(void);		/* cmd_ct.c */
void cmd_ipf_register(void);		/* cmd_ipf.c */
void cmd_trace_register(void);		/* cmd_trace.c */
/* set-pmd-cores made new PMDs (run_state.c): they get the packet trace,
 * if there is one, as those they replaced had it (cmd_trace.c). */
void cmd_trace_pmds_new(void);

/* show and dpif-netdev/pmd-stats-show, also printed at exit
 * (print_exit_stats). */
int cmd_show(int argc, const char *argv[], bool json, struct ds *out,
	     void *aux);
int cmd_pmd_stats_show(int argc, const char *argv[], bool json,
		       struct ds *out, void *aux);

/* The epilogue of a command that changed the switch (commands.c): the
 * rules' snapshot republished when they see the change (publish), the
 * state marked changed (state_changed: saved), the answer "OK".
 * Returns 0, the command's status. */
int cmd_changed_ok(struct ds *out, bool publish);

static inline const char *
ip_str(rte_be32_t ip, char *buf)
{
	inet_ntop(AF_INET, &ip, buf, INET_ADDRSTRLEN);
	return buf;
}

/* Lower case, as OVS prints MACs (DPDK's own formatter: upper case). */
static inline void
mac_str(const struct rte_ether_addr *m, char *buf)
{
	const uint8_t *b = m->addr_bytes;
	snprintf(buf, RTE_ETHER_ADDR_FMT_SIZE, "%02x:%02x:%02x:%02x:%02x:%02x",
		 b[0], b[1], b[2], b[3], b[4], b[5]);
}

static inline int
parse_ip(const char *s, rte_be32_t *ip)
{
	return inet_pton(AF_INET, s, ip) == 1 ? 0 : -1;
}

/* "A.B.C.D[/N]" (ipv4_prefix.h; no /N: a host). */
static inline int
parse_prefix(const char *s, rte_be32_t *ip, uint8_t *plen)
{
	return ipv4_prefix_parse(s, true, ip, plen) ? 0 : -1;
}

#endif
