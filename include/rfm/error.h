/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * @file error.h
 * @brief The library's error codes and their messages.
 *
 * @defgroup errors Errors
 * @{
 * Every librfm function that can fail returns an int: zero (or a
 * non-negative count where documented) on success, one of the negative
 * ::rfm_error codes below on failure. Nothing aborts, nothing exits.
 *
 * rfm_strerror() turns a code into a fixed sentence; rfm_last_error()
 * gives the detailed message of the last failure in the calling thread,
 * naming the object involved ("shm:lab: window is 65536 bytes, not 4096").
 *
 * Each function's manual page lists, under ERRORS, the codes it returns
 * and when; the sentences below are what rfm_strerror() says of them.
 *
 * @par Thread safety
 * Both functions may be called from any thread at any time; the last
 * error is kept per thread.
 *
 * @sa librfm(7)
 */
#ifndef RFM_ERROR_H
#define RFM_ERROR_H

#include <rfm/common.h>

RFM_BEGIN_DECLS

/** Error codes. Values are stable ABI: new codes are only ever appended. */
enum rfm_error {
	RFM_OK = 0,		/**< Success. */
	RFM_EINVAL = -1,	/**< An argument is invalid (NULL, bad flag...). */
	RFM_ENOMEM = -2,	/**< Out of memory. */
	RFM_ESYS = -3,		/**< A system call failed; errno is kept. */
	RFM_EURI = -4,		/**< The URI is malformed. */
	RFM_ESCHEME = -5,	/**< The URI names an unknown backend. */
	RFM_ENOTSUP = -6,	/**< Not supported by this backend or build. */
	RFM_ENOENT = -7,	/**< No such network or device. */
	RFM_EPERM = -8,		/**< Permission denied. */
	RFM_ENODEID = -9,	/**< Node id out of range (0..255). */
	RFM_EINUSE = -10,	/**< The node id is in use by a live node. */
	RFM_EFULL = -11,	/**< No free node id on the network. */
	RFM_ESIZE = -12,	/**< Window size invalid or different from the network's. */
	RFM_ECORRUPT = -13,	/**< Shared state failed validation (bad magic, truncated...). */
	RFM_EVERSION = -14,	/**< Shared state or driver of an incompatible version. */
	RFM_ENOSPC = -15,	/**< No space left to create the network. */
	RFM_ERANGE = -16,	/**< Offset or length outside the window. */
	RFM_EALIGN = -17,	/**< Access not naturally aligned. */
	RFM_EBUSY = -18,	/**< Resource busy (e.g. nodes still attached). */
	RFM_ETIMEDOUT = -19,	/**< The wait timed out. */
	RFM_ECANCELED = -20,	/**< The wait was cancelled. */
	RFM_ECLOSED = -21,	/**< The handle or peer is closed. */
	RFM_EAGAIN = -22,	/**< Nothing available now; try again. */
	RFM_EOVERFLOW = -23,	/**< A queue overflowed; records were dropped and counted. */
	RFM_ESELF = -24,	/**< Sent to one's own node without loopback. */
	RFM_ENODE = -25,	/**< The target node is not attached. */
	RFM_EOWNER = -26,	/**< The region belongs to another writer node. */
	RFM_ELAYOUT = -27,	/**< The layout is invalid. */
	RFM_ENOTFOUND = -28,	/**< No object of that name. */
	RFM_ETORN = -29,	/**< A consistent record read failed after all retries. */
	RFM_EOVERRUN = -30,	/**< Publishing would overrun a registered consumer. */
	RFM_ELAPPED = -31,	/**< The consumer was lapped; messages were lost. */
	RFM_EIO = -32,		/**< The device or driver reported an I/O error. */
};

/**
 * @brief A fixed English sentence for an error code.
 *
 * The sentence names the kind of failure only; rfm_last_error() has the
 * details of the last one in this thread.
 * @param code A value of ::rfm_error; its sign is ignored, so both
 *        ::RFM_EINVAL and -::RFM_EINVAL name the same error.
 * @return A static string owned by the library (never freed); never NULL:
 *         "unknown error code" for a value that is no ::rfm_error.
 */
RFM_API const char *rfm_strerror(int code);

/**
 * @brief The detailed message of the last failed librfm call in this thread.
 *
 * A failing call sets it, naming the object involved and, where it helps,
 * the fix ("shm:lab: window is 65536 bytes, not 4096"). A successful call
 * leaves it as it was, and so do the "nothing yet" answers of polling
 * loops (::RFM_EAGAIN from rfm_ring_consume(), rfm_ring_peek() and
 * rfm_record_wait()), which format no message.
 * @return A thread-local string owned by the library, valid until the next
 *         failing call in this thread (copy it to keep it); "" when no call
 *         has failed in this thread yet.
 */
RFM_API const char *rfm_last_error(void);

RFM_END_DECLS

/** @} */
#endif /* RFM_ERROR_H */
