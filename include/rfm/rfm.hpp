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

/** The C++ layer of librfm. */
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

/**
 * @brief A validated address map (layout.h), loaded from YAML or built in code.
 *
 * Immutable once finished; may be shared by threads. Handles opened with it
 * keep the C layout alive, so it may be destroyed before them.
 */
class Layout {
public:
	Layout() noexcept = default;

	/** Load a layout file. Throws rfm::LayoutError (with every problem) or rfm::Error. */
	static Layout load_file(const std::string &path)
	{
		rfm_layout *raw = nullptr;
		rfm_diag_list *diags = nullptr;
		int rc = rfm_layout_load_file(path.c_str(), &raw, &diags);
		return finish_load(rc, raw, diags);
	}
	/** Load from YAML text; @p source_name names it in diagnostics. */
	static Layout load_string(const std::string &text, const char *source_name = nullptr)
	{
		rfm_layout *raw = nullptr;
		rfm_diag_list *diags = nullptr;
		int rc = rfm_layout_load_string(text.data(), text.size(), source_name, &raw, &diags);
		return finish_load(rc, raw, diags);
	}
	/** As load_file(); on failure sets @p ec and returns an empty Layout. */
	static Layout load_file(const std::string &path, std::error_code &ec) noexcept
	{
		rfm_layout *raw = nullptr;
		Layout l;
		if (!detail::failed(rfm_layout_load_file(path.c_str(), &raw, nullptr), ec))
			l.h_.reset(raw);
		return l;
	}
	/** As load_string(), without exceptions. */
	static Layout load_string(const std::string &text, const char *source_name,
				  std::error_code &ec) noexcept
	{
		rfm_layout *raw = nullptr;
		Layout l;
		if (!detail::failed(rfm_layout_load_string(text.data(), text.size(), source_name,
							   &raw, nullptr),
				    ec))
			l.h_.reset(raw);
		return l;
	}

	/** Start a layout in code (rfm_layout_new()); add to it, then finish(). */
	static Layout create(const char *name, uint64_t window_size)
	{
		rfm_layout *raw = nullptr;
		detail::check(rfm_layout_new(name, window_size, &raw));
		return Layout(raw);
	}
	/** Add a region (set spec.struct_size, or use region_spec()). */
	Layout &add_region(const rfm_region_spec &spec)
	{
		detail::check(rfm_layout_add_region(h_.get(), &spec));
		return *this;
	}
	/** Add a record to region @p region. */
	Layout &add_record(const char *region, const rfm_record_spec &spec)
	{
		detail::check(rfm_layout_add_record(h_.get(), region, &spec));
		return *this;
	}
	/** Add a variable to "region" or "region.record". */
	Layout &add_var(const char *parent, const rfm_var_spec &spec)
	{
		detail::check(rfm_layout_add_var(h_.get(), parent, &spec));
		return *this;
	}
	/** Place automatic offsets and validate. Throws rfm::LayoutError. */
	Layout &finish()
	{
		rfm_diag_list *diags = nullptr;
		int rc = rfm_layout_finish(h_.get(), &diags);
		if (rc < 0)
			throw_load_error(rc, diags);
		return *this;
	}

	/** Drop this reference now (a second call does nothing). */
	void close() noexcept { h_.reset(); }
	/** Holds a layout. */
	explicit operator bool() const noexcept { return h_.get() != nullptr; }
	/** The C handle. */
	rfm_layout *get() const noexcept { return h_.get(); }

private:
	explicit Layout(rfm_layout *raw) noexcept : h_(raw) {}

	static Layout finish_load(int rc, rfm_layout *raw, rfm_diag_list *diags)
	{
		if (rc < 0)
			throw_load_error(rc, diags);
		return Layout(raw);
	}
	[[noreturn]] static void throw_load_error(int rc, rfm_diag_list *diags)
	{
		detail::Handle<rfm_diag_list, rfm_diag_list_free> owner(diags);
		std::string summary = rfm_last_error();
		if (rc != RFM_ELAYOUT)
			throw Error(rc, summary);
		std::vector<std::string> texts;
		for (size_t i = 0; i < rfm_diag_list_count(diags); i++) {
			rfm_diag d{};
			d.struct_size = sizeof(d);
			if (rfm_diag_list_get(diags, i, &d) == 0)
				texts.emplace_back(d.text);
		}
		throw LayoutError(rc, summary, std::move(texts));
	}

