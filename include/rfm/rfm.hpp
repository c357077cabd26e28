// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * @file rfm.hpp
 * @brief librfm for C++17: owners, exceptions or error codes, views, typed variables.
 *
 * @defgroup cxx C++ layer
 * @{
 * A header-only layer over the C API of rfm.h. It adds no library: build
 * with `pkg-config --cflags --libs rfm` and `-std=c++17` (or later).
 *
 * @code
 *   #include <rfm/rfm.hpp>
 *
 *   rfm::Node node("shm:lab?node=0&size=1M");       // rfm_close() in ~Node
 *   rfm::Layout layout = rfm::Layout::load_file("sim.yaml");
 *   node.use_layout(layout);
 *   rfm::Var<float> speed = node.var<float>("sim.state.speed");
 *   speed.set(12.5f);                                 // inline store when plain
 * @endcode
 *
 * **Owners.** rfm::Node, rfm::Layout, rfm::Var, rfm::Record, rfm::Ring,
 * rfm::RingConsumer and rfm::EventCallback each own one C handle: they are
 * move-only, free it in their destructor, and close() frees it early (a
 * second close, or the destructor after it, does nothing). get() gives
 * the C handle for calls this layer does not wrap (Var: handle(), as its
 * get() is the value); Node::release() gives it up.
 *
 * **Order of destruction.** The C rules hold: a variable, record, ring,
 * consumer or callback must be destroyed before the node it was opened
 * on, and a record's variables (Record::var()) before the record. Declare
 * the node first and the objects made from it after: C++ destroys them
 * in reverse order, which is the right one. A Layout may go at any time
 * (handles keep the C layout alive), except that Node::use_layout()
 * borrows it until the node is closed or given another layout.
 *
 * **Errors.** Every call that can fail exists twice: one throws
 * rfm::Error (a std::system_error whose code() is in rfm::category(),
 * with the ::rfm_error value and the rfm_last_error() text), one takes a
 * `std::error_code &` last, is `noexcept`, sets it (cleared on success)
 * and returns a neutral value on failure — for real-time code built
 * without exceptions. Nothing here allocates on the success path of a
 * get, set, peek, poke, publish or take.
 *
 * **Cost.** Everything is inline. A typed get or set goes through the C
 * inline view accessors (layout.h), a publish straight to the C call; the
 * only addition is a test of the result whose failure branch is out of
 * line. `make bench` prints both side by side (bench/bench-cxx.cc).
 *
 * **Callbacks** (Node::on_event(), RingConsumer::on_message()) take any
 * callable. event.h's rules apply: the callable runs on the handle's
 * dispatcher thread, one call at a time, while the owner object is
 * alive; it may call anything in librfm, and may close() its own
 * EventCallback (the callable is then freed after it returns). Destroying
 * the owner from another thread waits for a running call to finish, and
 * it is not called again. An exception cannot cross the C dispatcher:
 * it is caught, counted (errors()), and the dispatcher goes on.
 * A RingConsumer must not be closed from its own callback.
 *
 * Thread-safety is that of the C handle each object owns.
 */
#ifndef RFM_RFM_HPP
#define RFM_RFM_HPP

/* One header per class, in the order they build on each other. */
#include <rfm/cxx/error.hpp>
#include <rfm/cxx/span.hpp>
#include <rfm/cxx/window.hpp>
#include <rfm/cxx/event-callback.hpp>
#include <rfm/cxx/var.hpp>
#include <rfm/cxx/layout.hpp>
#include <rfm/cxx/record.hpp>
#include <rfm/cxx/ring.hpp>
#include <rfm/cxx/ring-consumer.hpp>
#include <rfm/cxx/node.hpp>
#include <rfm/cxx/recorder.hpp>

#undef RFM_CXX_UNLIKELY
#undef RFM_CXX_COLD
#undef RFM_CXX_INLINE

/** @} */
#endif /* RFM_RFM_HPP */
