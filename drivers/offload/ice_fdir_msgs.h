/* SPDX-License-Identifier: BSD-3-Clause
 * The rte_flow_error messages of the ice PMD that vxswitch tells apart,
 * verbatim, for the software Flow Director model (which sets them) and the
 * offload manager (which classifies a failure by them). ice sets these
 * with rte_flow_error_set(), so they reach the caller in error->message
 * and the errno in rte_errno.
 *
 * File:line pairs are DPDK drivers/net/ice/ice_fdir_filter.c (F),
 * ice_generic_flow.c (G), ice_switch_filter.c (S) and
 * drivers/net/intel/common/flow_check.h (C) at v22.11.11 (Debian 12's)
 * and v26.07, the newest release; see drivers/offload/ice-pmd-sources.md.
 *
 * Two ice failures carry the SAME message: a full table (the hardware's
 * programming status says "fail") and a VXLAN rule with no tunnel port
 * registered (the training packet cannot be built) both end in
 * ice_fdir_create_filter() as EINVAL "Add filter rule failed."; only the
 * PMD's log line differs (ICE_FDIR_LOG_*). A caller tells them apart by
 * what it knows: a VXLAN rule on a port with no registered tunnel port is
 * the second; anything else is the first.
 */
#ifndef VXS_ICE_FDIR_MSGS_H
#define VXS_ICE_FDIR_MSGS_H

/* EEXIST: the duplicate key (ice_fdir_extract_fltr_key: flow type, inner
 * IP fields, ext data, tunnel type; not the outer IP, not the VNI) is
 * installed. F v22.11.11:1392-1397, v26.07:1615-1620. */
#define ICE_FDIR_MSG_EXISTS "Rule already exists!"

/* EINVAL: another input set for a flow type whose profile still has
 * rules (ice_fdir_cur_prof_conflict -> ice_fdir_input_set_conf fails).
 * F v22.11.11:1410-1418, v26.07:1633-1641. */
#define ICE_FDIR_MSG_PROFILE "Profile configure failed."

/* EINVAL: the filter could not be programmed: table full (guaranteed
 * share and best-effort pool used up: the programming status descriptor
 * reports a failure, ice_rxtx.c ice_check_fdir_programming_status
 * v22.11.11:4531-4537), or no tunnel port for a VXLAN rule (below).
 * F v22.11.11:1434-1439, v26.07:1657-1662. */
#define ICE_FDIR_MSG_ADD_FAILED "Add filter rule failed."
#define ICE_FDIR_MSG_NOSPC ICE_FDIR_MSG_ADD_FAILED
#define ICE_FDIR_MSG_NO_TUNNEL ICE_FDIR_MSG_ADD_FAILED

/* The PMD's log lines (PMD_DRV_LOG, not in rte_flow_error) for the two. */
#define ICE_FDIR_LOG_NOSPC "Failed to add FDIR rule."	/* ice_rxtx.c:4533 */
#define ICE_FDIR_LOG_NO_TUNNEL "Generate dummy packet failed"	/* F:1235 */

/* EINVAL (RTE_FLOW_ERROR_TYPE_ITEM): a pattern in no engine's list, such
 * as eth/ipv6/udp/vxlan/...: ice_generic_flow.c defines the ipv6 VXLAN
 * patterns but neither FDIR nor the switch filter lists them
 * (G v22.11.11 ice_search_pattern_match_item:2272-2330;
 * doc/design-ipv6-underlay.md, "Partial offload", for 23.11 to 26.07). */
#define ICE_FDIR_MSG_PATTERN "Unsupported pattern"

/* EINVAL: input set empty or outside the pattern's row.
 * F v22.11.11:2494-2500, v26.07:3060-3066. */
#define ICE_FDIR_MSG_INSET "Invalid input set"

/* Ranges (item->last on anything but IPv4 / IPv6 frag ext):
 * v22.11 .. v26.03 set this error and go on (the range is ignored and the
 * rule accepted); v26.07 returns EINVAL.
 * F v22.11.11:1852-1859, v26.07:1926-1932. */
#define ICE_FDIR_MSG_RANGE "Not support range"

/* attr.group, by release (the "group" of offload_probe.c):
 * 22.11: any group -> EINVAL ATTR_GROUP (G v22.11.11:2066-2072). */
#define ICE_FDIR_MSG_GROUP_2211 "Not support group."
/* 23.11.0 - .3 (and 24.03 - 24.11.1): group picks the parser
 * (G v23.11 get_flow_parser:2236-2248); 0 = switch, which refuses MARK
 * (S v23.11 ice_switch_check_action:1744-1748) ... */
#define ICE_FDIR_MSG_SWITCH_ACTION "Invalid action type"
/* ... 1 = ACL, disabled on a PF (G v23.11:2192-2196) ... */
#define ICE_FDIR_MSG_ENGINE_OFF "engine is not enabled."
/* ... 3 and above: no parser (G v23.11:2298-2303). */
#define ICE_FDIR_MSG_NO_PARSER "NULL attribute."
/* 26.07: the FDIR parser's ci_flow_check_attr(attr, NULL) refuses any
 * group (F v26.07:3031, C flow_check.h:333-338,
 * commit 51e9f44df07f). */
#define ICE_FDIR_MSG_GROUP_2607 "Group not supported"

#endif
