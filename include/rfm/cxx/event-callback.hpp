// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * @file cxx/event-callback.hpp
 * @brief rfm::EventCallback, rfm::Event, rfm::RingMsg and the callables behind C
 * callbacks.
 *
 * Part of the C++ layer: include <rfm/rfm.hpp>, which includes every part
 * in order (each part includes the one it builds on).
 */
#ifndef RFM_CXX_EVENT_CALLBACK_HPP
#define RFM_CXX_EVENT_CALLBACK_HPP

#include <rfm/cxx/window.hpp>

/** @addtogroup cxx
 * @{
 */

namespace rfm {

/** A received event (event.h): type, sender, data, flags, seq, sent_ns. */
using Event = rfm_event;
/** What a ring take returns beside the payload: seq, lost, len. */
using RingMsg = rfm_ring_msg;

class Node;
class Layout;
class Record;
template <class T> class Var;

/** @cond internal */
namespace detail {

/* A callable behind the C callback's void *arg. Heap-held, so it keeps
 * its address when the owner moves. */
struct CallableBase {
	virtual ~CallableBase() = default;
	std::atomic<uint64_t> errors{0};
	bool orphaned = false; /* closed from inside its own call: freed after it */
};

/* The callable running on this thread, so close() from inside it can
 * defer the delete until the call has returned. */
inline CallableBase *&running_callable() noexcept
{
	static thread_local CallableBase *current = nullptr;
	return current;
}

template <class... Args> struct CallableOf : CallableBase {
	virtual void call(Args... args) = 0;
};

template <class F, class... Args> struct CallableImpl final : CallableOf<Args...> {
	explicit CallableImpl(F f) : fn(std::move(f)) {}
	void call(Args... args) override { fn(args...); }
	F fn;
};

/* Runs one call: sets the "running" mark, counts an escaping exception,
 * and frees a callable that closed itself. */
template <class... Args> inline void invoke(void *arg, Args... args) noexcept
{
	auto *c = static_cast<CallableOf<Args...> *>(arg);
	CallableBase *outer = std::exchange(running_callable(), c);
	try {
		c->call(args...);
	} catch (...) {
		c->errors.fetch_add(1, std::memory_order_relaxed);
	}
	running_callable() = outer;
	if (c->orphaned)
		delete c;
}

} // namespace detail
/** @endcond */

/**
 * @brief A callback registered on a node for one event type (Node::on_event()).
 *
 * Owns the registration and the callable: the destructor (or close())
 * unregisters, waiting for a running call, then frees the callable.
 * Destroy it before its Node.
 */
class EventCallback {
public:
	/** Nothing registered. */
	EventCallback() noexcept = default;
	/** Take over @p o's registration and callable; @p o is left empty. */
	EventCallback(EventCallback &&o) noexcept
		: node_(std::exchange(o.node_, nullptr)), type_(o.type_), fn_(std::move(o.fn_))
	{
	}
	/** Unregister this one, then take over @p o's. */
	EventCallback &operator=(EventCallback &&o) noexcept
	{
		if (this != &o) {
			close();
			node_ = std::exchange(o.node_, nullptr);
			type_ = o.type_;
			fn_ = std::move(o.fn_);
		}
		return *this;
	}
	EventCallback(const EventCallback &) = delete;
	EventCallback &operator=(const EventCallback &) = delete;
	~EventCallback() { close(); }

	/** Unregister and free the callable; safe inside the callable itself, and twice. */
	void close() noexcept
	{
		if (node_)
			rfm_event_callback_unregister(std::exchange(node_, nullptr), type_);
		if (fn_ && detail::running_callable() == fn_.get())
			fn_.release()->orphaned = true; /* freed when the call returns */
		fn_.reset();
	}
	/** Registered (not closed). */
	explicit operator bool() const noexcept { return node_ != nullptr; }
	/** The event type. */
	unsigned int type() const noexcept { return type_; }
	/** Exceptions the callable let escape (each was caught and dropped). */
	uint64_t errors() const noexcept { return fn_ ? fn_->errors.load() : 0; }

private:
	friend class Node;
	using Fn = detail::CallableOf<const Event &>;
	static void trampoline(rfm_node *, const rfm_event *ev, void *arg) noexcept
	{
		detail::invoke<const Event &>(arg, *ev);
	}

	rfm_node *node_ = nullptr;
	unsigned int type_ = 0;
	std::unique_ptr<Fn> fn_;
};

} // namespace rfm

/** @} */
#endif /* RFM_CXX_EVENT_CALLBACK_HPP */
