// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * @file cxx/error.hpp
 * @brief Errors: rfm::Error, rfm::LayoutError, the "rfm" error category, and the
 * internal helpers every class uses (throw or set a std::error_code, the
 * move-only owner of a C handle).
 *
 * Part of the C++ layer: include <rfm/rfm.hpp>, which includes every part
 * in order (each part includes the one it builds on).
 */
#ifndef RFM_CXX_ERROR_HPP
#define RFM_CXX_ERROR_HPP

#if !defined(__cplusplus) || __cplusplus < 201703L
#error "rfm.hpp needs C++17 (-std=c++17); C programs include <rfm/rfm.h>"
#endif

#include <rfm/rfm.h>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

/** @addtogroup cxx
 * @{
 */

namespace rfm {

/** @name Errors
 * @{
 */

/** The std::error_category of ::rfm_error codes ("rfm"; messages from rfm_strerror()). */
class ErrorCategory final : public std::error_category {
public:
	/** "rfm". */
	const char *name() const noexcept override { return "rfm"; }
	/** The fixed sentence of rfm_strerror(). */
	std::string message(int code) const override { return rfm_strerror(code); }
};

/** The one instance of ErrorCategory. */
inline const std::error_category &category() noexcept
{
	static const ErrorCategory instance;
	return instance;
}

/** A std::error_code for an ::rfm_error value (0: no error). */
inline std::error_code make_error_code(int code) noexcept
{
	return std::error_code(code, category());
}

/**
 * @brief A librfm failure: the ::rfm_error code and the detailed message.
 *
 * what() reads "DETAIL: SENTENCE", e.g. "shm:lab: offset 0x1000000 + 4
 * is outside the 1048576-byte window: Offset or length outside the window".
 */
class Error : public std::system_error {
public:
	/** @param rc A negative ::rfm_error. @param detail What went wrong, in words. */
	Error(int rc, const std::string &detail)
		: std::system_error(rc, category(), detail), detail_(detail)
	{
	}
	/** The ::rfm_error value (negative). */
	int rfm_code() const noexcept { return code().value(); }
	/** The detailed message: rfm_last_error() at the failure, or this layer's own. */
	const std::string &detail() const noexcept { return detail_; }

private:
	std::string detail_;
};

/** @brief A layout with problems (::RFM_ELAYOUT): every problem, one line each. */
class LayoutError : public Error {
public:
	/** @param rc The code. @param detail The summary. @param diags The problems' texts. */
	LayoutError(int rc, const std::string &detail, std::vector<std::string> diags)
		: Error(rc, detail), diags_(std::move(diags))
	{
	}
	/** "file:line:column: message" for each problem, in source order. */
	const std::vector<std::string> &diagnostics() const noexcept { return diags_; }

private:
	std::vector<std::string> diags_;
};

/** @cond internal */
namespace detail {

#if defined(__GNUC__)
#define RFM_CXX_COLD __attribute__((noinline, cold))
#define RFM_CXX_INLINE inline __attribute__((always_inline))
#define RFM_CXX_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define RFM_CXX_COLD
#define RFM_CXX_INLINE inline
#define RFM_CXX_UNLIKELY(x) (x)
#endif

/* Out of line and cold: the hot path keeps only the test of the result. */
[[noreturn]] RFM_CXX_COLD inline void throw_error(int rc)
{
	throw Error(rc, rfm_last_error());
}

[[noreturn]] RFM_CXX_COLD inline void throw_error(int rc, const std::string &detail)
{
	throw Error(rc, detail);
}

RFM_CXX_INLINE int check(int rc)
{
	if (RFM_CXX_UNLIKELY(rc < 0))
		throw_error(rc);
	return rc;
}

/* Sets @ec from @rc (cleared on success) and tells whether it failed. */
RFM_CXX_INLINE bool failed(int rc, std::error_code &ec) noexcept
{
	if (RFM_CXX_UNLIKELY(rc < 0)) {
		ec = make_error_code(rc);
		return true;
	}
	ec.clear();
	return false;
}

/* A C handle owner: move-only, frees with Free, nothing on null. */
template <class H, void (*Free)(H *)> class Handle {
public:
	Handle() noexcept = default;
	explicit Handle(H *h) noexcept : h_(h) {}
	Handle(Handle &&o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
	Handle &operator=(Handle &&o) noexcept
	{
		if (this != &o)
			reset(std::exchange(o.h_, nullptr));
		return *this;
	}
	Handle(const Handle &) = delete;
	Handle &operator=(const Handle &) = delete;
	~Handle() { reset(); }

	void reset(H *h = nullptr) noexcept
	{
		H *old = std::exchange(h_, h);
		if (old)
			Free(old);
	}
	H *get() const noexcept { return h_; }
	H *release() noexcept { return std::exchange(h_, nullptr); }

private:
	H *h_ = nullptr;
};

/* The unsigned integer of the width of T, for T of 1, 2, 4 or 8 bytes. */
template <std::size_t N> struct Word;
template <> struct Word<1> { using type = uint8_t; };
template <> struct Word<2> { using type = uint16_t; };
template <> struct Word<4> { using type = uint32_t; };
template <> struct Word<8> { using type = uint64_t; };

template <class T> using WordOf = typename Word<sizeof(T)>::type;

template <class T> constexpr bool is_word_like_v =
	std::is_trivially_copyable_v<T> && !std::is_pointer_v<T> &&
	(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8);

template <class To, class From> RFM_CXX_INLINE To bits(const From &from) noexcept
{
	static_assert(sizeof(To) == sizeof(From), "same width");
	To to;
	std::memcpy(&to, &from, sizeof(to));
	return to;
}

} // namespace detail
/** @endcond */

/** @} */

} // namespace rfm

/** @} */
#endif /* RFM_CXX_ERROR_HPP */
