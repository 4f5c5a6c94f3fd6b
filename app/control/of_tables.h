/* SPDX-License-Identifier: BSD-3-Clause
 * The OpenFlow channel's table descriptions (of_tables.c), for
 * of_handlers.c's multipart dispatch.
 */
#ifndef VXS_OF_TABLES_H
#define VXS_OF_TABLES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct of_conn;

/* Answers a multipart (1.0: stats) request of len bytes, header
 * checked, if it is one of table features (1.3+) or 1.0's table stats;
 * false, nothing answered, for another type. */
bool of_tables_request(struct of_conn *c, const uint8_t *req, size_t len);

#endif