	detail::Handle<rfm_layout, rfm_layout_free> h_;
};

/** A region spec with its size set: name, writer, offset, size. */
inline rfm_region_spec region_spec(const char *name, uint32_t writer, uint64_t offset, uint64_t size)
{
	rfm_region_spec s{};
	s.struct_size = sizeof(s);
	s.name = name;
	s.writer = writer;
	s.offset = offset;
	s.size = size;
	return s;
}

/** A variable spec with its size set: name, ::rfm_type, count (0: scalar), offset. */
inline rfm_var_spec var_spec(const char *name, int type, uint32_t count = 0,
			     uint64_t offset = RFM_OFFSET_AUTO)
{
	rfm_var_spec s{};
	s.struct_size = sizeof(s);
	s.name = name;
	s.type = type;
	s.count = count;
	s.offset = offset;
	return s;
}

/** A record spec with its size set: name, offset, notify type (0: none). */
inline rfm_record_spec record_spec(const char *name, uint64_t offset = RFM_OFFSET_AUTO,
				   uint32_t notify = 0)
{
	rfm_record_spec s{};
	s.struct_size = sizeof(s);
	s.name = name;
	s.offset = offset;
	s.notify = notify;
	return s;
}

/**
 * @brief A record of a layout on a node: seqlock publish and consistent read.
 *
 * Not thread-safe (as the C handle). Destroy its var() handles first.
 */
class Record {
public:
	Record() noexcept = default;

	/** Data bytes. */
	std::size_t size() const noexcept { return rfm_record_size(h_.get()); }
	/** Copy a consistent snapshot into @p buf (@p len == size()); returns the retries. */
	int read(void *buf, std::size_t len, uint32_t *seq = nullptr)
	{
		return detail::check(rfm_record_read(h_.get(), buf, len, seq));
	}
	/** A consistent snapshot as a T (sizeof(T) must equal size()). */
	template <class T> T read(uint32_t *seq = nullptr)
	{
		static_assert(std::is_trivially_copyable_v<T>, "records are read into plain structs");
		T value;
		read(&value, sizeof(value), seq);
		return value;
	}
	/** As read(), without exceptions: the retries, or -1 with @p ec set. */
	int read(void *buf, std::size_t len, uint32_t *seq, std::error_code &ec) noexcept
	{
		int rc = rfm_record_read(h_.get(), buf, len, seq);
		return detail::failed(rc, ec) ? -1 : rc;
	}
	/** Publish @p len bytes (== size()) as the record's data. */
	void write(const void *buf, std::size_t len)
	{
		detail::check(rfm_record_write(h_.get(), buf, len));
	}
	/** Publish a T (sizeof(T) must equal size()). */
	template <class T> void write(const T &value)
	{
		static_assert(std::is_trivially_copyable_v<T>, "records are written from plain structs");
		write(&value, sizeof(value));
	}
	/** As write(), without exceptions. */
	void write(const void *buf, std::size_t len, std::error_code &ec) noexcept
	{
		detail::failed(rfm_record_write(h_.get(), buf, len), ec);
	}
	/** Read the record into the handle's image (for var() handles). */
	int fetch() { return detail::check(rfm_record_fetch(h_.get())); }
	/** Publish the handle's image. */
	void publish() { detail::check(rfm_record_publish(h_.get())); }
	/** The sequence word now (even when idle). */
	uint32_t sequence() const
	{
		uint32_t seq = 0;
		detail::check(rfm_record_sequence(h_.get(), &seq));
		return seq;
	}
	/** Wait for a publish after sequence @p last; returns the new sequence. */
	uint32_t wait(uint32_t last, Duration timeout)
	{
		uint32_t seq = 0;
		detail::check(rfm_record_wait(h_.get(), last, timeout.count(), &seq));
		return seq;
	}
	/** As wait(); on failure sets @p ec (::RFM_ETIMEDOUT...) and returns @p last. */
	uint32_t wait(uint32_t last, Duration timeout, std::error_code &ec) noexcept
	{
		uint32_t seq = 0;
		return detail::failed(rfm_record_wait(h_.get(), last, timeout.count(), &seq), ec) ? last
												     : seq;
	}
	/** A typed handle on the image's variable @p name ("pos", "pos[1]"). */
	template <class T> Var<T> var(const char *name)
	{
		rfm_var *raw = nullptr;
		detail::check(rfm_record_var(h_.get(), name, &raw));
		return Var<T>::adopt(raw);
	}
	/** Attempts of a consistent read (at least 1). */
	void set_max_tries(uint32_t tries) { detail::check(rfm_record_set_max_tries(h_.get(), tries)); }
	/** Enforce (default) or relax the one-writer check on publish. */
	void set_owner_check(bool enforce)
	{
		detail::check(rfm_record_set_owner_check(h_.get(), enforce));
	}
	/** Free the handle now (a second call does nothing). */
	void close() noexcept { h_.reset(); }
	/** Open. */
	explicit operator bool() const noexcept { return h_.get() != nullptr; }
	/** The C handle. */
	rfm_record *get() const noexcept { return h_.get(); }

private:
	friend class Node;
	explicit Record(rfm_record *raw) noexcept : h_(raw) {}
	detail::Handle<rfm_record, rfm_record_close> h_;
};

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

