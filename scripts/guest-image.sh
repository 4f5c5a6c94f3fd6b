#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Builds the small test guest that scripts/guests.py and the integration
# tests boot behind vxswitch: Debian's cloud kernel (virtio-net as modules)
# and an initramfs with busybox, the virtio modules, iperf3, a TCP/UDP echo
# service and scripts/guest/init, which takes its IP, MAC and MTU from the
# kernel command line (vx.ip= vx.mac= vx.mtu= vx.gw= vx.name=).
#
#   scripts/guest-image.sh [--out DIR] [--force]
#
# The result is cached: DIR/<key>/{vmlinuz,initrd.gz,manifest}, with
# DIR/current pointing at it, where key covers the kernel package version,
# busybox, iperf3 and this script's inputs. A second run with nothing
# changed only prints the paths. DIR: $VXS_GUEST_CACHE or
# /var/cache/vxswitch/guest. Needs: apt (to download the kernel package,
# which is extracted, never installed), busybox-static, iperf3, gcc, cpio
# (scripts/install-deps.sh installs them).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${VXS_GUEST_CACHE:-/var/cache/vxswitch/guest}
FORCE=0
KPKG=${VXS_GUEST_KERNEL_PKG:-linux-image-cloud-amd64}
# virtio-net and what it needs, in load order (checked against modules.dep)
MODULES="virtio_ring virtio virtio_pci_legacy_dev virtio_pci_modern_dev
virtio_pci failover net_failover virtio_net"

while [ $# -gt 0 ]; do
	case "$1" in
	--out) OUT=$2; shift 2 ;;
	--force) FORCE=1; shift ;;
	-h|--help) sed -n '3,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "guest-image.sh: unknown option '$1'" >&2; exit 2 ;;
	esac
done

die() { echo "guest-image.sh: $*" >&2; exit 1; }
for t in busybox iperf3 gcc cpio apt-get dpkg-deb modinfo; do
	command -v $t >/dev/null || die "$t not found (scripts/install-deps.sh)"
done
file_of() { readlink -f "$(command -v "$1")"; }
busybox_bin=$(file_of busybox)
ldd "$busybox_bin" >/dev/null 2>&1 &&
	die "$busybox_bin is not static: install busybox-static"

# The versioned kernel package the meta-package points at.
kver_pkg=$(apt-cache depends "$KPKG" 2>/dev/null |
	awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
[ -n "$kver_pkg" ] || kver_pkg=$KPKG
kdeb_ver=$(apt-cache policy "$kver_pkg" | awk '/Candidate:/ {print $2}')
[ -n "$kdeb_ver" ] && [ "$kdeb_ver" != "(none)" ] ||
	die "no candidate for $kver_pkg (apt-get update?)"

key=$( { echo "$kver_pkg $kdeb_ver"; dpkg-query -W busybox-static iperf3;
	 cat "$0" "$HERE/guest/init" "$HERE/guest/vxecho.c"; } |
	sha256sum | cut -c1-16)
dest=$OUT/$key
if [ $FORCE = 0 ] && [ -s "$dest/initrd.gz" ] && [ -s "$dest/vmlinuz" ]; then
	ln -sfn "$key" "$OUT/current"
	cat "$dest/manifest"
	exit 0
fi

mkdir -p "$OUT"
work=$(mktemp -d "$OUT/.build.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "guest-image.sh: building $dest"

# -- kernel: downloaded and extracted, not installed
(cd "$work" && apt-get download -q -o APT::Sandbox::User=root \
	"$kver_pkg=$kdeb_ver" >/dev/null) || die "cannot download $kver_pkg"
dpkg-deb -x "$work"/linux-image-*.deb "$work/k"
vmlinuz=$(ls "$work"/k/boot/vmlinuz-* | head -1)
kver=${vmlinuz##*/vmlinuz-}
moddir=$work/k/lib/modules/$kver

# -- the initramfs tree
root=$work/root
mkdir -p "$root"/{bin,sbin,etc,proc,sys,dev,tmp,lib/modules,usr/bin}
cp "$busybox_bin" "$root/bin/busybox"
install -m 0755 "$HERE/guest/init" "$root/init"
: > "$root/etc/vx-modules"
for m in $MODULES; do
	f=$(find "$moddir" -name "$m.ko" -o -name "$m.ko.xz" | head -1)
	[ -n "$f" ] || die "module $m not in $kver_pkg"
	case "$f" in
	*.xz) xz -dc "$f" > "$root/lib/modules/$m.ko" ;;
	*) cp "$f" "$root/lib/modules/$m.ko" ;;
	esac
	echo "$m" >> "$root/etc/vx-modules"
done
# each module's dependencies (modinfo: the package has no modules.dep,
# depmod makes it at install time) come before it in the list
seen=" "
for m in $MODULES; do
	for d in $(modinfo -F depends "$root/lib/modules/$m.ko" | tr ',' ' '); do
		case "$seen" in
		*" $d "*) ;;
		*) die "$m needs $d first: fix MODULES" ;;
		esac
	done
	seen="$seen$m "
done

# iperf3 with the shared libraries it links, at the same paths
iperf=$(file_of iperf3)
cp "$iperf" "$root/usr/bin/iperf3"
for lib in $(ldd "$iperf" | awk '/=>/ {print $3} /ld-linux/ {print $1}'); do
	mkdir -p "$root$(dirname "$lib")"
	cp -L "$lib" "$root$lib"
done
ln -s ../usr/bin/iperf3 "$root/bin/iperf3"

gcc -O2 -static -Wall -Wextra -Werror -o "$root/bin/vxecho" \
	"$HERE/guest/vxecho.c"

(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc --quiet) |
	gzip -9 > "$work/initrd.gz"

mkdir -p "$dest"
cp "$vmlinuz" "$dest/vmlinuz"
mv "$work/initrd.gz" "$dest/initrd.gz"
cat > "$dest/manifest" <<EOM
kernel=$dest/vmlinuz
initrd=$dest/initrd.gz
kernel_version=$kver
kernel_package=$kver_pkg $kdeb_ver
busybox=$(dpkg-query -W -f '${Version}' busybox-static)
iperf3=$(dpkg-query -W -f '${Version}' iperf3)
initrd_bytes=$(stat -c %s "$dest/initrd.gz")
EOM
ln -sfn "$key" "$OUT/current"
cat "$dest/manifest"
