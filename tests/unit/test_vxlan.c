/* SPDX-License-Identifier: BSD-3-Clause
 * VXLAN template, encap and decap against the scapy reference vectors
 * (tests/vectors/vxlan_vectors.txt, path in argv[1]) and against packets
 * mutated from them.
 *
 * Usage: test_vxlan VECTORS_FILE
 * Prints one line per test and ends with 'N passed, N failed'; exits
 * non-zero if any test failed.
 *
 * This file: the checks, the vectors, mbuf helpers, the template tests and
 * main; the encap tests are in test_vxlan_encap.c, the decap tests in
 * test_vxlan_decap.c.
 */
#include "vxlan_test.h"

struct rte_mempool *pool;

/* ---- checks ---------------------------------------------------------- */

int test_failures;	/* failed checks in the running test */

void __attribute__((format(printf, 3, 4)))
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

/* ---- vectors ------------------------------------------------------------ */

struct vector vectors[MAX_VECTORS];
int n_vectors;

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

const struct vector *
find_vector(const char *name)
{
	for (int i = 0; i < n_vectors; i++)
		if (!strcmp(vectors[i].name, name))
			return &vectors[i];
	printf("    no vector '%s'\n", name);
	abort();
}

void
vector_template(const struct vector *v, struct vxlan_tnl_template *t)
{
	vxlan_tnl_template_build(t, &v->src_mac, &v->dst_mac, v->src_ip,
				 v->dst_ip, v->vni, v->dst_port, v->ttl, v->df);
}

/* ---- mbufs -------------------------------------------------------------- */

struct rte_mbuf *
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
struct rte_mbuf *
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

bool
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

void
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

void
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
	CHECK(t.csum_partial == sum, "csum_partial 0x%04x, want 0x%04x",
	      t.csum_partial, sum);

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

/* OVS 3.1's text for an IPv6 header (lib/odp-util.c,
 * format_odp_tnl_push_header: inet_ntop addresses, label decimal, tclass
 * hex, hlimit; udp csum 0xffff as udp_build_header leaves it), written
 * out by hand from that code. */
static void
test_template6_format(void)
{
	static const struct rte_ether_addr src_mac = {{ 2, 0, 0, 0, 6, 1 }};
	static const struct rte_ether_addr dst_mac = {{ 2, 0, 0, 0, 6, 2 }};
	static const struct flow_in6_addr src = {{ 0x20, 0x01, 0x0d, 0xb8,
		[15] = 1 }};
	static const struct flow_in6_addr dst = {{ 0xfd, 0x00, 0, 0, 0, 0,
		0, 0xff, [14] = 0xab, [15] = 2 }};
	const char *want =
		"tnl_push(tnl_port(vxlan),header(size=70,type=4,"
		"eth(dst=02:00:00:00:06:02,src=02:00:00:00:06:01,"
		"dl_type=0x86dd),"
		"ipv6(src=2001:db8::1,dst=fd00:0:0:ff::ab02,label=0,proto=17,"
		"tclass=0x0,hlimit=64),"
		"udp(src=0,dst=4789,csum=0xffff),"
		"vxlan(flags=0x8000000,vni=0x3e9)))";
	struct vxlan_tnl_template t;
	char buf[512];

	vxlan_tnl_template_build6(&t, &src_mac, &dst_mac, &src, &dst, 1001,
				  4789, 64, 0);
	int n = vxlan_tnl_template_format(&t, buf, sizeof buf);
	CHECK(n == (int)strlen(want) && !strcmp(buf, want),
	      "format\n      got  %s\n      want %s", buf, want);

	vxlan_tnl_template_build6(&t, &src_mac, &dst_mac, &dst, &src, 7,
				  8472, 1, 0xb8);
	vxlan_tnl_template_format(&t, buf, sizeof buf);
	CHECK(strstr(buf, "ipv6(src=fd00:0:0:ff::ab02,dst=2001:db8::1,label=0,"
			  "proto=17,tclass=0xb8,hlimit=1),udp(src=0,dst=8472,") &&
	      strstr(buf, "vni=0x7)))"), "format: %s", buf);
}

