// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * @file cxx/ring-consumer.hpp
 * @brief rfm::RingConsumer: take by copy, peek in place, or a callback.
 *
 * Part of the C++ layer: include <rfm/rfm.hpp>, which includes every part
 * in order (each part includes the one it builds on).
 */
#ifndef RFM_CXX_RING_CONSUMER_HPP
#define RFM_CXX_RING_CONSUMER_HPP

#include <rfm/cxx/ring.hpp>

/** @addtogroup cxx
 * @{
 */

namespace rfm {

/**
 * @brief A ring's consumer: take by copy, peek in place, or a callback.
 *
 * One thread at a time. Destroy it before its node; not from its own callback.
 */
class RingConsumer {
public:
	/** No consumer. */
	RingConsumer() noexcept = default;
	/** Take over a consumer and its callable (both keep their addresses). */
	RingConsumer(RingConsumer &&) noexcept = default;
	/** Close this one, then take over @p o's. */
	RingConsumer &operator=(RingConsumer &&o) noexcept
	{
		if (this != &o) {
			close();
			h_ = std::move(o.h_);
			fn_ = std::move(o.fn_);
		}
		return *this;
	}
	~RingConsumer() { close(); }

	/** Take the next message into @p buf (min(len, cap) bytes; msg.len is the full length). */
	RFM_CXX_INLINE RingMsg consume(void *buf, std::size_t cap, Duration timeout = no_wait)
	{
		RingMsg m{};
		detail::check(rfm_ring_consume(h_.get(), buf, cap, &m, timeout.count()));
		return m;
	}
	/** Take into bytes. */
	RFM_CXX_INLINE RingMsg consume(Bytes buf, Duration timeout = no_wait)
	{
		return consume(buf.data(), buf.size(), timeout);
	}
	/** As consume(): false with @p ec set (::RFM_EAGAIN, ::RFM_ETIMEDOUT...) when nothing was taken. */
	RFM_CXX_INLINE bool consume(void *buf, std::size_t cap, RingMsg &msg, Duration timeout,
				    std::error_code &ec) noexcept
	{
		return !detail::failed(rfm_ring_consume(h_.get(), buf, cap, &msg, timeout.count()), ec);
	}
	/** Look at the next message in place; release() ends the look. */
	RingPeek peek(Duration timeout = no_wait)
	{
		const void *data = nullptr;
		RingPeek p{};
		detail::check(rfm_ring_peek(h_.get(), &data, &p.msg, timeout.count()));
		p.data = ConstBytes(static_cast<const std::byte *>(data), p.msg.len);
		return p;
	}
	/** End a peek: true, or false when the producer overwrote the slot meanwhile (::RFM_ELAPPED). */
	bool release()
	{
		int rc = rfm_ring_release(h_.get());
		if (rc == RFM_ELAPPED)
			return false;
		detail::check(rc);
		return true;
	}
	/**
	 * @brief Deliver every message to @p fn(ConstBytes data, const RingMsg &msg)
	 * on the node's dispatcher thread (rings with ::RFM_RING_F_NOTIFY).
	 */
	template <class F> void on_message(F &&fn)
	{
		using Impl = detail::CallableImpl<std::decay_t<F>, ConstBytes, const RingMsg &>;
		auto impl = std::make_unique<Impl>(std::forward<F>(fn));
		detail::check(rfm_ring_consumer_set_callback(h_.get(), trampoline, impl.get()));
		fn_ = std::move(impl);
	}
	/** Exceptions the on_message() callable let escape (caught and dropped). */
	uint64_t errors() const noexcept { return fn_ ? fn_->errors.load() : 0; }
	/** Counters: cursor, taken, lost, laps, sleeps. */
	rfm_ring_consumer_stats stats() const
	{
		rfm_ring_consumer_stats s{};
		s.struct_size = sizeof(s);
		detail::check(rfm_ring_consumer_get_stats(h_.get(), &s));
		return s;
	}
	/** The ring's shape and head. */
	rfm_ring_info info() const
	{
		rfm_ring_info i{};
		i.struct_size = sizeof(i);
		detail::check(rfm_ring_consumer_get_info(h_.get(), &i));
		return i;
	}
	/** Free the handle (waiting for a running callback), then the callable. */
	void close() noexcept
	{
		h_.reset();
		fn_.reset();
	}
	/** Open. */
	explicit operator bool() const noexcept { return h_.get() != nullptr; }
	/** The C handle. */
	rfm_ring_consumer *get() const noexcept { return h_.get(); }

private:
	friend class Node;
	using Fn = detail::CallableOf<ConstBytes, const RingMsg &>;
	explicit RingConsumer(rfm_ring_consumer *raw) noexcept : h_(raw) {}
	static void trampoline(rfm_ring_consumer *, const void *data, const rfm_ring_msg *msg,
			       void *arg) noexcept
	{
		detail::invoke<ConstBytes, const RingMsg &>(
			arg, ConstBytes(static_cast<const std::byte *>(data), msg->len), *msg);
	}

	detail::Handle<rfm_ring_consumer, rfm_ring_consumer_close> h_;
	std::unique_ptr<Fn> fn_;
};

} // namespace rfm

/** @} */
#endif /* RFM_CXX_RING_CONSUMER_HPP */
