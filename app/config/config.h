/* SPDX-License-Identifier: BSD-3-Clause
 * The topology file (YAML, parsed with libyaml) as a plain value. Loading
 * is pure: it opens nothing and changes nothing, so a file with an error is
 * rejected whole ("file:line:col: message 'token'") before any port exists.
 * Flow strings are kept as text with their line numbers; ofp_parse checks
 * them once the port names are known (config_check_flows in main.c).
 */
#ifndef VXS_CONFIG_H
#define VXS_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_ether.h>

/* The PMDs' ARP policer (arp_responder.c), per PMD: a few thousand ARP
 * frames a second is far more than any underlay's real neighbours need
 * (the kernel re-resolves an entry every few tens of seconds). */
#define ARP_RATE_DEFAULT 5000
#define ARP_BURST_DEFAULT 256
/* The PMDs' path MTU ICMP errors (dp_pmtud.h), per PMD: Linux's own ICMP
 * budget (net.ipv4.icmp_msgs_per_sec, icmp_msgs_burst). */
#define PMTUD_RATE_DEFAULT 1000
#define PMTUD_BURST_DEFAULT 50

#define CFG_NAME_MAX 64
#define CFG_PATH_MAX 256
#define CFG_ERR_MAX 512
#define CFG_MAX_CORES 128
#define CFG_MAX_VNIS 64
#define CFG_CT_MAX_CONNS_DEFAULT 65536
#define CFG_CT_ZONE_LIMIT_AUTO UINT32_MAX
/* The control tables' sizes when the topology leaves datapath max-flows,
 * max-routes, max-neighbours out (0): what ofproto_init, route_init and
 * neigh_init make, and what config_check_limits holds the topology's
 * flows, routes and arp entries to before any of those tables exists. */
#define CFG_MAX_FLOWS_DEFAULT 65536	/* OVS Flow_Table flow_limit */
#define CFG_MAX_ROUTES_DEFAULT 65536
#define CFG_MAX_NEIGHBOURS_DEFAULT 65536
/* hugepage bytes one session of ct-max-conns takes (pool slot, both keys
 * in the hash; perf/ctbench measured ~350) */
#define CFG_CT_BYTES_PER_CONN 384
#define CFG_MIN_MS 60000u		/* a minute */
#define CFG_REBAL_INTERVAL_MAX_MIN 20000u /* OVS MAX_ALB_REBALANCE_INTERVAL */

enum cfg_port_type {
	CFG_PORT_DPDK,			/* any ethdev: devargs or PCI address */
	CFG_PORT_VHOST_SERVER,		/* "dpdkvhostuser": we own the socket */
	CFG_PORT_VHOST_CLIENT,		/* "dpdkvhostuserclient": VM owns it */
	CFG_PORT_VXLAN,			/* the overlay's tunnel port */
	CFG_PORT_NULL,			/* benchmarking sink (port.h) */
};

/* OVS other_config:pmd-rxq-assign (app/pmd/pmd_rxq_sched.h) */
enum cfg_rxq_assign {
	CFG_RXQ_ASSIGN_ROUNDROBIN,
	CFG_RXQ_ASSIGN_CYCLES,
	CFG_RXQ_ASSIGN_GROUP,
};

struct cfg_rxq_affinity {
	uint16_t queue;
	uint16_t core;			/* lcore id of a PMD */
};

/* Where something was written in the topology file; line 0: nowhere. */
struct cfg_pos {
	int line, col;
};

struct cfg_port {
	char name[CFG_NAME_MAX];
	enum cfg_port_type type;
	int line;			/* where it was defined, for errors */
	int col;
	uint32_t ofport;		/* 0 = assign the next free number */

	/* dpdk */
	char devargs[CFG_PATH_MAX];
	uint16_t n_rxq;			/* default 1 */
	uint16_t rxd, txd;		/* default 1024; vhost rings are
					 * sized by the guest, not here */
	uint16_t mtu;			/* 0 = leave as is */

