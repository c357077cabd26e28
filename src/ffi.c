/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Exported twins of the inline accessors in <rfm/access.h>, for FFI users
 * and bindings that cannot call inline functions. Defining RFM_INLINE
 * before the header turns each inline definition into an exported one of
 * the same name, so there is one body to maintain.
 */
#include "config.h"

/* Each definition is its own declaration here: nothing is missing. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#define RFM_INLINE RFM_API
#include <rfm/common.h>
#include <rfm/access.h>