/**
 * @brief A node on a network, opened by URI (node.h): memory, events, tables, rings.
 *
 * Closed by the destructor or close(). Objects made from it (Var, Record,
 * Ring, RingConsumer, EventCallback) must be destroyed first.
 */
class Node {
public:
	/** No node (open later by move-assigning). */
	Node() noexcept = default;
	/** Open @p uri (nullptr or "": $RFM_URI, else shm:default). Throws rfm::Error. */
	explicit Node(const char *uri)
	{
		rfm_node *raw = nullptr;
		detail::check(rfm_open(uri, &raw));
		h_.reset(raw);
	}
	/** Open @p uri. */
	explicit Node(const std::string &uri) : Node(uri.c_str()) {}
	/** As Node(uri), without exceptions: an empty Node with @p ec set on failure. */
	static Node open(const char *uri, std::error_code &ec) noexcept
	{
		rfm_node *raw = nullptr;
		Node n;
		if (!detail::failed(rfm_open(uri, &raw), ec))
			n.h_.reset(raw);
		return n;
	}
	/** Take ownership of a handle from rfm_open(). */
	static Node adopt(rfm_node *raw) noexcept
	{
		Node n;
		n.h_.reset(raw);
		return n;
	}

	/** Close now (a second call does nothing). */
	void close() noexcept
	{
		h_.reset();
		layout_ = nullptr;
	}
	/** Open. */
	explicit operator bool() const noexcept { return h_.get() != nullptr; }
	/** The C handle. */
	rfm_node *get() const noexcept { return h_.get(); }
	/** Give up ownership: the caller closes it with rfm_close(). */
	rfm_node *release() noexcept { return h_.release(); }

	/** @name Facts
	 * @{ */
	/** Node id 0..255. */
	int id() const { return detail::check(rfm_node_id(h_.get())); }
	/** Window bytes. */
	uint64_t size() const noexcept { return rfm_node_size(h_.get()); }
	/** "shm", "dev", "rfm2g". */
	const char *backend() const noexcept { return rfm_node_backend(h_.get()); }
	/** Canonical URI with the node id. */
	const char *uri() const noexcept { return rfm_node_uri(h_.get()); }
	/** rfm_node_get_info(). */
	rfm_node_info info() const
	{
		rfm_node_info i{};
		i.struct_size = sizeof(i);
		detail::check(rfm_node_get_info(h_.get(), &i));
		return i;
	}
	/** @} */

