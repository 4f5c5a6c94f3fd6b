#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds a Debian package of vxswitch: a release build for /usr, `meson
# install` into a staging root, then dpkg-deb. Depends come from
# dpkg-shlibdeps on the staged binaries, plus the DPDK plugins it cannot
# see (they are dlopen()ed by the EAL).
#
#   scripts/package.sh [OUTDIR]     (default: the current directory)
#
# Prints the .deb's path last. Needs meson, ninja, dpkg-dev (dpkg-shlibdeps);
# no root (dpkg-deb --root-owner-group). Environment:
#   VXS_PKG_BUILD   the build folder (default build-pkg, reused if there)
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
out=$(realpath "${1:-.}")
build=${VXS_PKG_BUILD:-$src/build-pkg}
stage=$(mktemp -d /tmp/vxswitch-pkg.XXXXXX)
trap 'rm -rf "$stage"' EXIT

if [ -f "$build/build.ninja" ]; then
	meson configure "$build" --prefix=/usr --buildtype=release \
		-Dsystemdunitdir=/lib/systemd/system >/dev/null
else
	meson setup "$build" "$src" --prefix=/usr --buildtype=release \
		-Dsystemdunitdir=/lib/systemd/system >/dev/null
fi
meson compile -C "$build" vxswitch vxswitch-ctl >/dev/null
DESTDIR=$stage meson install -C "$build" --quiet --no-rebuild

version=$(meson introspect --projectinfo "$build" |
	  python3 -c 'import json,sys; print(json.load(sys.stdin)["version"])')
arch=$(dpkg --print-architecture)

# Debian policy: man pages gzipped, the docs' folder has a copyright file
gzip -9n "$stage"/usr/share/man/man*/*.[0-9]
cat > "$stage/usr/share/doc/vxswitch/copyright" <<EOC
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: vxswitch

Files: *
License: BSD-3-Clause
EOC

# dpkg-shlibdeps wants a debian/control beside it
shlib=$(mktemp -d /tmp/vxswitch-shlib.XXXXXX)
mkdir "$shlib/debian"
printf 'Source: vxswitch\n\nPackage: vxswitch\nArchitecture: any\n' \
	> "$shlib/debian/control"
deps=$(cd "$shlib" && dpkg-shlibdeps -O "$stage/usr/sbin/vxswitch" \
	"$stage/usr/bin/vxswitch-ctl" 2>/dev/null | sed 's/^shlibs:Depends=//')
rm -rf "$shlib"

# the mempool driver every pool needs (ring_mp_mc), loaded as a plugin
deps="$deps, librte-mempool-ring23"

mkdir -p "$stage/DEBIAN"
cat > "$stage/DEBIAN/control" <<EOC
Package: vxswitch
Version: $version-1
Architecture: $arch
Maintainer: vxswitch developers <vxswitch@localhost>
Installed-Size: $(du -sk --exclude=DEBIAN "$stage" | cut -f1)
Depends: $deps
Recommends: dpdk-dev, dpdk, librte-net-ice23, librte-net-pcap23, librte-net-af-packet23, librte-net-tap23, librte-net-virtio23, librte-net-vhost23
Suggests: openvswitch-switch
Section: net
Priority: optional
Description: DPDK poll-mode virtual switch for VXLAN overlays
 vxswitch carries the traffic of VMs attached over vhost-user between them
 and the NIC, in VXLAN, as OVS-DPDK's userspace datapath does, with an
 ovs-appctl/ovs-ofctl-like control tool (vxswitch-ctl), a systemd unit
 (Type=notify) and example topologies. With openvswitch-switch, it runs in
 ovs-vswitchd's place as ovsdb-server's client (vxswitch-ovs,
 vxswitch-ovs.service).
EOC

deb="$out/vxswitch_${version}-1_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "$deb"
