/* SPDX-License-Identifier: BSD-3-Clause
 * Tests for app/config/config.c: the fixtures in tests/unit/topologies/ (the two
 * shipped topology files among them) field by field, a table of broken
 * files that must each be rejected at an exact file:line:col, ${VAR}
 * expansion, and the EAL argv.
 *
 * usage: test_config [FIXTURE_DIR]   (default tests/unit/topologies)
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "config.h"

static int n_passed, n_failed;
static const char *fixtures = "tests/unit/topologies";
static char tmpdir[] = "/tmp/test_config.XXXXXX";

static bool
check(bool ok, const char *file, int line, const char *fmt, ...)
{
	if (ok) {
		n_passed++;
		return true;
	}
	n_failed++;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s:%d: FAIL: ", file, line);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return false;
}

#define CHECK(c) check((c), __FILE__, __LINE__, "%s", #c)
#define CHECK_INT(a, b)                                                        \
	check((long long)(a) == (long long)(b), __FILE__, __LINE__,            \
	      "%s == %lld, expected %lld", #a, (long long)(a), (long long)(b))
#define CHECK_STR(a, b)                                                        \
	check(strcmp((a), (b)) == 0, __FILE__, __LINE__,                       \
	      "%s == \"%s\", expected \"%s\"", #a, (a), (b))
#define CHECK_IP(a, s) CHECK_INT(ntohl(a), ntohl(ip(s)))
#define CHECK_MAC(m, s) check(mac_is(&(m), s), __FILE__, __LINE__, "%s != %s", #m, s)

static rte_be32_t
ip(const char *s)
{
	rte_be32_t a = 0;
	if (inet_pton(AF_INET, s, &a) != 1)
		abort();
	return a;
}

static bool
mac_is(const struct rte_ether_addr *m, const char *s)
{
	char buf[RTE_ETHER_ADDR_FMT_SIZE];
	rte_ether_format_addr(buf, sizeof buf, m);
	return strcasecmp(buf, s) == 0;
}

static bool
is_empty(const struct vxs_config *cfg)
{
	static const struct vxs_config zero;
	return memcmp(cfg, &zero, sizeof zero) == 0;
}

static const char *
fixture(const char *name)
{
	static char path[CFG_PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", fixtures, name);
	return path;
}

static const char *
write_tmp(const char *name, const char *text)
{
	static char path[CFG_PATH_MAX];
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	FILE *f = fopen(path, "w");
	if (f == NULL || fputs(text, f) < 0 || fclose(f) != 0) {
		perror(path);
		exit(2);
	}
	return path;
}

static bool
load(const char *path, struct vxs_config *cfg)
{
	char err[CFG_ERR_MAX] = "";
	int rc = config_load(path, cfg, err, sizeof err);
	return check(rc == 0, __FILE__, __LINE__, "load %s: %s", path, err);
}

/* ---- tests/unit/topologies/full.yaml: every key, no defaults ---- */

static void
check_full_eal_datapath(const struct vxs_config *c)
{
	CHECK_STR(c->eal_lcores, "0-3,6");
	CHECK_INT(c->eal_main_lcore, 0);
	CHECK_INT(c->eal_memory_mb, 2048);
	CHECK_STR(c->eal_socket_mem, "");
	CHECK_STR(c->eal_file_prefix, "full-test");
	CHECK_STR(c->eal_huge_dir, "/mnt/huge1G");
	CHECK(c->eal_no_pci);
	CHECK(!c->eal_no_huge);
	CHECK_INT(c->n_eal_extra, 3);
	if (c->n_eal_extra == 3) {
		CHECK_STR(c->eal_extra[0], "--log-level=pmd.net.pcap:debug");
		CHECK_STR(c->eal_extra[1], "-n");
		CHECK_STR(c->eal_extra[2], "4");
	}
	CHECK_INT(c->n_pmd_cores, 4);
	CHECK(c->pmd_cores[0] == 1 && c->pmd_cores[1] == 2 &&
	      c->pmd_cores[2] == 3 && c->pmd_cores[3] == 6);
	CHECK_INT(c->n_mbufs, 131072);
	CHECK_INT(c->emc_insert_inv_prob, 0);
	CHECK_INT(c->flow_max_idle_ms, 2500);
	CHECK_INT(c->max_megaflows, 4096);
	CHECK_STR(c->ctl_socket, "/tmp/vxs-full.ctl");
}

static void
check_full_underlay(const struct vxs_config *c)
{
	CHECK_STR(c->underlay_port, "nic1");
	CHECK_IP(c->vtep_ip, "10.1.2.3");
	CHECK_INT(c->vtep_plen, 16);
	CHECK(c->vtep_mac_set);
	CHECK_MAC(c->vtep_mac, "02:00:00:00:AA:01");
	CHECK_INT(c->n_routes, 3);
	CHECK_IP(c->routes[0].prefix, "10.1.0.0");
	CHECK_INT(c->routes[0].plen, 16);
	CHECK_INT(c->routes[0].gateway, 0);
	CHECK_STR(c->routes[0].port, "nic1");
	CHECK_INT(c->routes[0].line, 26);
	CHECK_IP(c->routes[1].prefix, "10.0.0.0");
	CHECK_INT(c->routes[1].plen, 8);
	CHECK_IP(c->routes[1].gateway, "10.1.0.1");
	CHECK_STR(c->routes[1].port, "nic1");
	CHECK_INT(c->routes[1].line, 27);
	CHECK_IP(c->routes[2].prefix, "0.0.0.0");
	CHECK_INT(c->routes[2].plen, 0);
	CHECK_IP(c->routes[2].gateway, "10.1.0.254");
	CHECK_STR(c->routes[2].port, "nic0");
	CHECK_INT(c->routes[2].line, 28);
	CHECK_INT(c->n_arp, 2);
	CHECK_IP(c->arp[0].ip, "10.1.0.1");
	CHECK_MAC(c->arp[0].mac, "02:00:00:00:BB:01");
	CHECK_INT(c->arp[0].line, 30);
	CHECK_IP(c->arp[1].ip, "10.1.0.254");
	CHECK_MAC(c->arp[1].mac, "02:00:00:00:BB:FE");
	CHECK_INT(c->arp[1].line, 31);
}

