// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * @file cxx/ring.hpp
 * @brief rfm::Ring (a producer) and rfm::RingPeek.
 *
 * Part of the C++ layer: include <rfm/rfm.hpp>, which includes every part
 * in order (each part includes the one it builds on).
 */
#ifndef RFM_CXX_RING_HPP
#define RFM_CXX_RING_HPP

#include <rfm/cxx/record.hpp>

/** @addtogroup cxx
 * @{
 */

namespace rfm {

/**
 * @brief A ring's producer (ring.h): publish by copy, or claim a slot and commit.
 *
 * One thread at a time. Destroy it before its node; the ring stays in the window.
 */
class Ring {
public:
	Ring() noexcept = default;

	/** Publish @p len bytes as the next message (back-pressure: waits up to @p timeout). */
	RFM_CXX_INLINE void publish(const void *buf, std::size_t len, Duration timeout = no_wait)
	{
		detail::check(rfm_ring_publish(h_.get(), buf, len, timeout.count()));
	}
	/** Publish bytes. */
	RFM_CXX_INLINE void publish(ConstBytes data, Duration timeout = no_wait)
	{
		publish(data.data(), data.size(), timeout);
	}
	/** As publish(); on failure (::RFM_EOVERRUN...) sets @p ec and publishes nothing. */
	RFM_CXX_INLINE void publish(const void *buf, std::size_t len, Duration timeout,
				    std::error_code &ec) noexcept
	{
		detail::failed(rfm_ring_publish(h_.get(), buf, len, timeout.count()), ec);
	}
	/** The next slot to write in place (slot_size bytes); commit() ends it. */
	Bytes claim(Duration timeout = no_wait)
	{
		void *slot = nullptr;
		detail::check(rfm_ring_claim(h_.get(), &slot, timeout.count()));
		return Bytes(static_cast<std::byte *>(slot), slot_size_);
	}
	/** As claim(): an empty span with @p ec set (::RFM_EOVERRUN...) on failure. */
	Bytes claim(Duration timeout, std::error_code &ec) noexcept
	{
		void *slot = nullptr;
		if (detail::failed(rfm_ring_claim(h_.get(), &slot, timeout.count()), ec))
			return Bytes();
		return Bytes(static_cast<std::byte *>(slot), slot_size_);
	}
	/** Commit the claimed slot as a message of @p len bytes. */
	void commit(std::size_t len) { detail::check(rfm_ring_commit(h_.get(), len)); }
	/** As commit(), without exceptions. */
	void commit(std::size_t len, std::error_code &ec) noexcept
	{
		detail::failed(rfm_ring_commit(h_.get(), len), ec);
	}
	/** Facts: shape, producer, head. */
	rfm_ring_info info() const
	{
		rfm_ring_info i{};
		i.struct_size = sizeof(i);
		detail::check(rfm_ring_get_info(h_.get(), &i));
		return i;
	}
	/** Free the handle now (a second call does nothing). */
	void close() noexcept { h_.reset(); }
	/** Open. */
	explicit operator bool() const noexcept { return h_.get() != nullptr; }
	/** The C handle. */
	rfm_ring *get() const noexcept { return h_.get(); }

private:
	friend class Node;
	explicit Ring(rfm_ring *raw) : h_(raw) { slot_size_ = info().slot_size; }
	Ring(rfm_ring *raw, std::error_code &ec) noexcept : h_(raw)
	{
		rfm_ring_info i{};
		i.struct_size = sizeof(i);
		if (detail::failed(rfm_ring_get_info(raw, &i), ec))
			h_.reset();
		slot_size_ = i.slot_size;
	}
	detail::Handle<rfm_ring, rfm_ring_close> h_;
	std::size_t slot_size_ = 0;
};

/** A message looked at in place (RingConsumer::peek()): valid until release(). */
struct RingPeek {
	ConstBytes data; /**< The payload, in the window. */
	RingMsg msg;     /**< seq, lost, len. */
};

} // namespace rfm

/** @} */
#endif /* RFM_CXX_RING_HPP */
