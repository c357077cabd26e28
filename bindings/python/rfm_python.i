/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Python refinements of bindings/rfm.i (included by it; not used alone).
 *
 * What Python gets beyond the generic interface:
 *
 *  - Node handles are a small C type, NodeHandle, instead of a bare SWIG
 *    pointer. Closing one clears its pointer in place, so every copy of the
 *    handle, in any thread, sees "closed" (rfm.ClosedError) rather than a
 *    freed node. The handle also exports the mapped window through the
 *    buffer protocol (memoryview(handle) is zero-copy and writable); while
 *    such buffers exist the node stays attached, and the real rfm_close()
 *    happens when the last one is released.
 *  - Errors become instances of the rfm.Error hierarchy: the package
 *    registers a factory (code, message) -> exception at import time.
 *  - Arguments are checked with messages that name the function and the
 *    argument: offsets (RangeError when outside 0..2^64-1), values (must
 *    fit the access width), lengths, URIs (str or None), data (any
 *    C-contiguous bytes-like object, read through the buffer protocol).
 *  - rfm_mem_read() returns bytes, read directly into the new object.
 *  - After fork(), the child's handles are closed (rfm_py_forget, called by
 *    the package's at-fork hook) and say why when used; librfm leaves the
 *    parent's node id to the parent.
 *  - The GIL is held during calls (they are short and never block), so a
 *    close in another thread cannot free a node under a running call; it
 *    is released only around the calls that may wait: rfm_open() and
 *    rfm_network_destroy() wait for another process's open lock.
 */

