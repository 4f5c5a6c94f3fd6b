/* SPDX-License-Identifier: BSD-3-Clause
 * net_pcap devargs the driver would take and then leak mbufs on, refused
 * before it is probed (DPDK 22.11's drivers/net/pcap):
 *  - infinite_rx on a pcap holding no packet leaks an mbuf on every poll
 *    until the pool is empty;
 *  - infinite_rx on a pcap holding a frame larger than one mbuf fails the
 *    rx queue set-up ("Multiseg mbufs are not supported") and leaks that
 *    frame's mbuf chain (the driver frees its ring, not the chain it was
 *    looking at): "mbufs in use at exit: 5" for one 9 kB frame. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "port.h"

#define PCAP_MAGIC_US 0xa1b2c3d4u
#define PCAP_MAGIC_NS 0xa1b23c4du

static uint32_t
swap32(uint32_t v, bool swap)
{
	return swap ? __builtin_bswap32(v) : v;
}

/* 0: every record fits in max_frame bytes and there is one at least;
 * otherwise -1 with err set. */
static int
check_pcap_records(const char *path, uint32_t max_frame, char *err,
		   size_t errlen)
{
	FILE *f = fopen(path, "rb");
	uint32_t hdr[6], rec[4];
	uint64_t n = 0;
	int rc = -1;

	if (f == NULL || fread(hdr, sizeof hdr, 1, f) != 1) {
		snprintf(err, errlen, "rx_pcap '%s' is missing or holds no "
			 "packet (net_pcap's infinite_rx would leak mbufs)",
			 path);
		goto out;
	}
	bool swap = hdr[0] == __builtin_bswap32(PCAP_MAGIC_US) ||
		    hdr[0] == __builtin_bswap32(PCAP_MAGIC_NS);
	if (!swap && hdr[0] != PCAP_MAGIC_US && hdr[0] != PCAP_MAGIC_NS) {
		rc = 0;		/* not ours to judge: the driver refuses it */
		goto out;
	}
	while (fread(rec, sizeof rec, 1, f) == 1) {
		uint32_t len = swap32(rec[2], swap);
		if (len > max_frame) {
			snprintf(err, errlen, "rx_pcap '%s': packet %lu is %u "
				 "bytes, more than one mbuf (%u): net_pcap's "
				 "infinite_rx takes no multi-segment frame "
				 "(and would leak it)", path, n + 1, len,
				 max_frame);
			goto out;
		}
		if (fseek(f, len, SEEK_CUR))
			break;
		n++;
	}
	if (n == 0)
		snprintf(err, errlen, "rx_pcap '%s' holds no packet "
			 "(net_pcap's infinite_rx would leak mbufs)", path);
	else
		rc = 0;
out:
	if (f)
		fclose(f);
	return rc;
}

/* net_pcap's rx_pcap path into path; false when there is none */
static bool
rx_pcap_path(const char *devargs, char *path, size_t len)
{
	const char *rx = strstr(devargs, "rx_pcap=");

	if (strncmp(devargs, "net_pcap", 8) || !rx)
		return false;
	rx += strlen("rx_pcap=");
	size_t n = strcspn(rx, ",");
	if (n >= len)
		return false;
	memcpy(path, rx, n);
	path[n] = '\0';
	return true;
}

int
port_pcap_check_devargs(const char *devargs, uint32_t max_frame, char *err,
			size_t errlen)
{
	char path[CFG_PATH_MAX];

	if (!strstr(devargs, "infinite_rx=1") ||
	    !rx_pcap_path(devargs, path, sizeof path))
		return 0;
	return check_pcap_records(path, max_frame, err, errlen);
}

bool
port_pcap_rx_may_block(const char *devargs)
{
	char path[CFG_PATH_MAX];
	struct stat st;

	/* read once into memory (infinite_rx) or a regular file: no */
	return !strstr(devargs, "infinite_rx=1") &&
	       rx_pcap_path(devargs, path, sizeof path) &&
	       stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}
