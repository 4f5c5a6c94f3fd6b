/* SPDX-License-Identifier: BSD-3-Clause
 * The fragment store: IPv4 and IPv6 fragments held for the connection
 * tracker until their datagram is whole, as OVS 3.1's ipf (lib/ipf.c)
 * does for its userspace conntrack.
 *
 * The datapath (app/datapath/dp_ipf.c) gives the store every fragment an
 * sg() or ct() meets (its flow key's nw_frag, dl_type IPv4 or IPv6). The
 * store keeps it, keyed as OVS's ipf_list_key (zone, source, destination,
 * identification, protocol (IPv4 only), recirc id, dl_type), until the
 * datagram is complete; then it hands the whole datagram back (struct
 * ct_ipf_dgram) to the caller whose fragment completed it, which has the
 * tracker judge the reassembled packet (ct_ipf_dgram_reassemble) and
 * forwards the fragments themselves, each with the reassembled packet's
 * ct_state and its NAT (ct_ipf_dgram_nat, as
 * OVS's ipf_post_execute_reass_pkts: addresses in every fragment, the L4
 * header in the first).
 *
 * IPv4 (ct_ipf_v4.c): OVS's ipf_v4_key_extract and checks, the 16-bit IP
 * id. IPv6 (ct_ipf_v6.c): OVS's ipf_v6_key_extract, the Fragment header
 * found past the extension headers before it (an atomic one, offset 0
 * and M clear, is no fragment: the flow extract says so and the
 * datapath never offers it), the 32-bit identification; the reassembled
 * packet is the first fragment's unfragmentable part and the pieces, the
 * Fragment header removed (the header before it names what it named),
 * the payload length the datagram's, so the tracker walks it as any
 * IPv6 packet (OVS 3.1 leaves the header in, its offset cleared).
 *
 * OVS's limits and counters, per family where OVS has them so: reassembly
 * on by default, both families (OVS's ifp_v4_enabled, ifp_v6_enabled); a
 * fragment that is not the last and shorter than min-frag (v4 1200, v6
 * 1280 bytes, the IP header included; at least 400 either way) is
 * refused; at most max-nfrags (1000) fragments held in all, both
 * families; an IPv4 datagram has at most ceil((65535 - 60) /
 * (min-frag - 60)) fragments, an IPv6 one ceil(65535 / (min-frag - 176))
 * (OVS caps none there: 176 leaves room for the IPv6 and Fragment
 * headers and 128 bytes of extension headers before them); a datagram
 * not complete 15 s after its first fragment expires. Refused fragments
 * stay with the caller, and the tracker finds them +inv, as OVS's do.
 * Beyond OVS, since hostile input is the normal case here:
 *  - a zone (a tenant) holds at most an eighth of max-nfrags (at least
 *    one whole datagram's cap), so one tenant cannot fill the store for
 *    the others;
 *  - a fragment that partially overlaps one held, or contradicts the
 *    datagram's end (a second last fragment elsewhere, data past the
 *    end), makes the datagram invalid: its held fragments come back at
 *    once marked +inv (Linux drops such a datagram whole too, and RFC
 *    5722 asks it for IPv6); an exact duplicate is refused alone (+inv),
 *    as OVS does;
 *  - a piece before the last that is not a multiple of 8 bytes is
 *    refused (malformed), as is an IPv6 fragment of reserved bits only;
 *  - every refusal is counted (OVS counts only too small and overlap).
 * Expired datagrams are dropped, not sent on +inv as OVS's
 * ipf_send_expired_frags does (sg() would drop them as +inv anyway).
 *
 * Threads: ct_ipf_add and the ct_ipf_dgram calls from any PMD (several
 * PMDs may see fragments of one datagram); the settings, the sweep,
 * purges and status from the control thread. One spinlock (OVS's
 * ipf_lock) covers the table; under it a PMD does bounded work: one hash
 * lookup and one walk of one datagram's fragment list (at most its cap).
 * A datagram handed out is its caller's alone. Records come from arrays
 * sized at creation for the largest max-nfrags (5000): no allocation on
 * the packet path, memory bounded.
 *
 * Held fragments hold mbufs. The datapath counts them in its packet
 * accounting (dp_stats.h: ipf_stored, ipf_released); expired and purged
 * datagrams wait on a list that the PMDs drain (ct_ipf_drain), so that
 * their drops are counted by a PMD too; ct_ipf_destroy frees what is
 * left (shutdown).
 */
