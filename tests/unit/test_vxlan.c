/* SPDX-License-Identifier: BSD-3-Clause
 * VXLAN template, encap and decap against the scapy reference vectors
 * (tests/vectors/vxlan_vectors.txt, path in argv[1]) and against packets
 * mutated from them.
 *
 * Usage: test_vxlan VECTORS_FILE
 * Prints one line per test and ends with 'N passed, N failed'; exits
 * non-zero if any test failed.
 */
#include <arpa/inet.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mbuf_ptype.h>
#include <rte_mempool.h>

#include "flow_key.h"
#include "pkt_batch.h"
#include "vxlan_decap.h"
#include "vxlan_encap.h"
#include "vxlan_tnl.h"

#define POOL_SIZE 511
#define TNL_OFPORT 7
#define MAX_VECTORS 64
#define LINE_MAX_LEN 16384

static struct rte_mempool *pool;

/* ---- checks ---------------------------------------------------------- */

static int test_failures;	/* failed checks in the running test */

static void __attribute__((format(printf, 3, 4)))
check_failed(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	printf("    %s:%d: ", file, line);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	test_failures++;
}

#define CHECK(cond, ...)						\
	do {								\
		if (!(cond))						\
			check_failed(__FILE__, __LINE__, __VA_ARGS__);	\
	} while (0)

/* ---- vectors ------------------------------------------------------------ */

struct vector {
	char name[64];
	char mode[16];		/* "both" or "decap" */
	char group[32];		/* "-" = none */
	struct rte_ether_addr src_mac, dst_mac;
	rte_be32_t src_ip, dst_ip;
	uint32_t vni;
	uint16_t dst_port;
	uint8_t ttl;
	bool df;
	uint16_t ip_id;
	uint32_t hash;
	uint16_t sport;
	uint8_t *inner, *outer;
	size_t inner_len, outer_len;
};

static struct vector vectors[MAX_VECTORS];
static int n_vectors;

static bool
parse_hex(const char *s, uint8_t **out, size_t *out_len)
{
	size_t n = strlen(s);

	if (n % 2)
		return false;
	*out = malloc(n / 2 + 1);
	if (*out == NULL)
		return false;
	for (size_t i = 0; i < n / 2; i++) {
		unsigned v;
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return false;
		(*out)[i] = (uint8_t)v;
	}
	*out_len = n / 2;
	return true;
}

static bool
parse_uint(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	*v = strtoul(s, &end, 0);
	return *s && !*end && *v <= max;
}

static bool
vector_set(struct vector *v, const char *key, const char *val)
{
	unsigned long u;

	if (!strcmp(key, "mode"))
		return snprintf(v->mode, sizeof v->mode, "%s", val) <
		       (int)sizeof v->mode;
	if (!strcmp(key, "group"))
		return snprintf(v->group, sizeof v->group, "%s", val) <
		       (int)sizeof v->group;
	if (!strcmp(key, "src_mac"))
		return rte_ether_unformat_addr(val, &v->src_mac) == 0;
	if (!strcmp(key, "dst_mac"))
		return rte_ether_unformat_addr(val, &v->dst_mac) == 0;
	if (!strcmp(key, "src_ip"))
		return inet_pton(AF_INET, val, &v->src_ip) == 1;
	if (!strcmp(key, "dst_ip"))
		return inet_pton(AF_INET, val, &v->dst_ip) == 1;
	if (!strcmp(key, "inner"))
		return parse_hex(val, &v->inner, &v->inner_len);
	if (!strcmp(key, "outer"))
		return parse_hex(val, &v->outer, &v->outer_len);

	static const struct {
		const char *key;
		unsigned long max;
	} nums[] = {
		{ "vni", VXLAN_VNI_MAX }, { "dst_port", UINT16_MAX },
		{ "ttl", UINT8_MAX }, { "df", 1 }, { "ip_id", UINT16_MAX },
		{ "hash", UINT32_MAX }, { "sport", UINT16_MAX },
	};
	for (size_t i = 0; i < RTE_DIM(nums); i++) {
		if (strcmp(key, nums[i].key))
			continue;
		if (!parse_uint(val, nums[i].max, &u))
			return false;
		switch (i) {
		case 0: v->vni = u; break;
		case 1: v->dst_port = u; break;
		case 2: v->ttl = u; break;
		case 3: v->df = u; break;
		case 4: v->ip_id = u; break;
		case 5: v->hash = u; break;
		case 6: v->sport = u; break;
		}
		return true;
	}
	return false;
}

static bool
load_vectors(const char *path)
{
	static char line[LINE_MAX_LEN];
	FILE *f = fopen(path, "r");
	struct vector *v = NULL;
	int lineno = 0;

	if (f == NULL) {
		perror(path);
		return false;
	}
	while (fgets(line, sizeof line, f)) {
		lineno++;
		size_t n = strlen(line);
		if (n == 0 || line[n - 1] != '\n') {
			fprintf(stderr, "%s:%d: line too long\n", path, lineno);
			goto err;
		}
		line[n - 1] = '\0';
		if (line[0] == '#' || line[0] == '\0')
			continue;

		char *val = strchr(line, ' ');
		if (val)
			*val++ = '\0';
		if (!strcmp(line, "case") && val && v == NULL &&
		    n_vectors < MAX_VECTORS) {
			v = &vectors[n_vectors];
			snprintf(v->name, sizeof v->name, "%s", val);
		} else if (!strcmp(line, "end") && v) {
			if (!v->inner || !v->outer || !v->mode[0]) {
				fprintf(stderr, "%s:%d: incomplete case\n",
					path, lineno);
				goto err;
			}
			n_vectors++;
			v = NULL;
		} else if (!v || !val || !vector_set(v, line, val)) {
			fprintf(stderr, "%s:%d: bad line '%s'\n",
				path, lineno, line);
			goto err;
		}
	}
	fclose(f);
	return v == NULL && n_vectors > 0;
err:
	fclose(f);
	return false;
}

static void
free_vectors(void)
{
	for (int i = 0; i < n_vectors; i++) {
		free(vectors[i].inner);
		free(vectors[i].outer);
	}
}