	/* partial offload (drivers/offload): off, the E810's rte_flow, or
	 * the software Flow Director model (tests, hosts without one) */
	enum cfg_offload { CFG_OFFLOAD_OFF, CFG_OFFLOAD_RTE_FLOW,
			   CFG_OFFLOAD_MODEL } offload;
	uint32_t offload_guaranteed;	/* model: filters guaranteed (512) */
	uint32_t offload_pool;		/* model: shared pool beyond (0) */
	uint32_t offload_inserts_per_sec;	/* 0: no limit */
	/* model: the ice release it behaves as (enum fdir_model_profile;
	 * 0: ice-22.11, the DPDK we build against) */
	uint8_t offload_model_profile;
	/* which waiting flows get NIC rules (drivers/offload/offload_admit.h):
	 * the busiest by measured rate, evicting cold rules (default), or
	 * first come, refused for good when full */
	enum cfg_offload_admission { CFG_ADMIT_WEIGHT, CFG_ADMIT_FIFO }
		offload_admission;

	/* vhost */
	char path[CFG_PATH_MAX];

	/* rxq -> PMD core; queues not listed are spread round-robin */
	uint16_t n_affinity;
	struct cfg_rxq_affinity affinity[16];

	/* vxlan: "flow" = 0 / false, else fixed; an IPv6 remote_ip or
	 * local_ip is in the *6 fields (remote_ipv6 / local_ipv6 set) */
	bool remote_ip_flow, local_ip_flow, key_flow;
	rte_be32_t remote_ip, local_ip;
	bool remote_ipv6, local_ipv6;
	uint8_t remote_ip6[16], local_ip6[16];
	/* udp6zerocsumrx: false refuses VXLAN over IPv6 with a zero UDP
	 * checksum (Linux's default); true (the default, OVS's) accepts */
	bool udp6_zero_csum_refused;
	uint32_t key;
	uint16_t dst_port;		/* default 4789 */
	uint16_t n_vnis;		/* accepted VNIs; 0 = those the flows use */
	uint32_t vnis[CFG_MAX_VNIS];
};

/* An IPv6 route or neighbour (ipv6) has its addresses in the *6 fields
 * (network order) and 0 in the IPv4 ones. */
struct cfg_route {
	rte_be32_t prefix;
	uint8_t plen;			/* the family's: to 32 or to 128 */
	rte_be32_t gateway;		/* 0 = directly connected */
	bool ipv6;
	uint8_t prefix6[16], gateway6[16];	/* gateway6 :: = connected */
	char port[CFG_NAME_MAX];	/* default: the underlay port */
	int line, col;			/* where it was defined, for errors */
};

struct cfg_arp {
	rte_be32_t ip;
	bool ipv6;
	uint8_t ip6[16];
	struct rte_ether_addr mac;
	int line, col;
};

/* An OpenFlow number kept for a port name that no port has now: flows may
 * name it, and a port added under that name gets that number (the state
 * file writes them; OVS keeps an interface's ofport in its database). */
struct cfg_ofport_name {
	char name[CFG_NAME_MAX];
	uint32_t ofport;
};
#define CFG_MAX_OFPORT_NAMES 4096	/* PORT_NAMES_MAX */

struct cfg_flow {
	char *text;			/* ovs-ofctl syntax, malloc'd */
	int line, col;
};

struct vxs_config {
	char file[CFG_PATH_MAX];

	/* eal: turned into an argv by config_eal_argv() */
	char eal_lcores[128];		/* "-l"; default: main + pmd cores */
	int eal_main_lcore;		/* -1 = EAL default */
	uint32_t eal_memory_mb;		/* -m; 0 = not given */
	char eal_socket_mem[64];	/* --socket-mem */
	char eal_file_prefix[64];	/* default "vxswitch" */
	char eal_huge_dir[CFG_PATH_MAX];
	bool eal_no_pci;
	bool eal_no_huge;		/* for tests on hosts with no hugepages */
	int n_eal_extra;
	char **eal_extra;		/* verbatim extra EAL args */