static void
check_full_dpdk_ports(const struct vxs_config *c)
{
	const struct cfg_port *p = &c->ports[0];
	CHECK_STR(p->name, "nic0");
	CHECK_INT(p->type, CFG_PORT_DPDK);
	CHECK_INT(p->line, 34);
	CHECK_INT(p->ofport, 10);
	CHECK_STR(p->devargs, "0000:18:00.0");
	CHECK_INT(p->n_rxq, 4);
	CHECK_INT(p->rxd, 512);
	CHECK_INT(p->txd, 2048);
	CHECK_INT(p->mtu, 9000);
	CHECK_INT(p->n_affinity, 3);
	CHECK(p->affinity[0].queue == 0 && p->affinity[0].core == 1);
	CHECK(p->affinity[1].queue == 1 && p->affinity[1].core == 2);
	CHECK(p->affinity[2].queue == 3 && p->affinity[2].core == 6);

	p = &c->ports[1];
	CHECK_STR(p->name, "nic1");
	CHECK_INT(p->line, 43);
	CHECK_INT(p->ofport, 1);	/* the first free number */
	CHECK_STR(p->devargs,
		  "net_pcap0,rx_pcap=/tmp/in.pcap,tx_pcap=/tmp/out.pcap");
	CHECK_INT(p->n_rxq, 1);
	CHECK_INT(p->rxd, 1024);
	CHECK_INT(p->txd, 1024);
	CHECK_INT(p->mtu, 0);
	CHECK_INT(p->n_affinity, 0);
}

static void
check_full_vhost_ports(const struct vxs_config *c)
{
	const struct cfg_port *p = &c->ports[2];
	CHECK_STR(p->name, "vm0");
	CHECK_INT(p->type, CFG_PORT_VHOST_CLIENT);
	CHECK_INT(p->line, 46);
	CHECK_INT(p->ofport, 3);	/* 2 is vm1's, given explicitly */
	CHECK_STR(p->path, "/tmp/vm0.sock");
	CHECK_INT(p->n_rxq, 2);
	CHECK_INT(p->mtu, 1500);
	CHECK_INT(p->n_affinity, 1);
	CHECK(p->affinity[0].queue == 1 && p->affinity[0].core == 3);

	p = &c->ports[3];
	CHECK_STR(p->name, "vm1");
	CHECK_INT(p->type, CFG_PORT_VHOST_SERVER);
	CHECK_INT(p->line, 52);
	CHECK_INT(p->ofport, 2);
	CHECK_STR(p->path, "/tmp/vm1.sock");
	CHECK_INT(p->n_rxq, 1);
}

static void
check_full_vxlan_port(const struct vxs_config *c)
{
	const struct cfg_port *p = &c->ports[4];
	CHECK_STR(p->name, "tun");
	CHECK_INT(p->type, CFG_PORT_VXLAN);
	CHECK_INT(p->line, 56);
	CHECK_INT(p->ofport, 4);
	CHECK(!p->remote_ip_flow && !p->local_ip_flow && !p->key_flow);
	CHECK_IP(p->remote_ip, "10.9.9.9");
	CHECK_IP(p->local_ip, "10.1.2.3");
	CHECK_INT(p->key, 5000);
	CHECK_INT(p->dst_port, 8472);
	CHECK_INT(p->n_vnis, 2);
	CHECK(p->vnis[0] == 5000 && p->vnis[1] == 5001);
}

static void
check_full_flows(const struct vxs_config *c)
{
	CHECK_INT(c->n_flows, 3);
	if (c->n_flows != 3)
		return;
	CHECK_STR(c->flows[0].text, "in_port=vm0,actions=output:tun");
	CHECK_INT(c->flows[0].line, 65);
	CHECK_STR(c->flows[1].text,
		  "in_port=tun,ip,nw_dst=192.1.0.1,actions=output:vm1");
	CHECK_INT(c->flows[1].line, 66);
	CHECK_STR(c->flows[2].text, "priority=10,in_port=nic0, actions=drop");
	CHECK_INT(c->flows[2].line, 67);
}

static void
test_full(void)
{
	struct vxs_config c;
	if (!load(fixture("full.yaml"), &c))
		return;
	CHECK_STR(c.file, fixture("full.yaml"));
	check_full_eal_datapath(&c);
	check_full_underlay(&c);
	CHECK_INT(c.n_ports, 5);
	if (c.n_ports == 5) {
		check_full_dpdk_ports(&c);
		check_full_vhost_ports(&c);
		check_full_vxlan_port(&c);
	}
	check_full_flows(&c);
	CHECK(config_find_port(&c, "vm1") == &c.ports[3]);
	CHECK(config_find_port(&c, "vm2") == NULL);
	config_free(&c);
	CHECK(is_empty(&c));
}

/* ---- minimal.yaml: the defaults config.h promises ---- */

