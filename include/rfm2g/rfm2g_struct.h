/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFM2g compatibility (librfm): the constants of the vendor driver's
 * rfm2g_struct.h that programs use (device count, vendor id, the DMA
 * event number, queue and threshold limits). The driver's kernel
 * structures in GE's header are the driver's own business and are not
 * here: no program can use them from user space.
 */
#ifndef RFM2G_STRUCT_H
#define RFM2G_STRUCT_H

#include "rfm2g_defs.h"

/* Boards the vendor driver handles (/dev/rfm2g0..4). */
#define MAX_RFM2G_DEVICES 5
#define PCI_VENDOR_ID_VMIC 0x114a
/* The driver's DMA-complete queue: the event number after the last one. */
#define RFM2GEVENT_DMADONE RFM2GEVENT_LAST
#ifndef INFINITE_TIMEOUT
#define INFINITE_TIMEOUT ((unsigned int) 0xFFFFFFFF)
#endif
#define LINUX_RFM2G_NUM_OF_EVENTS (RFM2GEVENT_LAST + 1)
/* The vendor driver queues one record per event type (librfm2g: 1024). */
#define MAX_QUEUE_SIZE 1
#define RFM2G_DMA_THRESHOLD_MAX 0xFFFFFFFFu
/* Characters of "rfm2g" in device names. */
#define DEVNAME_SIZE 5

#endif /* RFM2G_STRUCT_H */
