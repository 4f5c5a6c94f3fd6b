# SPDX-License-Identifier: BSD-3-Clause
"""The security group of perf/e2e-bench.py --sg, written three ways for the
seed's N-VM VXLAN overlay (ports vhost-user<i> and vxlan, VM i at
192.1.0.i with MAC 52:54:00:00:hh:ll as gen-traffic.py and testpmd use):

  none  port security only: a VM sends with its own MAC and IP; nothing
        is tracked. The baseline the other two are compared with.
  sg    the same plus the security group with the sg() action (seed 003):
        one table, one pass, no ct_state matches.
  ct    the same plus the security group in Neutron's openvswitch
        firewall driver's form: ct(table=T,zone=Z) into the rules tables,
        ct_state matches, ct(commit,zone=Z), one recirculation each way
        (plus OVS's own tunnel-pop recirculation on receive).

The group on every VM port (the usual "web server" group): egress allowed
(any IPv4); ingress allowed for UDP to --port (the port gen-traffic.py's
flows use, 5001; with protos=("udp", "tcp"), e2e-bench --proto udp,tcp,
for TCP to it too) and for packets of connections either side opened;
everything else to the VM is dropped. Zone Z = i + 1: one per port, so
the two directions of a VM's connections meet in one zone.

The three differ only by the group: the same classification (egress:
in_port, dl_src, nw_src; ingress: in_port=vxlan, nw_dst) and the same
default drop, so a rate difference is the group's cost.

Used by scripts/gen-topology.py --sg (vxswitch) and ovs_dpdk.OvsRun (OVS:
the same text through ovs-ofctl add-flows).
"""

from .addressing import SEED

MODES = ("none", "sg", "ct")

# Neutron's table numbers (neutron/plugins/ml2/drivers/openvswitch/agent/
# common/constants.py), as in tests/integration/policies/ct_allow_egress.flows
T_TRANSIENT, T_BASE_EGRESS, T_RULES_EGRESS, T_ACCEPT_OR_INGRESS = 60, 71, 72, 73
T_BASE_INGRESS, T_RULES_INGRESS = 81, 82
T_ACCEPTED_EGRESS, T_DROPPED, T_ACCEPTED_EGRESS_NORMAL = 91, 93, 94

PROTOS = ("udp", "tcp")


def flows(mode, n_vms, vni=1001, remote_ip="172.1.0.0",
          local_ip="172.1.0.100", inner_net="192.1.0.0", port=5001,
          protos=("udp",)):
    """The rules (ovs-ofctl add-flow syntax) of one mode for n_vms VMs;
    protos: the protocols allowed in to `port` (one ingress rule each)."""
    if mode not in MODES:
        raise ValueError("security group mode %r: one of %s"
                         % (mode, ", ".join(MODES)))
    for pr in protos:
        if pr not in PROTOS:
            raise ValueError("protocol %r: one of %s"
                             % (pr, ", ".join(PROTOS)))
    encap = ("set_tunnel:%d,set_field:%s->tun_dst,set_field:%s->tun_src,"
             "output:vxlan" % (vni, remote_ip, local_ip))
    vms = SEED.rebased(ip_base=inner_net)
    out = []
    for i in range(n_vms):
        p, ip, mac, z = "vhost-user%d" % i, vms.ip(i), vms.mac(i), i + 1
        own = "in_port=%s,dl_src=%s,nw_src=%s" % (p, mac, ip)
        if mode == "none":
            out += ["priority=100,ip,%s,actions=%s" % (own, encap),
                    "priority=90,ip,in_port=vxlan,nw_dst=%s,actions=output:%s"
                    % (ip, p)]
        elif mode == "sg":
            out += ["priority=100,ip,%s,actions=sg(allow,zone=%d),%s"
                    % (own, z, encap)]
            out += ["priority=100,%s,in_port=vxlan,nw_dst=%s,tp_dst=%d,"
                    "actions=sg(allow,zone=%d),output:%s"
                    % (pr, ip, port, z, p) for pr in protos]
            out += ["priority=90,ip,in_port=vxlan,nw_dst=%s,"
                    "actions=sg(deny,zone=%d),output:%s" % (ip, z, p)]
        else:
            out += _ct_port(p, ip, own, z, port, protos)
    if mode == "ct":
        out += _ct_common(encap)
    else:
        # anything else from a VM port is spoofed; from the tunnel, not ours
        out += ["priority=10,in_port=vhost-user%d,actions=drop" % i
                for i in range(n_vms)]
        out.append("priority=0,actions=drop")
    return out