static void
test_minimal(void)
{
	struct vxs_config c;
	if (!load(fixture("minimal.yaml"), &c))
		return;
	CHECK_STR(c.eal_lcores, "0-1");		/* main 0 + pmd 1 */
	CHECK_INT(c.eal_main_lcore, -1);
	CHECK_INT(c.eal_memory_mb, 0);
	CHECK_STR(c.eal_file_prefix, "vxswitch");
	CHECK(!c.eal_no_pci && !c.eal_no_huge);
	CHECK_INT(c.n_eal_extra, 0);
	CHECK(c.n_pmd_cores == 1 && c.pmd_cores[0] == 1);
	CHECK_INT(c.n_mbufs, 0);
	CHECK_INT(c.emc_insert_inv_prob, 100);
	CHECK_INT(c.flow_max_idle_ms, 10000);
	CHECK_INT(c.max_megaflows, 65536);
	CHECK_STR(c.ctl_socket, "/var/run/vxswitch/vxswitch.ctl");
	CHECK_STR(c.underlay_port, "");
	CHECK(c.vtep_ip == 0 && !c.vtep_mac_set);
	CHECK(c.n_routes == 0 && c.n_arp == 0 && c.n_flows == 0);
	CHECK_INT(c.n_ports, 1);
	CHECK_STR(c.ports[0].name, "p0");
	CHECK_STR(c.ports[0].devargs, "net_null0");
	CHECK_INT(c.ports[0].ofport, 1);
	CHECK_INT(c.ports[0].line, 3);
	CHECK(c.ports[0].n_rxq == 1 && c.ports[0].rxd == 1024 &&
	      c.ports[0].txd == 1024 && c.ports[0].mtu == 0);
	config_free(&c);
}

/* ---- topology/vxlan-32vm.yaml: exactly the seed's script ---- */

static void
check_seed_vhost(const struct vxs_config *c)
{
	for (unsigned i = 0; i < 32; i++) {
		const struct cfg_port *p = &c->ports[i];
		char name[CFG_NAME_MAX], path[CFG_PATH_MAX];
		snprintf(name, sizeof name, "vhost-user%u", i);
		snprintf(path, sizeof path, "/tmp/vhostsock%u", i);
		CHECK_STR(p->name, name);
		CHECK_INT(p->type, CFG_PORT_VHOST_CLIENT);
		CHECK_STR(p->path, path);
		CHECK_INT(p->ofport, i + 1);
		CHECK_INT(p->n_rxq, 1);
		CHECK_INT(p->n_affinity, 1);
		CHECK(p->affinity[0].queue == 0);
		CHECK_INT(p->affinity[0].core, i / 8 + 2);	/* the seed's */
		CHECK_INT(p->line, c->ports[0].line + (int)i);
	}
}

static void
check_seed_vxlan_nic(const struct vxs_config *c)
{
	const struct cfg_port *vx = &c->ports[32], *nic = &c->ports[33];
	CHECK_STR(vx->name, "vxlan");
	CHECK_INT(vx->type, CFG_PORT_VXLAN);
	CHECK_INT(vx->ofport, 33);
	CHECK(vx->remote_ip_flow && vx->local_ip_flow && vx->key_flow);
	CHECK(vx->remote_ip == 0 && vx->local_ip == 0 && vx->key == 0);
	CHECK_INT(vx->dst_port, 4789);
	CHECK(vx->n_vnis == 1 && vx->vnis[0] == 1001);

	CHECK_STR(nic->name, "dpdk-phy");
	CHECK_INT(nic->type, CFG_PORT_DPDK);
	CHECK_INT(nic->ofport, 34);
	CHECK_STR(nic->devargs, "0000:18:00.0");
	CHECK_INT(nic->n_rxq, 4);
	CHECK_INT(nic->n_affinity, 4);
	for (unsigned q = 0; q < 4 && q < nic->n_affinity; q++)
		CHECK(nic->affinity[q].queue == q &&
		      nic->affinity[q].core == q + 2);	/* 0:2,1:3,2:4,3:5 */
}

static void
check_seed_flows(const struct vxs_config *c)
{
	CHECK_INT(c->n_flows, 64);
	for (unsigned i = 0; i < 32 && c->n_flows == 64; i++) {
		char out[256], in[256];
		snprintf(out, sizeof out,
			 "in_port=vhost-user%u,actions=set_tunnel:1001,"
			 "set_field:172.1.0.0->tun_dst,"
			 "set_field:172.1.0.100->tun_src,output:vxlan", i);
		snprintf(in, sizeof in,
			 "in_port=vxlan,ip,nw_dst=192.1.0.%u,"
			 "actions=output:vhost-user%u", i, i);
		CHECK_STR(c->flows[2 * i].text, out);
		CHECK_STR(c->flows[2 * i + 1].text, in);
		CHECK_INT(c->flows[2 * i].line, c->flows[0].line + 2 * (int)i);
	}
}

static void
test_seed_32vm(void)
{
	struct vxs_config c;
	if (!load(fixture("vxlan-32vm.yaml"), &c))
		return;
	CHECK_STR(c.eal_lcores, "1-5");
	CHECK_INT(c.eal_main_lcore, 1);		/* dpdk-lcore-mask 0x2 */
	CHECK_STR(c.eal_socket_mem, "1024,0");
	CHECK_INT(c.n_pmd_cores, 4);		/* pmd-cpu-mask 0x3c */
	for (unsigned i = 0; i < 4; i++)
		CHECK_INT(c.pmd_cores[i], i + 2);
	CHECK_INT(c.emc_insert_inv_prob, 100);
	CHECK_STR(c.underlay_port, "dpdk-phy");
	CHECK_IP(c.vtep_ip, "172.1.0.100");
	CHECK_INT(c.vtep_plen, 24);
	CHECK_MAC(c.vtep_mac, "10:00:00:00:00:01");
	CHECK(c.n_routes == 1 && c.routes[0].plen == 24 &&
	      c.routes[0].gateway == 0);
	CHECK_IP(c.routes[0].prefix, "172.1.0.0");
	CHECK_STR(c.routes[0].port, "dpdk-phy");
	CHECK_INT(c.n_arp, 1);
	CHECK_IP(c.arp[0].ip, "172.1.0.0");
	CHECK_MAC(c.arp[0].mac, "10:00:00:00:00:02");
	CHECK_INT(c.n_ports, 34);
	if (c.n_ports == 34) {
		check_seed_vhost(&c);
		check_seed_vxlan_nic(&c);
	}
	check_seed_flows(&c);
	config_free(&c);
}

/* ---- topology/vxlan-2vm.yaml, with and without its variables ---- */