	/* datapath */
	uint16_t n_pmd_cores;
	uint16_t pmd_cores[CFG_MAX_CORES];	/* default {1} */
	uint32_t n_mbufs;		/* 0 = sized from the ports */
	uint32_t emc_insert_inv_prob;	/* default 100; 0 = EMC off */
	uint32_t flow_max_idle_ms;	/* default 10000 */
	uint32_t max_megaflows;		/* per PMD, default 65536 */
	/* sessions of the connection tracker (sg()), OVS's ct-max-conns;
	 * default CFG_CT_MAX_CONNS_DEFAULT: a hugepage pool sized up front,
	 * about 350 bytes a session (OVS's default is 3,000,000) */
	uint32_t ct_max_conns;
	/* sessions one zone may hold unless dpctl/ct-set-limits says else
	 * (ct-set-limits default=L); 0: unlimited, as OVS's default;
	 * CFG_CT_ZONE_LIMIT_AUTO (the default): an eighth of ct-max-conns,
	 * so no one zone (a VM, in OVN; a network, in Neutron) can fill
	 * the table for every other */
	uint32_t ct_default_zone_limit;
	/* control tables: 0 = the default (CFG_MAX_*_DEFAULT) */
	uint32_t max_flows;		/* OpenFlow rules, default 65536 */
	uint32_t max_neighbours;	/* default 65536 */
	uint32_t max_routes;		/* default 65536 */
	uint32_t neigh_aging_s;		/* tnl/neigh/aging, default 900 */
	uint32_t publish_interval_ms;	/* learned changes, default 100 */
	uint32_t arp_rate;		/* ARP per s per PMD; 0 = unlimited */
	uint32_t arp_burst;		/* its bucket depth, frames */
	/* path MTU discovery for what the tunnel cannot carry (dp_pmtud.h):
	 * default on, PMTUD_RATE_DEFAULT / PMTUD_BURST_DEFAULT */
	bool pmtud;
	uint32_t pmtud_rate;		/* ICMP errors per s per PMD; 0 = no
					 * limit */
	uint32_t pmtud_burst;		/* its bucket depth */
	uint32_t dp_opts;		/* bit set of enum dp_opt (dp_opts.h) */
	uint32_t pmd_idle_backoff_us;	/* idle-backoff's sleep, default 50 */
	uint32_t tx_flush_interval_us;	/* OVS tx-flush-interval, default 50 */
	char ctl_socket[CFG_PATH_MAX];	/* default /var/run/vxswitch/vxswitch.ctl */
	/* OVS's unixctl JSON-RPC, for ovs-appctl -t PATH (control.h); ""
	 * (default): vxswitch.<pid>.ctl beside ctl_socket, as OVS names its
	 * own */
	char unixctl_socket[CFG_PATH_MAX];
	/* the OpenFlow bridge's name, the BRIDGE of ovs-ofctl's commands
	 * (dump-flows br-int...): the one overlay bridge; default br-int */
	char bridge[16];
	/* the running state's file (state.h); "" = <topology file>.state */
	char state_file[CFG_PATH_MAX];

	/* rx queue scheduling and the auto load balancer: OVS's
	 * other_config keys of the same names (app/pmd/pmd_rxq_sched.h) */
	enum cfg_rxq_assign pmd_rxq_assign;	/* default cycles */
	bool pmd_rxq_isolate;			/* default true */
	bool pmd_auto_lb;			/* default false */
	uint32_t pmd_auto_lb_load_threshold;	/* percent, default 95 */
	uint32_t pmd_auto_lb_improvement_threshold; /* percent, default 25 */
	uint32_t pmd_auto_lb_rebal_interval_ms;	/* given in minutes,
						 * fractions allowed;
						 * default 1 min */
	uint32_t pmd_load_interval_ms;	/* one of the window's intervals,
					 * default 5000 (OVS PMD_INTERVAL_LEN) */

	/* underlay: the NIC side and our VTEP */
	char underlay_port[CFG_NAME_MAX];	/* a dpdk port's name, or "" */
	rte_be32_t vtep_ip;		/* 0: no IPv4 address */
	uint8_t vtep_plen;
	bool vtep_ip6_set;		/* an IPv6 address (dual stack: both) */
	uint8_t vtep_ip6[16];
	uint8_t vtep_plen6;
	bool vtep_mac_set;
	struct rte_ether_addr vtep_mac;	/* default: the NIC's MAC */
	uint16_t n_routes;
	struct cfg_route routes[64];
	uint16_t n_arp;
	struct cfg_arp arp[256];