static const struct vector *
find_vector(const char *name)
{
	for (int i = 0; i < n_vectors; i++)
		if (!strcmp(vectors[i].name, name))
			return &vectors[i];
	printf("    no vector '%s'\n", name);
	abort();
}

static void
vector_template(const struct vector *v, struct vxlan_tnl_template *t)
{
	vxlan_tnl_template_build(t, &v->src_mac, &v->dst_mac, v->src_ip,
				 v->dst_ip, v->vni, v->dst_port, v->ttl, v->df);
}

/* ---- mbufs -------------------------------------------------------------- */

static struct rte_mbuf *
mbuf_from(const void *data, size_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	if (m == NULL) {
		printf("    mbuf pool empty\n");
		abort();
	}
	char *p = rte_pktmbuf_append(m, (uint16_t)len);
	if (p == NULL) {
		printf("    %zu bytes do not fit one mbuf\n", len);
		abort();
	}
	memcpy(p, data, len);
	return m;
}

/* A chain of mbufs holding data, the first seg_len bytes in the first
 * segment and seg_len (the last one: what is left) in each of the others. */
static struct rte_mbuf *
mbuf_chain_from(const uint8_t *data, size_t len, size_t seg_len)
{
	size_t first = RTE_MIN(len, seg_len);
	struct rte_mbuf *head = mbuf_from(data, first);

	for (size_t off = first; off < len; off += seg_len) {
		struct rte_mbuf *seg = mbuf_from(data + off,
						 RTE_MIN(seg_len, len - off));
		if (rte_pktmbuf_chain(head, seg) != 0) {
			printf("    cannot chain\n");
			abort();
		}
	}
	return head;
}

static bool
mbuf_equals(const struct rte_mbuf *m, const uint8_t *data, size_t len)
{
	if (rte_pktmbuf_pkt_len(m) != len)
		return false;
	uint8_t *copy = malloc(len + 1);
	const uint8_t *p = rte_pktmbuf_read(m, 0, (uint32_t)len, copy);
	bool same = p != NULL && memcmp(p, data, len) == 0;
	free(copy);
	return same;
}

static void
print_diff(const struct rte_mbuf *m, const uint8_t *want, size_t want_len)
{
	size_t len = rte_pktmbuf_pkt_len(m);
	uint8_t *copy = malloc(len + 1);
	const uint8_t *got = rte_pktmbuf_read(m, 0, (uint32_t)len, copy);

	printf("    got %zu bytes, want %zu\n", len, want_len);
	for (size_t i = 0; got && i < RTE_MIN(len, want_len); i++)
		if (got[i] != want[i]) {
			printf("    first difference at byte %zu: "
			       "got 0x%02x want 0x%02x\n", i, got[i], want[i]);
			break;
		}
	free(copy);
}

static void
batch_of(struct pkt_batch *b, struct rte_mbuf *m)
{
	pkt_batch_init(b);
	pkt_batch_add(b, m);
}

/* ---- template ----------------------------------------------------------- */

static void
test_template_bytes(void)
{
	const struct vector *v = find_vector("udp64_df_ttl64_vni1001");
	struct vxlan_tnl_template t, again;
	uint8_t want[VXLAN_TNL_HDR_LEN];

	vector_template(v, &t);

	/* scapy's header with the per-packet fields zeroed */
	memcpy(want, v->outer, sizeof want);
	memset(want + VXLAN_TNL_IP_OFF + 2, 0, 4);	/* total length, id */
	memset(want + VXLAN_TNL_IP_OFF + 10, 0, 2);	/* checksum */
	memset(want + VXLAN_TNL_UDP_OFF, 0, 2);		/* source port */
	memset(want + VXLAN_TNL_UDP_OFF + 4, 0, 2);	/* length */
	CHECK(memcmp(t.hdr, want, sizeof want) == 0, "template bytes");

	/* the partial sum, the slow obvious way: big-endian words */
	uint32_t sum = 0;
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)want[VXLAN_TNL_IP_OFF + i] << 8 |
		       want[VXLAN_TNL_IP_OFF + i + 1];
	while (sum > 0xffff)
		sum = (sum & 0xffff) + (sum >> 16);
	CHECK(t.ip_csum_partial == sum, "ip_csum_partial 0x%04x, want 0x%04x",
	      t.ip_csum_partial, sum);

	/* same inputs, same bytes, padding included (dp_actions_equal) */
	memset(&again, 0xa5, sizeof again);
	vector_template(v, &again);
	CHECK(memcmp(&t, &again, sizeof t) == 0, "template not reproducible");

	/* DF off clears exactly the DF bit; the VNI keeps 24 bits */
	vxlan_tnl_template_build(&again, &v->src_mac, &v->dst_mac, v->src_ip,
				 v->dst_ip, 0x1abcdef, v->dst_port, v->ttl,
				 false);
	CHECK(again.hdr[VXLAN_TNL_IP_OFF + 6] == 0 &&
	      again.hdr[VXLAN_TNL_IP_OFF + 7] == 0, "DF off");
	CHECK(t.hdr[VXLAN_TNL_IP_OFF + 6] == 0x40, "DF on");
	CHECK(!memcmp(again.hdr + VXLAN_TNL_VXLAN_OFF,
		      "\x08\x00\x00\x00\xab\xcd\xef\x00", 8), "vni masked");
}

static void
test_template_format(void)
{
	const struct vector *v = find_vector("udp64_df_ttl64_vni1001");
	const char *want =
		"tnl_push(tnl_port(vxlan),header(size=50,type=4,"
		"eth(dst=02:00:00:00:00:02,src=02:00:00:00:00:01,"
		"dl_type=0x0800),"
		"ipv4(src=192.0.2.1,dst=192.0.2.2,proto=17,tos=0,ttl=64,"
		"frag=0x4000),"
		"udp(src=0,dst=4789,csum=0x0),"
		"vxlan(flags=0x8000000,vni=0x3e9)))";
	struct vxlan_tnl_template t;
	char buf[512], small[16];

	vector_template(v, &t);
	int n = vxlan_tnl_template_format(&t, buf, sizeof buf);
	CHECK(n == (int)strlen(want) && !strcmp(buf, want),
	      "format\n      got  %s\n      want %s", buf, want);

	memset(small, 'x', sizeof small);
	n = vxlan_tnl_template_format(&t, small, sizeof small);
	CHECK(n == (int)strlen(want) && strlen(small) == sizeof small - 1,
	      "cut format: %d '%s'", n, small);

	v = find_vector("other_addrs_port8472");
	vector_template(v, &t);
	vxlan_tnl_template_format(&t, buf, sizeof buf);
	CHECK(strstr(buf, "eth(dst=f0:e1:d2:c3:b4:a5,src=0a:1b:2c:3d:4e:5f,") &&
	      strstr(buf, "ipv4(src=10.255.0.1,dst=172.16.254.3,") &&
	      strstr(buf, "frag=0x4000)") && strstr(buf, "dst=8472,") &&
	      strstr(buf, "vni=0x800001)"), "format: %s", buf);
}