static const char *const demo_vars[] = {
	"VXS_RUN_DIR", "VXS_RX_PCAP", "VXS_TX_PCAP", "VXS_INFINITE_RX",
	"VXS_NO_HUGE",
};

static void
check_demo_common(const struct vxs_config *c)
{
	CHECK_STR(c->eal_lcores, "0-1");
	CHECK_INT(c->eal_main_lcore, -1);
	CHECK_INT(c->eal_memory_mb, 512);
	CHECK_STR(c->eal_file_prefix, "vxswitch-demo");
	CHECK(c->eal_no_pci);
	CHECK(c->n_pmd_cores == 1 && c->pmd_cores[0] == 1);
	CHECK_STR(c->underlay_port, "dpdk-phy");
	CHECK_IP(c->vtep_ip, "172.1.0.100");
	CHECK_MAC(c->vtep_mac, "10:00:00:00:00:01");
	CHECK(c->n_routes == 1 && c->n_arp == 1);
	CHECK_MAC(c->arp[0].mac, "10:00:00:00:00:02");
	CHECK_INT(c->n_ports, 4);
	CHECK_INT(c->n_flows, 6);	/* the seed's 2 per VM + inner ARP */
	if (c->n_ports != 4 || c->n_flows != 6)
		return;
	CHECK(c->ports[0].ofport == 1 && c->ports[1].ofport == 2 &&
	      c->ports[2].ofport == 3 && c->ports[3].ofport == 4);
	CHECK_INT(c->ports[0].affinity[0].core, 1);
	CHECK(c->ports[2].remote_ip_flow && c->ports[2].key_flow);
	CHECK_STR(c->flows[1].text,
		  "in_port=vxlan,ip,nw_dst=192.1.0.0,actions=output:vhost-user0");
	CHECK_STR(c->flows[2].text,
		  "in_port=vxlan,arp,arp_tpa=192.1.0.0,actions=output:vhost-user0");
	CHECK_STR(c->flows[4].text,
		  "in_port=vxlan,ip,nw_dst=192.1.0.1,actions=output:vhost-user1");
}

static void
test_demo_defaults(void)
{
	struct vxs_config c;
	for (size_t i = 0; i < RTE_DIM(demo_vars); i++)
		unsetenv(demo_vars[i]);
	if (!load(fixture("vxlan-2vm.yaml"), &c))
		return;
	check_demo_common(&c);
	CHECK(!c.eal_no_huge);
	CHECK_STR(c.ctl_socket, "/tmp/vxswitch/vxswitch.ctl");
	CHECK_STR(c.ports[0].path, "/tmp/vxswitch/vhost0.sock");
	CHECK_STR(c.ports[1].path, "/tmp/vxswitch/vhost1.sock");
	CHECK_STR(c.ports[3].devargs,
		  "net_pcap0,rx_pcap=/tmp/vxswitch/rx.pcap,"
		  "tx_pcap=/tmp/vxswitch/tx.pcap,infinite_rx=1");
	config_free(&c);
}

static void
test_demo_env(void)
{
	struct vxs_config c;
	setenv("VXS_RUN_DIR", "/run/demo", 1);
	setenv("VXS_RX_PCAP", "/data/in.pcap", 1);
	setenv("VXS_TX_PCAP", "", 1);		/* empty: ":-" default */
	setenv("VXS_INFINITE_RX", "0", 1);
	setenv("VXS_NO_HUGE", "true", 1);
	if (load(fixture("vxlan-2vm.yaml"), &c)) {
		check_demo_common(&c);
		CHECK(c.eal_no_huge);
		CHECK_STR(c.ctl_socket, "/run/demo/vxswitch.ctl");
		CHECK_STR(c.ports[0].path, "/run/demo/vhost0.sock");
		CHECK_STR(c.ports[1].path, "/run/demo/vhost1.sock");
		CHECK_STR(c.ports[3].devargs,
			  "net_pcap0,rx_pcap=/data/in.pcap,"
			  "tx_pcap=/tmp/vxswitch/tx.pcap,infinite_rx=0");
		config_free(&c);
	}
	for (size_t i = 0; i < RTE_DIM(demo_vars); i++)
		unsetenv(demo_vars[i]);
}

/* ---- ${VAR} expansion rules ---- */

static void
test_env_expansion(void)
{
	struct vxs_config c;
	const char *path = write_tmp("env.yaml",
		"datapath:\n"
		"  pmd-cores: ${VXS_T_CORES:-2}\n"
		"ports:\n"
		"  - name: p0\n"
		"    type: dpdk\n"
		"    devargs: \"a${VXS_T1}b-${VXS_T2:-dflt}-$HOME-${VXS_T3:-}|${VXS_T4}|\"\n"
		"    n-rxq: ${VXS_T_RXQ}\n");
	setenv("VXS_T1", "one", 1);
	unsetenv("VXS_T2");
	unsetenv("VXS_T3");
	setenv("VXS_T4", "", 1);	/* set but empty: no error, "" */
	setenv("VXS_T_RXQ", "3", 1);
	unsetenv("VXS_T_CORES");
	if (load(path, &c)) {
		CHECK_STR(c.ports[0].devargs, "aoneb-dflt-$HOME-||");
		CHECK_INT(c.ports[0].n_rxq, 3);
		CHECK(c.n_pmd_cores == 1 && c.pmd_cores[0] == 2);
		CHECK_STR(c.eal_lcores, "0,2");
		config_free(&c);
	}
	setenv("VXS_T_CORES", "1-2", 1);
	if (load(path, &c)) {
		CHECK_INT(c.n_pmd_cores, 2);
		CHECK_STR(c.eal_lcores, "0-2");
		config_free(&c);
	}
	unsetenv("VXS_T1");
	unsetenv("VXS_T4");
	unsetenv("VXS_T_RXQ");
	unsetenv("VXS_T_CORES");
}

/* ---- smaller good files ---- */

