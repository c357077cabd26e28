/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one SWIG interface to librfm, for every target language.
 *
 * It %includes the real public headers, so the bindings can never drift
 * from the C API, and adds only what a scripting language needs on top:
 *
 *  - the error convention: an int result below zero becomes the target
 *    language's error, carrying the code and rfm_last_error();
 *  - out-parameters (rfm_node **, uint32_t *value, void **basep, info
 *    structs) become return values;
 *  - buffers: rfm_mem_read() returns a new byte string of the asked
 *    length, rfm_mem_write() takes one.
 *
 * Everything here uses only SWIG's unified typemap library, so it means the
 * same in every language. A language refines it in its own file,
 * <language>/rfm_<language>.i, included near the end; that file must
 * define the C macro RFM_SWIG_ERROR(code, message), which sets the pending
 * error in the wrapper's context (before SWIG_fail).
 */
%module rfm

%{
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <rfm/rfm.h>
#include <rfm/event.h>
#include <rfm/layout.h>
#include <rfm/ring.h>
#include <rfm/health.h>
#include <rfm/recorder.h>
%}

%include <stdint.i>
%include <typemaps.i>

/* ---- errors ---------------------------------------------------------- */

/*
 * The library's convention (rfm.h): an int result is a non-negative value
 * or count on success and a negative rfm_error code on failure.
 */
%typemap(out, noblock=1, fragment=SWIG_From_frag(int)) int {
	if ($1 < 0) {
		RFM_SWIG_ERROR($1, rfm_last_error());
		SWIG_fail;
	}
	%set_output(SWIG_From_int($1));
}

/*
 * Fields of info structs declared int32_t (a type, a code, an index that
 * may be -1) are values, not statuses: the convention is for int results.
 */
%typemap(out, noblock=1, fragment=SWIG_From_frag(int)) int32_t {
	%set_output(SWIG_From_int($1));
}

/*
 * Functions whose int result is only a status: success returns nothing
 * (or just the out-parameters), so peek32 returns the value, not (0, value).
 * Every new status-only function of a later family is listed here.
 */
#if defined(VOID_Object)
#define RFM_SWIG_NO_RESULT %set_output(VOID_Object)
#else
#define RFM_SWIG_NO_RESULT
#endif

%define RFM_STATUS_ONLY(function)
%typemap(out, noblock=1) int function {
	if ($1 < 0) {
		RFM_SWIG_ERROR($1, rfm_last_error());
		SWIG_fail;
	}
	RFM_SWIG_NO_RESULT;
}
%enddef

RFM_STATUS_ONLY(rfm_open)
RFM_STATUS_ONLY(rfm_node_get_info)
RFM_STATUS_ONLY(rfm_network_destroy)
RFM_STATUS_ONLY(rfm_mem_map)
RFM_STATUS_ONLY(rfm_mem_read)
RFM_STATUS_ONLY(rfm_mem_write)
RFM_STATUS_ONLY(rfm_mem_flush)
RFM_STATUS_ONLY(rfm_mem_peek8)
RFM_STATUS_ONLY(rfm_mem_peek16)
RFM_STATUS_ONLY(rfm_mem_peek32)
RFM_STATUS_ONLY(rfm_mem_peek64)
RFM_STATUS_ONLY(rfm_mem_poke8)
RFM_STATUS_ONLY(rfm_mem_poke16)
RFM_STATUS_ONLY(rfm_mem_poke32)
RFM_STATUS_ONLY(rfm_mem_poke64)

/* event.h */
RFM_STATUS_ONLY(rfm_node_set_loopback)
RFM_STATUS_ONLY(rfm_event_set_spin)
RFM_STATUS_ONLY(rfm_event_enable)
RFM_STATUS_ONLY(rfm_event_disable)
RFM_STATUS_ONLY(rfm_event_get_enabled)
RFM_STATUS_ONLY(rfm_event_wait)
RFM_STATUS_ONLY(rfm_event_cancel)
RFM_STATUS_ONLY(rfm_event_callback_register)
RFM_STATUS_ONLY(rfm_event_callback_unregister)
RFM_STATUS_ONLY(rfm_event_get_stats)