/* ---- encap -------------------------------------------------------------- */

static void
test_encap_vectors(void)
{
	for (int i = 0; i < n_vectors; i++) {
		const struct vector *v = &vectors[i];
		struct vxlan_tnl_template t;
		struct pkt_batch b, dropped;
		uint32_t hashes[BATCH_MAX] = { v->hash };
		uint16_t ip_id = v->ip_id;

		if (strcmp(v->mode, "both"))
			continue;
		CHECK(vxlan_udp_src_port(v->hash) == v->sport,
		      "%s: sport %u, vector says %u", v->name,
		      vxlan_udp_src_port(v->hash), v->sport);

		vector_template(v, &t);
		batch_of(&b, mbuf_from(v->inner, v->inner_len));
		pkt_batch_init(&dropped);
		uint16_t n_dropped = vxlan_encap_batch(&b, &t, hashes, &ip_id,
						       &dropped);
		CHECK(n_dropped == 0 && b.n == 1 && dropped.n == 0,
		      "%s: dropped", v->name);
		CHECK(ip_id == (uint16_t)(v->ip_id + 1), "%s: next id 0x%x",
		      v->name, ip_id);
		if (b.n == 1 && !mbuf_equals(b.pkts[0], v->outer, v->outer_len)) {
			CHECK(false, "%s: encap differs from scapy", v->name);
			print_diff(b.pkts[0], v->outer, v->outer_len);
		}
		pkt_batch_free(&b);
		pkt_batch_free(&dropped);
	}
}

/* The cases of a group share a template: one batch, one id counter. */
static void
test_encap_vector_groups(void)
{
	int n_groups = 0;

	for (int i = 0; i < n_vectors; i++) {
		const struct vector *first = &vectors[i];
		const struct vector *members[BATCH_MAX];
		struct vxlan_tnl_template t;
		struct pkt_batch b, dropped;
		uint32_t hashes[BATCH_MAX];
		int n = 0;
		bool seen = false;

		if (!strcmp(first->group, "-") || strcmp(first->mode, "both"))
			continue;
		for (int j = 0; j < i; j++)
			seen |= !strcmp(vectors[j].group, first->group);
		if (seen)
			continue;

		vector_template(first, &t);
		pkt_batch_init(&b);
		for (int j = i; j < n_vectors && n < BATCH_MAX; j++) {
			const struct vector *v = &vectors[j];
			if (strcmp(v->group, first->group))
				continue;
			members[n] = v;
			hashes[n++] = v->hash;
			pkt_batch_add(&b, mbuf_from(v->inner, v->inner_len));
		}
		n_groups++;

		uint16_t ip_id = first->ip_id;
		pkt_batch_init(&dropped);
		vxlan_encap_batch(&b, &t, hashes, &ip_id, &dropped);
		CHECK(b.n == n && dropped.n == 0, "group %s: dropped",
		      first->group);
		CHECK(ip_id == (uint16_t)(members[n - 1]->ip_id + 1),
		      "group %s: next id 0x%x", first->group, ip_id);
		for (int k = 0; k < b.n; k++)
			if (!mbuf_equals(b.pkts[k], members[k]->outer,
					 members[k]->outer_len)) {
				CHECK(false, "group %s: %s differs from scapy",
				      first->group, members[k]->name);
				print_diff(b.pkts[k], members[k]->outer,
					   members[k]->outer_len);
			}
		pkt_batch_free(&b);
	}
	CHECK(n_groups > 0, "no vector groups");
}

/* Tiny deterministic PRNG (xorshift64*): failures must reproduce. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t
rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static void
random_template(struct vxlan_tnl_template *t)
{
	struct rte_ether_addr src, dst;
	uint64_t r = rng();

	memcpy(src.addr_bytes, &r, 6);
	r = rng();
	memcpy(dst.addr_bytes, &r, 6);
	r = rng();
	vxlan_tnl_template_build(t, &src, &dst, (rte_be32_t)r,
				 (rte_be32_t)(r >> 32), (uint32_t)rng(),
				 (uint16_t)rng(), (uint8_t)rng(), rng() & 1);
}

static void
test_ip_csum_incremental(void)
{
	const int rounds = 100000;
	int mismatches = 0;

	for (int i = 0; i < rounds; i++) {
		struct vxlan_tnl_template t;
		struct rte_ipv4_hdr ip;
		uint64_t r = rng();
		uint16_t len = (uint16_t)r, id = (uint16_t)(r >> 16);

		/* the ends of the ranges too, not only what chance picks */
		if (i < 4) {
			len = i & 1 ? 0xffff : 0;
			id = i & 2 ? 0xffff : 0;
		}
		random_template(&t);
		memcpy(&ip, t.hdr + VXLAN_TNL_IP_OFF, sizeof ip);
		ip.total_length = rte_cpu_to_be_16(len);
		ip.packet_id = rte_cpu_to_be_16(id);
		ip.hdr_checksum = 0;

		rte_be16_t want = rte_ipv4_cksum(&ip);
		rte_be16_t got = vxlan_encap_ip_csum(&t, len, id);
		if (got != want && mismatches++ < 5)
			CHECK(false, "len %u id %u: 0x%04x, rte_ipv4_cksum 0x%04x",
			      len, id, got, want);
	}
	CHECK(mismatches == 0, "%d of %d checksums differ", mismatches, rounds);
	mismatches = 0;

	/* and through the real stage: every header must verify */
	for (int round = 0; round < 200; round++) {
		struct vxlan_tnl_template t;
		struct pkt_batch b, dropped;
		uint32_t hashes[BATCH_MAX];
		uint16_t ip_id = (uint16_t)rng();
		static uint8_t frame[1500];

		random_template(&t);
		pkt_batch_init(&b);
		for (int k = 0; k < BATCH_MAX; k++) {
			size_t len = RTE_ETHER_HDR_LEN +
				     rng() % (sizeof frame - RTE_ETHER_HDR_LEN);
			hashes[k] = (uint32_t)rng();
			pkt_batch_add(&b, mbuf_from(frame, len));
		}
		pkt_batch_init(&dropped);
		vxlan_encap_batch(&b, &t, hashes, &ip_id, &dropped);
		for (int k = 0; k < b.n; k++) {
			const struct rte_ipv4_hdr *ip =
				rte_pktmbuf_mtod_offset(b.pkts[k],
					const struct rte_ipv4_hdr *,
					VXLAN_TNL_IP_OFF);
			if (rte_raw_cksum(ip, sizeof *ip) != 0xffff &&
			    mismatches++ < 5)
				CHECK(false, "encapsulated header does not verify");
		}
		pkt_batch_free(&b);
	}
	CHECK(mismatches == 0, "%d encapsulated headers do not verify",
	      mismatches);
}

