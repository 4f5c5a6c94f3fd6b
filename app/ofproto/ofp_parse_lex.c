/* SPDX-License-Identifier: BSD-3-Clause
 * The lexer the match and action halves of the flow parser share: errors,
 * numbers, IPv4 and MAC addresses, port names, comma/space separated words.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ofp_parse_priv.h"

#define OFPP_MAX 0xffffff00u	/* ofports from here on are reserved */

static const char dec_digits[] = "0123456789";
static const char hex_digits[] = "0123456789abcdefABCDEF";

int
ofp_fail(struct parser *p, const char *fmt, ...)
{
	if (p->err && p->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(p->err, p->errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* ---- scalar syntax ---------------------------------------------------- */

/* Decimal or 0x hex, nothing else: no sign, no octal, no trailing junk. */
bool
ofp_parse_uint(const char *s, uint64_t max, uint64_t *out)
{
	const char *digits = dec_digits;
	int base = 10;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		digits = hex_digits;
		base = 16;
	}
	if (!*s || s[strspn(s, digits)])
		return false;
	errno = 0;
	unsigned long long v = strtoull(s, NULL, base);
	if (errno == ERANGE || v > max)
		return false;
	*out = v;
	return true;
}

bool
ofp_parse_ipv4(const char *s, rte_be32_t *ip)
{
	struct in_addr a;

	if (inet_pton(AF_INET, s, &a) != 1)
		return false;
	*ip = a.s_addr;
	return true;
}

static int
hex_value(char c)
{
	return isdigit((unsigned char)c) ? c - '0'
					 : tolower((unsigned char)c) - 'a' + 10;
}

/* Six groups of one or two hex digits separated by ':', as OVS takes. */
bool
ofp_parse_mac(const char *s, struct rte_ether_addr *mac)
{
	for (int i = 0; i < RTE_ETHER_ADDR_LEN; i++) {
		size_t n = strspn(s, hex_digits);
		if (n < 1 || n > 2)
			return false;
		mac->addr_bytes[i] = (uint8_t)(n == 1 ? hex_value(s[0])
					: hex_value(s[0]) * 16 + hex_value(s[1]));
		s += n;
		if (i < RTE_ETHER_ADDR_LEN - 1 && *s++ != ':')
			return false;
	}
	return *s == '\0';
}

/* Numbers first (as ovs-ofctl does), then names; 0 if neither. */
uint32_t
ofp_resolve_port(const struct ofp_port_map *ports, const char *s)
{
	uint64_t n;

	if (s[0] && !s[strspn(s, dec_digits)])
		return ofp_parse_uint(s, OFPP_MAX - 1, &n) ? (uint32_t)n : 0;
	if (ports && ports->port_by_name)
		return ports->port_by_name(s, ports->aux);
	return 0;
}

bool
ofp_is_separator(char c)
{
	return c == ',' || isspace((unsigned char)c);
}

/* Splits the next comma/whitespace separated word off *pos; separators
 * inside parentheses do not split. */
char *
ofp_next_word(char **pos)
{
	char *s = *pos, *word;
	int depth = 0;

	while (ofp_is_separator(*s))
		s++;
	if (!*s)
		return NULL;
	word = s;
	while (*s && (depth || !ofp_is_separator(*s))) {
		depth += (*s == '(') - (*s == ')' && depth);
		s++;
	}
	if (*s)
		*s++ = '\0';
	*pos = s;
	return word;
}
