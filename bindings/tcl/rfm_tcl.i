/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Tcl refinements of bindings/rfm.i (included by it; not used alone).
 *
 * The Tcl binding mirrors the C API one command per function, with the
 * generic typemaps of rfm.i. Only what Tcl spells differently is here:
 *  - a failed call is a Tcl error whose result is rfm_last_error() and
 *    whose errorCode is {RFM <code> <rfm_strerror(code)>};
 *  - window bytes are Tcl byte arrays, not strings.
 * Handles are plain SWIG pointers: as in C, a closed handle must not be
 * used again.
 */

%{
#include <limits.h>

static void rfm_tcl_set_error(Tcl_Interp *interp, int code, const char *message)
{
	char number[16];

	snprintf(number, sizeof(number), "%d", code);
	Tcl_SetObjResult(interp, Tcl_NewStringObj(message, -1));
	Tcl_SetErrorCode(interp, "RFM", number, rfm_strerror(code), (char *)NULL);
}

#define RFM_SWIG_ERROR(code, message) rfm_tcl_set_error(interp, (code), (message))

/* The package's entry points (SWIG declares only the first); for -Wmissing-prototypes. */
SWIGEXPORT int SWIG_init(Tcl_Interp *);
SWIGEXPORT int Rfm_SafeInit(Tcl_Interp *);
%}

/* rfm_mem_read: read straight into a new byte array of the asked length. */
%typemap(in, noblock=1, fragment=SWIG_AsVal_frag(size_t)) (void *buf, size_t len)
	(Tcl_Obj *read_bytes = NULL) {
	{
		size_t count = 0;
		int res = SWIG_AsVal(size_t)($input, &count);

		if (!SWIG_IsOK(res)) {
			%argument_fail(res, "size_t", $symname, $argnum);
		}
		if (count > INT_MAX) {
			RFM_SWIG_ERROR(RFM_ERANGE, "$symname: the length is larger than a Tcl byte array");
			SWIG_fail;
		}
		read_bytes = Tcl_NewByteArrayObj(NULL, (int)count);
		Tcl_IncrRefCount(read_bytes);
		$1 = Tcl_GetByteArrayFromObj(read_bytes, NULL);
		$2 = count;
	}
}
%typemap(argout, noblock=1) (void *buf, size_t len) {
	%append_output(read_bytes$argnum);
}
%typemap(freearg, noblock=1) (void *buf, size_t len) {
	if (read_bytes$argnum)
		Tcl_DecrRefCount(read_bytes$argnum);
}

/* rfm_mem_write: the bytes of any value, as a byte array. */
%typemap(in, noblock=1) (const void *buf, size_t len) {
	{
		int count = 0;

		$1 = Tcl_GetByteArrayFromObj($input, &count);
		$2 = (size_t)count;
	}
}
%typemap(freearg) (const void *buf, size_t len) "";

/*
 * rfm_node_get_info: a dict of the fields. (Tcl would neither free a copy
 * of the struct nor keep it reachable: SWIG spells pointers as strings,
 * which compilers do not see as the pointer escaping.)
 */
%typemap(argout, noblock=1) struct rfm_node_info *info {
	{
		Tcl_Obj *fields = Tcl_NewDictObj();

		Tcl_DictObjPut(NULL, fields, Tcl_NewStringObj("node_id", -1),
			       Tcl_NewIntObj(info$argnum.node_id));
		Tcl_DictObjPut(NULL, fields, Tcl_NewStringObj("size", -1),
			       Tcl_NewWideIntObj((Tcl_WideInt)info$argnum.size));
		Tcl_DictObjPut(NULL, fields, Tcl_NewStringObj("max_nodes", -1),
			       Tcl_NewWideIntObj(info$argnum.max_nodes));
		Tcl_DictObjPut(NULL, fields, Tcl_NewStringObj("nodes_attached", -1),
			       Tcl_NewWideIntObj(info$argnum.nodes_attached));
		Tcl_DictObjPut(NULL, fields, Tcl_NewStringObj("backend", -1),
			       Tcl_NewStringObj(info$argnum.backend, -1));
		Tcl_DictObjPut(NULL, fields, Tcl_NewStringObj("uri", -1),
			       Tcl_NewStringObj(info$argnum.uri, -1));
		Tcl_DictObjPut(NULL, fields, Tcl_NewStringObj("incarnation", -1),
			       Tcl_NewWideIntObj(info$argnum.incarnation));
		%set_output(fields); /* the only output: the dict itself, not a list of one */
	}
}