static void
test_vxlan_defaults(void)
{
	struct vxs_config c;
	const char *path = write_tmp("vx.yaml",
		"underlay: {port: nic, local-ip: 10.0.0.1/24}\n"
		"ports:\n"
		"  - {name: nic, type: dpdk, devargs: net_null0}\n"
		"  - {name: vx, type: vxlan, options: {remote_ip: 10.0.0.9}}\n");
	if (!load(path, &c))
		return;
	const struct cfg_port *vx = config_find_port(&c, "vx");
	CHECK(vx != NULL);
	if (vx != NULL) {
		CHECK(!vx->remote_ip_flow && !vx->local_ip_flow &&
		      !vx->key_flow);
		CHECK_IP(vx->remote_ip, "10.0.0.9");
		CHECK_IP(vx->local_ip, "10.0.0.1");	/* the VTEP's */
		CHECK_INT(vx->key, 0);
		CHECK_INT(vx->dst_port, 4789);
		CHECK_INT(vx->n_vnis, 0);
	}
	config_free(&c);
}

static void
test_ofports_and_lcores(void)
{
	struct vxs_config c;
	const char *path = write_tmp("ofports.yaml",
		"eal: {main-lcore: 4}\n"
		"datapath: {pmd-cores: [2, 1]}\n"
		"ports:\n"
		"  - {name: a, type: dpdk, devargs: net_null0}\n"
		"  - {name: b, type: dpdk, devargs: net_null1, ofport: 1}\n"
		"  - {name: c, type: dpdk, devargs: net_null2}\n"
		"  - {name: d, type: dpdk, devargs: net_null3, ofport: 3}\n"
		"  - {name: e, type: dpdk, devargs: net_null4}\n");
	if (!load(path, &c))
		return;
	CHECK(c.ports[0].ofport == 2 && c.ports[1].ofport == 1 &&
	      c.ports[2].ofport == 4 && c.ports[3].ofport == 3 &&
	      c.ports[4].ofport == 5);
	CHECK(c.pmd_cores[0] == 2 && c.pmd_cores[1] == 1);	/* as given */
	CHECK_STR(c.eal_lcores, "1-2,4");
	config_free(&c);
}

/* ---- EAL argv ---- */

static void
check_argv(const char *fixture_name, const char *const *want)
{
	struct vxs_config c;
	char **argv;
	int n = 0;

	if (!load(fixture(fixture_name), &c))
		return;
	while (want[n])
		n++;
	int argc = config_eal_argv(&c, "vxswitch", &argv);
	check(argc == n, __FILE__, __LINE__, "%s: argc %d, expected %d",
	      fixture_name, argc, n);
	for (int i = 0; i < argc && i < n; i++)
		check(strcmp(argv[i], want[i]) == 0, __FILE__, __LINE__,
		      "%s: argv[%d] \"%s\", expected \"%s\"", fixture_name, i,
		      argv[i], want[i]);
	if (argc >= 0)
		CHECK(argv[argc] == NULL);
	/* What rte_eal_init() does to argv must not break the free. */
	if (argc > 1) {
		char *t = argv[1];
		argv[1] = argv[argc - 1];
		argv[argc - 1] = t;
		argv[argc - 1] = argv[0];
	}
	config_free_argv(argc, argv);
	config_free(&c);
}

static void
test_eal_argv(void)
{
	static const char *const full[] = {
		"vxswitch", "-l", "0-3,6", "--main-lcore", "0", "-m", "2048",
		"--file-prefix", "full-test", "--huge-dir", "/mnt/huge1G",
		"--no-pci", "--log-level=pmd.net.pcap:debug", "-n", "4", NULL,
	};
	static const char *const minimal[] = {
		"vxswitch", "-l", "0-1", "--file-prefix", "vxswitch", NULL,
	};
	static const char *const seed[] = {
		"vxswitch", "-l", "1-5", "--main-lcore", "1", "--socket-mem",
		"1024,0", "--file-prefix", "vxswitch", NULL,
	};
	static const char *const demo[] = {
		"vxswitch", "-l", "0-1", "-m", "512", "--file-prefix",
		"vxswitch-demo", "--no-pci", NULL,
	};
	check_argv("full.yaml", full);
	check_argv("minimal.yaml", minimal);
	check_argv("vxlan-32vm.yaml", seed);
	check_argv("vxlan-2vm.yaml", demo);
}

/* ---- broken files: each rejected at file:line:col, naming the token ---- */

struct bad_file {
	const char *name;
	const char *yaml;
	int line, col;
	const char *message;	/* must appear in the error, token quoted */
};

#define NIC "  - {name: nic, type: dpdk, devargs: net_null0}\n"
#define VXLAN_OK "underlay: {port: nic, local-ip: 10.0.0.1/24}\nports:\n" NIC

