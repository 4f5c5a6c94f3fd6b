/* SPDX-License-Identifier: BSD-3-Clause
 * ovsdb/show (ovsdb_show.c): the OVSDB session's state and counters
 * (ovsdb_client.h) and, from the replica, what vxswitch configures
 * and what it would refuse, row by row. Registered always; outside OVSDB
 * mode it answers an error saying so.
 */
#ifndef VXS_OVSDB_SHOW_H
#define VXS_OVSDB_SHOW_H

void ovsdb_show_register(void);

#endif