static void
test_udp_src_port(void)
{
	static bool hit[VXLAN_SRC_PORT_MASK + 1];
	static const uint32_t edges[] = { 0, 1, 0x3fff, 0x4000, 0xc000,
					  0x7fffffff, 0x80000000, 0xffffffff };
	int bad = 0;

	for (uint32_t i = 0; i < 200000; i++) {
		uint32_t h = (uint32_t)rng();

		if (i < RTE_DIM(edges))
			h = edges[i];
		else if (i < RTE_DIM(edges) + RTE_DIM(hit))	/* each low */
			h = (h & ~VXLAN_SRC_PORT_MASK) | (i - RTE_DIM(edges));
		uint16_t p = vxlan_udp_src_port(h);
		if (p < 49152 || p != 49152 + (h & 0x3fff)) {
			if (bad++ < 5)
				CHECK(false, "hash 0x%08x -> port %u", h, p);
			continue;
		}
		hit[p - 49152] = true;
	}
	int missed = 0;
	for (size_t i = 0; i < RTE_DIM(hit); i++)
		missed += !hit[i];
	CHECK(bad == 0 && missed == 0, "%d bad ports, %d of 16384 never used",
	      bad, missed);

	/* in the packet, per packet, from its own hash */
	const struct vector *v = find_vector("udp64_df_ttl64_vni1001");
	struct vxlan_tnl_template t;
	struct pkt_batch b, dropped;
	uint32_t hashes[BATCH_MAX], want[BATCH_MAX];
	uint16_t ip_id = 0;

	vector_template(v, &t);
	pkt_batch_init(&b);
	for (int k = 0; k < BATCH_MAX; k++) {
		want[k] = hashes[k] = (uint32_t)rng();
		pkt_batch_add(&b, mbuf_from(v->inner, v->inner_len));
	}
	pkt_batch_init(&dropped);
	vxlan_encap_batch(&b, &t, hashes, &ip_id, &dropped);
	for (int k = 0; k < b.n; k++) {
		const struct rte_udp_hdr *udp =
			rte_pktmbuf_mtod_offset(b.pkts[k],
				const struct rte_udp_hdr *, VXLAN_TNL_UDP_OFF);
		uint16_t p = rte_be_to_cpu_16(udp->src_port);
		CHECK(p == vxlan_udp_src_port(want[k]) && udp->dgram_cksum == 0,
		      "packet %d: port %u", k, p);
	}
	pkt_batch_free(&b);
}

static void
test_encap_no_headroom(void)
{
	const struct vector *v = find_vector("udp64_df_ttl64_vni1001");
	struct vxlan_tnl_template t;
	struct pkt_batch b, dropped;
	struct rte_mbuf *m[6];
	uint32_t hashes[BATCH_MAX];
	uint16_t ip_id = 0xfffe;

	vector_template(v, &t);
	/* dropped is appended to, not overwritten */
	pkt_batch_init(&dropped);
	struct rte_mbuf *earlier = mbuf_from(v->inner, v->inner_len);
	pkt_batch_add(&dropped, earlier);

	pkt_batch_init(&b);
	for (int k = 0; k < 6; k++) {
		/* 1, 3: one byte short; 5: exactly enough */
		m[k] = rte_pktmbuf_alloc(pool);
		if (k == 1 || k == 3)
			m[k]->data_off = VXLAN_TNL_HDR_LEN - 1;
		if (k == 5)
			m[k]->data_off = VXLAN_TNL_HDR_LEN;
		memcpy(rte_pktmbuf_append(m[k], (uint16_t)v->inner_len),
		       v->inner, v->inner_len);
		hashes[k] = 100 + k;
		pkt_batch_add(&b, m[k]);
	}

	uint16_t n = vxlan_encap_batch(&b, &t, hashes, &ip_id, &dropped);
	CHECK(n == 2, "returned %u", n);
	CHECK(b.n == 4 && b.pkts[0] == m[0] && b.pkts[1] == m[2] &&
	      b.pkts[2] == m[4] && b.pkts[3] == m[5], "kept order");
	CHECK(hashes[0] == 100 && hashes[1] == 102 && hashes[2] == 104 &&
	      hashes[3] == 105, "hashes compacted with the packets");
	CHECK(dropped.n == 3 && dropped.pkts[0] == earlier &&
	      dropped.pkts[1] == m[1] &&
	      dropped.pkts[2] == m[3], "dropped order");
	CHECK(ip_id == 0x0002, "ids used only by sent packets: 0x%x", ip_id);
	for (int k = 1; k <= 3; k += 2)
		CHECK(mbuf_equals(m[k], v->inner, v->inner_len) &&
		      m[k]->data_off == VXLAN_TNL_HDR_LEN - 1,
		      "dropped packet %d was changed", k);
	static const uint16_t ids[] = { 0xfffe, 0xffff, 0x0000, 0x0001 };
	for (int k = 0; k < b.n; k++) {
		const struct rte_udp_hdr *udp =
			rte_pktmbuf_mtod_offset(b.pkts[k],
				const struct rte_udp_hdr *, VXLAN_TNL_UDP_OFF);
		const struct rte_ipv4_hdr *ip =
			rte_pktmbuf_mtod_offset(b.pkts[k],
				const struct rte_ipv4_hdr *, VXLAN_TNL_IP_OFF);
		CHECK(rte_be_to_cpu_16(ip->packet_id) == ids[k] &&
		      rte_raw_cksum(ip, sizeof *ip) == 0xffff &&
		      udp->src_port == rte_cpu_to_be_16(
			      vxlan_udp_src_port(hashes[k])),
		      "packet %d headers", k);
	}
	CHECK(m[5]->data_off == 0, "exact headroom used up");
	pkt_batch_free(&b);
	pkt_batch_free(&dropped);
}

