/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * librfm's private entry points for librfm2g (private.h): what it needs of
 * a node, handed out by librfm.so so that a process has one librfm, one
 * node registry and one error state, whichever library opened the node.
 */
#include "config.h"

#include "internal.h"
#include "private.h"

RFM_PRIVATE_API const struct rfm_backend_board_ops *rfm__node_board(const rfm_node *node)
{
	return node ? node->ops->board : NULL;
}