def _ct_port(p, ip, own, z, port, protos=("udp",)):
    """One VM port's rules in Neutron's tables. Where Neutron keeps the
    port in reg5 and the zone in reg6 (ct(zone=NXM_NX_REG6[0..15])), the
    port is matched (in_port on egress, nw_dst on ingress) and the zone
    written out; vxswitch executes no register zones yet."""
    return [
        # 0: from the VM -> its egress pipeline; 60: from the tunnel for it
        "table=0,priority=100,in_port=%s,actions=resubmit(,%d)"
        % (p, T_BASE_EGRESS),
        "table=%d,priority=100,ip,nw_dst=%s,actions=resubmit(,%d)"
        % (T_TRANSIENT, ip, T_BASE_INGRESS),
        # 71: anti-spoofing, then conntrack and the egress rules
        "table=%d,priority=65,ip,%s,actions=ct(table=%d,zone=%d)"
        % (T_BASE_EGRESS, own, T_RULES_EGRESS, z),
        "table=%d,priority=10,in_port=%s,actions=resubmit(,%d)"
        % (T_BASE_EGRESS, p, T_DROPPED),
        # 72: the group's egress rule "any IPv4" (Neutron's pair: new, and
        # the original direction of an established one), then the driver's
        # fixed flows: the reply direction of what ingress accepted passes,
        # anything else not established is dropped
        "table=%d,priority=70,ct_state=+new-est,ip,in_port=%s,"
        "actions=resubmit(,%d)" % (T_RULES_EGRESS, p, T_ACCEPT_OR_INGRESS),
        "table=%d,priority=70,ct_state=+est-rel-rpl,ip,in_port=%s,"
        "actions=resubmit(,%d)" % (T_RULES_EGRESS, p, T_ACCEPT_OR_INGRESS),
        "table=%d,priority=50,ct_state=+est-rel+rpl,ct_zone=%d,in_port=%s,"
        "actions=resubmit(,%d)" % (T_RULES_EGRESS, z, p,
                                   T_ACCEPTED_EGRESS_NORMAL),
        "table=%d,priority=40,ct_state=-est,in_port=%s,actions=resubmit(,%d)"
        % (T_RULES_EGRESS, p, T_DROPPED),
        # 73: commit a new accepted egress connection
        "table=%d,priority=90,ct_state=+new-est,ip,in_port=%s,"
        "actions=ct(commit,zone=%d),resubmit(,%d)"
        % (T_ACCEPT_OR_INGRESS, p, z, T_ACCEPTED_EGRESS),
        # 81: conntrack for the ingress rules
        "table=%d,priority=90,ct_state=-trk,ip,nw_dst=%s,"
        "actions=ct(table=%d,zone=%d)" % (T_BASE_INGRESS, ip,
                                          T_RULES_INGRESS, z),
    ] + [rule for pr in protos for rule in (
        # 82: the group's ingress rules "UDP (TCP) to `port`" (new: commit
        # and deliver; established original direction: deliver), the reply
        # direction of what the VM opened, anything else is dropped
        "table=%d,priority=70,ct_state=+new-est,%s,nw_dst=%s,tp_dst=%d,"
        "actions=ct(commit,zone=%d),output:%s"
        % (T_RULES_INGRESS, pr, ip, port, z, p),
        "table=%d,priority=70,ct_state=+est-rel-rpl,%s,nw_dst=%s,tp_dst=%d,"
        "actions=output:%s" % (T_RULES_INGRESS, pr, ip, port, p))] + [
        "table=%d,priority=50,ct_state=+est-rel+rpl,ct_zone=%d,ip,nw_dst=%s,"
        "actions=output:%s" % (T_RULES_INGRESS, z, ip, p),
    ]


def _ct_common(encap):
    return [
        "table=0,priority=90,in_port=vxlan,actions=resubmit(,%d)"
        % T_TRANSIENT,
        "table=0,priority=0,actions=drop",
        "table=%d,priority=0,actions=drop" % T_TRANSIENT,
        "table=%d,priority=0,actions=drop" % T_BASE_EGRESS,
        "table=%d,priority=50,ct_state=+inv+trk,actions=resubmit(,%d)"
        % (T_RULES_EGRESS, T_DROPPED),
        "table=%d,priority=0,actions=drop" % T_RULES_EGRESS,
        "table=%d,priority=80,actions=resubmit(,%d)"
        % (T_ACCEPT_OR_INGRESS, T_ACCEPTED_EGRESS_NORMAL),
        "table=%d,priority=0,actions=drop" % T_BASE_INGRESS,
        "table=%d,priority=50,ct_state=+inv+trk,actions=resubmit(,%d)"
        % (T_RULES_INGRESS, T_DROPPED),
        "table=%d,priority=40,ct_state=-est,actions=resubmit(,%d)"
        % (T_RULES_INGRESS, T_DROPPED),
        "table=%d,priority=0,actions=drop" % T_RULES_INGRESS,
        "table=%d,priority=1,actions=resubmit(,%d)"
        % (T_ACCEPTED_EGRESS, T_ACCEPTED_EGRESS_NORMAL),
        "table=%d,priority=0,actions=drop" % T_DROPPED,
        # Neutron: NORMAL; here every VM's traffic leaves by the tunnel
        "table=%d,priority=10,actions=%s" % (T_ACCEPTED_EGRESS_NORMAL, encap),
    ]
