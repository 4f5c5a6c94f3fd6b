/* SPDX-License-Identifier: BSD-3-Clause
 * One scalar of the topology file as a typed value: a bounded decimal, a
 * bool, an IPv4 address or prefix, a unicast MAC, a string that fits its
 * field. Each error names the key and quotes the value as expanded.
 */
#include "config_loader.h"
#include "ipv4_prefix.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <string.h>
#include <strings.h>
#include <sys/un.h>

#define SUN_PATH_MAX (sizeof(((struct sockaddr_un *)0)->sun_path))

int
get_string(struct loader *ld, const yaml_node_t *node, const char *what,
	   char *dst, size_t size)
{
	const char *s = scalar(ld, node, what);
	if (s == NULL)
		return -1;
	size_t n = strlen(s);
	if (n == 0)
		return fail(ld, node, "empty value for '%s'", what);
	if (n >= size)
		return fail(ld, node, "%s longer than %zu characters '%s'",
			    what, size - 1, s);
	memcpy(dst, s, n + 1);
	return 0;
}

/* Decimal digits only: "0x10", "+1", "1e3" and "010" surprises are errors
 * rather than silently different numbers. */
static bool
parse_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0;
	if (*s == '\0' || (s[0] == '0' && s[1] != '\0'))
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || x > (UINT64_MAX - 9) / 10)
			return false;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return true;
}

int
get_uint(struct loader *ld, const yaml_node_t *node, const char *what,
	 uint64_t min, uint64_t max, uint64_t *out)
{
	const char *s = scalar(ld, node, what);
	if (s == NULL)
		return -1;
	if (!parse_u64(s, out) || *out < min || *out > max)
		return fail(ld, node,
			    "bad %s (an integer %" PRIu64 "..%" PRIu64 ") '%s'",
			    what, min, max, s);
	return 0;
}

int
get_bool(struct loader *ld, const yaml_node_t *node, const char *what,
	 bool *out)
{
	static const char *const yes[] = { "true", "yes", "on" };
	static const char *const no[] = { "false", "no", "off" };
	const char *s = scalar(ld, node, what);
	if (s == NULL)
		return -1;
	for (size_t i = 0; i < RTE_DIM(yes); i++) {
		if (strcasecmp(s, yes[i]) == 0 || strcasecmp(s, no[i]) == 0) {
			*out = strcasecmp(s, yes[i]) == 0;
			return 0;
		}
	}
	return fail(ld, node, "bad %s (true or false) '%s'", what, s);
}

int
get_ipv4(struct loader *ld, const yaml_node_t *node, const char *what,
	 rte_be32_t *ip)
{
	const char *s = scalar(ld, node, what);
	if (s == NULL)
		return -1;
	if (inet_pton(AF_INET, s, ip) != 1)
		return fail(ld, node, "bad IPv4 address '%s'", s);
	return 0;
}

int
get_prefix(struct loader *ld, const yaml_node_t *node, const char *what,
	   rte_be32_t *ip, uint8_t *plen)
{
	const char *s = scalar(ld, node, what);
	if (s == NULL)
		return -1;
	if (!ipv4_prefix_parse(s, false, ip, plen))
		return fail(ld, node, "bad IPv4 prefix '%s'", s);
	return 0;
}

int
get_mac(struct loader *ld, const yaml_node_t *node, const char *what,
	struct rte_ether_addr *mac)
{
	const char *s = scalar(ld, node, what);
	if (s == NULL)
		return -1;
	if (rte_ether_unformat_addr(s, mac) < 0)
		return fail(ld, node, "bad MAC address '%s'", s);
	if (!rte_is_valid_assigned_ether_addr(mac))
		return fail(ld, node, "MAC address is not unicast '%s'", s);
	return 0;
}

int
get_socket_path(struct loader *ld, const yaml_node_t *node, const char *what,
		char *dst, size_t size)
{
	if (get_string(ld, node, what, dst, size) < 0)
		return -1;
	if (strlen(dst) >= SUN_PATH_MAX)
		return fail(ld, node,
			    "%s too long for a unix socket (max %zu) '%s'",
			    what, SUN_PATH_MAX - 1, dst);
	return 0;
}

