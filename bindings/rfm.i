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
#include <stdlib.h>
#include <string.h>
#include <rfm/rfm.h>
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
RFM_STATUS_ONLY(rfm_mem_peek8)
RFM_STATUS_ONLY(rfm_mem_peek16)
RFM_STATUS_ONLY(rfm_mem_peek32)
RFM_STATUS_ONLY(rfm_mem_peek64)
RFM_STATUS_ONLY(rfm_mem_poke8)
RFM_STATUS_ONLY(rfm_mem_poke16)
RFM_STATUS_ONLY(rfm_mem_poke32)
RFM_STATUS_ONLY(rfm_mem_poke64)

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

/* rfm_mem_map(node, &base, &size): an opaque pointer and the size. */
%typemap(in, numinputs=0, noblock=1) void **basep (void *base = NULL) {
	$1 = &base;
}
%typemap(argout, noblock=1) void **basep {
	%append_output(SWIG_NewPointerObj(base$argnum, $descriptor(void *), 0));
}
%apply uint64_t *OUTPUT { uint64_t *sizep };

/* rfm_node_get_info(node, &info): a copy the language owns, sized by us. */
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
