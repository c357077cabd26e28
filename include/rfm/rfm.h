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
 *   every constructor names its destructor (`rfm_open`/`rfm_close`), and
 *   a destructor takes NULL as a no-op. Objects made on a node (rings,
 *   consumers, variables, records) are closed before the node.
 *   Structures appear only as small versioned option/info structs whose
 *   first field the caller sets to their size.
 * - **Ownership.** Strings and pointers a function returns belong to the
 *   library or to the handle they came from (each function says until
 *   when they are valid); the caller frees only what a constructor gave
 *   it, with the function it names.
 * - **Threads.** Each group says which of its functions may run at once
 *   on one handle ("Thread safety"); a function that differs says so.
 * - **Versions.** version.h gives the headers' version at compile time;
 *   rfm_version() the library's at run time. Symbols are versioned
 *   (RFM_1.0, ...), so a program runs with any later library of the same
 *   major version.
 *
 * Every function has a manual page of its own (`man rfm_open`), and the
 * concepts have pages in section 7: librfm(7) (backends and URIs),
 * rfm-protocols(7) (the window: one writer per word, data then flag,
 * records, rings, byte order) and rfm-events(7) (what events guarantee).
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
