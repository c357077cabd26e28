/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFM2g compatibility (librfm): register map of the 5565 boards, for
 * RFM2gReadReg()/RFM2gWriteReg() and mapped register sets. Offsets and bit
 * values are the documented hardware facts; the macro names are librfm's
 * (programs that spell registers differently use the numbers).
 */
#ifndef __RFM2G_REGS_H
#define __RFM2G_REGS_H

#define DEVICE_ID_PCI5565 0x5565

/* BAR0: PLX bridge local configuration, runtime and DMA registers. */
#define rfmor_bigend 0x0C	/* byte-order control */
#define rfmor_lbrd0 0x18
#define rfmor_intcsr 0x68
#define rfmor_cntrl 0x6C
#define rfmor_revision 0x74
#define rfmor_dma0mode 0x80
#define rfmor_dma0pciaddr 0x84
#define rfmor_dma0locaddr 0x88
#define rfmor_dma0count 0x8C
#define rfmor_dma0desc 0x90
#define rfmor_dma0csr 0xA8
#define rfmor_dma1csr 0xA9
#define rfmor_dmaarb 0xAC
#define rfmor_dmathresh 0xB0
#define rfmor_dmadac0 0xB4
#define rfmor_las1rr 0xF0	/* sliding-window range */
#define rfmor_las1ba 0xF4	/* sliding-window base, bit 0 = enable */

#define RFMOR_BIGEND_PIO (1u << 5)	/* direct slave space 1 (BAR3) */
#define RFMOR_BIGEND_DMA0 (1u << 7)
#define RFMOR_INTCSR_PCI_INT_ENABLE (1u << 8)
#define RFMOR_INTCSR_LOCAL_INT_ENABLE (1u << 11)
#define RFMOR_INTCSR_LOCAL_INT_ACTIVE (1u << 15)
#define RFMOR_INTCSR_DMA0_INT_ENABLE (1u << 18)
#define RFMOR_INTCSR_DMA1_INT_ENABLE (1u << 19)
#define RFMOR_INTCSR_DMA0_INT_ACTIVE (1u << 21)
#define RFMOR_INTCSR_DMA1_INT_ACTIVE (1u << 22)
#define RFMOR_DMACSR_ENABLE (1u << 0)
#define RFMOR_DMACSR_START (1u << 1)
#define RFMOR_DMACSR_CLEAR_INT (1u << 3)
#define RFMOR_LAS1BA_ENABLE 0x1u
#define RFM2GOR_CNTRL_READ_MULTIPLE 0xC	/* PCI Memory Read Multiple */

/* BAR2: RFM control and status registers. */
#define rfm2g_brv 0x00		/* u8 board revision */
#define rfm2g_bid 0x01		/* u8 board id */
#define rfm2g_build_id 0x02	/* u16 */
#define rfm2g_nid 0x04		/* u8 node id */
#define rfm2g_lcsr 0x08
#define rfm2g_lisr 0x10
#define rfm2g_lier 0x14
#define rfm2g_ntd 0x18		/* u32 data to send */
#define rfm2g_ntn 0x1C		/* u8 target node */
#define rfm2g_nic 0x1D		/* u8 command */
#define rfm2g_isd1 0x20
#define rfm2g_sid1 0x24
#define rfm2g_isd2 0x28
#define rfm2g_sid2 0x2C
#define rfm2g_isd3 0x30
#define rfm2g_sid3 0x34
#define rfm2g_initd 0x38
#define rfm2g_initn 0x3C

#define RFM2G_REGSIZE 0x40
#define RFM2G_IOREGSIZE 0x40
#define RFM2G_BID_5565 0x65

/* Local control and status register. */
#define RFM2G_LCSR_LED (1u << 31)
#define RFM2G_LCSR_TXDIS (1u << 30)
#define RFM2G_LCSR_DARK_ON_DARK (1u << 29)
#define RFM2G_LCSR_LOOPBACK (1u << 28)
#define RFM2G_LCSR_PARITY (1u << 27)
#define RFM2G_LCSR_REDUNDANT (1u << 26)
#define RFM2G_LCSR_ROGUE_MASTER1 (1u << 25)
#define RFM2G_LCSR_ROGUE_MASTER0 (1u << 24)
#define RFM2G_LCSR_MEMSIZE_MASK (3u << 20)
#define RFM2G_LCSR_MEMSIZE_SHIFT 20
#define RFM2G_LCSR_OFF1 (1u << 17)
#define RFM2G_LCSR_OFF0 (1u << 16)
#define RFM2G_LCSR_RXFULL (1u << 5)
#define RFM2G_LCSR_SYNC_LOST (1u << 3)
#define RFM2G_LCSR_SIGNAL_DETECT (1u << 2)
#define RFM2G_LCSR_BAD_DATA (1u << 1)
#define RFM2G_LCSR_OWN_DATA (1u << 0)

/* Local interrupt status register; the enable register uses the same bits. */
#define RFM2G_LISR_AUTO_CLEAR (1u << 15)
#define RFM2G_LISR_GLOBAL_ENABLE (1u << 14)
#define RFM2G_LISR_PARITY_ERR (1u << 13)
#define RFM2G_LISR_WRITE_INHIBITED (1u << 12)
#define RFM2G_LISR_SYNC_LOST (1u << 11)
#define RFM2G_LISR_RXFIFO_FULL (1u << 10)
#define RFM2G_LISR_RXFIFO_AFULL (1u << 9)
#define RFM2G_LISR_BAD_DATA (1u << 8)
#define RFM2G_LISR_INIT_INT (1u << 7)
#define RFM2G_LISR_ROGUE_PKT (1u << 6)
#define RFM2G_LISR_RESET_REQ (1u << 3)
#define RFM2G_LISR_INT3 (1u << 2)
#define RFM2G_LISR_INT2 (1u << 1)
#define RFM2G_LISR_INT1 (1u << 0)
#define RFM2G_LISR_DISABLE 0xFFFF03F3u

#define RFM2G_LIER_PARITY_ERR RFM2G_LISR_PARITY_ERR
#define RFM2G_LIER_WRITE_INHIBITED RFM2G_LISR_WRITE_INHIBITED
#define RFM2G_LIER_SYNC_LOST RFM2G_LISR_SYNC_LOST
#define RFM2G_LIER_RXFIFO_FULL RFM2G_LISR_RXFIFO_FULL
#define RFM2G_LIER_RXFIFO_AFULL RFM2G_LISR_RXFIFO_AFULL
#define RFM2G_LIER_BAD_DATA RFM2G_LISR_BAD_DATA
#define RFM2G_LIER_INIT_INT RFM2G_LISR_INIT_INT
#define RFM2G_LIER_ROGUE_PKT RFM2G_LISR_ROGUE_PKT
#define RFM2G_LIER_RESET_REQ RFM2G_LISR_RESET_REQ
#define RFM2G_LIER_INT3 RFM2G_LISR_INT3
#define RFM2G_LIER_INT2 RFM2G_LISR_INT2
#define RFM2G_LIER_INT1 RFM2G_LISR_INT1

/* Network interrupt command register values. */
#define RFM2G_NIC_RESET 0x00
#define RFM2G_NIC_INT1 0x01
#define RFM2G_NIC_INT2 0x02
#define RFM2G_NIC_INT3 0x03
#define RFM2G_NIC_OWN_DATA 0x04
#define RFM2G_NIC_INIT 0x07
#define RFM2G_NIC_GLOBAL 0x08

#endif /* __RFM2G_REGS_H */
