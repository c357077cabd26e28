/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Error codes, their sentences, and the per-thread detailed message. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

static const char *const messages[] = {
	[0] = "success",
	[-RFM_EINVAL] = "invalid argument",
	[-RFM_ENOMEM] = "out of memory",
	[-RFM_ESYS] = "system call failed",
	[-RFM_EURI] = "malformed URI",
	[-RFM_ESCHEME] = "unknown URI scheme",
	[-RFM_ENOTSUP] = "operation not supported by this backend",
	[-RFM_ENOENT] = "no such network or device",
	[-RFM_EPERM] = "permission denied",
	[-RFM_ENODEID] = "node id out of range",
	[-RFM_EINUSE] = "node id in use",
	[-RFM_EFULL] = "no free node id",
	[-RFM_ESIZE] = "invalid or mismatched window size",
	[-RFM_ECORRUPT] = "shared state is corrupt",
	[-RFM_EVERSION] = "incompatible version",
	[-RFM_ENOSPC] = "no space left for the network",
	[-RFM_ERANGE] = "offset or length outside the window",
	[-RFM_EALIGN] = "misaligned access",
	[-RFM_EBUSY] = "resource busy",
	[-RFM_ETIMEDOUT] = "timed out",
	[-RFM_ECANCELED] = "wait cancelled",
	[-RFM_ECLOSED] = "handle or peer closed",
	[-RFM_EAGAIN] = "nothing available, try again",
	[-RFM_EOVERFLOW] = "queue overflow, records dropped",
	[-RFM_ESELF] = "target is this node and loopback is off",
	[-RFM_ENODE] = "target node not attached",
	[-RFM_EOWNER] = "region owned by another node",
	[-RFM_ELAYOUT] = "invalid layout",
	[-RFM_ENOTFOUND] = "no such name",
	[-RFM_ETORN] = "record kept changing during read",
	[-RFM_EOVERRUN] = "would overrun a consumer",
	[-RFM_ELAPPED] = "consumer was lapped, messages lost",
	[-RFM_EIO] = "device I/O error",
};

RFM_API const char *rfm_strerror(int code)
{
	/* Negate in unsigned arithmetic: -INT_MIN overflows an int. */
	unsigned int index = code < 0 ? 0u - (unsigned int)code : (unsigned int)code;

	if (index < RFM_ARRAY_SIZE(messages) && messages[index])
		return messages[index];
	return "unknown error code";
}

static _Thread_local char last_error[512];

RFM_API const char *rfm_last_error(void)
{
	return last_error;
}

int rfm__verror(int code, const char *fmt, va_list ap)
{
	int saved_errno = errno; /* callers may still want errno (RFM_ESYS) */

	/*
	 * Format aside, then copy: callers may wrap the previous message
	 * ("...: %s", rfm_last_error()), which lives in the same buffer.
	 */
	char message[sizeof(last_error)];

	vsnprintf(message, sizeof(message), fmt, ap);
	memcpy(last_error, message, sizeof(last_error));
	errno = saved_errno;
	return code;
}

int rfm__error(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	code = rfm__verror(code, fmt, ap);
	va_end(ap);
	return code;
}

int rfm__errno_code(int err)
{
	switch (err) {
	case ENOMEM:
		return RFM_ENOMEM;
	case ENOENT:
		return RFM_ENOENT;
	case EACCES:
	case EPERM:
		return RFM_EPERM;
	case ENOSPC:
#ifdef EDQUOT /* not every C library has disk quotas */
	case EDQUOT:
#endif
	case EFBIG:
		return RFM_ENOSPC;
	case EINVAL:
	case EISDIR: /* a directory where a file is wanted */
		return RFM_EINVAL;
	case EBUSY:
		return RFM_EBUSY;
	case ETIMEDOUT:
		return RFM_ETIMEDOUT;
	case EIO:
		return RFM_EIO;
	case ENOTSUP:
		return RFM_ENOTSUP;
	default:
		return RFM_ESYS;
	}
}