%{
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <sched.h>

#if PY_VERSION_HEX < 0x030A0000
static inline PyObject *Py_NewRef(PyObject *obj)
{
	Py_INCREF(obj);
	return obj;
}
#endif

/* The module's entry point, exported by SWIG's runtime; declared for -Wmissing-prototypes. */
SWIGEXPORT PyObject *SWIG_init(void);

/* ---- errors ---- */

/* rfm._errors registers a callable (code, message) -> exception instance. */
static PyObject *rfm_py_error_factory;

/* Raise the exception for @code with @text (a str; the reference is stolen). */
static void rfm_py_raise(int code, PyObject *text)
{
	PyObject *exc = NULL;

	if (!text)
		return; /* building the message failed: that error is pending */
	if (rfm_py_error_factory)
		exc = PyObject_CallFunction(rfm_py_error_factory, "iO", code, text);
	if (exc)
		PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
	else if (!PyErr_Occurred())
		PyErr_Format(PyExc_RuntimeError, "librfm error %d: %U", code, text);
	Py_XDECREF(exc);
	Py_DECREF(text);
}

/* Messages may name user input; a truncated multi-byte tail must not fail. */
static void rfm_py_set_error(int code, const char *message)
{
	rfm_py_raise(code, PyUnicode_DecodeUTF8(message, (Py_ssize_t)strlen(message), "replace"));
}

#define RFM_SWIG_ERROR(code, message) rfm_py_set_error((code), (message))

static PyObject *rfm_py_set_error_factory(PyObject *factory)
{
	if (factory != Py_None && !PyCallable_Check(factory)) {
		PyErr_SetString(PyExc_TypeError, "the error factory must be callable or None");
		return NULL;
	}
	Py_XDECREF(rfm_py_error_factory);
	rfm_py_error_factory = factory == Py_None ? NULL : Py_NewRef(factory);
	Py_RETURN_NONE;
}

/* ---- node handles ---- */

/* Handles that depend on another (variables on a node...): an intrusive ring. */
struct rfm_py_link {
	struct rfm_py_link *prev, *next;
};

static void rfm_py_children_close(struct rfm_py_link *head);

typedef struct {
	PyObject_HEAD
	rfm_node *node;		/* what calls use; NULL once closed */
	rfm_node *attached;	/* the open node until rfm_close() really ran */
	char *base;		/* the mapped window, looked up at the first export */
	Py_ssize_t size;
	Py_ssize_t exports;	/* buffers handed out and not yet released */
	int inherited;		/* dropped in a fork()ed child: the parent's node */
	/* Calls running without the GIL (waits, callback changes): close cancels them first. */
	unsigned long inflight;
	unsigned long callback_errors;	/* exceptions raised by callbacks */
	struct rfm_py_link children;	/* variable and record handles opened on it */
	PyObject *callbacks[RFM_EVENT_TYPE_MAX + 1];	/* called by the dispatcher */
} rfm_py_node;

static PyTypeObject rfm_py_node_type;

static PyObject *rfm_py_node_new(rfm_node *node)
{
	rfm_py_node *self = PyObject_New(rfm_py_node, &rfm_py_node_type);

	if (!self)
		return NULL;
	self->node = node;
	self->attached = node;
	self->base = NULL;
	self->size = 0;
	self->exports = 0;
	self->inherited = 0;
	self->inflight = 0;
	self->callback_errors = 0;
	self->children.prev = self->children.next = &self->children;
	memset(self->callbacks, 0, sizeof(self->callbacks));
	return (PyObject *)self;
}

/*
 * rfm_close() without the GIL: it waits for a running callback, which
 * needs the GIL to finish. Nothing can reach the node meanwhile: its
 * pointers are cleared first. The callbacks go after the close, so none
 * runs without its function.
 */
static void rfm_py_node_detach(rfm_py_node *self)
{
	rfm_node *node = self->attached;
	size_t i;

	rfm_py_children_close(&self->children);
	self->node = NULL;
	self->attached = NULL;
	self->base = NULL;
	self->size = 0;
	if (node) {
		Py_BEGIN_ALLOW_THREADS
		rfm_close(node);
		Py_END_ALLOW_THREADS
	}
	for (i = 0; i <= RFM_EVENT_TYPE_MAX; i++)
		Py_CLEAR(self->callbacks[i]);
}

/*
 * Before a close: wake the calls that run without the GIL on this node
 * (a wait about to start included: a cancel is never lost) and let them
 * leave, so that none enters the library with a freed node.
 */
static void rfm_py_node_quiesce(rfm_py_node *self, rfm_node *node)
{
	while (self->inflight > 0) {
		rfm_event_cancel(node);
		Py_BEGIN_ALLOW_THREADS
		sched_yield();
		Py_END_ALLOW_THREADS
	}
}

static void rfm_py_node_dealloc(PyObject *obj)
{
	/* Buffers hold a reference, so none is outstanding here. */
	rfm_py_node_detach((rfm_py_node *)obj);
	PyObject_Free(obj);
}

static PyObject *rfm_py_node_repr(PyObject *obj)
{
	rfm_py_node *self = (rfm_py_node *)obj;

	if (self->node)
		return PyUnicode_FromFormat("<NodeHandle %s>", rfm_node_uri(self->node));
	if (self->attached)
		return PyUnicode_FromFormat("<NodeHandle closed, detaching when %zd buffer(s) are released>",
					    self->exports);
	if (self->inherited)
		return PyUnicode_FromString("<NodeHandle of the parent process>");
	return PyUnicode_FromString("<NodeHandle closed>");
}

static int rfm_py_node_getbuffer(PyObject *obj, Py_buffer *view, int flags)
{
	rfm_py_node *self = (rfm_py_node *)obj;

	view->obj = NULL;
	if (!self->node) {
		rfm_py_raise(RFM_ECLOSED,
			     PyUnicode_FromString("memory: the node is closed"));
		return -1;
	}
	if (!self->base) {
		void *base;
		uint64_t size;
		int ret = rfm_mem_map(self->node, &base, &size);

		if (ret) {
			rfm_py_set_error(ret, rfm_last_error());
			return -1;
		}
		if (size > (uint64_t)PY_SSIZE_T_MAX) {
			rfm_py_raise(RFM_ESIZE, PyUnicode_FromString(
					     "memory: the window is larger than Python can address"));
			return -1;
		}
		self->base = base;
		self->size = (Py_ssize_t)size;
	}
	if (PyBuffer_FillInfo(view, obj, self->base, self->size, 0, flags) < 0)
		return -1;
	self->exports++;
	return 0;
}

static void rfm_py_node_releasebuffer(PyObject *obj, Py_buffer *view)
{
	rfm_py_node *self = (rfm_py_node *)obj;

	(void)view;
	if (--self->exports == 0 && !self->node && self->attached)
		rfm_py_node_detach(self); /* the close that was waiting for us */
}

static PyBufferProcs rfm_py_node_as_buffer = {
	.bf_getbuffer = rfm_py_node_getbuffer,
	.bf_releasebuffer = rfm_py_node_releasebuffer,
};

static PyTypeObject rfm_py_node_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "rfm._rfm_swig.NodeHandle",
	.tp_basicsize = sizeof(rfm_py_node),
	.tp_dealloc = rfm_py_node_dealloc,
	.tp_repr = rfm_py_node_repr,
	.tp_as_buffer = &rfm_py_node_as_buffer,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "An open librfm node (from rfm_open()); exports its window as a buffer.",
};

