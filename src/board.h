/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Board control: what a 5565-family card offers beside memory and events
 * (its configuration, LCSR switches, registers, special mappings, DMA,
 * diagnostics). librfm's public API has no call for these; librfm2g needs
 * them for the vendor API, and reaches them here, through the node it
 * opened, so a card is opened once and driven by one descriptor.
 *
 * A backend whose device has these controls fills a board table
 * (rfm_backend_ops.board); the others leave it NULL and librfm2g keeps the
 * soft state of an emulated board itself. librfm2g gets the table with
 * rfm__node_board() (private.h), from librfm.so. Every op returns 0 or a
 * negative RFM_E* code with the message set (rfm_last_error()).
 */
#ifndef RFM_BOARD_H
#define RFM_BOARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <rfm2g/rfm2g_defs.h>	/* RFM2GCONFIG, RFM2GREGSETTYPE */

#include <rfm/common.h>

/* The on/off switches of the board (LCSR bits, byte swapping). */
enum rfm_board_flag {
	RFM__BOARD_LED,
	RFM__BOARD_DARK_ON_DARK,
	RFM__BOARD_TX_DISABLE,	/* on: the transmitter is off */
	RFM__BOARD_LOOPBACK,
	RFM__BOARD_PARITY,
	RFM__BOARD_DMA_SWAP,
	RFM__BOARD_PIO_SWAP,
	RFM__BOARD_NFLAGS
};

/* The numeric settings of the board. */
enum rfm_board_value {
	RFM__BOARD_MEMORY_OFFSET,	/* get, set */
	RFM__BOARD_DEBUG_FLAGS,		/* get, set (the driver's, global) */
	RFM__BOARD_DMA_THRESHOLD,	/* set only */
	RFM__BOARD_WINDOW_OFFSET,	/* set only: the sliding window's base */
	RFM__BOARD_NVALUES
};

/* What to do with a register. */
enum rfm_board_reg_op {
	RFM__BOARD_REG_READ,	/* *value = the register */
	RFM__BOARD_REG_WRITE,	/* the register = *value */
	RFM__BOARD_REG_SET,	/* the register |= *value */
	RFM__BOARD_REG_CLEAR,	/* the register &= ~*value */
};

struct rfm_backend_board_ops {
	/* The driver's descriptor, for the fd of the vendor's handle struct. */
	int (*descriptor)(const struct rfm_node *node);
	/* The board's configuration as its driver reports it now. */
	int (*get_config)(struct rfm_node *node, RFM2GCONFIG *cfg);
	int (*get_flag)(struct rfm_node *node, enum rfm_board_flag flag, bool *on);
	int (*set_flag)(struct rfm_node *node, enum rfm_board_flag flag, bool on);
	/* RFM_ENOTSUP for a value the direction does not have. */
	int (*get_value)(struct rfm_node *node, enum rfm_board_value what, uint32_t *value);
	int (*set_value)(struct rfm_node *node, enum rfm_board_value what, uint32_t value);
	/* Own data round the ring: 0 when it came back. */
	int (*ring_test)(struct rfm_node *node);
	/* Read and clear the own-data bit. */
	int (*clear_own_data)(struct rfm_node *node, bool *was_set);
	/* One register of @regset (RFM2GREGSETTYPE), @width 1, 2 or 4 bytes. */
	int (*reg)(struct rfm_node *node, enum rfm_board_reg_op op, unsigned int regset,
		   uint32_t offset, uint32_t width, uint32_t *value);
	/*
	 * Map @len bytes of a special region: @offset is a physical address
	 * with RFM2G_DMA_MMAP_OFFSET (a DMA buffer, which becomes the
	 * descriptor's), or RFM2G_BAR0_MMAP_OFFSET / RFM2G_BAR2_MMAP_OFFSET
	 * (a register set). The caller unmaps it with munmap(); a DMA buffer
	 * is first disarmed with unarm_dma.
	 */
	int (*map_special)(struct rfm_node *node, uint64_t offset, size_t len, void **addr);
	int (*unarm_dma)(struct rfm_node *node, void *addr);
	/* A transfer by the card's DMA engine, @buf inside a mapped DMA buffer. */
	int (*dma)(struct rfm_node *node, bool to_window, uint32_t offset, void *buf,
		   uint32_t len);
};

#endif /* RFM_BOARD_H */
