// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * @file cxx/recorder.hpp
 * @brief rfm::Recorder: a recording of a run into HDF5 or CSV (recorder.h).
 *
 * Part of the C++ layer: include <rfm/rfm.hpp>, which includes every part
 * in order (each part includes the one it builds on).
 */
#ifndef RFM_CXX_RECORDER_HPP
#define RFM_CXX_RECORDER_HPP

#include <rfm/cxx/node.hpp>
#include <rfm/recorder.h>

/** @addtogroup cxx
 * @{
 */

namespace rfm {

/**
 * @brief A recording of a node (rfm_recorder_new()): add what to record,
 *        start(), then wait() or stop(); the destructor stops it.
 *
 * The Node and the Layout must outlive it. Configure, start and stop from
 * one thread; stats() and wait() from any.
 */
class Recorder {
public:
	Recorder() noexcept = default;
	/** Prepare a recording of @p node into @p path (@p layout may be null). */
	Recorder(Node &node, const Layout *layout, const char *path,
		 const rfm_recorder_config *config = nullptr)
	{
		rfm_recorder *raw = nullptr;
		detail::check(rfm_recorder_new(node.get(), layout ? layout->get() : nullptr, path,
					       config, &raw));
		h_.reset(raw);
	}
	/** Record a variable, record or region of the layout by name. */
	Recorder &add(const char *name)
	{
		detail::check(rfm_recorder_add(h_.get(), name));
		return *this;
	}
	/** Record @p length raw bytes at @p offset as @p name. */
	Recorder &add_bytes(const char *name, uint64_t offset, uint64_t length)
	{
		detail::check(rfm_recorder_add_bytes(h_.get(), name, offset, length));
		return *this;
	}
	/** Record every message of the ring at @p offset as @p name. */
	Recorder &add_ring(const char *name, uint64_t offset)
	{
		detail::check(rfm_recorder_add_ring(h_.get(), name, offset));
		return *this;
	}
	/** Record the events of @p mask (RFM_EVENT_BIT() of network types). */
	Recorder &add_events(uint32_t mask)
	{
		detail::check(rfm_recorder_add_events(h_.get(), mask));
		return *this;
	}
	/** Start writing at event @p type, keeping @p pre before it. */
	Recorder &trigger_on_event(unsigned int type, Duration pre = Duration{0})
	{
		detail::check(rfm_recorder_set_trigger_event(h_.get(), type,
							     static_cast<uint64_t>(pre.count())));
		return *this;
	}
	/** Start writing when variable @p name compares to @p threshold (::rfm_rec_compare). */
	Recorder &trigger_on(const char *name, int compare, double threshold,
			     Duration pre = Duration{0})
	{
		detail::check(rfm_recorder_set_trigger_var(h_.get(), name, compare, threshold,
							   static_cast<uint64_t>(pre.count())));
		return *this;
	}
	/** Create the file and start sampling. */
	void start() { detail::check(rfm_recorder_start(h_.get())); }
	/** Wait until it ends by itself: true, or false when @p timeout passed first. */
	bool wait(Duration timeout = forever)
	{
		int rc = rfm_recorder_wait(h_.get(), timeout.count());
		if (rc == RFM_ETIMEDOUT || rc == RFM_EAGAIN)
			return false;
		detail::check(rc);
		return true;
	}
	/** End it and close the file; throws the error that ended it early (a full disk). */
	void stop() { detail::check(rfm_recorder_stop(h_.get())); }
	/** As stop(), without exceptions. */
	void stop(std::error_code &ec) noexcept { detail::failed(rfm_recorder_stop(h_.get()), ec); }
	/** The counters now. */
	rfm_recorder_stats stats() const
	{
		rfm_recorder_stats st{};
		st.struct_size = sizeof(st);
		detail::check(rfm_recorder_get_stats(h_.get(), &st));
		return st;
	}
	/** Stop if running and free it now (a second call does nothing). */
	void close() noexcept { h_.reset(); }
	/** Open. */
	explicit operator bool() const noexcept { return h_.get() != nullptr; }
	/** The C handle. */
	rfm_recorder *get() const noexcept { return h_.get(); }

private:
	detail::Handle<rfm_recorder, rfm_recorder_free> h_;
};

} // namespace rfm

/** @} */
#endif // RFM_CXX_RECORDER_HPP
