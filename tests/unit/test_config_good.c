/* SPDX-License-Identifier: BSD-3-Clause
 * test_config, good files: the fixtures field by field (full, minimal,
 * the shipped topologies), ${VAR} expansion, defaults, the EAL argv.
 */
#include "config_test.h"

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

void
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

void
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
	/* OVS's defaults */
	CHECK_INT(c.pmd_rxq_assign, CFG_RXQ_ASSIGN_CYCLES);
	CHECK(c.pmd_rxq_isolate && !c.pmd_auto_lb);
	CHECK_INT(c.pmd_auto_lb_load_threshold, 95);
	CHECK_INT(c.pmd_auto_lb_improvement_threshold, 25);
	CHECK_INT(c.pmd_auto_lb_rebal_interval_ms, 60000);
	CHECK_INT(c.pmd_load_interval_ms, 5000);
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

void
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

void
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

void
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

void
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

void
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

static bool
ip6_is(const uint8_t a[16], const char *text)
{
	uint8_t b[16];
	return inet_pton(AF_INET6, text, b) == 1 && !memcmp(a, b, 16);
}

/* Both families: local-ip dual stack, routes, neighbours (arp's alias). */
void
test_underlay6(void)
{
	struct vxs_config c;

	if (!load(fixture("underlay6.yaml"), &c))
		return;
	CHECK_IP(c.vtep_ip, "172.1.0.100");
	CHECK_INT(c.vtep_plen, 24);
	CHECK(c.vtep_ip6_set && ip6_is(c.vtep_ip6, "2001:db8:1::100") &&
	      c.vtep_plen6 == 64);
	CHECK_INT(c.n_routes, 3);
	CHECK(!c.routes[0].ipv6 && c.routes[0].plen == 16);
	CHECK_IP(c.routes[0].gateway, "172.1.0.1");
	CHECK(c.routes[1].ipv6 && c.routes[1].plen == 48 &&
	      c.routes[1].prefix == 0 && c.routes[1].gateway == 0 &&
	      ip6_is(c.routes[1].prefix6, "2001:db8:9::") &&
	      ip6_is(c.routes[1].gateway6, "2001:db8:1::1"));
	CHECK(c.routes[2].ipv6 && c.routes[2].plen == 64 &&
	      ip6_is(c.routes[2].gateway6, "::"));
	CHECK_INT(c.n_arp, 2);
	CHECK(!c.arp[0].ipv6 && c.arp[1].ipv6 &&
	      ip6_is(c.arp[1].ip6, "2001:db8:1::1"));
	CHECK_MAC(c.arp[1].mac, "02:00:00:00:00:02");
	config_free(&c);

	/* an IPv6 address alone */
	const char *path = write_tmp("u6.yaml",
		"underlay: {port: nic, local-ip: \"fd00::5/64\"}\n"
		"ports:\n  - {name: nic, type: dpdk, devargs: net_null0}\n");
	if (!load(path, &c))
		return;
	CHECK(c.vtep_ip == 0 && c.vtep_ip6_set &&
	      ip6_is(c.vtep_ip6, "fd00::5") && c.vtep_plen6 == 64);
	config_free(&c);

	/* a vxlan port over it: its remote, the VTEP's address to send
	 * from, the zero-checksum policy; remote_ip=flow takes either */
	if (!load(fixture("vxlan6.yaml"), &c))
		return;
	const struct cfg_port *vx = &c.ports[1];
	CHECK(vx->type == CFG_PORT_VXLAN && vx->remote_ipv6 &&
	      ip6_is(vx->remote_ip6, "2001:db8:9::7") && !vx->local_ipv6 &&
	      ip6_is(vx->local_ip6, "2001:db8:1::100") &&
	      vx->udp6_zero_csum_refused && vx->key == 100);
	config_free(&c);
	path = write_tmp("vx6flow.yaml",
		"underlay: {port: nic, local-ip: \"fd00::5/64\"}\n"
		"ports:\n  - {name: nic, type: dpdk, devargs: net_null0}\n"
		"  - {name: vx, type: vxlan, options: {remote_ip: flow, "
		"local_ip: \"fd00::5\"}}\n");
	if (!load(path, &c))
		return;
	CHECK(c.ports[1].remote_ip_flow && c.ports[1].local_ipv6 &&
	      !c.ports[1].udp6_zero_csum_refused);
	config_free(&c);
}

