/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * RFM2g compatibility (librfm): product identification macros of the RFM2g
 * package, for programs that print them. RFM2G_PRODUCT_VERSION is the API
 * level librfm2g implements (what RFM2gDllVersion() returns).
 */
#ifndef RFM2G_VERSION_H
#define RFM2G_VERSION_H

#define RFM2G_PRODUCT_STRING "SW-RFM2G-DRV-LNX"
#define RFM2G_PRODUCT_OS "LINUX"
#define RFM2G_PRODUCT_VERSION "R09.00"

#endif /* RFM2G_VERSION_H */