	/** @name Memory
	 * @{ */
	/** The mapped window (zero copy). Throws ::RFM_ENOTSUP where the backend cannot map. */
	Window window()
	{
		void *base = nullptr;
		uint64_t size = 0;
		detail::check(rfm_mem_map(h_.get(), &base, &size));
		return Window(base, size);
	}
	/** As window(); an empty Window with @p ec set on failure. */
	Window window(std::error_code &ec) noexcept
	{
		void *base = nullptr;
		uint64_t size = 0;
		if (detail::failed(rfm_mem_map(h_.get(), &base, &size), ec))
			return Window();
		return Window(base, size);
	}
	/** Copy @p len bytes at @p offset into @p buf (::RFM_ERANGE outside the window). */
	void read(uint64_t offset, void *buf, std::size_t len)
	{
		detail::check(rfm_mem_read(h_.get(), offset, buf, len));
	}
	/** As read(), without exceptions. */
	void read(uint64_t offset, void *buf, std::size_t len, std::error_code &ec) noexcept
	{
		detail::failed(rfm_mem_read(h_.get(), offset, buf, len), ec);
	}
	/** Copy @p len bytes from @p buf to @p offset. */
	void write(uint64_t offset, const void *buf, std::size_t len)
	{
		detail::check(rfm_mem_write(h_.get(), offset, buf, len));
	}
	/** Write bytes. */
	void write(uint64_t offset, ConstBytes data) { write(offset, data.data(), data.size()); }
	/** As write(), without exceptions. */
	void write(uint64_t offset, const void *buf, std::size_t len, std::error_code &ec) noexcept
	{
		detail::failed(rfm_mem_write(h_.get(), offset, buf, len), ec);
	}
	/** Checked atomic load of a 1, 2, 4 or 8-byte T (::RFM_ERANGE, ::RFM_EALIGN). */
	template <class T> T peek(uint64_t offset)
	{
		std::error_code ec;
		T v = peek<T>(offset, ec);
		if (RFM_CXX_UNLIKELY(ec))
			detail::throw_error(ec.value());
		return v;
	}
	/** As peek(); T{} with @p ec set on failure. */
	template <class T> T peek(uint64_t offset, std::error_code &ec) noexcept
	{
		static_assert(detail::is_word_like_v<T>, "1, 2, 4 or 8-byte trivially copyable types");
		detail::WordOf<T> w{};
		int rc;
		if constexpr (sizeof(T) == 1)
			rc = rfm_mem_peek8(h_.get(), offset, &w);
		else if constexpr (sizeof(T) == 2)
			rc = rfm_mem_peek16(h_.get(), offset, &w);
		else if constexpr (sizeof(T) == 4)
			rc = rfm_mem_peek32(h_.get(), offset, &w);
		else
			rc = rfm_mem_peek64(h_.get(), offset, &w);
		if (detail::failed(rc, ec))
			return T{};
		return detail::bits<T>(w);
	}
	/** Checked atomic store of a 1, 2, 4 or 8-byte T. */
	template <class T> void poke(uint64_t offset, T value)
	{
		std::error_code ec;
		poke<T>(offset, value, ec);
		if (RFM_CXX_UNLIKELY(ec))
			detail::throw_error(ec.value());
	}
	/** As poke(), without exceptions. */
	template <class T> void poke(uint64_t offset, T value, std::error_code &ec) noexcept
	{
		static_assert(detail::is_word_like_v<T>, "1, 2, 4 or 8-byte trivially copyable types");
		auto w = detail::bits<detail::WordOf<T>>(value);
		int rc;
		if constexpr (sizeof(T) == 1)
			rc = rfm_mem_poke8(h_.get(), offset, w);
		else if constexpr (sizeof(T) == 2)
			rc = rfm_mem_poke16(h_.get(), offset, w);
		else if constexpr (sizeof(T) == 4)
			rc = rfm_mem_poke32(h_.get(), offset, w);
		else
			rc = rfm_mem_poke64(h_.get(), offset, w);
		detail::failed(rc, ec);
	}
	/** @} */

