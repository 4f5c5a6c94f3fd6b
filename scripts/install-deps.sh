#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Installs everything vxswitch needs on Debian 12 (bookworm), then reserves
# hugepages (scripts/hugepages.sh).
#
# Idempotent: apt is only touched when a package is missing (checked with
# dpkg-query), so a re-run on a ready machine takes well under a second.
# Runs non-interactively (CI: no stdin). Needs root, or sudo for apt.
#
# Environment:
#   VXS_SKIP_HUGEPAGES=1   do not call scripts/hugepages.sh
#   VXS_HUGEPAGES=N        passed on to hugepages.sh (2 MB pages, default 1024)
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

PACKAGES=(
	# DPDK 22.11: headers + libs, dev tools (dpdk-devbind, dpdk-telemetry.py,
	# dpdk-pmdinfo), runtime apps (dpdk-testpmd, dpdk-dumpcap, dpdk-pdump)
	libdpdk-dev dpdk-dev dpdk
	# build
	meson ninja-build pkg-config gcc libc6-dev
	# libjansson-dev: JSON reading (libdpdk-dev depends on it; named here
	# because meson asks for it by itself)
	libjansson-dev
	libyaml-dev libssl-dev libpcap-dev libnuma-dev libbsd-dev libelf-dev zlib1g-dev
	# daemon (sd_notify), meson install and scripts/package.sh: libsystemd,
	# completion dir, dpkg-shlibdeps, man and systemd-analyze for the tests
	libsystemd-dev bash-completion dpkg-dev man-db systemd
	# tests, traffic generation, charts
	python3 python3-pytest python3-pytest-timeout python3-scapy python3-yaml
	python3-matplotlib
	tshark tcpdump
	# network plumbing used by integration tests and demos
	iproute2 iputils-ping netcat-openbsd socat ethtool
	# process inspection, debugging, JSON from vxswitch-ctl --json
	psmisc procps valgrind jq gdb
	# hugepage mounting
	util-linux
	# ovs-ofctl parse-flows: the flow syntax compared with OVS
	# (tests/integration/test_ofctl_compat.py; no switch is started);
	# ovs-appctl and OVS's Python unixctl client drive vxswitch's unixctl
	# socket (test_ovs_appctl.py; its OVS references were made with
	# openvswitch-switch, not needed to run it: ovs_ref/make-ovs-ref.sh)
	openvswitch-common python3-openvswitch
	# ovs-vsctl and vswitch.ovsschema: Debian's ovs-vsctl drives vxswitch's
	# OVSDB client through a private ovsdb-server (test_ovsdb.py). Its
	# services are kept from starting at install (policy-rc.d, below)
	openvswitch-switch
	# real guests (issue 5): QEMU, libvirt (run privately by
	# scripts/guests.py), and what scripts/guest-image.sh puts in the
	# guest (the kernel package itself is downloaded, not installed)
	qemu-system-x86 libvirt-daemon libvirt-daemon-driver-qemu
	libvirt-clients busybox-static iperf3 cpio kmod
)

SUDO=
if [ "$(id -u)" -ne 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		SUDO="sudo -n"
	else
		echo "install-deps: not root and no sudo; cannot install packages" >&2
		exit 1
	fi
fi

missing_packages() {
	local p st
	for p in "${PACKAGES[@]}"; do
		st=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
		# "ii " = installed; anything else (absent, half-installed, rc) = missing
		case "$st" in
		ii*) ;;
		*) echo "$p" ;;
		esac
	done
}

mapfile -t missing < <(missing_packages)

if [ "${#missing[@]}" -eq 0 ]; then
	echo "install-deps: all ${#PACKAGES[@]} packages already installed"
else
	echo "install-deps: installing ${#missing[@]} package(s): ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	# tshark asks whether non-root users may capture; answer it up front
	echo "wireshark-common wireshark-common/install-setuid boolean false" |
		$SUDO debconf-set-selections
	apt_opts=(-y -q -o Dpkg::Options::=--force-confdef
		  -o Dpkg::Options::=--force-confold
		  -o APT::Install-Recommends=false)
	log=$(mktemp /tmp/vxs-apt.XXXXXX)
	# openvswitch-switch would start ovsdb-server and ovs-vswitchd at
	# install: a policy-rc.d answering 101 ("action forbidden", read by
	# invoke-rc.d and deb-systemd-invoke) keeps every service down while
	# apt runs; removed after, unless one was there already
	made_policy=0
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' |
			$SUDO tee /usr/sbin/policy-rc.d >/dev/null
		$SUDO chmod 755 /usr/sbin/policy-rc.d
		made_policy=1
	fi
	trap 'rm -f "$log"; [ "$made_policy" -eq 0 ] ||
		$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
	# apt-get update once; retry a couple of times (mirrors, dpkg lock held
	# by unattended-upgrades on a freshly booted CI machine)
	ok=0
	for attempt in 1 2 3; do
		if $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -q update \
			>"$log" 2>&1 </dev/null; then
			ok=1
			break
		fi
		echo "install-deps: apt-get update failed (attempt $attempt)" >&2
		sleep $((attempt * 5))
	done
	if [ $ok -ne 1 ]; then
		cat "$log" >&2
		exit 1
	fi
	ok=0
	for attempt in 1 2 3; do
		if $SUDO env DEBIAN_FRONTEND=noninteractive apt-get "${apt_opts[@]}" \
			install "${missing[@]}" >"$log" 2>&1 </dev/null; then
			ok=1
			break
		fi
		echo "install-deps: apt-get install failed (attempt $attempt)" >&2
		sleep $((attempt * 5))
	done
	if [ $ok -ne 1 ]; then
		tail -n 60 "$log" >&2
		exit 1
	fi
	mapfile -t still < <(missing_packages)
	if [ "${#still[@]}" -ne 0 ]; then
		echo "install-deps: still missing after install: ${still[*]}" >&2
		exit 1
	fi
	echo "install-deps: done"
fi

# sanity: the tools the build and tests call by name
for tool in meson ninja pkg-config dpdk-testpmd dpdk-telemetry.py tshark ethtool; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		echo "install-deps: '$tool' not found on PATH after install" >&2
		exit 1
	fi
done
pkg-config --exists libdpdk yaml-0.1 libpcap jansson ||
	{ echo "install-deps: pkg-config cannot find libdpdk/yaml-0.1/libpcap/jansson" >&2; exit 1; }

if [ "${VXS_SKIP_HUGEPAGES:-0}" != 1 ]; then
	$SUDO env VXS_HUGEPAGES="${VXS_HUGEPAGES:-1024}" bash "$here/hugepages.sh"
fi
