// SPDX-License-Identifier: LGPL-2.1-or-later
/**
 * @file cxx/layout.hpp
 * @brief rfm::Layout and the spec helpers of the builder.
 *
 * Part of the C++ layer: include <rfm/rfm.hpp>, which includes every part
 * in order (each part includes the one it builds on).
 */
#ifndef RFM_CXX_LAYOUT_HPP
#define RFM_CXX_LAYOUT_HPP

#include <rfm/cxx/var.hpp>

/** @addtogroup cxx
 * @{
 */

namespace rfm {

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

} // namespace rfm

/** @} */
#endif /* RFM_CXX_LAYOUT_HPP */
