/* SPDX-License-Identifier: BSD-3-Clause
 * Recirculation ids: what a ct(table=T) freezes for the recirculated
 * pass, as OVS's recirc_id nodes (ofproto-dpif-rid.c) do. A translation
 * that ends in ct(table=T) freezes the table to resume in and the
 * translation state the packet itself does not carry: the registers,
 * and the in_port (resubmit(PORT,) changes it) and tunnel fields
 * (set_tunnel and friends) when the walk changed them - unchanged, the
 * packet's own key still has them, and leaving them out keeps one state
 * for every remote VTEP's packets. The id goes into the packet's flow key
 * (recirc_id, 8 bits of w6), and the recirculated pass's translation
 * restores the state from it.
 *
 * The same frozen state gets the same id (an rte_hash over the state is
 * the index), so every megaflow of one port's pipeline shares one id.
 * Ids are counted references: a translation takes one for the id it
 * emits in recirc() and one for the id its key matches, and hands them
 * to the megaflow it installs (or gives them back); the megaflow gives
 * them back when it is freed. A PMD frees its megaflows between bursts,
 * and a recirculated packet lives within one burst, so when the last
 * reference goes no megaflow and no packet carries the id: it is freed
 * at once and can name another state.
 *
 * At most RECIRC_ID_MAX ids (the flow key's 8 bits, id 0 being the first
 * pass): one more state is refused and counted, and its packets are
 * dropped under recirc_limit. Shared by every PMD, behind one spinlock:
 * it is taken on upcalls and revalidation only, never per packet.
 */
#ifndef VXS_RECIRC_ID_H
#define VXS_RECIRC_ID_H

#include <stdbool.h>
#include <stdint.h>
#include <rte_byteorder.h>

#define RECIRC_ID_MAX 255
#define RECIRC_N_REGS 8

struct recirc_frozen {
	uint32_t regs[RECIRC_N_REGS];	/* reg0..reg7 */
	uint32_t in_port;
	uint32_t tun_id;
	rte_be32_t tun_src, tun_dst;
	uint8_t tun_ipv6_src[16], tun_ipv6_dst[16];
	uint8_t table;			/* where the recirculated pass starts */
	bool set_in_port;		/* in_port is the walk's, not the
					 * packet's (else it is 0) */
	bool set_tunnel;		/* the same for tun_id/src/dst and
					 * tun_ipv6_src/dst */
	uint8_t pad[5];			/* zero: the state is a hash key */
};

/* Creates the index (at start, so that no PMD allocates it on its first
 * upcall); -1 if out of memory. Without it the first recirc_id_get
 * creates it (unit tests). */
int recirc_id_init(void);

/* The id of state f, allocated if new, with a reference taken. 0 when
 * all RECIRC_ID_MAX ids are in use (counted as refused). */
uint8_t recirc_id_get(const struct recirc_frozen *f);

/* Takes a reference on id and copies its state to f; false if id names
 * no state (a stale packet: the caller drops it). */
bool recirc_id_ref(uint8_t id, struct recirc_frozen *f);

/* Gives a reference back; the last one frees the id. 0 is ignored. */
void recirc_id_unref(uint8_t id);

struct recirc_id_stats {
	uint32_t in_use;
	uint64_t refused;	/* recirc_id_get with every id in use */
};
void recirc_id_get_stats(struct recirc_id_stats *st);

#endif
