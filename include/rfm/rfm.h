/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * @file rfm.h
 * @brief librfm: reflective-memory networks, real and emulated — the umbrella header.
 *
 * Include this one header and link with `pkg-config --cflags --libs rfm`.
 *
 * @section conventions Conventions of the whole API
 *
 * - **Errors.** Every function that can fail returns an `int`: zero, or a
 *   non-negative count where its documentation says so, on success; a
 *   negative ::rfm_error code on failure. rfm_strerror() names a code;
 *   rfm_last_error() gives the detailed message of this thread's last
 *   failure. Functions returning pointers or sizes document their failure
 *   value. Bad input always yields an error code, never a crash, abort or
 *   exit, and a failed call changes nothing.
 * - **Objects.** Handles are opaque; names read `rfm_<object>_<verb>`;
 *   every constructor names its destructor (`rfm_open`/`rfm_close`).
 *   Structures appear only as small versioned option/info structs whose
 *   first field the caller sets to their size.
 * - **Threads.** Each function documents its thread-safety.
 * - **Versions.** version.h gives the headers' version at compile time;
 *   rfm_version() the library's at run time. Symbols are versioned
 *   (RFM_1.0, ...), so a program runs with any later library of the same
 *   major version.
 */
#ifndef RFM_RFM_H
#define RFM_RFM_H

#include <rfm/version.h>
#include <rfm/common.h>
#include <rfm/error.h>
#include <rfm/node.h>
#include <rfm/memory.h>
#include <rfm/access.h>
#include <rfm/layout.h>
#include <rfm/event.h>
#include <rfm/ring.h>
#include <rfm/health.h>
#include <rfm/realtime.h>
#include <rfm/recorder.h>

#endif /* RFM_RFM_H */
