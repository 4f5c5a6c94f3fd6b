/* SPDX-License-Identifier: BSD-3-Clause
 * Miniflow extract: the first datapath stage, turning each received packet
 * into the header words of its flow key (OVS's flow_extract meaning, byte
 * order as in flow_key.h).
 *
 * w2..w5 (dl_dst .. tp_dst) are written, and always all of them, with
 * zero where a header is absent, so keys compare and hash as plain words;
 * for an IPv6 frame also w7 (ext_line, ipv6_label) and the whole second
 * line (miniflow_ipv6.c). w0/w1 (in_port, tunnel metadata) and w6 are the
 * caller's, and w7 too for every other frame (zero: the callers set it).
 *
 * "Malformed" means a header that claims to be there but is cut short or
 * inconsistent (runt Ethernet, bad IPv4 version/IHL/total length, IPv6
 * version/payload length, an extension header, ND option, truncated VLAN
 * tag, ARP or L4 header). Protocols we do not parse (802.3 length frames,
 * QinQ inner headers, ...) are not malformed: they simply get L2 fields
 * only.
 */
#ifndef VXS_MINIFLOW_H
#define VXS_MINIFLOW_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_mbuf.h>
#include "flow_key.h"
#include "pkt_batch.h"

/* dl_type of an 802.3 frame (length instead of ethertype), as in OVS. */
#define FLOW_DL_TYPE_NONE 0x05ff

/* Fills key words w2..w5 (dl_dst..tp_dst) from the packet, and for IPv6
 * w7 and the second line; w0, w1 (in_port, tunnel metadata) and w6 are
 * left exactly as the caller set them, w7 too but for IPv6. Returns 0,
 * MINIFLOW_EXT (below) for IPv6, or -1 if the packet is malformed (then
 * the words are unspecified). Headers may span segments; bounds are by
 * pkt_len. */
int miniflow_extract(const struct rte_mbuf *m, struct flow_key *key);

/* The IPv6 part (miniflow_ipv6.c): l3_off is the IPv6 header's offset,
 * w2, w3 (L2) are filled and w4, w5 zero. Returns MINIFLOW_EXT or -1. */
int miniflow_extract_ipv6(const struct rte_mbuf *m, uint32_t l3_off,
			  struct flow_key *key);

/* What an extractor returns for a good packet whose key has its second
 * line (w7's ext_line set: every well-formed IPv6 frame, and only
 * those). The batch loops already test rc != 0 per
 * packet, so telling MINIFLOW_EXT from a malformed -1 costs nothing on
 * the IPv4 path, and they hand the batch a flag "some key has a second
 * line" that lets the hash stage run the one-line loops for the whole
 * batch when it is clear (dp_hash.h). Invariant: ext_line is set iff the
 * extractor returned MINIFLOW_EXT. */
#define MINIFLOW_EXT 1

/* The same answer as miniflow_extract() (same key words, same verdict),
 * faster for the common packet types (miniflow_fast.c): untagged
 * Ethernet, IPv4 with IHL 5 and not a fragment, UDP or TCP, the whole
 * packet in its first segment. This covers the VXLAN outer header and
 * eth/ipv4 inner packets after decap. Everything else, malformed packets
 * included, goes to miniflow_extract(). m->packet_type, when the NIC set
 * it, only decides whether the fast check is tried; it is never trusted. */
int miniflow_extract_fast(const struct rte_mbuf *m, struct flow_key *key);

/* The fast path alone, for tests and benchmarks: fills the key's header
 * words (IPv6: w7 and the second line too) and returns true if m is one
 * of the fast shapes, IPv4's or IPv6's (miniflow_fast.h); returns false, key untouched,
 * otherwise. Ignores m->packet_type. */
bool miniflow_extract_fast_only(const struct rte_mbuf *m,
				struct flow_key *key);

/* Batch stage: keys[i] (w0/w1 prefilled by the caller) belong to
 * b->pkts[i]. Malformed packets are appended, in order, to *malformed,
 * which must have room for b->n more; good ones are compacted in b
 * together with their keys, keeping their order. Returns the number
 * moved. fast selects miniflow_extract_fast() over miniflow_extract();
 * the result is the same either way. */
uint16_t miniflow_extract_batch(struct pkt_batch *b, struct flow_key keys[],
				struct pkt_batch *malformed, bool fast);

/* The same, and *ext set (never cleared) if a kept key has a second line
 * (an extractor returned MINIFLOW_EXT for it): the pass's line flag. */
uint16_t miniflow_extract_batch_ext(struct pkt_batch *b,
				    struct flow_key keys[],
				    struct pkt_batch *malformed, bool fast,
				    bool *ext);

#endif
