/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The rfm tool's sockets on Linux (rfm serve): the POSIX headers. */
#ifndef RFM_TOOLS_NET_H
#define RFM_TOOLS_NET_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#endif /* RFM_TOOLS_NET_H */
