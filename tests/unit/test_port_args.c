/* SPDX-License-Identifier: BSD-3-Clause
 * add-port's words for a vxlan port (config_port_args.c): the options go
 * where the topology has them, the words come back from the port
 * (set Interface), and the run-time underlay checks
 * (config_tunnel_port_check) say what check_tunnel says.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "config.h"

static int n_passed, n_failed;

#define CHECK(c)                                                             \
	do {                                                                 \
		if (c) {                                                     \
			n_passed++;                                          \
		} else {                                                     \
			n_failed++;                                          \
			fprintf(stderr, "%s:%d: FAIL %s\n", __FILE__,         \
				__LINE__, #c);                               \
		}                                                            \
	} while (0)
#define CHECK_ERR(e, want)                                                   \
	do {                                                                 \
		CHECK(strstr((e), (want)) != NULL);                          \
		if (!strstr((e), (want)))                                    \
			fprintf(stderr, "    got \"%s\"\n", (e));           \
	} while (0)

static int
args(struct cfg_port *c, char *err, size_t len, const char *name, ...)
{
	const char *argv[32] = { name };
	int argc = 1;
	va_list ap;

	va_start(ap, name);
	for (const char *w; argc < 32 && (w = va_arg(ap, const char *));)
		argv[argc++] = w;
	va_end(ap);
	err[0] = '\0';
	return config_port_from_args(argc, argv, c, err, len);
}

static void
test_words(void)
{
	struct cfg_port c;
	char err[CFG_ERR_MAX];

	CHECK(args(&c, err, sizeof err, "vx0", "type=vxlan",
		   "options:remote_ip=flow", "options:key=flow", NULL) == 0);
	CHECK(c.type == CFG_PORT_VXLAN && c.remote_ip_flow && c.key_flow);
	CHECK(!c.local_ip_flow && c.local_ip == 0 && !c.local_ipv6);

	CHECK(args(&c, err, sizeof err, "vx0", "type=vxlan",
		   "remote_ip=10.0.0.1", "key=7", "dst_port=4790",
		   "local_ip=flow", "vnis=1001,1002", NULL) == 0);
	CHECK(!c.remote_ip_flow && c.remote_ip == inet_addr("10.0.0.1"));
	CHECK(!c.key_flow && c.key == 7 && c.dst_port == 4790);
	CHECK(c.local_ip_flow && c.n_vnis == 2 && c.vnis[0] == 1001 &&
	      c.vnis[1] == 1002);

	CHECK(args(&c, err, sizeof err, "vx0", "type=vxlan",
		   "remote_ip=2001:db8::1", "udp6zerocsumrx=false", NULL) == 0);
	CHECK(c.remote_ipv6 && c.remote_ip6[0] == 0x20 && c.remote_ip6[15] == 1);
	CHECK(c.udp6_zero_csum_refused);

	/* the topology's refusals, in its words */
	CHECK(args(&c, err, sizeof err, "vx0", "type=vxlan", NULL) == -1);
	CHECK_ERR(err, "missing option 'remote_ip' in port 'vx0'");
	CHECK(args(&c, err, sizeof err, "vx0", "type=vxlan", "remote_ip=flow",
		   "bogus=1", NULL) == -1);
	CHECK_ERR(err, "bogus");
	CHECK(args(&c, err, sizeof err, "vx0", "type=vxlan", "remote_ip=flow",
		   "key=99999999", NULL) == -1);
	CHECK_ERR(err, "key");
	CHECK(args(&c, err, sizeof err, "vx0", "type=vxlan",
		   "remote_ip=0.0.0.0", NULL) == -1);
	CHECK_ERR(err, "bad remote_ip '0.0.0.0'");
	/* an option of another type's port: refused as in the topology */
	CHECK(args(&c, err, sizeof err, "vx0", "type=vxlan", "remote_ip=flow",
		   "n_rxq=2", NULL) == -1);
	CHECK(args(&c, err, sizeof err, "vm0", "type=dpdkvhostuserclient",
		   "path=/tmp/x", "remote_ip=flow", NULL) == -1);
}