#ifndef VXS_CT_IPF_H
#define VXS_CT_IPF_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_mbuf.h>

struct ct_ipf;
struct ct_ipf_dgram;
struct ds;

#define CT_IPF_TIMEOUT_S 15		/* OVS's IPF_FRAG_LIST_TIMEOUT */
#define CT_IPF_V4_MIN_FRAG_DEFAULT 1200	/* IPF_V4_FRAG_SIZE_MIN_DEF */
#define CT_IPF_V4_MIN_FRAG_LBOUND 400	/* IPF_V4_FRAG_SIZE_LBOUND */
#define CT_IPF_V6_MIN_FRAG_DEFAULT 1280	/* IPF_V6_FRAG_SIZE_MIN_DEF */
#define CT_IPF_V6_MIN_FRAG_LBOUND 400	/* IPF_V6_FRAG_SIZE_LBOUND */
#define CT_IPF_MAX_NFRAGS_DEFAULT 1000	/* IPF_MAX_FRAGS_DEFAULT */
#define CT_IPF_MAX_NFRAGS_UBOUND 5000	/* IPF_NFRAG_UBOUND */
/* a zone's share of max-nfrags: 1/CT_IPF_ZONE_SHARE */
#define CT_IPF_ZONE_SHARE 8

/* The counters, per family: OVS's six (ipf_get_status, the same names in
 * dpctl/ipf-get-status), then the refusals OVS does not count.
 * X(id, field, text of the ipf-get-status line "v4|v6 frags <text>: N"). */
#define CT_IPF_COUNTERS(X)                                                   \
	X(ACCEPTED,   accepted,   "accepted")	/* taken into the store */   \
	X(COMPLETED,  completed,  "completed")	/* of whole datagrams, out */\
	X(EXPIRED,    expired,    "expired")	/* timed out: dropped */     \
	X(TOO_SMALL,  too_small,  "too small")	/* non-last under min-frag */\
	X(OVERLAP,    overlap,    "overlapped")	/* overlapping one held */   \
	X(PURGED,     purged,     "purged")	/* flush, port removal, end */\
	/* vxswitch's: each refused fragment goes on +inv */                  \
	X(FULL,       refused_full, "refused (max-nfrags held)")             \
	X(ZONE_FULL,  refused_zone, "refused (zone's share held)")           \
	X(DGRAM_FULL, refused_dgram, "refused (datagram's cap reached)")     \
	X(MALFORMED,  malformed,  "malformed")	/* header, length, offset */ \
	X(INVALID,    invalid,    "invalid")	/* held ones of a datagram   \
						 * made invalid, out +inv */

enum ct_ipf_counter {
#define X(id, field, text) CT_IPF_##id,
	CT_IPF_COUNTERS(X)
#undef X
	CT_IPF_N_COUNTERS
};

struct ct_ipf_status {
	bool v4_enabled, v6_enabled;
	uint32_t v4_min_frag, v6_min_frag;
	uint32_t max_nfrags;
	uint32_t nfrag;			/* fragments held now */
	uint32_t n_dgrams;		/* datagrams waiting to be complete */
	uint32_t zone_max;		/* a zone's share */
	uint32_t dgram_max;		/* an IPv4 datagram's cap */
	uint32_t v6_dgram_max;		/* an IPv6 datagram's cap */
	uint64_t v4[CT_IPF_N_COUNTERS];
	uint64_t v6[CT_IPF_N_COUNTERS];
};

struct ct_ipf *ct_ipf_create(int socket_id, uint64_t tsc_hz);
/* Frees every fragment still held (counted purged). */
void ct_ipf_destroy(struct ct_ipf *ipf);

/* Settings (dpctl/ipf-set-*), any time; v6: IPv6's, else IPv4's.
 * min_frag under the lower bound or max_nfrags over the upper one:
 * -ERANGE. */
int ct_ipf_set_enabled(struct ct_ipf *ipf, bool v6, bool on);
int ct_ipf_set_min_frag(struct ct_ipf *ipf, bool v6, uint32_t bytes);
int ct_ipf_set_max_nfrags(struct ct_ipf *ipf, uint32_t n);
bool ct_ipf_v4_enabled(const struct ct_ipf *ipf);
bool ct_ipf_v6_enabled(const struct ct_ipf *ipf);
void ct_ipf_get_status(struct ct_ipf *ipf, struct ct_ipf_status *s);
/* OVS's "Fragment Lists" lines of dpctl/ipf-get-status -m, one per
 * datagram waiting, read in chunks so the PMDs are never held long. */
