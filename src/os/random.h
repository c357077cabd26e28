/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Random bytes from the OS (the OS layer; docs/architecture.md, "The OS layer"). */
#ifndef RFM_OS_RANDOM_H
#define RFM_OS_RANDOM_H

#include <stddef.h>

/*
 * Fill @buf with @len bytes from the OS's cryptographic generator
 * (getrandom(), BCryptGenRandom()), unguessable by another process.
 * 0, or -errno when the OS has none to give.
 */
int rfm__os_random(void *buf, size_t len);

#endif /* RFM_OS_RANDOM_H */
