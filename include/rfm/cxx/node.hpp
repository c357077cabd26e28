// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * @file cxx/node.hpp
 * @brief rfm::Node and rfm::destroy().
 *
 * Part of the C++ layer: include <rfm/rfm.hpp>, which includes every part
 * in order (each part includes the one it builds on).
 */
#ifndef RFM_CXX_NODE_HPP
#define RFM_CXX_NODE_HPP

#include <rfm/cxx/ring-consumer.hpp>

/** @addtogroup cxx
 * @{
 */

namespace rfm {

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

/** @} */
#endif /* RFM_CXX_NODE_HPP */
