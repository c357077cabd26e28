/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The driver's errno as librfm's code and message, for dev.c and
 * dev-events.c alike: a file of its own at the bottom of dev:, so neither
 * calls the other back.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "backends/dev/dev-internal.h"

int rfm__dev_sys_error(const struct rfm_node *node, const char *what, int err)
{
	const char *name = node->uri ? node->uri : "dev:";

	switch (err) {
	case EHOSTUNREACH:
		return rfm__error(RFM_ENODE, "%s: %s: the target node is not attached", name, what);
	case ENODEV:
		return rfm__error(RFM_EIO, "%s: %s: the card was removed", name, what);
	case ENOTTY:
	case E2BIG:
		return rfm__error(RFM_EVERSION, "%s: %s: the driver does not know this request (%s)",
				  name, what, strerror(err));
	case EOPNOTSUPP:
		return rfm__error(RFM_ENOTSUP, "%s: %s: not available on this card", name, what);
	case EFAULT:
		return rfm__error(RFM_EINVAL, "%s: %s: bad buffer address", name, what);
	default:
		return rfm__error(rfm__errno_code(err), "%s: %s: %s", name, what, strerror(err));
	}
}