static const struct bad_file bad_files[] = {
	{ "unknown-top-key", "ports:\n" NIC "bogus: 1\n", 3, 1,
	  "unknown key 'bogus'" },
	{ "unknown-port-key",
	  "ports:\n  - name: dpdk-phy\n    type: dpdk\n    devargs: x\n"
	  "    n-rxqs: 2\n", 5, 5,
	  "unknown key 'n-rxqs' in port 'dpdk-phy'" },
	{ "bad-prefix",
	  "underlay:\n  port: nic\n  local-ip: 172.1.0.300/24\nports:\n" NIC,
	  3, 13, "bad IPv4 prefix '172.1.0.300/24'" },
	{ "prefix-33",
	  "underlay:\n  port: nic\n  local-ip: 10.0.0.1/33\nports:\n" NIC,
	  3, 13, "bad IPv4 prefix '10.0.0.1/33'" },
	{ "dup-port-name",
	  "ports:\n"
	  "  - {name: vhost-user0, type: dpdkvhostuserclient, path: /tmp/a}\n"
	  "  - {name: vhost-user0, type: dpdkvhostuserclient, path: /tmp/b}\n",
	  3, 12, "duplicate port name 'vhost-user0'" },
	{ "dup-key",
	  "ports:\n  - name: p0\n    type: dpdk\n    devargs: a\n"
	  "    devargs: b\n", 5, 5, "duplicate key 'devargs' in port 'p0'" },
	{ "dup-alias",
	  "ports:\n  - name: v0\n    type: dpdkvhostuser\n    path: /tmp/a\n"
	  "    vhost-server-path: /tmp/b\n", 5, 5,
	  "duplicate key 'vhost-server-path' in port 'v0'" },
	{ "key-wrong-type",
	  "ports:\n  - name: v0\n    type: dpdkvhostuserclient\n"
	  "    path: /tmp/a\n    devargs: net_null0\n", 5, 5,
	  "key 'devargs' does not apply to type 'dpdkvhostuserclient' in port 'v0'" },
	{ "missing-devargs", "ports:\n  - name: p0\n    type: dpdk\n", 2, 5,
	  "missing key 'devargs' in port 'p0'" },
	{ "missing-path", "ports:\n  - {name: v0, type: dpdkvhostuser}\n", 2,
	  5, "missing key 'path' in port 'v0'" },
	{ "missing-type", "ports:\n  - {name: p0}\n", 2, 5,
	  "missing key 'type' in port 'p0'" },
	{ "missing-name", "ports:\n  - {type: dpdk}\n", 2, 5,
	  "missing key 'name' in port" },
	{ "unknown-type", "ports:\n  - {name: p0, type: system}\n", 2, 22,
	  "unknown port type 'system'" },
	{ "bad-port-name",
	  "ports:\n  - {name: \"a,b\", type: dpdk, devargs: x}\n", 2, 12,
	  "bad port name 'a,b'" },
	{ "numeric-port-name",
	  "ports:\n  - {name: 123, type: dpdk, devargs: x}\n", 2, 12,
	  "bad port name '123'" },
	{ "n-rxq-zero",
	  "ports:\n  - name: p0\n    type: dpdk\n    devargs: x\n"
	  "    n-rxq: 0\n", 5, 12, "bad n-rxq (an integer 1..1024) '0'" },
	{ "rxd-not-number",
	  "ports:\n  - name: p0\n    type: dpdk\n    devargs: x\n"
	  "    rxd: 1k\n", 5, 10, "bad rxd (an integer 32..32768) '1k'" },
	{ "mtu-hex",
	  "ports:\n  - name: p0\n    type: dpdk\n    devargs: x\n"
	  "    mtu: 0x600\n", 5, 10, "'0x600'" },
	{ "affinity-queue",
	  "ports:\n  - name: p0\n    type: dpdk\n    devargs: x\n"
	  "    n-rxq: 2\n    rxq-affinity: \"2:1\"\n", 6, 19,
	  "rxq-affinity queue is not below n-rxq 2 '2'" },
	{ "affinity-core",
	  "ports:\n  - name: p0\n    type: dpdk\n    devargs: x\n"
	  "    rxq-affinity: \"0:3\"\n", 5, 19,
	  "rxq-affinity core is not a pmd core '3'" },
	{ "affinity-syntax",
	  "ports:\n  - name: p0\n    type: dpdk\n    devargs: x\n"
	  "    rxq-affinity: 0-1\n", 5, 19, "bad rxq-affinity '0-1'" },
	{ "affinity-dup",
	  "ports:\n  - name: p0\n    type: dpdk\n    devargs: x\n"
	  "    rxq-affinity: \"0:1,0:1\"\n", 5, 19,
	  "rxq-affinity names queue twice '0'" },
	{ "pmd-is-main", "datapath:\n  pmd-cores: [1, 0]\nports:\n" NIC, 2,
	  18, "pmd core is the main lcore '0'" },
	{ "pmd-not-in-lcores",
	  "eal:\n  lcores: \"0-1\"\ndatapath:\n  pmd-cores: \"1-2\"\nports:\n" NIC,
	  4, 14, "pmd core is not in eal lcores '2'" },
	{ "default-pmd-is-main", "eal:\n  main-lcore: 1\nports:\n" NIC, 2, 15,
	  "pmd core is the main lcore '1'" },
	{ "main-not-in-lcores",
	  "eal:\n  lcores: \"1-2\"\n  main-lcore: 0\ndatapath:\n"
	  "  pmd-cores: [2]\nports:\n" NIC, 3, 15,
	  "main-lcore is not in eal lcores '0'" },
	{ "pmd-twice", "datapath:\n  pmd-cores: [1, 1]\nports:\n" NIC, 2, 18,
	  "core listed twice '1'" },
	{ "pmd-bad-list", "datapath:\n  pmd-cores: \"1-\"\nports:\n" NIC, 2,
	  14, "bad core list '1-'" },
	{ "pmd-range", "datapath:\n  pmd-cores: [128]\nports:\n" NIC, 2, 15,
	  "bad pmd core (an integer 0..127) '128'" },
	{ "lcores-syntax", "eal:\n  lcores: \"0-1@2\"\nports:\n" NIC, 2, 11,
	  "bad core list '0-1@2'" },
	{ "underlay-no-port", "underlay:\n  port: nic9\nports:\n" NIC, 2, 9,
	  "no such port 'nic9'" },
	{ "underlay-not-dpdk",
	  "underlay:\n  port: v0\nports:\n"
	  "  - {name: v0, type: dpdkvhostuser, path: /tmp/v0}\n", 2, 9,
	  "not a port of type dpdk 'v0'" },
	{ "vxlan-no-local-ip",
	  "underlay:\n  port: nic\nports:\n" NIC
	  "  - {name: vx, type: vxlan, options: {remote_ip: flow}}\n", 2, 3,
	  "missing underlay 'local-ip' for vxlan port 'vx'" },
	{ "vxlan-no-underlay",
	  "ports:\n  - {name: vx, type: vxlan, options: {remote_ip: flow}}\n",
	  2, 5, "missing underlay 'port' for vxlan port 'vx'" },
	{ "two-vxlan",
	  VXLAN_OK "  - {name: vx, type: vxlan, options: {remote_ip: flow}}\n"
	  "  - {name: vx2, type: vxlan, options: {remote_ip: flow}}\n", 5, 5,
	  "more than one vxlan port 'vx2'" },
	{ "vxlan-no-options", VXLAN_OK "  - {name: vx, type: vxlan}\n", 4, 5,
	  "missing key 'options' in port 'vx'" },
	{ "vxlan-no-remote",
	  VXLAN_OK "  - {name: vx, type: vxlan, options: {key: flow}}\n", 4,
	  38, "missing option 'remote_ip' in port 'vx'" },
	{ "vxlan-key-range",
	  VXLAN_OK "  - {name: vx, type: vxlan, options: {remote_ip: flow, "
	  "key: 16777216}}\n", 4, 61,
	  "bad key (an integer 0..16777215) '16777216'" },
	{ "vxlan-bad-remote",
	  VXLAN_OK "  - {name: vx, type: vxlan, options: {remote_ip: 1.2.3}}\n",
	  4, 50, "bad IPv4 address '1.2.3'" },
	{ "vxlan-unknown-option",
	  VXLAN_OK "  - {name: vx, type: vxlan, options: {remote_ip: flow, "
	  "tos: inherit}}\n", 4, 56, "unknown key 'tos' in options of port 'vx'" },
	{ "vxlan-local-ip-mismatch",
	  VXLAN_OK "  - {name: vx, type: vxlan, options: {remote_ip: flow, "
	  "local_ip: 10.0.0.2}}\n", 4, 66,
	  "local_ip is not the underlay local-ip '10.0.0.2'" },
	{ "vxlan-vni-twice",
	  VXLAN_OK "  - {name: vx, type: vxlan, options: {remote_ip: flow, "
	  "vnis: [5, 5]}}\n", 4, 66, "VNI listed twice '5'" },
	{ "env-unset",
	  "ports:\n  - name: p0\n    type: dpdk\n"
	  "    devargs: \"net_pcap0,rx_pcap=${VXS_TEST_UNSET_VAR}\"\n", 4, 14,
	  "unset environment variable 'VXS_TEST_UNSET_VAR'" },
	{ "env-unterminated",
	  "ports:\n  - name: p0\n    type: dpdk\n    devargs: \"${VXS_X\"\n",
	  4, 14, "unterminated '${' in '${VXS_X'" },
	{ "env-bad-name",
	  "ports:\n  - name: p0\n    type: dpdk\n    devargs: \"${1X}\"\n", 4,
	  14, "bad variable name '1X'" },
	{ "bad-mac",
	  "underlay:\n  port: nic\n  mac: \"10:00:00:00:00\"\nports:\n" NIC, 3,
	  8, "bad MAC address '10:00:00:00:00'" },
	{ "multicast-mac",
	  "underlay:\n  port: nic\n  mac: \"01:00:5e:00:00:01\"\nports:\n" NIC,
	  3, 8, "MAC address is not unicast '01:00:5e:00:00:01'" },
	{ "dup-ofport",
	  "ports:\n  - {name: a, type: dpdk, devargs: net_null0, ofport: 5}\n"
	  "  - {name: b, type: dpdk, devargs: net_null1, ofport: 5}\n", 3, 55,
	  "duplicate ofport '5'" },
	{ "ofport-range",
	  "ports:\n  - {name: a, type: dpdk, devargs: net_null0, ofport: 65280}\n",
	  2, 55, "bad ofport (an integer 1..65279) '65280'" },
	{ "route-host-bits",
	  "underlay:\n  port: nic\n  routes:\n    - {prefix: 10.0.0.1/8}\n"
	  "ports:\n" NIC, 4, 16, "route prefix has host bits set '10.0.0.1/8'" },
	{ "route-dup",
	  "underlay:\n  port: nic\n  routes:\n    - {prefix: 10.0.0.0/8}\n"
	  "    - {prefix: 10.0.0.0/8, gateway: 10.0.0.1}\nports:\n" NIC, 5, 16,
	  "duplicate route '10.0.0.0/8'" },
	{ "route-bad-port",
	  "underlay:\n  port: nic\n  routes:\n"
	  "    - {prefix: 10.0.0.0/8, port: eth9}\nports:\n" NIC, 4, 34,
	  "no such port 'eth9'" },
	{ "route-no-port",
	  "underlay:\n  routes:\n    - {prefix: 10.0.0.0/8}\nports:\n" NIC, 3,
	  7, "route needs a port (no underlay port) '10.0.0.0/8'" },
	{ "route-no-prefix",
	  "underlay:\n  port: nic\n  routes:\n    - {gateway: 10.0.0.1}\n"
	  "ports:\n" NIC, 4, 7, "missing key 'prefix' in route" },
	{ "route-unknown-key",
	  "underlay:\n  port: nic\n  routes:\n"
	  "    - {prefix: 10.0.0.0/8, metric: 5}\nports:\n" NIC, 4, 28,
	  "unknown key 'metric' in route" },
	{ "arp-dup",
	  "underlay:\n  port: nic\n  arp:\n"
	  "    - {ip: 10.0.0.1, mac: \"02:00:00:00:00:01\"}\n"
	  "    - {ip: 10.0.0.1, mac: \"02:00:00:00:00:02\"}\nports:\n" NIC, 5,
	  12, "duplicate arp entry '10.0.0.1'" },
	{ "arp-no-mac",
	  "underlay:\n  port: nic\n  arp:\n    - {ip: 10.0.0.1}\nports:\n" NIC,
	  4, 7, "missing key 'mac' in arp entry" },
	{ "memory-both",
	  "eal:\n  memory-mb: 512\n  socket-mem: \"512,0\"\nports:\n" NIC, 3,
	  15, "memory-mb and socket-mem exclude each other 'socket-mem'" },
	{ "socket-mem-no-huge",
	  "eal:\n  no-huge: true\n  socket-mem: \"512\"\nports:\n" NIC, 3, 15,
	  "socket-mem needs hugepages (no-huge is set) 'socket-mem'" },
	{ "socket-mem-syntax", "eal:\n  socket-mem: \"512,,0\"\nports:\n" NIC,
	  2, 15, "bad socket-mem '512,,0'" },
	{ "bad-bool", "eal:\n  no-pci: maybe\nports:\n" NIC, 2, 11,
	  "bad no-pci (true or false) 'maybe'" },
	{ "file-prefix-slash", "eal:\n  file-prefix: a/b\nports:\n" NIC, 2, 16,
	  "bad file-prefix (no '/') 'a/b'" },
	{ "extra-arg-empty", "eal:\n  extra-args: [\"\"]\nports:\n" NIC, 2, 16,
	  "empty value for 'extra-args'" },
	{ "n-mbufs-range", "datapath:\n  n-mbufs: 2000000000\nports:\n" NIC, 2,
	  12, "bad n-mbufs (an integer 0..1073741824) '2000000000'" },
	{ "eal-not-mapping", "eal: [1]\nports:\n" NIC, 1, 6,
	  "expected a mapping for 'eal'" },
	{ "flows-not-list", "flows: x\nports:\n" NIC, 1, 8,
	  "expected a list for 'flows'" },
	{ "flow-not-string", "ports:\n" NIC "flows:\n  - {in_port: 1}\n", 4, 5,
	  "expected a single value for 'flow'" },
	{ "flow-empty", "ports:\n" NIC "flows:\n  - \"\"\n", 4, 5,
	  "empty value for 'flow'" },
	{ "no-ports", "eal: {no-pci: true}\n", 1, 1, "missing key 'ports'" },
	{ "empty-ports", "ports: []\n", 1, 8, "ports needs 1..65279 ports '0'" },
	{ "root-list", "- a\n", 1, 1, "expected a mapping for 'topology'" },
	{ "two-documents", "ports:\n" NIC "---\nfoo: 1\n", 4, 1,
	  "more than one YAML document '---'" },
	{ "dup-devargs",
	  "ports:\n" NIC "  - {name: nic2, type: dpdk, devargs: net_null0}\n",
	  3, 39, "duplicate devargs 'net_null0'" },
	{ "dup-socket-path",
	  "ports:\n  - {name: a, type: dpdkvhostuser, path: /tmp/x.sock}\n"
	  "  - {name: b, type: dpdkvhostuserclient, path: /tmp/x.sock}\n", 3,
	  48, "duplicate socket path '/tmp/x.sock'" },
	{ "socket-path-long",
	  "ports:\n  - name: v\n    type: dpdkvhostuser\n    path: /tmp/"
	  "0123456789012345678901234567890123456789012345678901234567890123456789"
	  "0123456789012345678901234567890123456789\n", 4, 11,
	  "path too long for a unix socket (max 107)" },
	{ "empty-file", "", 1, 1, "empty topology file" },
	{ "comments-only", "# nothing here\n", 1, 1, "empty topology file" },
	{ "syntax-flow-mapping", "ports:\n  - {name: p0, type: dpdk\n", 3, 1,
	  "did not find expected ',' or '}' (while parsing a flow mapping at line 2)" },
	{ "syntax-tab", "ports:\n\t- a\n", 2, 1,
	  "found character that cannot start any token" },
};