	uint16_t n_ports;
	struct cfg_port *ports;		/* malloc'd array */

	uint16_t n_flows;
	struct cfg_flow *flows;		/* malloc'd array */

	uint32_t n_ofport_names;	/* datapath: ofport-names */
	struct cfg_ofport_name *ofport_names;	/* malloc'd array */

	/* for config_check_limits()' errors */
	struct cfg_pos pos_ports, pos_lcores, pos_memory, pos_n_mbufs;
};

/* Loads and validates a topology file. On error returns -1 and writes
 * "file:line:col: message" to err; cfg is then left empty (freed). */
int config_load(const char *path, struct vxs_config *cfg, char *err,
		size_t errlen);

void config_free(struct vxs_config *cfg);

/* config_check.c: what would fail only after the EAL started, checked
 * before it (config_load runs it last): vhost-user ports over rte_vhost's
 * socket limit, dpdk ports over RTE_MAX_ETHPORTS, an mbuf pool larger than
 * the memory the EAL is given. Returns 0, or -1 with "file:line:col:
 * message" in err. */
int config_check_limits(const struct vxs_config *cfg, char *err,
			size_t errlen);
/* The same against this host (vxswitch and --check run it; config_load
 * does not, so topologies load anywhere): lcores the host does not have,
 * an mbuf pool or eal memory larger than the free hugepages. */
int config_check_host(const struct vxs_config *cfg, char *err,
		      size_t errlen);

/* The mbuf pool's size: datapath.n-mbufs, or what the ports need. */
uint32_t config_n_mbufs(const struct vxs_config *cfg);
#define CFG_MBUF_CACHE 256

/* The 1-based line and column (in bytes) of byte 'offset' of file 'path',
 * for errors that libyaml reports as an offset; 0:0 if unreadable. */
void config_offset_line_col(const char *path, size_t offset, size_t *line,
			    size_t *col);

/* Builds the EAL argv (argv[0] = prog). Returns argc; *argv is malloc'd,
 * strings owned by the returned array (free with config_free_argv). */
int config_eal_argv(const struct vxs_config *cfg, const char *prog,
		    char ***argv);
void config_free_argv(int argc, char **argv);

/* A port from OVS-style words (config_port_args.c): argv[0] the name, then
 * KEY=VALUE items, KEY an OVS column or option (type, ofport_request,
 * mtu_request, options:vhost-server-path, options:dpdk-devargs,
 * options:n_rxq, other_config:pmd-rxq-affinity, ...) or a topology key.
 * Checked as a port of the topology is; -1 and err naming the token. */
int config_port_from_args(int argc, const char *const *argv,
			  struct cfg_port *out, char *err, size_t errlen);
/* The same where argv[1..n_base-1] are a port's own words (from
 * config_port_to_args) and the rest replace those with the same key. */
int config_port_from_args_merge(int argc, const char *const *argv,
				int n_base, struct cfg_port *out, char *err,
				size_t errlen);
#define CFG_WORD_MAX (CFG_PATH_MAX + 32)
/* A port as KEY=VALUE words (topology keys) into words[0..max-1]; returns
 * how many. */
int config_port_to_args(const struct cfg_port *c, char (*words)[CFG_WORD_MAX],
			int max);

/* A vxlan port added at run time (add-port), against cfg's underlay:
 * the topology's checks (config_underlay.c check_tunnel) and texts; a
 * local_ip not given (local_given false) becomes the VTEP's. 0, or -1
 * and err. */
int config_tunnel_port_check(const struct vxs_config *cfg,
			     struct cfg_port *vx, bool local_given, char *err,
			     size_t errlen);

const struct cfg_port *config_find_port(const struct vxs_config *cfg,
					const char *name);

/* What a port may be named: letters, digits, '-', '_', '.', not digits
 * only (an all-digit name would read as an ofport number in a flow). */
bool config_is_port_name(const char *s);

#endif
