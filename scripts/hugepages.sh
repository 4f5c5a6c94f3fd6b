#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Prepares hugepages for DPDK:
#   1. reserves 2 MB hugepages if fewer than VXS_HUGEPAGES (default 1024 =
#      2 GiB) are reserved, and says so if the kernel gave fewer;
#   2. mounts hugetlbfs at /dev/hugepages if it is not mounted;
#   3. removes what killed DPDK processes left behind: hugepage files
#      (rtemap_*, <prefix>map_*) on every hugetlbfs mount, and runtime
#      directories /var/run/dpdk/<prefix>/ -- each only when no live process
#      holds it (open fd, mapping, lock on <prefix>/config, bound unix
#      socket) and it is older than a grace period (VXS_HUGE_GRACE seconds,
#      default 10) so a DPDK process that is starting right now is not hit.
# Safe to run repeatedly and while other DPDK processes run. Needs root.
#
# Usage: hugepages.sh [-n|--dry-run] [-q|--quiet]
#   VXS_HUGEPAGES=N     pages of 2 MB wanted (0: reserve nothing)
#   VXS_HUGE_MNT=DIR    mount point (default /dev/hugepages)
#   VXS_HUGE_GRACE=S    grace period in seconds (default 10)
set -uo pipefail

want=${VXS_HUGEPAGES:-1024}
mnt=${VXS_HUGE_MNT:-/dev/hugepages}
grace=${VXS_HUGE_GRACE:-10}
dry=0
quiet=0
for a in "$@"; do
	case "$a" in
	-n|--dry-run) dry=1 ;;
	-q|--quiet) quiet=1 ;;
	-h|--help) sed -n '2,20p' "$0"; exit 0 ;;
	*) echo "hugepages: unknown argument '$a'" >&2; exit 2 ;;
	esac
done

say() { [ $quiet -eq 1 ] || echo "hugepages: $*"; }
warn() { echo "hugepages: WARNING: $*" >&2; }

if [ "$(id -u)" -ne 0 ]; then
	echo "hugepages: must run as root" >&2
	exit 1
fi

# ---------------------------------------------------------------- reserve
sysdir=/sys/kernel/mm/hugepages/hugepages-2048kB
nrfile=$sysdir/nr_hugepages
[ -w "$nrfile" ] || nrfile=/proc/sys/vm/nr_hugepages
have=$(cat "$nrfile" 2>/dev/null || echo 0)
if [ "$have" -ge "$want" ]; then
	say "$have x 2 MB pages reserved (wanted $want): nothing to do"
else
	if [ $dry -eq 1 ]; then
		say "would reserve $want x 2 MB pages (have $have)"
	else
		echo "$want" >"$nrfile" 2>/dev/null
		got=$(cat "$nrfile")
		if [ "$got" -lt "$want" ]; then
			# fragmented memory: compact and try once more
			sync
			echo 3 >/proc/sys/vm/drop_caches 2>/dev/null || true
			echo 1 >/proc/sys/vm/compact_memory 2>/dev/null || true
			echo "$want" >"$nrfile" 2>/dev/null
			got=$(cat "$nrfile")
		fi
		if [ "$got" -lt "$want" ]; then
			warn "asked the kernel for $want x 2 MB pages, got $got" \
			     "(was $have; MemAvailable $(awk '/MemAvailable/{print $2}' /proc/meminfo) kB)"
		else
			say "reserved $got x 2 MB pages (was $have)"
		fi
	fi
fi
free=$(cat "$sysdir/free_hugepages" 2>/dev/null || echo "?")
say "2 MB pages: total $(cat "$nrfile"), free $free"

# ------------------------------------------------------------------ mount
is_hugetlbfs_mount() {
	awk -v m="$1" '$2 == m && $3 == "hugetlbfs" {f=1} END {exit !f}' /proc/mounts
}
if is_hugetlbfs_mount "$mnt"; then
	say "hugetlbfs already mounted at $mnt"
else
	if [ $dry -eq 1 ]; then
		say "would mount hugetlbfs (pagesize=2M) at $mnt"
	else
		mkdir -p "$mnt"
		if mount -t hugetlbfs -o pagesize=2M nodev "$mnt"; then
			say "mounted hugetlbfs (pagesize=2M) at $mnt"
		else
			warn "could not mount hugetlbfs at $mnt"
		fi
	fi
fi

# ---------------------------------------------------------- stale cleanup
# Everything any live process holds open or mapped, one path per line.
held=$(mktemp /tmp/vxs-huge-held.XXXXXX)
trap 'rm -f "$held"' EXIT
{
	# mappings (column 6 onward is the path; may contain " (deleted)")
	for m in /proc/[0-9]*/maps; do
		awk 'NF >= 6 { p=$6; for (i = 7; i <= NF; i++) p = p " " $i; print p }' \
			"$m" 2>/dev/null
	done
	# open files
	find /proc/[0-9]*/fd -mindepth 1 -maxdepth 1 -type l -printf '%l\n' 2>/dev/null
	# bound unix sockets (path in the last column)
	awk 'NR > 1 && NF >= 8 { print $8 }' /proc/net/unix 2>/dev/null
} | sort -u >"$held"