/* layout.h (rfm_record_read keeps its retry count; string/text getters return the text) */
RFM_STATUS_ONLY(rfm_diag_list_get)
RFM_STATUS_ONLY(rfm_layout_load_file)
RFM_STATUS_ONLY(rfm_layout_load_string)
RFM_STATUS_ONLY(rfm_layout_new)
RFM_STATUS_ONLY(rfm_layout_add_region)
RFM_STATUS_ONLY(rfm_layout_add_record)
RFM_STATUS_ONLY(rfm_layout_add_var)
RFM_STATUS_ONLY(rfm_layout_finish)
RFM_STATUS_ONLY(rfm_layout_region_info)
RFM_STATUS_ONLY(rfm_layout_record_info)
RFM_STATUS_ONLY(rfm_layout_var_info)
RFM_STATUS_ONLY(rfm_layout_write_header)
RFM_STATUS_ONLY(rfm_var_open)
RFM_STATUS_ONLY(rfm_var_set_owner_check)
RFM_STATUS_ONLY(rfm_var_get_info)
RFM_STATUS_ONLY(rfm_var_get_view)
RFM_STATUS_ONLY(rfm_var_get_array)
RFM_STATUS_ONLY(rfm_var_set_array)
RFM_STATUS_ONLY(rfm_var_get_string)
RFM_STATUS_ONLY(rfm_var_set_string)
RFM_STATUS_ONLY(rfm_var_get_text)
RFM_STATUS_ONLY(rfm_var_set_text)
RFM_STATUS_ONLY(rfm_record_open)
RFM_STATUS_ONLY(rfm_record_get_info)
RFM_STATUS_ONLY(rfm_record_set_max_tries)
RFM_STATUS_ONLY(rfm_record_set_owner_check)
RFM_STATUS_ONLY(rfm_record_write)
RFM_STATUS_ONLY(rfm_record_fetch)
RFM_STATUS_ONLY(rfm_record_publish)
RFM_STATUS_ONLY(rfm_record_sequence)
RFM_STATUS_ONLY(rfm_record_var)
%define RFM_STATUS_ONLY_TYPED(name)
RFM_STATUS_ONLY(rfm_var_get_ ## name)
RFM_STATUS_ONLY(rfm_var_set_ ## name)
%enddef
RFM_STATUS_ONLY_TYPED(u8)
RFM_STATUS_ONLY_TYPED(u16)
RFM_STATUS_ONLY_TYPED(u32)
RFM_STATUS_ONLY_TYPED(u64)
RFM_STATUS_ONLY_TYPED(i8)
RFM_STATUS_ONLY_TYPED(i16)
RFM_STATUS_ONLY_TYPED(i32)
RFM_STATUS_ONLY_TYPED(i64)
RFM_STATUS_ONLY_TYPED(f32)
RFM_STATUS_ONLY_TYPED(f64)
RFM_STATUS_ONLY_TYPED(bool)

/* ring.h, health.h */
RFM_STATUS_ONLY(rfm_ring_footprint)
RFM_STATUS_ONLY(rfm_ring_get_info)
RFM_STATUS_ONLY(rfm_ring_consumer_get_info)
RFM_STATUS_ONLY(rfm_ring_consumer_get_stats)
RFM_STATUS_ONLY(rfm_health_start)
RFM_STATUS_ONLY(rfm_health_stop)
RFM_STATUS_ONLY(rfm_health_beat)
RFM_STATUS_ONLY(rfm_health_get_counters)
RFM_STATUS_ONLY(rfm_selftest)

/* recorder.h */
RFM_STATUS_ONLY(rfm_recorder_add)
RFM_STATUS_ONLY(rfm_recorder_add_bytes)
RFM_STATUS_ONLY(rfm_recorder_add_ring)
RFM_STATUS_ONLY(rfm_recorder_add_events)
RFM_STATUS_ONLY(rfm_recorder_set_trigger_event)
RFM_STATUS_ONLY(rfm_recorder_set_trigger_var)
RFM_STATUS_ONLY(rfm_recorder_start)
RFM_STATUS_ONLY(rfm_recorder_wait)
RFM_STATUS_ONLY(rfm_recorder_stop)
RFM_STATUS_ONLY(rfm_recorder_get_stats)

/* ---- out-parameters -------------------------------------------------- */

/* rfm_open(uri, &node): the new handle is the result. */
%typemap(in, numinputs=0, noblock=1) rfm_node **nodep (rfm_node *new_node = NULL) {
	$1 = &new_node;
}
%typemap(argout, noblock=1) rfm_node **nodep {
	%append_output(SWIG_NewPointerObj(new_node$argnum, $descriptor(rfm_node *), 0));
}

/* peek: the value read is the result. */
%apply uint8_t *OUTPUT { uint8_t *value };
%apply uint16_t *OUTPUT { uint16_t *value };
%apply uint32_t *OUTPUT { uint32_t *value };
%apply uint64_t *OUTPUT { uint64_t *value };
%apply int8_t *OUTPUT { int8_t *value };
%apply int16_t *OUTPUT { int16_t *value };
%apply int32_t *OUTPUT { int32_t *value };
%apply int64_t *OUTPUT { int64_t *value };
%apply float *OUTPUT { float *value };
%apply double *OUTPUT { double *value };
%apply bool *OUTPUT { bool *value };
%apply uint32_t *OUTPUT { uint32_t *maskp, uint32_t *seqp };

/* Handles made by the layout functions: opaque pointers as results. */
%define RFM_SWIG_NEW_HANDLE(type, name)
%typemap(in, numinputs=0, noblock=1) type **name (type *new_handle = NULL) {
	$1 = &new_handle;
}
%typemap(argout, noblock=1) type **name {
	%append_output(SWIG_NewPointerObj(new_handle$argnum, $descriptor(type *), 0));
}
%enddef
RFM_SWIG_NEW_HANDLE(rfm_layout, layoutp)
RFM_SWIG_NEW_HANDLE(rfm_var, varp)
RFM_SWIG_NEW_HANDLE(rfm_record, recp)

/*
 * Diagnostics of a failed load: generically freed (the error's message
 * names the first problem); a language may hand the list to its error.
 */
%typemap(in, numinputs=0, noblock=1) rfm_diag_list **diagsp (rfm_diag_list *diags = NULL) {
	$1 = &diags;
}
%typemap(freearg, noblock=1) rfm_diag_list **diagsp {
	rfm_diag_list_free(diags$argnum);
}

/* Layout text: one string with its length. */
%apply (char *STRING, size_t LENGTH) { (const char *text, size_t len) };

/* rfm_layout_write_header(layout, prefix, out): the header is the result. */
%typemap(in, numinputs=0, noblock=1) FILE *out (char *header_text = NULL, size_t header_len = 0) {
	$1 = open_memstream(&header_text, &header_len);
	if (!$1) {
		RFM_SWIG_ERROR(RFM_ENOMEM, "$symname: out of memory");
		SWIG_fail;
	}
}
%typemap(argout, noblock=1, fragment="SWIG_FromCharPtrAndSize") FILE *out {
	fflush($1);
	%append_output(SWIG_FromCharPtrAndSize(header_text$argnum, header_len$argnum));
}
%typemap(freearg, noblock=1) FILE *out {
	if ($1)
		fclose($1);
	free(header_text$argnum);
}

/* rfm_var_get_string/get_text(var, buf, len): the script gives the room, gets the text. */
%typemap(in, noblock=1, fragment=SWIG_AsVal_frag(size_t)) (char *buf, size_t len) {
	{
		size_t room = 0;
		int res = SWIG_AsVal(size_t)($input, &room);

		if (!SWIG_IsOK(res)) {
			%argument_fail(res, "size_t", $symname, $argnum);
		}
		$1 = calloc(1, room ? room : 1);
		if (!$1) {
			RFM_SWIG_ERROR(RFM_ENOMEM, "$symname: out of memory");
			SWIG_fail;
		}
		$2 = room;
	}
}
%typemap(argout, noblock=1, fragment="SWIG_FromCharPtr") (char *buf, size_t len) {
	%append_output(SWIG_FromCharPtr($1));
}
%typemap(freearg, noblock=1) (char *buf, size_t len) {
	free($1);
}

/* rfm_mem_map(node, &base, &size): an opaque pointer and the size. */
%typemap(in, numinputs=0, noblock=1) void **basep (void *base = NULL) {
	$1 = &base;
}
%typemap(argout, noblock=1) void **basep {
	%append_output(SWIG_NewPointerObj(base$argnum, $descriptor(void *), 0));
}
%apply uint64_t *OUTPUT { uint64_t *sizep };

/* rfm_node_get_info(node, &info): a copy the language owns, sized by us. */
%define RFM_SWIG_INFO_OUT(type, name)
%typemap(in, numinputs=0, noblock=1) type *name (type out_struct) {
	memset(&out_struct, 0, sizeof(out_struct));
	out_struct.struct_size = sizeof(out_struct);
	$1 = &out_struct;
}
%typemap(argout, noblock=1) type *name {
	{
		type *copy = malloc(sizeof(*copy));

		if (!copy) {
			RFM_SWIG_ERROR(RFM_ENOMEM, "$symname: out of memory");
			SWIG_fail;
		}
		*copy = out_struct$argnum;
		%append_output(SWIG_NewPointerObj(copy, $descriptor(type *), SWIG_POINTER_OWN));
	}
}
%enddef
RFM_SWIG_INFO_OUT(struct rfm_event_stats, stats)
RFM_SWIG_INFO_OUT(struct rfm_diag, diag)
RFM_SWIG_INFO_OUT(struct rfm_region_info, info)
RFM_SWIG_INFO_OUT(struct rfm_record_info, info)
RFM_SWIG_INFO_OUT(struct rfm_var_info, info)
RFM_SWIG_INFO_OUT(struct rfm_var_view, view)
RFM_SWIG_INFO_OUT(struct rfm_ring_info, info)
RFM_SWIG_INFO_OUT(struct rfm_ring_consumer_stats, stats)
RFM_SWIG_INFO_OUT(struct rfm_health_counters, counters)
RFM_SWIG_INFO_OUT(struct rfm_selftest_result, result)
RFM_SWIG_INFO_OUT(struct rfm_recorder_stats, stats)
%apply uint64_t *OUTPUT { uint64_t *bytes };

%typemap(in, numinputs=0, noblock=1) struct rfm_node_info *info (struct rfm_node_info info) {
	memset(&info, 0, sizeof(info));
	info.struct_size = sizeof(info);
	$1 = &info;
}
%typemap(argout, noblock=1) struct rfm_node_info *info {
	{
		struct rfm_node_info *copy = malloc(sizeof(*copy));

		if (!copy) {
			RFM_SWIG_ERROR(RFM_ENOMEM, "rfm_node_get_info: out of memory");
			SWIG_fail;
		}
		*copy = info$argnum;
		%append_output(SWIG_NewPointerObj(copy, $descriptor(struct rfm_node_info *),
						  SWIG_POINTER_OWN));
	}
}

/* ---- buffers ---------------------------------------------------------- */

/*
 * rfm_mem_read(node, offset, buf, len): the script passes the length and
 * gets a byte string back. This generic form copies through a temporary;
 * languages with a native byte type read straight into it.
 */
%typemap(in, noblock=1, fragment=SWIG_AsVal_frag(size_t)) (void *buf, size_t len) {
	{
		size_t count = 0;
		int res = SWIG_AsVal(size_t)($input, &count);

		if (!SWIG_IsOK(res)) {
			%argument_fail(res, "size_t", $symname, $argnum);
		}
		$1 = malloc(count ? count : 1);
		if (!$1) {
			RFM_SWIG_ERROR(RFM_ENOMEM, "$symname: out of memory");
			SWIG_fail;
		}
		$2 = count;
	}
}
%typemap(argout, noblock=1, fragment="SWIG_FromCharPtrAndSize") (void *buf, size_t len) {
	%append_output(SWIG_FromCharPtrAndSize((const char *)$1, $2));
}
%typemap(freearg, noblock=1) (void *buf, size_t len) {
	free($1);
}

/* rfm_mem_write(node, offset, buf, len): the script passes one string. */
%typemap(in, noblock=1, fragment="SWIG_AsCharPtrAndSize") (const void *buf, size_t len)
	(char *write_data = NULL, int write_alloc = 0) {
	{
		size_t size = 0;
		int res = SWIG_AsCharPtrAndSize($input, &write_data, &size, &write_alloc);

		if (!SWIG_IsOK(res)) {
			%argument_fail(res, "string", $symname, $argnum);
		}
		$1 = write_data;
		$2 = size ? size - 1 : 0; /* the size counts a terminating NUL */
	}
}
%typemap(freearg, noblock=1) (const void *buf, size_t len) {
	if (write_alloc$argnum == SWIG_NEWOBJ)
		%delete_array(write_data$argnum);
}

/* ---- what a script cannot use safely ---------------------------------- */

/*
 * The inline accessors take a raw base address and check nothing: from a
 * script any integer would do and any mistake would crash the process.
 * Scripts use the checked rfm_mem_peek/poke (and, where the language has
 * one, a bounded zero-copy view of the window) instead. The fences stay.
 */
%rename("$ignore", regextarget=1) "^rfm_(load|store)(8|16|32|64)";
/* The layout's inline views work on raw addresses too: scripts use the handles. */
%rename("$ignore", regextarget=1) "^rfm_view_(get|set)_";
%rename("$ignore", regextarget=1) "^rfm__bswap";
%ignore rfm_var_info::reserved;
%ignore rfm_record_info::reserved;
%ignore rfm_region_info::reserved;
%ignore rfm_diag::reserved;
%ignore rfm_event_stats::reserved;
%ignore rfm_var_view::reserved;
%ignore rfm_region_spec::reserved;
%ignore rfm_record_spec::reserved;
%ignore rfm_var_spec::reserved;
%ignore rfm_ring_config::reserved;
%ignore rfm_ring_info::reserved;
%ignore rfm_ring_consumer_stats::reserved;
%ignore rfm_health_config::reserved;
%ignore rfm_node_status::reserved;
%ignore rfm_health_counters::reserved;
%ignore rfm_selftest_result::reserved;
%ignore rfm_recorder_config::reserved;
%ignore rfm_recorder_stats::reserved;

/* Specification structs of layouts built in code: new ones come zeroed and sized. */
%define RFM_SWIG_SIZED_STRUCT(name)
%extend name {
	name() {
		struct name *spec = calloc(1, sizeof(*spec));

		if (spec)
			spec->struct_size = sizeof(*spec);
		return spec;
	}
	~name() {
		free($self);
	}
}
%enddef
RFM_SWIG_SIZED_STRUCT(rfm_region_spec)
RFM_SWIG_SIZED_STRUCT(rfm_record_spec)
RFM_SWIG_SIZED_STRUCT(rfm_var_spec)
RFM_SWIG_SIZED_STRUCT(rfm_ring_config)
RFM_SWIG_SIZED_STRUCT(rfm_health_config)
RFM_SWIG_SIZED_STRUCT(rfm_recorder_config)
%constant uint64_t RFM_OFFSET_AUTO = UINT64_MAX;

/*
 * A string set on a spec is a copy SWIG makes and never frees (the library
 * copies it again when the spec is added); layouts built in code from a
 * script are one-offs, so the few bytes are accepted, not warned about.
 */
%warnfilter(SWIGWARN_TYPEMAP_CHARLEAK) rfm_region_spec::name;
%warnfilter(SWIGWARN_TYPEMAP_CHARLEAK) rfm_region_spec::description;
%warnfilter(SWIGWARN_TYPEMAP_CHARLEAK) rfm_record_spec::name;
%warnfilter(SWIGWARN_TYPEMAP_CHARLEAK) rfm_record_spec::description;
%warnfilter(SWIGWARN_TYPEMAP_CHARLEAK) rfm_var_spec::name;
%warnfilter(SWIGWARN_TYPEMAP_CHARLEAK) rfm_var_spec::unit;
%warnfilter(SWIGWARN_TYPEMAP_CHARLEAK) rfm_var_spec::description;

/* Strings of results belong to the library: read-only. */
%immutable rfm_diag::file;
%immutable rfm_diag::message;
%immutable rfm_diag::text;
%immutable rfm_region_info::name;
%immutable rfm_region_info::description;
%immutable rfm_record_info::name;
%immutable rfm_record_info::description;
%immutable rfm_var_info::name;
%immutable rfm_var_info::unit;
%immutable rfm_var_info::description;

/* The info struct is a result: read-only, and its reserved words hidden. */
%immutable rfm_node_info::struct_size;
%immutable rfm_node_info::node_id;
%immutable rfm_node_info::size;
%immutable rfm_node_info::max_nodes;
%immutable rfm_node_info::nodes_attached;
%immutable rfm_node_info::backend;
%immutable rfm_node_info::uri;
%immutable rfm_node_info::incarnation;
%ignore rfm_node_info::reserved;

/* ---- the language's refinements, then the real headers ----------------- */

#if defined(SWIGPYTHON)
%include "python/rfm_python.i"
#elif defined(SWIGTCL)
%include "tcl/rfm_tcl.i"
#else
%{
#define RFM_SWIG_ERROR(code, message) SWIG_Error(SWIG_RuntimeError, (message))
%}
#endif

%include <rfm/version.h>
%include <rfm/common.h>
%include <rfm/error.h>
%include <rfm/node.h>
%include <rfm/memory.h>
%include <rfm/access.h>
%include <rfm/event.h>
%include <rfm/layout.h>
%include <rfm/ring.h>
%include <rfm/health.h>
%include <rfm/recorder.h>