static void
test_encap_lengths_and_flags(void)
{
	static uint8_t big[VXLAN_ENCAP_MAX_INNER_LEN + 1];
	struct vxlan_tnl_template t;
	struct pkt_batch b, dropped;
	uint32_t hashes[BATCH_MAX] = { 1, 2 };
	uint16_t ip_id = 0;

	for (size_t i = 0; i < sizeof big; i++)
		big[i] = (uint8_t)(i * 13);
	random_template(&t);
	pkt_batch_init(&b);
	struct rte_mbuf *max = mbuf_chain_from(big, sizeof big - 1, 2000);
	struct rte_mbuf *over = mbuf_chain_from(big, sizeof big, 2000);
	max->ol_flags = RTE_MBUF_F_RX_IP_CKSUM_GOOD |
			RTE_MBUF_F_RX_L4_CKSUM_GOOD | RTE_MBUF_F_RX_VLAN |
			RTE_MBUF_F_RX_VLAN_STRIPPED | RTE_MBUF_F_RX_RSS_HASH;
	max->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 |
			   RTE_PTYPE_L4_UDP;
	pkt_batch_add(&b, max);
	pkt_batch_add(&b, over);
	pkt_batch_init(&dropped);

	vxlan_encap_batch(&b, &t, hashes, &ip_id, &dropped);
	CHECK(b.n == 1 && b.pkts[0] == max && dropped.n == 1 &&
	      dropped.pkts[0] == over, "only the over-long frame dropped");

	const struct rte_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(max, const struct rte_ipv4_hdr *,
					VXLAN_TNL_IP_OFF);
	const struct rte_udp_hdr *udp =
		rte_pktmbuf_mtod_offset(max, const struct rte_udp_hdr *,
					VXLAN_TNL_UDP_OFF);
	CHECK(ip->total_length == RTE_BE16(0xffff) &&
	      udp->dgram_len == RTE_BE16(0xffff - 20) &&
	      rte_raw_cksum(ip, sizeof *ip) == 0xffff,
	      "largest frame: lengths %u/%u",
	      rte_be_to_cpu_16(ip->total_length),
	      rte_be_to_cpu_16(udp->dgram_len));
	CHECK(rte_pktmbuf_pkt_len(max) == 0xffff + RTE_ETHER_HDR_LEN &&
	      mbuf_equals(over, big, sizeof big), "mbuf lengths");
	CHECK(max->ol_flags == RTE_MBUF_F_RX_RSS_HASH &&
	      max->packet_type == RTE_PTYPE_UNKNOWN,
	      "stale offload flags 0x%" PRIx64 " ptype 0x%x", max->ol_flags,
	      max->packet_type);
	pkt_batch_free(&b);
	pkt_batch_free(&dropped);

	/* an empty batch is fine and uses no ids */
	pkt_batch_init(&b);
	CHECK(vxlan_encap_batch(&b, &t, hashes, &ip_id, &dropped) == 0 &&
	      ip_id == 1 && b.n == 0, "empty batch");
}

/* ---- decap -------------------------------------------------------------- */

static bool
key_is_tunnel(const struct flow_key *k, const struct vector *v)
{
	for (int w = 2; w < FLOW_KEY_WORDS; w++)
		if (k->w[w])
			return false;
	return k->in_port == TNL_OFPORT && k->tun_id == v->vni &&
	       k->tun_src == v->src_ip && k->tun_dst == v->dst_ip;
}

static void
test_decap_vectors(void)
{
	struct flow_key keys[BATCH_MAX];
	const struct vector *in_batch[BATCH_MAX];
	struct pkt_batch all, bad;

	pkt_batch_init(&all);
	for (int i = 0; i < n_vectors; i++) {
		const struct vector *v = &vectors[i];
		struct pkt_batch b;

		batch_of(&b, mbuf_from(v->outer, v->outer_len));
		pkt_batch_init(&bad);
		memset(keys, 0xa5, sizeof keys);	/* must all be rewritten */
		uint16_t n = vxlan_decap_batch(&b, keys, TNL_OFPORT, &bad);
		CHECK(n == 0 && b.n == 1 && bad.n == 0, "%s: rejected",
		      v->name);
		if (b.n == 1) {
			if (!mbuf_equals(b.pkts[0], v->inner, v->inner_len)) {
				CHECK(false, "%s: inner differs", v->name);
				print_diff(b.pkts[0], v->inner, v->inner_len);
			}
			CHECK(key_is_tunnel(&keys[0], v), "%s: key", v->name);
			CHECK(b.pkts[0]->packet_type == RTE_PTYPE_UNKNOWN,
			      "%s: ptype", v->name);
		}
		pkt_batch_free(&b);
		pkt_batch_free(&bad);

		if (all.n < BATCH_MAX) {
			in_batch[all.n] = v;
			pkt_batch_add(&all, mbuf_from(v->outer, v->outer_len));
		}
	}

	/* all of them at once: every shape of outer header in one batch */
	memset(keys, 0xa5, sizeof keys);
	pkt_batch_init(&bad);
	vxlan_decap_batch(&all, keys, TNL_OFPORT, &bad);
	CHECK(bad.n == 0, "batch: %u rejected", bad.n);
	for (int k = 0; k < all.n; k++)
		CHECK(mbuf_equals(all.pkts[k], in_batch[k]->inner,
				  in_batch[k]->inner_len) &&
		      key_is_tunnel(&keys[k], in_batch[k]),
		      "batch: %s", in_batch[k]->name);
	pkt_batch_free(&all);
	pkt_batch_free(&bad);
}

