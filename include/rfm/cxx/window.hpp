// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * @file cxx/window.hpp
 * @brief rfm::Window: the mapped window with the inline accessors of access.h.
 *
 * Part of the C++ layer: include <rfm/rfm.hpp>, which includes every part
 * in order (each part includes the one it builds on).
 */
#ifndef RFM_CXX_WINDOW_HPP
#define RFM_CXX_WINDOW_HPP

#include <rfm/cxx/span.hpp>

/** @addtogroup cxx
 * @{
 */

namespace rfm {

/** @name Time and views
 * @{
 */

/**
 * @brief The mapped window (Node::window()): bytes plus the inline accessors of access.h.
 *
 * load(), store() and their acquire/release forms are the single-copy
 * atomic accessors of access.h for any 1, 2, 4 or 8-byte trivially
 * copyable type, and check nothing, as those: the offset must lie in the
 * window and be a multiple of the size. Use Node::peek() and Node::poke()
 * for checked access. Valid until the node is closed.
 */
class Window {
public:
	constexpr Window() noexcept = default;
	/** The window at @p base, @p size bytes. */
	Window(void *base, uint64_t size) noexcept : base_(base), size_(size) {}
	/** The first byte. */
	void *data() const noexcept { return base_; }
	/** Bytes. */
	uint64_t size() const noexcept { return size_; }
	/** The whole window as bytes. */
	Bytes bytes() const noexcept
	{
		return Bytes(static_cast<std::byte *>(base_), static_cast<std::size_t>(size_));
	}
	/** Whether [@p offset, @p offset + @p len) is inside the window. */
	bool contains(uint64_t offset, uint64_t len) const noexcept
	{
		return offset <= size_ && len <= size_ - offset;
	}

	/** Atomic load, no ordering. */
	template <class T> RFM_CXX_INLINE T load(uint64_t offset) const noexcept
	{
		static_assert(detail::is_word_like_v<T>, "1, 2, 4 or 8-byte trivially copyable types");
		using W = detail::WordOf<T>;
		W w = __atomic_load_n(reinterpret_cast<const W *>(static_cast<const char *>(base_) + offset),
				      __ATOMIC_RELAXED);
		return detail::bits<T>(w);
	}
	/** Atomic load; later accesses cannot move before it. */
	template <class T> RFM_CXX_INLINE T load_acquire(uint64_t offset) const noexcept
	{
		static_assert(detail::is_word_like_v<T>, "1, 2, 4 or 8-byte trivially copyable types");
		using W = detail::WordOf<T>;
		W w = __atomic_load_n(reinterpret_cast<const W *>(static_cast<const char *>(base_) + offset),
				      __ATOMIC_ACQUIRE);
		return detail::bits<T>(w);
	}
	/** Atomic store, no ordering. */
	template <class T> RFM_CXX_INLINE void store(uint64_t offset, T value) const noexcept
	{
		static_assert(detail::is_word_like_v<T>, "1, 2, 4 or 8-byte trivially copyable types");
		using W = detail::WordOf<T>;
		__atomic_store_n(reinterpret_cast<W *>(static_cast<char *>(base_) + offset),
				 detail::bits<W>(value), __ATOMIC_RELAXED);
	}
	/** Atomic store; earlier accesses cannot move after it (publish data, then this flag). */
	template <class T> RFM_CXX_INLINE void store_release(uint64_t offset, T value) const noexcept
	{
		static_assert(detail::is_word_like_v<T>, "1, 2, 4 or 8-byte trivially copyable types");
		using W = detail::WordOf<T>;
		__atomic_store_n(reinterpret_cast<W *>(static_cast<char *>(base_) + offset),
				 detail::bits<W>(value), __ATOMIC_RELEASE);
	}

private:
	void *base_ = nullptr;
	uint64_t size_ = 0;
};

/** @} */

} // namespace rfm

/** @} */
#endif /* RFM_CXX_WINDOW_HPP */
