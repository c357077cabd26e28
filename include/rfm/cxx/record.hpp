// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * @file cxx/record.hpp
 * @brief rfm::Record: seqlock publish and consistent read.
 *
 * Part of the C++ layer: include <rfm/rfm.hpp>, which includes every part
 * in order (each part includes the one it builds on).
 */
#ifndef RFM_CXX_RECORD_HPP
#define RFM_CXX_RECORD_HPP

#include <rfm/cxx/layout.hpp>

/** @addtogroup cxx
 * @{
 */

namespace rfm {

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

} // namespace rfm

/** @} */
#endif /* RFM_CXX_RECORD_HPP */