/* Decaps one copy of frame (len bytes, ol_flags/ptype as given): true if
 * accepted. A rejected packet must come back untouched. */
static bool
decap_accepts_as(const uint8_t *frame, size_t len, uint64_t ol_flags,
		 uint32_t ptype)
{
	struct flow_key keys[BATCH_MAX];
	struct pkt_batch b, bad;
	struct rte_mbuf *m = mbuf_from(frame, len);

	m->ol_flags = ol_flags;
	m->packet_type = ptype;
	batch_of(&b, m);
	pkt_batch_init(&bad);
	vxlan_decap_batch(&b, keys, TNL_OFPORT, &bad);
	bool accepted = b.n == 1;
	if (!accepted)
		CHECK(bad.n == 1 && bad.pkts[0] == m &&
		      mbuf_equals(m, frame, len) && m->ol_flags == ol_flags &&
		      m->packet_type == ptype, "rejected packet was changed");
	pkt_batch_free(&b);
	pkt_batch_free(&bad);
	return accepted;
}

static bool
decap_accepts(const uint8_t *frame, size_t len)
{
	return decap_accepts_as(frame, len, 0, 0);
}

/* Offsets into a vector's outer frame (no VLAN, no options unless said). */
struct outer_offsets {
	size_t ip, udp, vxlan, inner;
};

static struct outer_offsets
offsets_of(const uint8_t *frame)
{
	struct outer_offsets o;
	uint16_t type = (uint16_t)(frame[12] << 8 | frame[13]);

	o.ip = type == RTE_ETHER_TYPE_VLAN ? 18 : 14;
	o.udp = o.ip + (frame[o.ip] & 0xf) * 4;
	o.vxlan = o.udp + 8;
	o.inner = o.vxlan + 8;
	return o;
}

static void
fix_ip_csum(uint8_t *frame, size_t ip_off)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(frame + ip_off);

	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
}

static void
test_decap_truncated(void)
{
	static const char *const names[] = {
		"udp64_df_ttl64_vni1001", "outer_vlan", "outer_ip_options",
		"outer_all", "udp1400", "outer_padded",
	};

	for (size_t i = 0; i < RTE_DIM(names); i++) {
		const struct vector *v = find_vector(names[i]);
		struct outer_offsets o = offsets_of(v->outer);
		size_t frame_len = v->inner_len + o.inner;
		int wrong = 0;

		/* every length short of the full frame; the padded vector
		 * is also good with any part of its padding */
		for (size_t len = 0; len < v->outer_len; len++) {
			bool want = len >= frame_len;
			if (decap_accepts(v->outer, len) != want && wrong++ < 3)
				CHECK(false, "%s cut to %zu: %s", v->name, len,
				      want ? "rejected" : "accepted");
		}
		CHECK(wrong == 0, "%s: %d lengths wrong", v->name, wrong);
	}
}

static void
test_decap_vxlan_flags(void)
{
	const struct vector *v = find_vector("udp64_df_ttl64_vni1001");
	struct outer_offsets o = offsets_of(v->outer);
	uint8_t frame[256];

	static const uint8_t bad_flags[] = { 0x00, 0x0c, 0x88, 0x09, 0x48,
					     0xff };
	for (size_t i = 0; i < RTE_DIM(bad_flags); i++) {
		memcpy(frame, v->outer, v->outer_len);
		frame[o.vxlan] = bad_flags[i];
		CHECK(!decap_accepts(frame, v->outer_len),
		      "flags 0x%02x accepted", bad_flags[i]);
	}
	for (int byte = 1; byte <= 3; byte++)
		for (int bit = 0; bit < 8; bit++) {
			memcpy(frame, v->outer, v->outer_len);
			frame[o.vxlan + byte] = (uint8_t)(1 << bit);
			CHECK(!decap_accepts(frame, v->outer_len),
			      "reserved byte %d bit %d accepted", byte, bit);
		}

	/* RFC 7348: the reserved byte after the VNI is ignored on receipt */
	memcpy(frame, v->outer, v->outer_len);
	frame[o.vxlan + 7] = 0x5a;
	CHECK(decap_accepts(frame, v->outer_len), "byte after VNI rejected");
}

