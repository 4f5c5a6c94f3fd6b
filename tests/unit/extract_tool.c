/* SPDX-License-Identifier: BSD-3-Clause
 * Runs miniflow_extract on frames given as "NAME HEX" lines ('#'
 * comments) and prints "NAME field=value,..." a line, with the names and
 * value forms of OVS's flow text (ovs-ofctl, ofproto/trace's "Flow:"),
 * or "NAME malformed". tests/integration/test_ipv6_extract_ovs.py
 * compares the fields with OVS's own for the same frames
 * (tests/vectors/ipv6_extract.expected).
 *   extract_tool FRAMES
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rte_eal.h>
#include <rte_mbuf.h>
#include "miniflow.h"
#include "unit_test.h"

static void
put_mac(const char *name, const struct rte_ether_addr *a)
{
	printf(",%s=%02x:%02x:%02x:%02x:%02x:%02x", name, a->addr_bytes[0],
	       a->addr_bytes[1], a->addr_bytes[2], a->addr_bytes[3],
	       a->addr_bytes[4], a->addr_bytes[5]);
}

static void
put_ip6(const char *name, const struct flow_in6_addr *a)
{
	char s[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, a->a, s, sizeof s);
	printf(",%s=%s", name, s);
}

static const char *
frag_name(uint8_t f)
{
	return f & FLOW_NW_FRAG_LATER ? "later" :
	       f & FLOW_NW_FRAG_ANY ? "first" : "no";
}

static void
print_key(const struct flow_key *k)
{
	uint16_t tci = rte_be_to_cpu_16(k->vlan_tci);

	printf("dl_type=0x%04x", rte_be_to_cpu_16(k->dl_type));
	if (tci & FLOW_VLAN_CFI)
		printf(",dl_vlan=%u,dl_vlan_pcp=%u", tci & 0xfff, tci >> 13);
	else
		printf(",vlan_tci=0x0000");
	put_mac("dl_src", &k->dl_src);
	put_mac("dl_dst", &k->dl_dst);
	if (!flow_key_has_ext(k))
		return;
	put_ip6("ipv6_src", &k->ipv6_src);
	put_ip6("ipv6_dst", &k->ipv6_dst);
	printf(",ipv6_label=0x%05x,nw_proto=%u,nw_tos=%u,nw_ttl=%u,nw_frag=%s",
	       rte_be_to_cpu_32(k->ipv6_label), k->nw_proto, k->nw_tos,
	       k->nw_ttl, frag_name(k->nw_frag));
	printf(",tp_src=%u,tp_dst=%u", rte_be_to_cpu_16(k->tp_src),
	       rte_be_to_cpu_16(k->tp_dst));
	put_ip6("nd_target", &k->nd_target);
	put_mac("nd_sll", &k->nd_sll);
	put_mac("nd_tll", &k->nd_tll);
}

static int
hex_to_bytes(const char *hex, uint8_t *out, size_t max)
{
	size_t n = strlen(hex);

	if (n % 2 || n / 2 > max)
		return -1;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;
		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = (uint8_t)v;
	}
	return (int)(n / 2);
}

int
main(int argc, char **argv)
{
	static char line[8192];
	uint8_t frame[4096];

	if (argc != 2) {
		fprintf(stderr, "usage: extract_tool FRAMES\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	if (unit_test_eal_init("extract_tool", "64"))
		return 2;
	struct rte_mempool *pool = rte_pktmbuf_pool_create(
		"extract_tool", 63, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
		SOCKET_ID_ANY);
	if (!pool)
		return 2;
	while (fgets(line, sizeof line, f)) {
		char name[128], hex[sizeof line];
		if (line[0] == '#' || sscanf(line, "%127s %8191s", name,
					     hex) != 2)
			continue;
		int len = hex_to_bytes(hex, frame, sizeof frame);
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
		if (len < 0 || !m || len > rte_pktmbuf_tailroom(m)) {
			fprintf(stderr, "%s: bad frame\n", name);
			return 2;
		}
		memcpy(rte_pktmbuf_append(m, (uint16_t)len), frame, len);
		struct flow_key k;
		memset(&k, 0, sizeof k);
		int rc = miniflow_extract(m, &k);
		printf("%s ", name);
		if (rc < 0)
			printf("malformed");
		else
			print_key(&k);
		printf("\n");
		rte_pktmbuf_free(m);
	}
	fclose(f);
	return 0;
}
