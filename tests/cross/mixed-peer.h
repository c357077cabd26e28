/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The mixed-host peer (tests/cross/mixed-peer.c): what its two files share.
 * mixed-layout.c holds the typed part: a layout with a region per node of
 * every number type in both byte orders, a string, arrays and two records
 * (one of each order), the values a node sets there, and the checks the
 * other node makes, through the API and on the bytes of the window.
 */
#ifndef MIXED_PEER_H
#define MIXED_PEER_H

#include <stdint.h>

#include <rfm/rfm.h>

/* The typed part of one side: the layout and this node's handles. */
struct mixed_typed;

/* Load the layout of nodes @me and @peer and open both nodes' variables
 * and records on @n. NULL (and a message on stderr) on failure. */
struct mixed_typed *mixed_typed_open(rfm_node *n, uint32_t me, uint32_t peer);
void mixed_typed_close(struct mixed_typed *t);

/* Set every variable of this node's region to its value. 0 or -1. */
int mixed_typed_set(struct mixed_typed *t);

/* Check every variable of the peer's region: through the typed getters and
 * as bytes in the window, in the variable's byte order. 0 or -1. */
int mixed_typed_check(struct mixed_typed *t);

/* Publish this node's records with counter @k (both byte orders). 0 or -1. */
int mixed_records_publish(struct mixed_typed *t, uint32_t k);

/* Read the peer's records once: each snapshot must be consistent (every
 * field derived from one counter), typed and as bytes. Sets *@k to the
 * counter of the little-endian record (the big-endian one must carry the
 * same or a later one). 0 or -1. */
int mixed_records_check(struct mixed_typed *t, uint32_t *k);

#endif /* MIXED_PEER_H */