/* The node behind @obj for a call of @func, or -1 with TypeError/ClosedError set. */
static int rfm_py_node_arg(PyObject *obj, rfm_node **nodep, const char *func)
{
	if (Py_TYPE(obj) != &rfm_py_node_type) {
		PyErr_Format(PyExc_TypeError, "%s: expected a NodeHandle from rfm_open(), not %.100s",
			     func, Py_TYPE(obj)->tp_name);
		return -1;
	}
	*nodep = ((rfm_py_node *)obj)->node;
	if (!*nodep) {
		if (((rfm_py_node *)obj)->inherited)
			rfm_py_raise(RFM_ECLOSED, PyUnicode_FromFormat(
					     "%s: the node belongs to the parent process: "
					     "open the network again after fork()", func));
		else
			rfm_py_raise(RFM_ECLOSED, PyUnicode_FromFormat("%s: the node is closed", func));
		return -1;
	}
	return 0;
}

/*
 * Close for Python: the handle reads "closed" at once; the node detaches
 * now, or when the last exported buffer is released. Returns True when
 * the detach was deferred. Closing twice is harmless.
 */
static PyObject *rfm_py_close(PyObject *obj)
{
	rfm_py_node *self = (rfm_py_node *)obj;

	if (Py_TYPE(obj) != &rfm_py_node_type) {
		PyErr_Format(PyExc_TypeError, "rfm_close: expected a NodeHandle from rfm_open(), not %.100s",
			     Py_TYPE(obj)->tp_name);
		return NULL;
	}
	if (!self->node)
		Py_RETURN_FALSE;
	{
		rfm_node *node = self->node;

		self->node = NULL;
		rfm_py_node_quiesce(self, node);	/* waits out first: they use the records */
	}
	rfm_py_children_close(&self->children);
	if (self->exports > 0)
		Py_RETURN_TRUE;
	rfm_py_node_detach(self);
	Py_RETURN_FALSE;
}

/*
 * In a fork()ed child (the package's at-fork hook): close the handle as
 * rfm_close() does, so the child frees its copy, and remember why, so that
 * a later call says so. librfm leaves the parent's node id to the parent
 * (see fork() in <rfm/node.h>); views the child holds keep the window
 * mapped until they are released, as after any close.
 */
static PyObject *rfm_py_forget(PyObject *obj)
{
	rfm_py_node *self = (rfm_py_node *)obj;

	if (Py_TYPE(obj) != &rfm_py_node_type) {
		PyErr_Format(PyExc_TypeError, "expected a NodeHandle, not %.100s", Py_TYPE(obj)->tp_name);
		return NULL;
	}
	if (!self->node)
		Py_RETURN_NONE;
	self->inherited = 1;
	rfm_py_children_close(&self->children);
	self->node = NULL;
	if (self->exports == 0)
		rfm_py_node_detach(self);
	Py_RETURN_NONE;
}

/* (open, attached, exported buffers) of a handle, for tests and repr. */
static PyObject *rfm_py_handle_state(PyObject *obj)
{
	rfm_py_node *self = (rfm_py_node *)obj;

	if (Py_TYPE(obj) != &rfm_py_node_type) {
		PyErr_Format(PyExc_TypeError, "expected a NodeHandle, not %.100s", Py_TYPE(obj)->tp_name);
		return NULL;
	}
	return Py_BuildValue("(OOn)", self->node ? Py_True : Py_False,
			     self->attached ? Py_True : Py_False, self->exports);
}

/* ---- argument conversion ---- */

/* An exact int for @what of @func, or -1 with TypeError set. */
static PyObject *rfm_py_int_arg(PyObject *obj, const char *func, const char *what)
{
	if (PyLong_Check(obj))
		return Py_NewRef(obj);
	if (PyIndex_Check(obj) && !PyFloat_Check(obj))
		return PyNumber_Index(obj);
	PyErr_Format(PyExc_TypeError, "%s: %s must be an int, not %.100s", func, what,
		     Py_TYPE(obj)->tp_name);
	return NULL;
}