# POSIX/flock locks: "maj:min:inode" of every locked file
locked_inodes=$(awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^[0-9a-f]+:[0-9a-f]+:[0-9]+$/) print $i }' \
	/proc/locks 2>/dev/null | sort -u)

is_held() {	# is_held PATH: does a live process hold PATH (or anything under it)?
	local p=$1
	grep -qxF -- "$p" "$held" && return 0
	grep -qF -- "$p (deleted)" "$held" && return 0
	# also match through the /var/run -> /run symlink
	local r
	r=$(readlink -f -- "$p" 2>/dev/null || echo "$p")
	[ "$r" != "$p" ] && grep -qxF -- "$r" "$held" && return 0
	return 1
}
is_held_under() {	# is_held_under DIR: any held path inside DIR?
	local d r
	d=${1%/}
	r=$(readlink -f -- "$d" 2>/dev/null || echo "$d")
	awk -v a="$d/" -v b="$r/" \
		'index($0, a) == 1 || index($0, b) == 1 { f = 1; exit } END { exit !f }' \
		"$held"
}
is_locked() {	# is_locked FILE: does /proc/locks hold a lock on FILE?
	local f=$1 dev ino maj min
	[ -e "$f" ] || return 1
	dev=$(stat -c '%d' -- "$f") || return 1
	ino=$(stat -c '%i' -- "$f") || return 1
	maj=$(( (dev >> 8) & 0xfff ))
	min=$(( (dev & 0xff) | ((dev >> 12) & 0xfff00) ))
	# /proc/locks prints major:minor in hex, two digits
	printf '%s\n' "$locked_inodes" | grep -qiE -- \
		"^0*$(printf '%x' $maj):0*$(printf '%x' $min):$ino$"
}
young() {	# young PATH: modified within the grace period?
	local t now
	t=$(stat -c '%Y' -- "$1" 2>/dev/null) || return 1
	now=$(date +%s)
	[ $((now - t)) -lt "$grace" ]
}

removed=0
kept=0
declare -A stale_files=()
declare -a stale_dirs=()
verb=removed
[ $dry -eq 1 ] && verb="would remove"

# hugepage files on every hugetlbfs mount
mapfile -t mounts < <(awk '$3 == "hugetlbfs" { print $2 }' /proc/mounts | sort -u)
for m in "${mounts[@]}"; do
	for f in "$m"/*map_*; do
		[ -f "$f" ] || continue
		base=${f##*/}
		# DPDK's names: <file-prefix>map_<n> (rtemap_0 for prefix "rte")
		[[ "$base" =~ ^.+map_[0-9]+$ ]] || continue
		if is_held "$f" || young "$f"; then
			kept=$((kept + 1))
			continue
		fi
		# prefix's primary still alive (config locked)? keep its files
		prefix=${base%map_*}
		if is_locked "/var/run/dpdk/$prefix/config"; then
			kept=$((kept + 1))
			continue
		fi
		if [ $dry -eq 1 ]; then
			stale_files[$prefix]=$(( ${stale_files[$prefix]:-0} + 1 ))
		elif rm -f -- "$f"; then
			stale_files[$prefix]=$(( ${stale_files[$prefix]:-0} + 1 ))
			removed=$((removed + 1))
		else
			warn "failed to remove $f"
		fi
	done
done

# runtime directories
for rd in /var/run/dpdk /run/user/*/dpdk; do
	[ -d "$rd" ] || continue
	for d in "$rd"/*/; do
		d=${d%/}
		[ -d "$d" ] || continue
		if is_held_under "$d" || is_locked "$d/config" || young "$d" ||
		   { [ -e "$d/config" ] && young "$d/config"; }; then
			kept=$((kept + 1))
			continue
		fi
		if [ $dry -eq 1 ]; then
			stale_dirs+=("$d")
		elif rm -rf -- "$d"; then
			stale_dirs+=("$d")
			removed=$((removed + 1))
		else
			warn "failed to remove $d"
		fi
	done
done

for p in "${!stale_files[@]}"; do
	say "$verb ${stale_files[$p]} stale hugepage file(s) ${p}map_* (no live holder)"
done
if [ ${#stale_dirs[@]} -gt 0 ]; then
	if [ ${#stale_dirs[@]} -le 6 ]; then
		say "$verb stale runtime dir(s): ${stale_dirs[*]}"
	else
		say "$verb ${#stale_dirs[@]} stale runtime dirs: ${stale_dirs[*]:0:4} ..."
	fi
fi
if [ $dry -eq 1 ]; then
	say "stale cleanup (dry run): $kept in use or too young to judge"
else
	say "stale cleanup: removed $removed, kept $kept (in use or younger than ${grace}s)"
fi
exit 0
