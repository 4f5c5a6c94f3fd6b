/* SPDX-License-Identifier: BSD-3-Clause
 * miniflow_extract: hand-built packets with every key field checked, the
 * malformed cases, segmented packets, the batch stage, and a randomized
 * property test (no crash, segmentation never changes the answer, every
 * mbuf comes back to the pool).
 *
 * This file: packet builders, mbufs, keys, the checks and main; the tests
 * are in test_miniflow_packets.c (well-formed packets, IPv4 details),
 * test_miniflow_malformed.c (malformed, segmented, batches) and
 * test_miniflow_random.c.
 */
#include "miniflow_test.h"

unsigned n_passed, n_failed;

struct rte_mempool *pool;

/* ---- packet bytes ---- */

static const uint8_t MAC_DST[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x0d };
static const uint8_t MAC_SRC[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x05 };

void
put_eth(struct pkt *p, uint16_t type)
{
	put(p, MAC_DST, 6);
	put(p, MAC_SRC, 6);
	put16(p, type);
}

void
put_vlan(struct pkt *p, uint16_t tci, uint16_t inner_type)
{
	put16(p, tci);
	put16(p, inner_type);
}

/* Returns the header's offset; finish with ip_set_total(). */
uint32_t
put_ipv4(struct pkt *p, struct ip4 h)
{
	uint32_t off = p->len;
	uint8_t ihl = h.ihl ? h.ihl : 5;

	put8(p, (uint8_t)((h.version ? h.version : 4) << 4 | ihl));
	put8(p, h.tos);
	put16(p, 0);		/* total length: set later */
	put16(p, 0x1234);	/* id */
	put16(p, h.frag);
	put8(p, h.ttl);
	put8(p, h.proto);
	put16(p, 0xbeef);	/* checksum: not checked by the extractor */
	put32(p, IP_SRC);
	put32(p, IP_DST);
	for (int i = 5; i < ihl; i++)
		put32(p, 0x01010101);	/* NOP options */
	return off;
}

/* total length = everything from the IP header to the current end */
void
ip_set_total(struct pkt *p, uint32_t ip_off)
{
	set16(p->b, ip_off + 2, (uint16_t)(p->len - ip_off));
}

void
put_udp(struct pkt *p, uint16_t sport, uint16_t dport, uint32_t payload)
{
	put16(p, sport);
	put16(p, dport);
	put16(p, (uint16_t)(8 + payload));
	put16(p, 0);
	put_zeros(p, payload);
}

void
put_tcp(struct pkt *p, uint16_t sport, uint16_t dport, uint8_t doff_words,
	uint32_t options_and_payload)
{
	put16(p, sport);
	put16(p, dport);
	put32(p, 1000);		/* seq */
	put32(p, 0);		/* ack */
	put8(p, (uint8_t)(doff_words << 4));
	put8(p, 0x02);		/* SYN */
	put16(p, 65535);
	put16(p, 0);
	put16(p, 0);
	put_zeros(p, options_and_payload);
}

void
put_arp(struct pkt *p, uint16_t htype, uint16_t ptype, uint16_t op)
{
	put16(p, htype);
	put16(p, ptype);
	put8(p, 6);
	put8(p, 4);
	put16(p, op);
	put(p, MAC_SRC, 6);
	put32(p, IP_SRC);
	put_zeros(p, 6);
	put32(p, IP_DST);
}

/* Common builds: eth ipv4 udp / tcp. */
struct pkt
udp_pkt(struct ip4 h, uint16_t sport, uint16_t dport)
{
	struct pkt p = { .len = 0 };
	put_eth(&p, 0x0800);
	uint32_t ip = put_ipv4(&p, h);
	put_udp(&p, sport, dport, 10);
	ip_set_total(&p, ip);
	return p;
}

struct pkt
tcp_pkt(struct ip4 h, uint16_t sport, uint16_t dport)
{
	struct pkt p = { .len = 0 };
	put_eth(&p, 0x0800);
	uint32_t ip = put_ipv4(&p, h);
	put_tcp(&p, sport, dport, 5, 0);
	ip_set_total(&p, ip);
	return p;
}

/* ---- mbufs ---- */

struct rte_mbuf *
mbuf_of(const uint8_t *d, uint32_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	if (m == NULL) {
		printf("pool empty\n");
		exit(2);
	}
	char *x = rte_pktmbuf_append(m, (uint16_t)len);
	if (x == NULL) {
		printf("append %u failed\n", len);
		exit(2);
	}
	if (len)
		memcpy(x, d, len);
	return m;
}

/* The packet split at the given increasing offsets (segments may be
 * empty when two cuts are equal). */
struct rte_mbuf *
mbuf_split(const uint8_t *d, uint32_t len, const uint32_t *cuts, int n_cuts)
{
	uint32_t start = 0;
	struct rte_mbuf *head = NULL;

	for (int i = 0; i <= n_cuts; i++) {
		uint32_t end = i < n_cuts ? cuts[i] : len;
		struct rte_mbuf *seg = mbuf_of(d + start, end - start);
		if (head == NULL)
			head = seg;
		else if (rte_pktmbuf_chain(head, seg) != 0) {
			printf("chain failed\n");
			exit(2);
		}
		start = end;
	}
	return head;
}

struct rte_mbuf *
mbuf_pkt(const struct pkt *p)
{
	return mbuf_of(p->b, p->len);
}