/* A window offset: any int; outside 0..2^64-1 is outside every window. */
static int rfm_py_offset(PyObject *obj, uint64_t *out, const char *func)
{
	unsigned long long value;
	PyObject *num;
	int ret;

	if (PyLong_CheckExact(obj)) {
		value = PyLong_AsUnsignedLongLong(obj);
		if (value != (unsigned long long)-1 || !PyErr_Occurred()) {
			*out = value;
			return 0;
		}
		PyErr_Clear();
		rfm_py_raise(RFM_ERANGE, PyUnicode_FromFormat(
				     "%s: offset %R lies outside the window", func, obj));
		return -1;
	}
	num = rfm_py_int_arg(obj, func, "offset");
	if (!num)
		return -1;
	if (!PyLong_CheckExact(num)) { /* an int subclass such as bool */
		Py_SETREF(num, PyNumber_Long(num));
		if (!num)
			return -1;
	}
	ret = rfm_py_offset(num, out, func);
	Py_DECREF(num);
	return ret;
}

/* A value to store in @bits bits: an int in 0..2^bits-1, else ValueError. */
static int rfm_py_uint(PyObject *obj, unsigned int bits, uint64_t *out, const char *func)
{
	unsigned long long value, max = bits == 64 ? ~0ull : (1ull << bits) - 1;
	PyObject *num = rfm_py_int_arg(obj, func, "value");

	if (!num)
		return -1;
	value = PyLong_AsUnsignedLongLong(num);
	if (value == (unsigned long long)-1 && PyErr_Occurred()) {
		if (!PyErr_ExceptionMatches(PyExc_OverflowError)) {
			Py_DECREF(num);
			return -1;
		}
		PyErr_Clear();
	} else if (value <= max) {
		Py_DECREF(num);
		*out = value;
		return 0;
	}
	PyErr_Format(PyExc_ValueError, "%s: value %R does not fit in %u bits (0..%llu)", func, num,
		     bits, max);
	Py_DECREF(num);
	return -1;
}

/* A byte count: a non-negative int. */
static int rfm_py_length(PyObject *obj, Py_ssize_t *out, const char *func)
{
	PyObject *num = rfm_py_int_arg(obj, func, "length");
	Py_ssize_t value;

	if (!num)
		return -1;
	value = PyLong_AsSsize_t(num);
	if (value == -1 && PyErr_Occurred()) {
		if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
			PyErr_Clear();
			PyObject *zero = PyLong_FromLong(0);
			int negative = zero ? PyObject_RichCompareBool(num, zero, Py_LT) : -1;

			Py_XDECREF(zero);
			if (negative < 0)
				; /* the comparison failed: its error is pending */
			else if (negative)
				PyErr_Format(PyExc_ValueError, "%s: length %R is negative", func, num);
			else
				rfm_py_raise(RFM_ERANGE, PyUnicode_FromFormat(
						     "%s: length %R is larger than any window", func, num));
		}
		Py_DECREF(num);
		return -1;
	}
	Py_DECREF(num);
	if (value < 0) {
		PyErr_Format(PyExc_ValueError, "%s: length %zd is negative", func, value);
		return -1;
	}
	*out = value;
	return 0;
}

/* Bytes to write: any C-contiguous bytes-like object, never a str. */
static int rfm_py_get_buffer(PyObject *obj, Py_buffer *view, const char *func)
{
	if (PyUnicode_Check(obj)) {
		PyErr_Format(PyExc_TypeError,
			     "%s: data must be a bytes-like object, not str (encode it first)", func);
		return -1;
	}
	if (PyObject_GetBuffer(obj, view, PyBUF_SIMPLE) == 0)
		return 0;
	if (PyErr_ExceptionMatches(PyExc_TypeError)) {
		PyErr_Clear();
		PyErr_Format(PyExc_TypeError, "%s: data must be a bytes-like object, not %.100s", func,
			     Py_TYPE(obj)->tp_name);
	}
	return -1;
}

/* A URI: None (the default network) or a str without NUL characters. */
static int rfm_py_uri(PyObject *obj, const char **out, const char *func)
{
	Py_ssize_t len;
	const char *text;

	if (obj == Py_None) {
		*out = NULL;
		return 0;
	}
	if (!PyUnicode_Check(obj)) {
		PyErr_Format(PyExc_TypeError, "%s: uri must be a str or None, not %.100s", func,
			     Py_TYPE(obj)->tp_name);
		return -1;
	}
	text = PyUnicode_AsUTF8AndSize(obj, &len);
	if (!text)
		return -1;
	if ((size_t)len != strlen(text)) {
		PyErr_Format(PyExc_ValueError, "%s: uri must not contain NUL characters", func);
		return -1;
	}
	*out = text;
	return 0;
}
%}

