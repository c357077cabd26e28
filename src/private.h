/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * librfm's private entry points: exported by librfm.so in the version
 * node RFM_PRIVATE (src/librfm.map) for librfm2g, built from the same
 * sources, and for no one else. They are not librfm's ABI: they may change
 * or go in any release, which is why nothing under include/rfm/ declares
 * them and why librfm2g's package depends on librfm's exact version.
 *
 * Keep the set small: accessors that hand out what librfm2g needs, not
 * librfm's internals one by one.
 */
#ifndef RFM_PRIVATE_H
#define RFM_PRIVATE_H

#include <rfm/common.h>
#include <rfm/event.h>

/* Exported as RFM_API is, but in the version node RFM_PRIVATE (src/librfm.map). */
#define RFM_PRIVATE_API RFM_API

struct rfm_backend_board_ops;

/*
 * The board controls of @node's card (board.h), or NULL when its backend
 * has none (shm:, dev:) or @node is NULL.
 */
RFM_PRIVATE_API const struct rfm_backend_board_ops *rfm__node_board(const rfm_node *node);

/*
 * Route @node's records that no rfm_event_callback_register() callback
 * takes to @fn, called on the handle's dispatcher thread like a callback
 * (waits then return RFM_EBUSY). Setting it (again) also calls
 * @fn(@node, NULL, @arg) once soon on that thread, so that librfm2g can
 * run what it holds there. @fn NULL removes the route, returning once no
 * call of it runs (unless called from it). 0 or an RFM_E* code.
 */
RFM_PRIVATE_API int rfm__event_route(rfm_node *node, rfm_event_callback fn, void *arg);

#endif /* RFM_PRIVATE_H */