	/** @name Events (event.h)
	 * @{ */
	/** Send @p type with @p data to node @p to (or ::RFM_NODE_ALL); returns the handles reached. */
	int send(unsigned int to, unsigned int type, uint32_t data)
	{
		return detail::check(rfm_event_send(h_.get(), to, type, data));
	}
	/** As send(); -1 with @p ec set on failure. */
	int send(unsigned int to, unsigned int type, uint32_t data, std::error_code &ec) noexcept
	{
		int rc = rfm_event_send(h_.get(), to, type, data);
		return detail::failed(rc, ec) ? -1 : rc;
	}
	/**
	 * @brief Write @p data at @p offset, bump the 32-bit word at @p seq_offset
	 * (release), send @p type to @p to with the new sequence; returns it.
	 */
	uint32_t publish(uint64_t offset, ConstBytes data, uint64_t seq_offset, unsigned int to,
			 unsigned int type)
	{
		uint32_t seq = 0;
		detail::check(rfm_event_publish(h_.get(), offset, data.data(), data.size(), seq_offset,
						to, type, &seq));
		return seq;
	}
	/** Start receiving the types in @p mask (RFM_EVENT_BIT(); default: every network type). */
	void enable(uint32_t mask = RFM_EVENT_MASK_NETWORK)
	{
		detail::check(rfm_event_enable(h_.get(), mask));
	}
	/** Stop queueing the types in @p mask. */
	void disable(uint32_t mask = RFM_EVENT_MASK_NETWORK)
	{
		detail::check(rfm_event_disable(h_.get(), mask));
	}
	/** The enabled mask. */
	uint32_t enabled() const
	{
		uint32_t mask = 0;
		detail::check(rfm_event_get_enabled(h_.get(), &mask));
		return mask;
	}
	/** Take one event, waiting up to @p timeout (throws ::RFM_ETIMEDOUT, ::RFM_EAGAIN...). */
	Event wait(Duration timeout = forever)
	{
		Event ev{};
		detail::check(rfm_event_wait(h_.get(), &ev, timeout.count()));
		return ev;
	}
	/** As wait(): false with @p ec set when no event was taken. */
	bool wait(Event &ev, Duration timeout, std::error_code &ec) noexcept
	{
		return !detail::failed(rfm_event_wait(h_.get(), &ev, timeout.count()), ec);
	}
	/** Take up to evs.size() events, waiting up to @p timeout for the first; returns how many. */
	std::size_t fetch(Span<Event> evs, Duration timeout = no_wait)
	{
		return static_cast<std::size_t>(
			detail::check(rfm_event_fetch(h_.get(), evs.data(), evs.size(), timeout.count())));
	}
	/** Wake every wait on this node (they fail with ::RFM_ECANCELED). Async-signal-safe. */
	void cancel() noexcept { rfm_event_cancel(h_.get()); }
	/** A descriptor for poll/epoll, owned by the node. */
	int fd() { return detail::check(rfm_event_fd(h_.get())); }
	/** Allow sending to the own node. */
	void set_loopback(bool on) { detail::check(rfm_node_set_loopback(h_.get(), on)); }
	/** How long blocking waits spin before sleeping (-1 ns: never sleep). */
	void set_spin(Duration spin) { detail::check(rfm_event_set_spin(h_.get(), spin.count())); }
	/** rfm_event_get_stats(). */
	rfm_event_stats event_stats() const
	{
		rfm_event_stats s{};
		s.struct_size = sizeof(s);
		detail::check(rfm_event_get_stats(h_.get(), &s));
		return s;
	}
	/**
	 * @brief Call @p fn(const rfm::Event &) for each event of @p type on the
	 * dispatcher thread; the returned EventCallback unregisters it.
	 */
	template <class F> [[nodiscard]] EventCallback on_event(unsigned int type, F &&fn)
	{
		using Impl = detail::CallableImpl<std::decay_t<F>, const Event &>;
		auto impl = std::make_unique<Impl>(std::forward<F>(fn));
		detail::check(rfm_event_callback_register(h_.get(), type, EventCallback::trampoline,
							  impl.get()));
		EventCallback cb;
		cb.node_ = h_.get();
		cb.type_ = type;
		cb.fn_ = std::move(impl);
		return cb;
	}
	/** @} */

	/** @name Tables (layout.h)
	 * @{ */
	/** Borrow @p layout for var(name) and record(name); it must outlive its use here. */
	void use_layout(const Layout &layout) noexcept { layout_ = layout.get(); }
	/** Variable @p name of @p layout, typed: `node.var<float>(layout, "sim.state.speed")`. */
	template <class T> Var<T> var(const Layout &layout, const char *name)
	{
		rfm_var *raw = nullptr;
		detail::check(rfm_var_open(layout.get(), h_.get(), name, &raw));
		return Var<T>::adopt(raw);
	}
	/** Variable @p name of the layout given to use_layout(). */
	template <class T> Var<T> var(const char *name)
	{
		rfm_var *raw = nullptr;
		detail::check(rfm_var_open(used_layout(), h_.get(), name, &raw));
		return Var<T>::adopt(raw);
	}
	/** As var(), without exceptions: a closed Var with @p ec set on failure. */
	template <class T> Var<T> var(const Layout &layout, const char *name, std::error_code &ec) noexcept
	{
		return var<T>(layout.get(), name, ec);
	}
	/** As var(name), without exceptions. */
	template <class T> Var<T> var(const char *name, std::error_code &ec) noexcept
	{
		if (!layout_) {
			ec = make_error_code(RFM_EINVAL);
			return Var<T>();
		}
		return var<T>(layout_, name, ec);
	}
	/** Record @p name ("region.record") of @p layout. */
	Record record(const Layout &layout, const char *name)
	{
		rfm_record *raw = nullptr;
		detail::check(rfm_record_open(layout.get(), h_.get(), name, &raw));
		return Record(raw);
	}
	/** Record @p name of the layout given to use_layout(). */
	Record record(const char *name)
	{
		rfm_record *raw = nullptr;
		detail::check(rfm_record_open(used_layout(), h_.get(), name, &raw));
		return Record(raw);
	}
	/** As record(), without exceptions: a closed Record with @p ec set on failure. */
	Record record(const Layout &layout, const char *name, std::error_code &ec) noexcept
	{
		rfm_record *raw = nullptr;
		if (detail::failed(rfm_record_open(layout.get(), h_.get(), name, &raw), ec))
			return Record();
		return Record(raw);
	}
	/** @} */