%init %{
	if (PyType_Ready(&rfm_py_node_type) < 0)
		return NULL;
	Py_INCREF(&rfm_py_node_type);
	if (PyModule_AddObject(m, "NodeHandle", (PyObject *)&rfm_py_node_type) < 0) {
		Py_DECREF(&rfm_py_node_type);
		return NULL;
	}
%}

/* ---- typemaps ---- */

%typemap(in, noblock=1) rfm_node *, const rfm_node * {
	{
		rfm_node *node_arg;

		if (rfm_py_node_arg($input, &node_arg, "$symname") < 0)
			SWIG_fail;
		$1 = node_arg;
	}
}

%typemap(argout, noblock=1) rfm_node **nodep {
	{
		PyObject *handle = rfm_py_node_new(new_node$argnum);

		if (!handle) {
			rfm_close(new_node$argnum);
			SWIG_fail;
		}
		%append_output(handle);
	}
}

%typemap(in, noblock=1) uint64_t offset {
	if (rfm_py_offset($input, &$1, "$symname") < 0)
		SWIG_fail;
}

%define RFM_PY_VALUE(bits)
%typemap(in, noblock=1) uint##bits##_t value (uint64_t wide) {
	if (rfm_py_uint($input, bits, &wide, "$symname") < 0)
		SWIG_fail;
	$1 = (uint##bits##_t)wide;
}
%enddef
RFM_PY_VALUE(8)
RFM_PY_VALUE(16)
RFM_PY_VALUE(32)
RFM_PY_VALUE(64)

%typemap(in, noblock=1) const char *uri {
	{
		const char *uri_arg;

		if (rfm_py_uri($input, &uri_arg, "$symname") < 0)
			SWIG_fail;
		$1 = (char *)uri_arg;
	}
}

/* rfm_mem_read: read straight into a new bytes object of the asked length. */
%typemap(in, noblock=1) (void *buf, size_t len) (PyObject *bytes = NULL) {
	{
		Py_ssize_t length;

		if (rfm_py_length($input, &length, "$symname") < 0)
			SWIG_fail;
		bytes = PyBytes_FromStringAndSize(NULL, length);
		if (!bytes)
			SWIG_fail;
		$1 = PyBytes_AS_STRING(bytes);
		$2 = (size_t)length;
	}
}
%typemap(argout, noblock=1) (void *buf, size_t len) {
	%append_output(bytes$argnum);
	bytes$argnum = NULL;
}
%typemap(freearg, noblock=1) (void *buf, size_t len) {
	Py_XDECREF(bytes$argnum);
}

/* rfm_mem_write: any bytes-like object, without a copy. */
%typemap(in, noblock=1) (const void *buf, size_t len) (Py_buffer view, int have_view = 0) {
	if (rfm_py_get_buffer($input, &view, "$symname") < 0)
		SWIG_fail;
	have_view = 1;
	$1 = view.buf;
	$2 = (size_t)view.len;
}
%typemap(freearg, noblock=1) (const void *buf, size_t len) {
	if (have_view$argnum)
		PyBuffer_Release(&view$argnum);
}

/* ---- threads: keep the GIL, except where a call may wait ---- */

%nothread;
%thread rfm_open;
%thread rfm_network_destroy;

/* ---- Python-only entry points ---- */

/* rfm_close() is replaced by the handle-clearing close above. */
%ignore rfm_close;
%rename(rfm_close) rfm_py_close;
PyObject *rfm_py_close(PyObject *handle);
%rename(_forget) rfm_py_forget;
PyObject *rfm_py_forget(PyObject *handle);
%rename(_handle_state) rfm_py_handle_state;
PyObject *rfm_py_handle_state(PyObject *handle);
%rename(_set_error_factory) rfm_py_set_error_factory;
PyObject *rfm_py_set_error_factory(PyObject *factory);

%include "python/rfm_python_events.i"
%include "python/rfm_python_layout.i"
%include "python/rfm_python_rings.i"
%include "python/rfm_python_recorder.i"