/* to_args, then from_args again: the same port */
static void
test_round_trip(void)
{
	static const char *const cases[][6] = {
		{ "type=vxlan", "remote_ip=flow", "key=flow", NULL },
		{ "type=vxlan", "remote_ip=10.0.0.1", "key=5", "dst_port=4790",
		  "vnis=1,2", NULL },
		{ "type=vxlan", "remote_ip=fd00::1", "local_ip=fd00::2",
		  "udp6zerocsumrx=false", NULL },
		{ "type=vxlan", "remote_ip=flow", "local_ip=flow", "key=flow",
		  NULL },
	};
	char words[64][CFG_WORD_MAX], err[CFG_ERR_MAX];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *argv[70] = { "vx0" };
		struct cfg_port a, b;
		int argc = 1;

		for (int k = 0; cases[i][k]; k++)
			argv[argc++] = cases[i][k];
		CHECK(config_port_from_args(argc, argv, &a, err, sizeof err)
		      == 0);
		int n = config_port_to_args(&a, words, 64);
		argc = 1;
		for (int k = 0; k < n; k++)
			argv[argc++] = words[k];
		CHECK(config_port_from_args(argc, argv, &b, err, sizeof err)
		      == 0);
		a.line = b.line = a.col = b.col = 0;
		CHECK(memcmp(&a, &b, sizeof a) == 0);
	}
}

static void
test_underlay_checks(void)
{
	struct vxs_config cfg;
	struct cfg_port c;
	char err[CFG_ERR_MAX];

	memset(&cfg, 0, sizeof cfg);
	CHECK(args(&c, err, sizeof err, "vx0", "type=vxlan", "remote_ip=flow",
		   NULL) == 0);
	CHECK(config_tunnel_port_check(&cfg, &c, false, err, sizeof err) < 0);
	CHECK_ERR(err, "missing underlay 'port' for vxlan port 'vx0'");
	snprintf(cfg.underlay_port, sizeof cfg.underlay_port, "phy");
	CHECK(config_tunnel_port_check(&cfg, &c, false, err, sizeof err) < 0);
	CHECK_ERR(err, "missing underlay 'local-ip' for vxlan port 'vx0'");
	cfg.vtep_ip = inet_addr("172.1.0.100");
	CHECK(config_tunnel_port_check(&cfg, &c, false, err, sizeof err) == 0);
	CHECK(c.local_ip == cfg.vtep_ip);	/* the VTEP's, not given */

	/* a fixed IPv6 remote with an IPv4 VTEP only */
	CHECK(args(&c, err, sizeof err, "vx0", "type=vxlan",
		   "remote_ip=2001:db8::1", NULL) == 0);
	CHECK(config_tunnel_port_check(&cfg, &c, false, err, sizeof err) < 0);
	CHECK_ERR(err, "vxlan port 'vx0': remote_ip is IPv6 but the underlay "
		       "has no IPv6 'local-ip'");
	CHECK(args(&c, err, sizeof err, "vx0", "type=vxlan",
		   "remote_ip=10.0.0.1", NULL) == 0);
	CHECK(config_tunnel_port_check(&cfg, &c, false, err, sizeof err) == 0);

	/* local_ip given: the VTEP's own, of remote's family */
	CHECK(args(&c, err, sizeof err, "vx0", "type=vxlan",
		   "remote_ip=flow", "local_ip=172.1.0.9", NULL) == 0);
	CHECK(config_tunnel_port_check(&cfg, &c, true, err, sizeof err) < 0);
	CHECK_ERR(err, "local_ip is not the underlay local-ip '172.1.0.9'");
	CHECK(args(&c, err, sizeof err, "vx0", "type=vxlan",
		   "remote_ip=flow", "local_ip=172.1.0.100", NULL) == 0);
	CHECK(config_tunnel_port_check(&cfg, &c, true, err, sizeof err) == 0);
	cfg.vtep_ip6_set = true;
	inet_pton(AF_INET6, "2001:db8::100", cfg.vtep_ip6);
	CHECK(args(&c, err, sizeof err, "vx0", "type=vxlan",
		   "remote_ip=10.0.0.1", "local_ip=2001:db8::100", NULL) == 0);
	CHECK(config_tunnel_port_check(&cfg, &c, true, err, sizeof err) < 0);
	CHECK_ERR(err, "local_ip and remote_ip of two families "
		       "'2001:db8::100'");
}

int
main(void)
{
	test_words();
	test_round_trip();
	test_underlay_checks();
	printf("port_args: %d passed, %d failed\n", n_passed, n_failed);
	return n_failed ? 1 : 0;
}