/* The same against real OVS: the tnl_push header that ovs-vswitchd 3.1
 * put in its megaflow for a VXLAN port with remote_ip fd00:172::1, key
 * 1001, from br-phy (aa:55:aa:55:00:00, fd00:172::100) to the neighbour
 * f8:bc:12:44:34:b6 (tests/integration/ovs_ref/make-ovs-ref-tnl6.sh). */
static const char *ovs_tnl6_ref;	/* its dump-flows file, argv[2] */

static void
test_template6_format_ovs(void)
{
	static const struct rte_ether_addr src_mac = {{ 0xaa, 0x55, 0xaa, 0x55,
							0, 0 }};
	static const struct rte_ether_addr dst_mac = {{ 0xf8, 0xbc, 0x12, 0x44,
							0x34, 0xb6 }};
	static const struct flow_in6_addr src = {{ 0xfd, 0, 0x01, 0x72,
		[14] = 0x01, [15] = 0x00 }};
	static const struct flow_in6_addr dst = {{ 0xfd, 0, 0x01, 0x72,
		[15] = 0x01 }};
	static const char prefix[] = "tnl_push(tnl_port(vxlan),";
	char line[LINE_MAX_LEN], ours[512];
	const char *want = NULL, *end = NULL;
	FILE *f = ovs_tnl6_ref ? fopen(ovs_tnl6_ref, "r") : NULL;

	CHECK(f, "no OVS reference (%s)", ovs_tnl6_ref ? ovs_tnl6_ref : "-");
	while (f && fgets(line, sizeof line, f))
		if ((want = strstr(line, "tnl_push(")) &&
		    (want = strstr(want, "header(")) &&
		    (end = strstr(want, ",out_port(")))
			break;
	if (f)
		fclose(f);
	CHECK(want && end, "no tnl_push header in %s", ovs_tnl6_ref);
	if (!want || !end)
		return;

	struct vxlan_tnl_template t;
	vxlan_tnl_template_build6(&t, &src_mac, &dst_mac, &src, &dst, 1001,
				  4789, 64, 0);
	int n = vxlan_tnl_template_format(&t, ours, sizeof ours);
	/* ours: tnl_push(tnl_port(vxlan),header(...)) : OVS's header(...) */
	bool same = n > (int)sizeof prefix &&
		    !strncmp(ours, prefix, sizeof prefix - 1) &&
		    (size_t)(n - (int)sizeof prefix) == (size_t)(end - want) &&
		    !strncmp(ours + sizeof prefix - 1, want,
			     (size_t)(end - want));
	CHECK(same, "not OVS's header\n      got  %s\n      OVS  %.*s", ours,
	      (int)(end - want), want);
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
	{ "template6_format", test_template6_format },
	{ "template6_format_ovs", test_template6_format_ovs },
	{ "encap_vectors", test_encap_vectors },
	{ "encap_vector_groups", test_encap_vector_groups },
	{ "ip_csum_incremental", test_ip_csum_incremental },
	{ "udp_src_port", test_udp_src_port },
	{ "encap_no_headroom", test_encap_no_headroom },
	{ "encap_lengths_and_flags", test_encap_lengths_and_flags },
	{ "encap6_fields", test_encap6_fields },
	{ "encap6_csum_zero", test_encap6_csum_zero },
	{ "encap6_random", test_encap6_random },
	{ "encap_mixed_families", test_encap_mixed_families },
	{ "encap6_max_inner", test_encap6_max_inner },
	{ "decap_vectors", test_decap_vectors },
	{ "decap_truncated", test_decap_truncated },
	{ "decap_vxlan_flags", test_decap_vxlan_flags },
	{ "decap_ip_checks", test_decap_ip_checks },
	{ "decap_ip_csum_sums", test_decap_ip_csum_sums },
	{ "decap_udp_csum", test_decap_udp_csum },
	{ "decap_mixed_batch", test_decap_mixed_batch },
	{ "decap6_good", test_decap6_good },
	{ "decap6_checksum", test_decap6_checksum },
	{ "decap6_refused", test_decap6_refused },
	{ "decap6_batch", test_decap6_batch },
	{ "mempool_full", test_mempool_full },	/* last */
};

int
main(int argc, char **argv)
{
	char prefix[64];

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: %s VECTORS_FILE [OVS_TNL6_DUMP]\n",
			argv[0]);
		return 2;
	}
	ovs_tnl6_ref = argc == 3 ? argv[2] : NULL;
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
