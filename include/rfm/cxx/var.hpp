// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * @file cxx/var.hpp
 * @brief rfm::Var<T>: a typed variable of a layout.
 *
 * Part of the C++ layer: include <rfm/rfm.hpp>, which includes every part
 * in order (each part includes the one it builds on).
 */
#ifndef RFM_CXX_VAR_HPP
#define RFM_CXX_VAR_HPP

#include <rfm/cxx/event-callback.hpp>

/** @addtogroup cxx
 * @{
 */

namespace rfm {

/** @cond internal */
namespace detail {

/* Typed access per C++ type: the rfm_type, the inline view accessors of
 * layout.h and the exported twins. Integers are chosen by width and
 * signedness, so long long and int64_t are the same. */
template <class T, class = void> struct VarTraits;

#define RFM_CXX_VAR_TRAITS(cond, ctype, name, TYPE)                                           \
	template <class T> struct VarTraits<T, std::enable_if_t<cond>> {                     \
		static constexpr int type = TYPE;                                              \
		RFM_CXX_INLINE static int get(const rfm_var_view *v, uint32_t i, T *out) noexcept \
		{                                                                              \
			if constexpr (std::is_same_v<T, ctype>) {                              \
				return rfm_view_get_##name(v, i, out);                         \
			} else { /* long long for int64_t...: no aliasing across types */      \
				ctype raw{};                                                   \
				int rc = rfm_view_get_##name(v, i, &raw);                      \
				*out = static_cast<T>(raw);                                    \
				return rc;                                                     \
			}                                                                      \
		}                                                                              \
		RFM_CXX_INLINE static int set(const rfm_var_view *v, uint32_t i, T val) noexcept  \
		{                                                                              \
			return rfm_view_set_##name(v, i, static_cast<ctype>(val));             \
		}                                                                              \
	};

template <class T> constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;
#define RFM_CXX_INT(bytes, sign) (is_int_v<T> && sizeof(T) == (bytes) && std::is_##sign##_v<T>)

RFM_CXX_VAR_TRAITS(RFM_CXX_INT(1, unsigned), uint8_t, u8, RFM_TYPE_U8)
RFM_CXX_VAR_TRAITS(RFM_CXX_INT(2, unsigned), uint16_t, u16, RFM_TYPE_U16)
RFM_CXX_VAR_TRAITS(RFM_CXX_INT(4, unsigned), uint32_t, u32, RFM_TYPE_U32)
RFM_CXX_VAR_TRAITS(RFM_CXX_INT(8, unsigned), uint64_t, u64, RFM_TYPE_U64)
RFM_CXX_VAR_TRAITS(RFM_CXX_INT(1, signed), int8_t, i8, RFM_TYPE_I8)
RFM_CXX_VAR_TRAITS(RFM_CXX_INT(2, signed), int16_t, i16, RFM_TYPE_I16)
RFM_CXX_VAR_TRAITS(RFM_CXX_INT(4, signed), int32_t, i32, RFM_TYPE_I32)
RFM_CXX_VAR_TRAITS(RFM_CXX_INT(8, signed), int64_t, i64, RFM_TYPE_I64)
RFM_CXX_VAR_TRAITS((std::is_same_v<T, float>), float, f32, RFM_TYPE_F32)
RFM_CXX_VAR_TRAITS((std::is_same_v<T, double>), double, f64, RFM_TYPE_F64)
#undef RFM_CXX_INT
#undef RFM_CXX_VAR_TRAITS

/* bool has no inline view accessor: the exported functions. */
template <> struct VarTraits<bool> {
	static constexpr int type = RFM_TYPE_BOOL;
	static int get(const rfm_var_view *v, uint32_t i, bool *out) noexcept
	{
		return rfm_var_get_bool(v->var, i, out);
	}
	static int set(const rfm_var_view *v, uint32_t i, bool val) noexcept
	{
		return rfm_var_set_bool(v->var, i, val);
	}
};

template <class T, class = void> struct has_var_traits : std::false_type {};
template <class T>
struct has_var_traits<T, std::void_t<decltype(VarTraits<T>::type)>> : std::true_type {};

/* Opens @name and checks that its type is T's: rc, with @message set on a
 * type mismatch (the C library would refuse only at the first access). */
template <class T>
inline int open_var(rfm_var *raw, rfm_var_view *view, std::string *message) noexcept
{
	rfm_var_info info{};
	info.struct_size = sizeof(info);
	int rc = rfm_var_get_info(raw, &info);
	if (rc < 0)
		return rc;
	if (info.type != VarTraits<T>::type) {
		if (message) {
			try {
				*message = std::string(rfm_var_name(raw)) + " is a " +
					   rfm_type_name(info.type) + " variable, not " +
					   rfm_type_name(VarTraits<T>::type);
			} catch (...) {
			}
		}
		return RFM_EINVAL;
	}
	*view = rfm_var_view{};
	view->struct_size = sizeof(*view);
	return rfm_var_get_view(raw, view);
}

} // namespace detail
/** @endcond */

/**
 * @brief A typed variable of a layout on a node: `node.var<float>("sim.state.speed")`.
 *
 * T is the C++ type of the variable's ::rfm_type: uint8_t..uint64_t,
 * int8_t..int64_t, float, double or bool; opening a variable of another
 * type fails (::RFM_EINVAL). get() and set() take the inline fast path of
 * layout.h (one load or store, with byte swapping for big-endian
 * variables) and fall back to the checked C functions for the rest
 * (records, limits, ownership, errors), with the same results.
 * Destroy it before its node (and before its record for Record::var()).
 */
template <class T> class Var {
	static_assert(detail::has_var_traits<T>::value,
		      "rfm::Var<T>: T is an integer of 8..64 bits, float, double or bool");
	using Traits = detail::VarTraits<T>;

public:
	/** No variable. */
	Var() noexcept = default;
	/** Take over @p o's handle; @p o is left closed. */
	Var(Var &&o) noexcept : h_(std::move(o.h_)), view_(std::exchange(o.view_, rfm_var_view{})) {}
	/** Close this one, then take over @p o's handle. */
	Var &operator=(Var &&o) noexcept
	{
		if (this != &o) {
			h_ = std::move(o.h_);
			view_ = std::exchange(o.view_, rfm_var_view{});
		}
		return *this;
	}

/* v is written whenever the call succeeds, and not read when it fails;
 * zeroing it first would cost a store per get. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
	/** Element @p index (0 for a scalar). Throws rfm::Error (::RFM_ERANGE, ::RFM_ETORN...). */
	RFM_CXX_INLINE T get(uint32_t index = 0) const
	{
		T v;
		detail::check(Traits::get(&view_, index, &v));
		return v;
	}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
	/** As get(); on failure sets @p ec and returns T{}. */
	RFM_CXX_INLINE T get(uint32_t index, std::error_code &ec) const noexcept
	{
		T v{};
		if (detail::failed(Traits::get(&view_, index, &v), ec))
			return T{};
		return v;
	}
	/** Set the scalar (element 0). Throws (::RFM_ERANGE, ::RFM_EOWNER...). */
	RFM_CXX_INLINE void set(T value) { detail::check(Traits::set(&view_, 0, value)); }
	/** Set element @p index. */
	RFM_CXX_INLINE void set(uint32_t index, T value)
	{
		detail::check(Traits::set(&view_, index, value));
	}
	/** As set(); on failure sets @p ec and writes nothing. */
	RFM_CXX_INLINE void set(uint32_t index, T value, std::error_code &ec) noexcept
	{
		detail::failed(Traits::set(&view_, index, value), ec);
	}
	/** Elements covered by the handle. */
	uint32_t size() const noexcept { return view_.count; }
	/** The name as resolved ("sim.pos[2]"). */
	const char *name() const noexcept { return rfm_var_name(h_.get()); }
	/** Facts about the variable (offset, unit, limits...). */
	rfm_var_info info() const
	{
		rfm_var_info i{};
		i.struct_size = sizeof(i);
		detail::check(rfm_var_get_info(h_.get(), &i));
		return i;
	}
	/** Enforce (default) or relax the one-writer check for this handle. */
	void set_owner_check(bool enforce)
	{
		detail::check(rfm_var_set_owner_check(h_.get(), enforce));
		detail::check(rfm_var_get_view(h_.get(), &view_)); /* the view is a snapshot */
	}
	/** Free the handle now (a second call does nothing). */
	void close() noexcept
	{
		h_.reset();
		view_ = rfm_var_view{};
	}
	/** Open (not closed). */
	explicit operator bool() const noexcept { return h_.get() != nullptr; }
	/** The C handle (get() is the value here). */
	rfm_var *handle() const noexcept { return h_.get(); }

private:
	friend class Node;
	friend class Record;

	/* Takes ownership of @raw, whatever happens. */
	static Var adopt(rfm_var *raw)
	{
		Var v;
		v.h_.reset(raw);
		std::string message;
		int rc = detail::open_var<T>(raw, &v.view_, &message);
		if (rc < 0)
			message.empty() ? detail::throw_error(rc) : detail::throw_error(rc, message);
		return v;
	}
	static Var adopt(rfm_var *raw, std::error_code &ec) noexcept
	{
		Var v;
		v.h_.reset(raw);
		if (detail::failed(detail::open_var<T>(raw, &v.view_, nullptr), ec))
			v.close();
		return v;
	}

	detail::Handle<rfm_var, rfm_var_close> h_;
	rfm_var_view view_{};
};

} // namespace rfm

/** @} */
#endif /* RFM_CXX_VAR_HPP */