	/** @name Rings (ring.h)
	 * @{ */
	/** Create a ring at @p offset in @p size bytes (config.struct_size is set here). */
	Ring ring_create(uint64_t offset, uint64_t size, rfm_ring_config config)
	{
		rfm_ring *raw = nullptr;
		config.struct_size = sizeof(config);
		detail::check(rfm_ring_create(h_.get(), offset, size, &config, &raw));
		return Ring(raw);
	}
	/** Create a ring of @p slot_count slots of @p slot_size bytes (@p flags: ::RFM_RING_F_NOTIFY...). */
	Ring ring_create(uint64_t offset, uint64_t size, uint32_t slot_size, uint32_t slot_count,
			 uint32_t flags = 0)
	{
		rfm_ring_config c{};
		c.slot_size = slot_size;
		c.slot_count = slot_count;
		c.flags = flags;
		return ring_create(offset, size, c);
	}
	/** Take over the ring at @p offset as its producer. */
	Ring ring_attach(uint64_t offset)
	{
		rfm_ring *raw = nullptr;
		detail::check(rfm_ring_attach(h_.get(), offset, &raw));
		return Ring(raw);
	}
	/** A consumer of the ring at @p offset (::RFM_RING_CONSUMER_NEWEST, ..._BACKPRESSURE). */
	RingConsumer ring_consumer(uint64_t offset, unsigned int flags = RFM_RING_CONSUMER_OLDEST)
	{
		rfm_ring_consumer *raw = nullptr;
		detail::check(rfm_ring_consumer_open(h_.get(), offset, flags, &raw));
		return RingConsumer(raw);
	}
	/** As ring_create(), without exceptions: a closed Ring with @p ec set on failure. */
	Ring ring_create(uint64_t offset, uint64_t size, rfm_ring_config config,
			 std::error_code &ec) noexcept
	{
		rfm_ring *raw = nullptr;
		config.struct_size = sizeof(config);
		if (detail::failed(rfm_ring_create(h_.get(), offset, size, &config, &raw), ec))
			return Ring();
		return Ring(raw, ec);
	}
	/** As ring_consumer(), without exceptions. */
	RingConsumer ring_consumer(uint64_t offset, unsigned int flags, std::error_code &ec) noexcept
	{
		rfm_ring_consumer *raw = nullptr;
		if (detail::failed(rfm_ring_consumer_open(h_.get(), offset, flags, &raw), ec))
			return RingConsumer();
		return RingConsumer(raw);
	}
	/** @} */

private:
	template <class T> Var<T> var(rfm_layout *layout, const char *name, std::error_code &ec) noexcept
	{
		rfm_var *raw = nullptr;
		if (detail::failed(rfm_var_open(layout, h_.get(), name, &raw), ec))
			return Var<T>();
		return Var<T>::adopt(raw, ec);
	}
	rfm_layout *used_layout() const
	{
		if (!layout_)
			detail::throw_error(RFM_EINVAL, "no layout: call Node::use_layout() first, or pass one");
		return layout_;
	}

	detail::Handle<rfm_node, rfm_close> h_;
	rfm_layout *layout_ = nullptr;
};

/** Remove a network (rfm_network_destroy()); @p flags: ::RFM_DESTROY_FORCE. */
inline void destroy(const char *uri, unsigned int flags = 0)
{
	detail::check(rfm_network_destroy(uri, flags));
}

/** As destroy(), without exceptions. */
inline void destroy(const char *uri, unsigned int flags, std::error_code &ec) noexcept
{
	detail::failed(rfm_network_destroy(uri, flags), ec);
}

} // namespace rfm

#undef RFM_CXX_UNLIKELY
#undef RFM_CXX_COLD
#undef RFM_CXX_INLINE

/** @} */
#endif /* RFM_RFM_HPP */