/* ---- keys ---- */

/* The caller's words that the extractor must not touch. */
void
set_metadata(struct flow_key *k, uint32_t port)
{
	k->in_port = port;
	k->ct_label_bits = 0x1234;
	k->tun_id = 5001;
	k->tun_src = RTE_BE32(0xc6336401);
	k->tun_dst = RTE_BE32(0xc6336402);
	k->w[6] = 0x6666666666666666ull;
	k->w[7] = 0x7777777777777700ull;	/* ext_line clear: one line */
}

struct flow_key
l2_key(uint16_t dl_type)
{
	struct flow_key k;
	flow_key_zero(&k);
	set_metadata(&k, 3);
	memcpy(&k.dl_dst, MAC_DST, 6);
	memcpy(&k.dl_src, MAC_SRC, 6);
	k.dl_type = rte_cpu_to_be_16(dl_type);
	return k;
}

struct flow_key
ip_key(uint8_t proto, uint8_t tos, uint8_t ttl)
{
	struct flow_key k = l2_key(0x0800);
	k.nw_src = RTE_BE32(IP_SRC);
	k.nw_dst = RTE_BE32(IP_DST);
	k.nw_proto = proto;
	k.nw_tos = tos;
	k.nw_ttl = ttl;
	return k;
}

struct flow_key
l4_key(uint8_t proto, uint16_t sport, uint16_t dport)
{
	struct flow_key k = ip_key(proto, 0, 64);
	k.tp_src = rte_cpu_to_be_16(sport);
	k.tp_dst = rte_cpu_to_be_16(dport);
	return k;
}

void
print_field_diff(const struct flow_key *got, const struct flow_key *exp)
{
	struct flow_key all_ones;

	memset(&all_ones, 0xff, sizeof all_ones);
	for (int f = 0; f < MFF_N_IDS; f++) {
		if (!flow_field_differs(got, exp, &all_ones, f))
			continue;
		printf("    %s: got", mf_fields[f].name);
		for (int i = 0; i < mf_fields[f].len; i++)
			printf(" %02x", ((const uint8_t *)got)[mf_fields[f].offset + i]);
		printf(", want");
		for (int i = 0; i < mf_fields[f].len; i++)
			printf(" %02x", ((const uint8_t *)exp)[mf_fields[f].offset + i]);
		printf("\n");
	}
	for (int i = 6; i < FLOW_KEY_LINE3; i++)
		if (got->w[i] != exp->w[i])
			printf("    w%d: got %016llx\n", i,
			       (unsigned long long)got->w[i]);
}

/* Extracts into a key whose header words start as garbage, so a field
 * the extractor forgets to write shows up. */
int
extract_dirty(const struct rte_mbuf *m, struct flow_key *k, uint32_t port)
{
	memset(k, 0xa5, sizeof *k);
	set_metadata(k, port);
	return miniflow_extract(m, k);
}

void
expect_key_(const char *what, int line, struct rte_mbuf *m,
	    const struct flow_key *exp)
{
	struct flow_key got;
	int rc = extract_dirty(m, &got, exp->in_port);
	/* an IPv6 key: both lines, and the extractor says it has two */
	bool ext = flow_key_has_ext(exp);
	int words = !ext ? FLOW_KEY_LINE_WORDS
		    : flow_key_has_line3(exp) ? FLOW_KEY_WORDS : FLOW_KEY_LINE3;
	bool same = true;
	for (int i = 0; i < words; i++)
		same &= got.w[i] == exp->w[i];
	if (rc == (ext ? MINIFLOW_EXT : 0) && same) {
		n_passed++;
	} else {
		n_failed++;
		printf("FAIL line %d %s: rc %d\n", line, what, rc);
		print_field_diff(&got, exp);
	}
	rte_pktmbuf_free(m);
}

void
expect_malformed_(const char *what, int line, struct rte_mbuf *m)
{
	struct flow_key got;
	int rc = extract_dirty(m, &got, 1);
	if (rc == -1) {
		n_passed++;
	} else {
		n_failed++;
		printf("FAIL line %d %s: rc %d, want -1 (malformed)\n", line,
		       what, rc);
	}
	rte_pktmbuf_free(m);
}
int
main(int argc, char **argv)
{
	(void)argc, (void)argv;
	if (unit_test_eal_init("test_miniflow", "128"))
		return 1;
	pool = rte_pktmbuf_pool_create("miniflow_test", POOL_SIZE, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (pool == NULL) {
		printf("pool create failed\n");
		return 2;
	}

	test_udp_tcp_icmp();
	test_tos_ttl();
	test_vlan();
	test_arp();
	test_other_l2();
	test_ip_options();
	test_fragments();
	test_padding();
	test_malformed();
	test_multiseg();
	test_batch();
	test_random();
	test_ipv6();

	CHECK(rte_mempool_avail_count(pool) == POOL_SIZE,
	      "pool not full at exit: %u of %u",
	      rte_mempool_avail_count(pool), POOL_SIZE);

	/* EAL leaves its runtime dir behind (empty with --no-shconf and
	 * --no-telemetry) */
	char runtime_dir[PATH_MAX];
	snprintf(runtime_dir, sizeof runtime_dir, "%s",
		 rte_eal_get_runtime_dir());
	rte_mempool_free(pool);
	rte_eal_cleanup();
	rmdir(runtime_dir);
	return unit_test_report();
}