static void
test_decap_ip_checks(void)
{
	const struct vector *v = find_vector("udp64_df_ttl64_vni1001");
	struct outer_offsets o = offsets_of(v->outer);
	const size_t len = v->outer_len;
	const uint32_t tunnel_ptype = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 |
				      RTE_PTYPE_L4_UDP | RTE_PTYPE_TUNNEL_VXLAN;
	uint8_t frame[256];

	memcpy(frame, v->outer, len);
	frame[o.ip + 10] ^= 0x01;
	CHECK(!decap_accepts(frame, len), "bad IP checksum accepted");
	CHECK(decap_accepts_as(frame, len, RTE_MBUF_F_RX_IP_CKSUM_GOOD, 0),
	      "NIC's IP_CKSUM_GOOD not trusted");
	CHECK(!decap_accepts_as(frame, len, RTE_MBUF_F_RX_IP_CKSUM_BAD, 0),
	      "bad IP checksum accepted with IP_CKSUM_BAD");
	CHECK(!decap_accepts_as(frame, len, RTE_MBUF_F_RX_IP_CKSUM_NONE, 0),
	      "bad IP checksum accepted with IP_CKSUM_NONE");
	CHECK(!decap_accepts_as(frame, len, RTE_MBUF_F_RX_IP_CKSUM_GOOD,
				tunnel_ptype),
	      "inner IP_CKSUM_GOOD of a tunnel ptype taken for the outer");

	struct {
		const char *what;
		size_t off;
		uint8_t val;
		bool fix_csum;
	} mutations[] = {
		{ "IPv6 version", o.ip, 0x65, true },
		{ "IHL 4", o.ip, 0x44, true },
		{ "IHL 0", o.ip, 0x40, true },
		{ "protocol TCP", o.ip + 9, IPPROTO_TCP, true },
		{ "more fragments", o.ip + 6, 0x60, true },
		{ "fragment offset", o.ip + 7, 0x01, true },
		{ "fragment offset high bits", o.ip + 6, 0x5f, true },
		{ "IP total length past the frame", o.ip + 3,
		  (uint8_t)(len - o.ip + 1), true },
		{ "IP total length short of the UDP length", o.ip + 3,
		  (uint8_t)(len - o.ip - 1), true },
		{ "UDP length below UDP+VXLAN+Ethernet", o.udp + 5, 29, false },
		{ "UDP length past the IP payload", o.udp + 5,
		  (uint8_t)(len - o.udp + 1), false },
		{ "ethertype 0x8600", 12, 0x86, false },
		{ "ethertype ARP", 13, 0x06, false },
	};
	for (size_t i = 0; i < RTE_DIM(mutations); i++) {
		memcpy(frame, v->outer, len);
		frame[mutations[i].off] = mutations[i].val;
		if (mutations[i].fix_csum)
			fix_ip_csum(frame, o.ip);
		CHECK(!decap_accepts(frame, len), "%s accepted",
		      mutations[i].what);
	}

	/* DF either way is fine */
	memcpy(frame, v->outer, len);
	frame[o.ip + 6] = 0x00;
	fix_ip_csum(frame, o.ip);
	CHECK(decap_accepts(frame, len), "DF clear rejected");

	/* IP may carry bytes past the UDP datagram: trimmed off, not
	 * delivered as part of the inner frame */
	memcpy(frame, v->outer, len);
	memset(frame + len, 0xee, 4);
	frame[o.ip + 3] = (uint8_t)(frame[o.ip + 3] + 4);
	fix_ip_csum(frame, o.ip);
	{
		struct flow_key keys[BATCH_MAX];
		struct pkt_batch b, bad;

		batch_of(&b, mbuf_from(frame, len + 4));
		pkt_batch_init(&bad);
		vxlan_decap_batch(&b, keys, TNL_OFPORT, &bad);
		CHECK(b.n == 1 && mbuf_equals(b.pkts[0], v->inner,
					      v->inner_len),
		      "bytes past the UDP datagram not trimmed");
		pkt_batch_free(&b);
		pkt_batch_free(&bad);
	}

	/* two VLAN tags: the switch parses one */
	const struct vector *tagged = find_vector("outer_vlan");
	memcpy(frame, tagged->outer, 16);
	frame[16] = 0x81;
	frame[17] = 0x00;
	frame[18] = 0x00;
	frame[19] = 0x05;
	memcpy(frame + 20, tagged->outer + 16, tagged->outer_len - 16);
	CHECK(!decap_accepts(frame, tagged->outer_len + 4),
	      "two VLAN tags accepted");

	/* an 802.1ad tag is one tag too */
	memcpy(frame, tagged->outer, tagged->outer_len);
	frame[12] = 0x88;
	frame[13] = 0xa8;
	CHECK(decap_accepts(frame, tagged->outer_len), "802.1ad tag rejected");
}

static void
test_decap_udp_csum(void)
{
	const struct vector *v = find_vector("outer_udp_csum");
	struct outer_offsets o = offsets_of(v->outer);
	const size_t len = v->outer_len;
	const uint32_t tunnel_ptype = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 |
				      RTE_PTYPE_L4_UDP | RTE_PTYPE_TUNNEL_VXLAN;
	static uint8_t frame[2048];

	CHECK(v->outer[o.udp + 6] || v->outer[o.udp + 7],
	      "vector has no UDP checksum");
	CHECK(decap_accepts(v->outer, len), "good UDP checksum rejected");

	memcpy(frame, v->outer, len);
	frame[o.udp + 7] ^= 0x01;
	CHECK(!decap_accepts(frame, len), "bad UDP checksum accepted");
	CHECK(decap_accepts_as(frame, len, RTE_MBUF_F_RX_L4_CKSUM_GOOD, 0),
	      "NIC's L4_CKSUM_GOOD not trusted");
	CHECK(!decap_accepts_as(frame, len, RTE_MBUF_F_RX_L4_CKSUM_GOOD,
				tunnel_ptype),
	      "inner L4_CKSUM_GOOD of a tunnel ptype taken for the outer");
	CHECK(decap_accepts_as(frame, len, RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD,
			       tunnel_ptype),
	      "NIC's OUTER_L4_CKSUM_GOOD not trusted");

	/* a flipped payload bit, far from the headers */
	memcpy(frame, v->outer, len);
	frame[len - 100] ^= 0x10;
	CHECK(!decap_accepts(frame, len), "corrupt payload accepted");

	/* checksum 0 means none, whatever the payload */
	frame[o.udp + 6] = frame[o.udp + 7] = 0;
	CHECK(decap_accepts(frame, len), "UDP checksum 0 not skipped");

	/* the same vector split over segments; odd sizes make segments
	 * start at odd offsets of the datagram, where the partial sums must
	 * be byte-swapped (and where DPDK 22.11's rte_raw_cksum_mbuf errs) */
	memcpy(frame, v->outer, len);
	frame[len - 100] ^= 0x10;
	for (size_t seg = o.inner + RTE_ETHER_HDR_LEN; seg < len; seg += 111) {
		struct flow_key keys[BATCH_MAX];
		struct pkt_batch b, bad;

		batch_of(&b, mbuf_chain_from(frame, len, seg));
		pkt_batch_init(&bad);
		vxlan_decap_batch(&b, keys, TNL_OFPORT, &bad);
		CHECK(b.n == 0 && bad.n == 1,
		      "corrupt payload in segments of %zu accepted", seg);
		pkt_batch_free(&b);
		pkt_batch_free(&bad);

		batch_of(&b, mbuf_chain_from(v->outer, len, seg));
		pkt_batch_init(&bad);
		vxlan_decap_batch(&b, keys, TNL_OFPORT, &bad);
		CHECK(b.n == 1 && mbuf_equals(b.pkts[0], v->inner,
					      v->inner_len) &&
		      key_is_tunnel(&keys[0], v), "segments of %zu: %s",
		      seg, b.n != 1 ? "rejected" : "wrong inner or key");
		pkt_batch_free(&b);
		pkt_batch_free(&bad);
	}

	/* headers not all in the first segment: rejected, not misread */
	struct flow_key keys[BATCH_MAX];
	struct pkt_batch b, bad;
	batch_of(&b, mbuf_chain_from(v->outer, len, o.inner + 13));
	pkt_batch_init(&bad);
	vxlan_decap_batch(&b, keys, TNL_OFPORT, &bad);
	CHECK(b.n == 0 && bad.n == 1, "split inner Ethernet header accepted");
	pkt_batch_free(&bad);
}