void
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

void
test_eal_argv(void)
{
	static const char *const full[] = {
		"vxswitch", "--lcores", "0-3,6", "--main-lcore", "0", "-m", "2048",
		"--file-prefix", "full-test", "--huge-dir", "/mnt/huge1G",
		"--no-pci", "--log-level=pmd.net.pcap:debug", "-n", "4", NULL,
	};
	static const char *const minimal[] = {
		"vxswitch", "--lcores", "0-1", "--file-prefix", "vxswitch", NULL,
	};
	static const char *const seed[] = {
		"vxswitch", "--lcores", "1-5", "--main-lcore", "1", "--socket-mem",
		"1024,0", "--file-prefix", "vxswitch", NULL,
	};
	static const char *const demo[] = {
		"vxswitch", "--lcores", "0-1", "-m", "512", "--file-prefix",
		"vxswitch-demo", "--no-pci", NULL,
	};
	check_argv("full.yaml", full);
	check_argv("minimal.yaml", minimal);
	check_argv("vxlan-32vm.yaml", seed);
	check_argv("vxlan-2vm.yaml", demo);
}

/* ---- the rx queue scheduling keys (pmd_rxq_sched.h) ---- */

static void
check_sched(const char *name, const char *datapath, enum cfg_rxq_assign a,
	    bool iso, bool alb, unsigned load_pct, unsigned imp, unsigned rebal_ms)
{
	char text[512];
	struct vxs_config c;

	snprintf(text, sizeof text, "datapath:\n%sports:\n"
		 "  - {name: p0, type: dpdk, devargs: net_null0}\n", datapath);
	if (!load(write_tmp(name, text), &c))
		return;
	CHECK_INT(c.pmd_rxq_assign, a);
	CHECK_INT(c.pmd_rxq_isolate, iso);
	CHECK_INT(c.pmd_auto_lb, alb);
	CHECK_INT(c.pmd_auto_lb_load_threshold, load_pct);
	CHECK_INT(c.pmd_auto_lb_improvement_threshold, imp);
	CHECK_INT(c.pmd_auto_lb_rebal_interval_ms, rebal_ms);
	config_free(&c);
}

void
test_sched_keys(void)
{
	check_sched("sched1.yaml",
		    "  pmd-rxq-assign: group\n  pmd-rxq-isolate: false\n"
		    "  pmd-auto-lb: true\n  pmd-auto-lb-load-threshold: 70\n"
		    "  pmd-auto-lb-improvement-threshold: 0\n"
		    "  pmd-auto-lb-rebal-interval: 0.05\n",
		    CFG_RXQ_ASSIGN_GROUP, false, true, 70, 0, 3000);
	check_sched("sched2.yaml",
		    "  pmd-rxq-assign: roundrobin\n"
		    "  pmd-auto-lb-rebal-interval: 0\n",	/* OVS: default */
		    CFG_RXQ_ASSIGN_ROUNDROBIN, true, false, 95, 25, 60000);
	check_sched("sched3.yaml", "  pmd-auto-lb-rebal-interval: 20000\n",
		    CFG_RXQ_ASSIGN_CYCLES, true, false, 95, 25,
		    20000u * 60000u);
	check_sched("sched4.yaml", "  pmd-auto-lb-rebal-interval: 2.5\n",
		    CFG_RXQ_ASSIGN_CYCLES, true, false, 95, 25, 150000);
}
