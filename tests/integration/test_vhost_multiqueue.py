# SPDX-License-Identifier: BSD-3-Clause
"""Multi-queue vhost-user guests on 2 PMDs (app/ports/port_vhost.c,
app/ports/port_tx.c).

The guest is testpmd with a virtio-user port of `queues` queue pairs and a
net_pcap port with one rx_pcap and one tx_pcap per queue, io-forwarding
both ways with 2 cores: frames of in<q>.pcap leave the guest on its tx
ring q; what the switch sends on the guest's rx ring q lands in out<q>.pcap.
The switch has the vhost port with n-rxq 2, queue 0 on the PMD of lcore 1
and queue 1 on the one of lcore 2 (both on CPU 1), and one flow sending
everything back where it came from.

  queues=2  each PMD polls its guest ring and sends on its own guest rx
            queue, without a lock (show: tx_shared false): in<q>.pcap
            comes back byte for byte in out<q>.pcap, and pmd-rxq-show
            counts each queue's frames;
  queues=1  the guest enabled fewer pairs than n-rxq: queue 1 is shown
            disabled and not polled, the two PMDs share the guest's one
            rx queue under the lock (tx_shared true), and in0.pcap still
            comes back whole.
"""

import pytest
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether

from vxswitch_tools import harness as vxlib

N_FRAMES = 40


def frames(q):
    """Frames for guest queue q, each one different (size and payload)."""
    return [bytes(Ether(src="52:54:00:00:00:00", dst="02:00:00:00:0%d:%02x"
                        % (q, k)) /
                  IP(src="10.0.%d.1" % q, dst="10.0.%d.2" % q) /
                  UDP(sport=1000 + k, dport=2000 + q) /
                  (bytes([q * 16 + k % 16]) * (18 + 7 * k)))
            for k in range(N_FRAMES)]


def topology(sock):
    return {"eal": {"lcores": "0,(1-2)@1", "memory-mb": 256,
                    "no-pci": True},
            "datapath": {"pmd-cores": [1, 2],
                         "optimisations": {"idle-backoff": True}},
            "ports": [{"name": "vm0", "type": "dpdkvhostuserclient",
                       "path": str(sock), "n-rxq": 2,
                       "rxq-affinity": "0:1,1:2"}],
            "flows": ["in_port=vm0,actions=in_port"]}


def port_show(sw, name):
    return next(p for p in sw.ctl("show", json=True)["ports"]
                if p["name"] == name)


def rxq_show(sw):
    return {q["queue"]: q for q in sw.ctl("dpif-netdev/pmd-rxq-show",
                                          json=True) if q["port"] == "vm0"}


@pytest.mark.parametrize("queues", [2, 1])
def test_multiqueue_guest(make_switch, make_testpmd, rundir, tmp_path,
                          queues):
    sock = rundir / "vhost0.sock"
    sent = {q: frames(q) for q in range(queues)}
    pcaps = []
    for q in range(queues):
        vxlib.write_pcap(tmp_path / ("in%d.pcap" % q), sent[q])
        pcaps += ["rx_pcap=%s" % (tmp_path / ("in%d.pcap" % q)),
                  "tx_pcap=%s" % (tmp_path / ("out%d.pcap" % q))]
    vm = make_testpmd(sockets=[sock], name="vm", queues=queues,
                      vdevs=["net_pcap0," + ",".join(pcaps)], fwd="io",
                      port_topology="paired", nb_cores=2, interactive=True)
    sw = make_switch(topology(sock))
    vm.wait_ready(timeout=30)
    # the guest's queue pairs reach the tx routes (control thread)
    vxlib.wait_for(lambda: port_show(sw, "vm0")["guest_queues"] == queues
                   and port_show(sw, "vm0")["n_txq"] == queues, 10, 0.05,
                   what="vm0 with %d guest queues" % queues)
    vm0 = port_show(sw, "vm0")
    assert vm0["state"] == "up" and vm0["tx_shared"] == (queues < 2), vm0
    rq = rxq_show(sw)
    assert [rq[q]["enabled"] for q in (0, 1)] == [True, queues == 2], rq

    vm.cmd("start")
    total = sum(len(f) for f in sent.values())
    vxlib.wait_for(lambda: port_show(sw, "vm0")["tx_packets"] == total,
                   10, 0.05, what="%d frames back to the guest" % total)
    rq = rxq_show(sw)
    for q in range(2):
        assert rq[q]["packets"] == len(sent.get(q, ())), rq
    vm0 = port_show(sw, "vm0")
    assert vm0["rx_packets"] == total and vm0["tx_dropped"] == 0, vm0
    assert vm.stop() == 0
    for q in range(queues):
        got = vxlib.read_pcap_raw(tmp_path / ("out%d.pcap" % q))
        assert got == sent[q], "guest queue %d: %d frames back of %d" % (
            q, len(got), len(sent[q]))