static void
test_decap_mixed_batch(void)
{
	const struct vector *good[3] = {
		find_vector("tcp_nodf"), find_vector("outer_vlan"),
		find_vector("icmp_ttl1_vnimax"),
	};
	const struct vector *base = find_vector("udp64_df_ttl64_vni1001");
	struct outer_offsets o = offsets_of(base->outer);
	uint8_t bad_flags[256], bad_csum[256];
	struct rte_mbuf *m[5];
	struct flow_key keys[BATCH_MAX];
	struct pkt_batch b, bad;

	memcpy(bad_flags, base->outer, base->outer_len);
	bad_flags[o.vxlan] = 0;
	memcpy(bad_csum, base->outer, base->outer_len);
	bad_csum[o.ip + 11] ^= 0x80;

	m[0] = mbuf_from(good[0]->outer, good[0]->outer_len);
	m[1] = mbuf_from(bad_flags, base->outer_len);
	m[2] = mbuf_from(good[1]->outer, good[1]->outer_len);
	m[3] = mbuf_from(bad_csum, base->outer_len);
	m[4] = mbuf_from(good[2]->outer, good[2]->outer_len);
	m[0]->ol_flags = RTE_MBUF_F_RX_IP_CKSUM_GOOD |
			 RTE_MBUF_F_RX_L4_CKSUM_GOOD | RTE_MBUF_F_RX_VLAN |
			 RTE_MBUF_F_RX_VLAN_STRIPPED | RTE_MBUF_F_RX_RSS_HASH |
			 RTE_MBUF_F_RX_OUTER_L4_CKSUM_GOOD;
	m[0]->packet_type = RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 |
			    RTE_PTYPE_L4_UDP;
	pkt_batch_init(&b);
	for (int k = 0; k < 5; k++)
		pkt_batch_add(&b, m[k]);
	pkt_batch_init(&bad);

	uint16_t n = vxlan_decap_batch(&b, keys, TNL_OFPORT, &bad);
	CHECK(n == 2 && bad.n == 2 && bad.pkts[0] == m[1] &&
	      bad.pkts[1] == m[3], "bad ones, in order");
	CHECK(b.n == 3 && b.pkts[0] == m[0] && b.pkts[1] == m[2] &&
	      b.pkts[2] == m[4], "good ones, in order");
	for (int k = 0; k < b.n && k < 3; k++)
		CHECK(key_is_tunnel(&keys[k], good[k]) &&
		      mbuf_equals(b.pkts[k], good[k]->inner,
				  good[k]->inner_len),
		      "key/packet %d not compacted together", k);
	CHECK(m[0]->ol_flags == RTE_MBUF_F_RX_RSS_HASH &&
	      m[0]->packet_type == RTE_PTYPE_UNKNOWN,
	      "stale offload flags 0x%" PRIx64, m[0]->ol_flags);
	pkt_batch_free(&b);
	pkt_batch_free(&bad);

	/* empty batch */
	pkt_batch_init(&b);
	CHECK(vxlan_decap_batch(&b, keys, TNL_OFPORT, &bad) == 0 && b.n == 0,
	      "empty batch");
}

/* ---- main --------------------------------------------------------------- */

static void
test_mempool_full(void)
{
	unsigned avail = rte_mempool_avail_count(pool);

	CHECK(avail == POOL_SIZE, "%u of %u mbufs back in the pool", avail,
	      POOL_SIZE);
}

static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
	{ "template_bytes", test_template_bytes },
	{ "template_format", test_template_format },
	{ "encap_vectors", test_encap_vectors },
	{ "encap_vector_groups", test_encap_vector_groups },
	{ "ip_csum_incremental", test_ip_csum_incremental },
	{ "udp_src_port", test_udp_src_port },
	{ "encap_no_headroom", test_encap_no_headroom },
	{ "encap_lengths_and_flags", test_encap_lengths_and_flags },
	{ "decap_vectors", test_decap_vectors },
	{ "decap_truncated", test_decap_truncated },
	{ "decap_vxlan_flags", test_decap_vxlan_flags },
	{ "decap_ip_checks", test_decap_ip_checks },
	{ "decap_udp_csum", test_decap_udp_csum },
	{ "decap_mixed_batch", test_decap_mixed_batch },
	{ "mempool_full", test_mempool_full },	/* last */
};

int
main(int argc, char **argv)
{
	char prefix[64];

	if (argc != 2) {
		fprintf(stderr, "usage: %s VECTORS_FILE\n", argv[0]);
		return 2;
	}
	snprintf(prefix, sizeof prefix, "--file-prefix=test_vxlan_%d",
		 (int)getpid());
	char *eal_argv[] = {
		argv[0], "--no-huge", "--no-pci", "-m", "128", "--no-shconf",
		"--log-level=error", prefix,
	};
	if (rte_eal_init((int)RTE_DIM(eal_argv), eal_argv) < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 2;
	}
	pool = rte_pktmbuf_pool_create("test_vxlan", POOL_SIZE, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE,
				       SOCKET_ID_ANY);
	if (pool == NULL || !load_vectors(argv[1])) {
		fprintf(stderr, "setup failed\n");
		return 2;
	}
	printf("%d vectors from %s\n", n_vectors, argv[1]);

	int passed = 0, failed = 0;
	for (size_t i = 0; i < RTE_DIM(tests); i++) {
		test_failures = 0;
		tests[i].fn();
		printf("%s %s\n", test_failures ? "FAIL" : "ok  ",
		       tests[i].name);
		if (test_failures)
			failed++;
		else
			passed++;
	}

	free_vectors();
	rte_mempool_free(pool);
	rte_eal_cleanup();
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
