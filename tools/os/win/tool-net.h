/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The rfm tool's sockets on Windows (rfm serve): winsock, under the POSIX
 * names the serve code uses (libmicrohttpd starts winsock itself).
 */
#ifndef RFM_TOOLS_NET_H
#define RFM_TOOLS_NET_H

#include <winsock2.h>
#include <ws2tcpip.h>

#ifndef SHUT_RDWR
#define SHUT_RDWR SD_BOTH
#endif

#endif /* RFM_TOOLS_NET_H */