void ct_ipf_dump_lists(struct ct_ipf *ipf, struct ds *out);

/* Where a fragment came from. */
struct ct_ipf_frag_in {
	uint16_t l3_ofs;	/* its IP header, from the data start */
	uint16_t zone;
	uint16_t in_port;	/* ofport, for ct_ipf_purge_port */
	uint8_t recirc_id;	/* as OVS's key: one per pass */
	bool ipv6;		/* an IPv6 fragment, else IPv4 */
};

enum ct_ipf_take {
	CT_IPF_REFUSED,		/* the caller keeps m (the tracker finds it
				 * +inv): counted under its reason */
	CT_IPF_TAKEN,		/* the store has m */
};

/* Offers fragment m (IPv4, or IPv6 as in says). *done is set when a
 * datagram is finished by this call: complete (m is its last piece), or
 * made invalid (by m, which is then refused, or by the reassembled
 * length). The caller owns *done
 * and must give every fragment in it back to the datapath
 * (ct_ipf_dgram_take) and the record back (ct_ipf_dgram_free). */
enum ct_ipf_take ct_ipf_add(struct ct_ipf *ipf, struct rte_mbuf *m,
			    const struct ct_ipf_frag_in *in, uint64_t now_tsc,
			    struct ct_ipf_dgram **done);

/* Is a finished datagram whole (else invalid: its fragments go on
 * +trk+inv)? */
bool ct_ipf_dgram_complete(const struct ct_ipf_dgram *dg);
uint16_t ct_ipf_dgram_n_frags(const struct ct_ipf_dgram *dg);
/* The reassembled packet of a complete datagram, for the tracker: the
 * first fragment's headers and payload copied (that is what the tracker
 * may rewrite), the others' payloads chained as clones of their mbufs,
 * headers set as one packet (OVS's ipf_reassemble_v4_frags: total length
 * and flags; ipf_reassemble_v6_frags: payload length, the Fragment
 * header removed here). NULL when the pool has no mbufs: the datagram is
 * then invalid. The caller frees it (before the fragments leave: the
 * clones pin their buffers). */
struct rte_mbuf *ct_ipf_dgram_reassemble(struct ct_ipf_dgram *dg);
/* After the tracker NATed reass: its addresses into every fragment, its
 * L4 bytes into the first (OVS's ipf_post_execute_reass_pkts), IPv4 or
 * IPv6 (NAT66: the Fragment header's 8 bytes apart). */
void ct_ipf_dgram_nat(struct ct_ipf_dgram *dg, const struct rte_mbuf *reass);
/* Takes up to max of the datagram's fragments, in offset order, out of
 * the store: the caller owns them (counted completed, or invalid).
 * Returns how many; 0 when none is left. */
uint16_t ct_ipf_dgram_take(struct ct_ipf *ipf, struct ct_ipf_dgram *dg,
			   struct rte_mbuf **pkts, uint16_t max);
/* The record back to the store (fragments not taken are freed, counted
 * purged: a caller bug, never the datapath's way). */
void ct_ipf_dgram_free(struct ct_ipf *ipf, struct ct_ipf_dgram *dg);

/* Expiry, from the control thread: datagrams older than the timeout go
 * to the drain list (at most budget of them a call). Returns how many. */
uint32_t ct_ipf_sweep(struct ct_ipf *ipf, uint64_t now_tsc, uint32_t budget);
/* Purges (control thread): every datagram waiting; those of a zone;
 * those with a fragment from in_port. They go to the drain list.
 * Return how many fragments. */
uint32_t ct_ipf_purge_all(struct ct_ipf *ipf);
uint32_t ct_ipf_purge_zone(struct ct_ipf *ipf, uint16_t zone);
uint32_t ct_ipf_purge_port(struct ct_ipf *ipf, uint16_t in_port);

/* Fragments waiting on the drain list (a cheap read: PMDs poll it). */
uint32_t ct_ipf_n_draining(const struct ct_ipf *ipf);
/* Takes up to max fragments off the drain list, all expired or all
 * purged (*purged says which), for the caller (a PMD) to drop and count.
 * Returns how many. */
uint16_t ct_ipf_drain(struct ct_ipf *ipf, struct rte_mbuf **pkts,
		      uint16_t max, bool *purged);

#endif
