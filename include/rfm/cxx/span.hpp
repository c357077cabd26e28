// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * @file cxx/span.hpp
 * @brief rfm::Span and rfm::Duration: views of bytes and timeouts.
 *
 * Part of the C++ layer: include <rfm/rfm.hpp>, which includes every part
 * in order (each part includes the one it builds on).
 */
#ifndef RFM_CXX_SPAN_HPP
#define RFM_CXX_SPAN_HPP

#include <rfm/cxx/error.hpp>

/** @addtogroup cxx
 * @{
 */

namespace rfm {

/** @name Time and views
 * @{
 */

/** Timeouts: any std::chrono duration converts to it. */
using Duration = std::chrono::nanoseconds;
/** Wait for ever. */
inline constexpr Duration forever{-1};
/** Do not wait: only look. */
inline constexpr Duration no_wait{0};

/**
 * @brief A pointer and a count (std::span of C++20, reduced to what librfm needs).
 *
 * Does not own what it shows. Element access is unchecked, as std::span's.
 */
template <class T> class Span {
public:
	constexpr Span() noexcept = default;
	/** @p count elements from @p data. */
	constexpr Span(T *data, std::size_t count) noexcept : data_(data), size_(count) {}
	/** The first element. */
	constexpr T *data() const noexcept { return data_; }
	/** Elements. */
	constexpr std::size_t size() const noexcept { return size_; }
	/** Bytes. */
	constexpr std::size_t size_bytes() const noexcept { return size_ * sizeof(T); }
	/** No element. */
	constexpr bool empty() const noexcept { return size_ == 0; }
	/** Element @p i (unchecked). */
	constexpr T &operator[](std::size_t i) const noexcept { return data_[i]; }
	/** Iteration. */
	constexpr T *begin() const noexcept { return data_; }
	/** Iteration. */
	constexpr T *end() const noexcept { return data_ + size_; }
	/** Elements [@p offset, @p offset + @p count) (unchecked). */
	constexpr Span subspan(std::size_t offset, std::size_t count) const noexcept
	{
		return Span(data_ + offset, count);
	}
	/** A read-only view of the same elements. */
	constexpr operator Span<const T>() const noexcept { return Span<const T>(data_, size_); }

private:
	T *data_ = nullptr;
	std::size_t size_ = 0;
};

/** Bytes of the window or of a ring slot, writable. */
using Bytes = Span<std::byte>;
/** Bytes, read-only. */
using ConstBytes = Span<const std::byte>;

/** The bytes of one trivially copyable object. */
template <class T> ConstBytes as_bytes(const T &object) noexcept
{
	static_assert(std::is_trivially_copyable_v<T>, "only trivially copyable objects are bytes");
	return ConstBytes(reinterpret_cast<const std::byte *>(&object), sizeof(T));
}

/** @} */

} // namespace rfm

/** @} */
#endif /* RFM_CXX_SPAN_HPP */