static void
test_bad_file(const struct bad_file *b)
{
	struct vxs_config c;
	char name[96], err[CFG_ERR_MAX] = "", prefix[CFG_PATH_MAX + 32];

	snprintf(name, sizeof name, "%s.yaml", b->name);
	const char *path = write_tmp(name, b->yaml);
	int rc = config_load(path, &c, err, sizeof err);
	snprintf(prefix, sizeof prefix, "%s:%d:%d: ", path, b->line, b->col);
	check(rc == -1, __FILE__, __LINE__, "%s: loaded", b->name);
	check(strncmp(err, prefix, strlen(prefix)) == 0 &&
	      strstr(err, b->message) != NULL, __FILE__, __LINE__,
	      "%s: got \"%s\", expected \"%s...%s\"", b->name, err, prefix,
	      b->message);
	check(is_empty(&c), __FILE__, __LINE__, "%s: cfg not emptied",
	      b->name);
	unlink(path);
}

static void
test_bad_files(void)
{
	unsetenv("VXS_TEST_UNSET_VAR");
	for (size_t i = 0; i < RTE_DIM(bad_files); i++)
		test_bad_file(&bad_files[i]);
}

static void
test_missing_file(void)
{
	struct vxs_config c;
	char err[CFG_ERR_MAX] = "", path[CFG_PATH_MAX];

	snprintf(path, sizeof path, "%s/no-such.yaml", tmpdir);
	CHECK_INT(config_load(path, &c, err, sizeof err), -1);
	CHECK(strncmp(err, path, strlen(path)) == 0 &&
	      strstr(err, "No such file") != NULL);
	CHECK(is_empty(&c));
	CHECK_INT(config_load(path, &c, NULL, 0), -1);	/* err is optional */
}

int
main(int argc, char **argv)
{
	if (argc > 1)
		fixtures = argv[1];
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 2;
	}
	test_full();
	test_minimal();
	test_seed_32vm();
	test_demo_defaults();
	test_demo_env();
	test_env_expansion();
	test_vxlan_defaults();
	test_ofports_and_lcores();
	test_eal_argv();
	test_bad_files();
	test_missing_file();

	unlink(write_tmp("env.yaml", ""));
	unlink(write_tmp("vx.yaml", ""));
	unlink(write_tmp("ofports.yaml", ""));
	rmdir(tmpdir);
	printf("%d passed, %d failed\n", n_passed, n_failed);
	return n_failed ? 1 : 0;
}
