/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Python refinements for <rfm/layout.h> (included by rfm_python.i).
 *
 *  - Layouts, variable handles and record handles are one small C type,
 *    Handle, that clears its pointer when closed (so a second close, or a
 *    call after it, raises rfm.ClosedError instead of touching freed
 *    memory).
 *  - A variable or record handle depends on the node it was opened on
 *    (and a record's variable on the record): closing the node closes
 *    them first, as <rfm/layout.h> requires. The parent keeps them in an
 *    intrusive ring; each holds a reference to its parent.
 *  - A failed load raises rfm.LayoutError whose .diagnostics lists every
 *    problem as (file, line, column, code, message, text) tuples; the
 *    package turns them into rfm.Diagnostic.
 */

%{
enum rfm_py_kind {
	RFM_PY_LAYOUT = 1,
	RFM_PY_VAR,
	RFM_PY_RECORD,
	RFM_PY_RING,		/* rfm_python_rings.i */
	RFM_PY_CONSUMER,
	RFM_PY_RECORDER,	/* rfm_python_recorder.i */
};

static const char *const rfm_py_kind_names[] = {
	[RFM_PY_LAYOUT] = "layout",
	[RFM_PY_VAR] = "variable",
	[RFM_PY_RECORD] = "record",
	[RFM_PY_RING] = "ring",
	[RFM_PY_CONSUMER] = "ring consumer",
	[RFM_PY_RECORDER] = "recorder",
};

typedef struct {
	PyObject_HEAD
	int kind;
	void *ptr;			/* NULL once closed */
	PyObject *parent;		/* the NodeHandle or record Handle it needs */
	unsigned long inflight;		/* record waits running without the GIL */
	struct rfm_py_link link;	/* in the parent's children */
	struct rfm_py_link children;	/* a record's variable handles */
} rfm_py_handle;

static PyTypeObject rfm_py_handle_type;

#define rfm_py_handle_of_link(l) \
	((rfm_py_handle *)((char *)(l) - offsetof(rfm_py_handle, link)))

static void rfm_py_handle_close(rfm_py_handle *self)
{
	void *ptr = self->ptr;

	if (!ptr)
		return;
	self->ptr = NULL;
	/*
	 * A record wait in another thread runs without the GIL: wake it (a
	 * cancel of the node is never lost; other waits on that node see
	 * rfm.Canceled too) and let it leave before the record is freed.
	 */
	while (self->inflight > 0) {
		rfm_node *node = ((rfm_py_node *)self->parent)->attached;

		if (node)
			rfm_event_cancel(node);
		Py_BEGIN_ALLOW_THREADS
		sched_yield();
		Py_END_ALLOW_THREADS
	}
	rfm_py_children_close(&self->children);
	if (self->link.next) {
		self->link.prev->next = self->link.next;
		self->link.next->prev = self->link.prev;
		self->link.prev = self->link.next = NULL;
	}
	switch (self->kind) {
	case RFM_PY_LAYOUT:
		rfm_layout_free(ptr);
		break;
	case RFM_PY_VAR:
		rfm_var_close(ptr);
		break;
	case RFM_PY_RECORD:
		rfm_record_close(ptr);
		break;
	case RFM_PY_RING:
		rfm_ring_close(ptr);
		break;
	case RFM_PY_CONSUMER:
		rfm_ring_consumer_close(ptr);
		break;
	case RFM_PY_RECORDER:
		/* Stops a running recording: its threads take no GIL, the join is short. */
		Py_BEGIN_ALLOW_THREADS
		rfm_recorder_free(ptr);
		Py_END_ALLOW_THREADS
		break;
	}
	Py_CLEAR(self->parent);
}

static void rfm_py_children_close(struct rfm_py_link *head)
{
	while (head->next != head)
		rfm_py_handle_close(rfm_py_handle_of_link(head->next));
}

static PyObject *rfm_py_handle_new(int kind, void *ptr, PyObject *parent,
				   struct rfm_py_link *ring)
{
	rfm_py_handle *self = PyObject_New(rfm_py_handle, &rfm_py_handle_type);

	if (!self)
		return NULL;
	self->kind = kind;
	self->ptr = ptr;
	self->parent = parent ? Py_NewRef(parent) : NULL;
	self->inflight = 0;
	self->children.prev = self->children.next = &self->children;
	self->link.prev = self->link.next = NULL;
	if (ring) {
		self->link.next = ring;
		self->link.prev = ring->prev;
		ring->prev->next = &self->link;
		ring->prev = &self->link;
	}
	return (PyObject *)self;
}

static void rfm_py_handle_dealloc(PyObject *obj)
{
	rfm_py_handle_close((rfm_py_handle *)obj);
	PyObject_Free(obj);
}

static PyObject *rfm_py_handle_repr(PyObject *obj)
{
	rfm_py_handle *self = (rfm_py_handle *)obj;
	const char *kind = rfm_py_kind_names[self->kind];

	if (!self->ptr)
		return PyUnicode_FromFormat("<%s Handle closed>", kind);
	if (self->kind == RFM_PY_VAR)
		return PyUnicode_FromFormat("<variable Handle %s>", rfm_var_name(self->ptr));
	return PyUnicode_FromFormat("<%s Handle>", kind);
}

static PyTypeObject rfm_py_handle_type = {
	PyVarObject_HEAD_INIT(NULL, 0)
	.tp_name = "rfm._rfm_swig.Handle",
	.tp_basicsize = sizeof(rfm_py_handle),
	.tp_dealloc = rfm_py_handle_dealloc,
	.tp_repr = rfm_py_handle_repr,
	.tp_flags = Py_TPFLAGS_DEFAULT,
	.tp_doc = "A librfm layout, variable or record handle.",
};

/* The pointer of a Handle of @kind for @func, or -1 with TypeError/ClosedError set. */
static int rfm_py_handle_arg(PyObject *obj, int kind, void **out, const char *func)
{
	rfm_py_handle *self = (rfm_py_handle *)obj;

	if (Py_TYPE(obj) != &rfm_py_handle_type || self->kind != kind) {
		PyErr_Format(PyExc_TypeError, "%s: expected a %s Handle, not %.100s", func,
			     rfm_py_kind_names[kind],
			     Py_TYPE(obj) == &rfm_py_handle_type ? rfm_py_kind_names[self->kind]
								: Py_TYPE(obj)->tp_name);
		return -1;
	}
	if (!self->ptr) {
		rfm_py_raise(RFM_ECLOSED, PyUnicode_FromFormat(
				     "%s: the %s handle is closed%s", func, rfm_py_kind_names[kind],
				     kind == RFM_PY_LAYOUT ? "" : " (or its node is)"));
		return -1;
	}
	*out = self->ptr;
	return 0;
}

/* A name argument: a str without NUL. */
static int rfm_py_name(PyObject *obj, const char **out, const char *func)
{
	Py_ssize_t len;
	const char *text;

	if (!PyUnicode_Check(obj)) {
		PyErr_Format(PyExc_TypeError, "%s: name must be a str, not %.100s", func,
			     Py_TYPE(obj)->tp_name);
		return -1;
	}
	text = PyUnicode_AsUTF8AndSize(obj, &len);
	if (!text)
		return -1;
	if ((size_t)len != strlen(text)) {
		PyErr_Format(PyExc_ValueError, "%s: name must not contain NUL characters", func);
		return -1;
	}
	*out = text;
	return 0;
}

/* Attach the diagnostics to the pending rfm.LayoutError (if any). */
static void rfm_py_attach_diags(rfm_diag_list *diags)
{
	PyObject *type, *value, *tb, *list;
	size_t i, n = rfm_diag_list_count(diags);

	if (!n || !PyErr_Occurred())
		return;
	PyErr_Fetch(&type, &value, &tb);
	PyErr_NormalizeException(&type, &value, &tb);
	list = PyList_New(0);
	for (i = 0; list && i < n; i++) {
		struct rfm_diag d;
		PyObject *item;

		memset(&d, 0, sizeof(d));
		d.struct_size = sizeof(d);
		if (rfm_diag_list_get(diags, i, &d) < 0)
			continue;
		item = Py_BuildValue("(sIIiss)", d.file ? d.file : "", d.line, d.column, d.code,
				     d.message ? d.message : "", d.text ? d.text : "");
		if (!item || PyList_Append(list, item) < 0)
			Py_CLEAR(list);
		Py_XDECREF(item);
	}
	if (list && value && PyObject_SetAttrString(value, "diagnostics", list) < 0)
		PyErr_Clear();
	Py_XDECREF(list);
	PyErr_Restore(type, value, tb);
}

/* rfm_var_open(layout, node, name) -> variable Handle. */
static PyObject *rfm_py_var_open(PyObject *layout_obj, PyObject *node_obj, PyObject *name_obj)
{
	const char *func = "rfm_var_open", *name;
	void *layout;
	rfm_node *node;
	rfm_var *var;
	PyObject *handle;
	int ret;

	if (rfm_py_handle_arg(layout_obj, RFM_PY_LAYOUT, &layout, func) < 0 ||
	    rfm_py_node_arg(node_obj, &node, func) < 0 || rfm_py_name(name_obj, &name, func) < 0)
		return NULL;
	ret = rfm_var_open(layout, node, name, &var);
	if (ret < 0) {
		rfm_py_set_error(ret, rfm_last_error());
		return NULL;
	}
	handle = rfm_py_handle_new(RFM_PY_VAR, var, node_obj, &((rfm_py_node *)node_obj)->children);
	if (!handle)
		rfm_var_close(var);
	return handle;
}

/* rfm_record_open(layout, node, name) -> record Handle. */
static PyObject *rfm_py_record_open(PyObject *layout_obj, PyObject *node_obj, PyObject *name_obj)
{
	const char *func = "rfm_record_open", *name;
	void *layout;
	rfm_node *node;
	rfm_record *rec;
	PyObject *handle;
	int ret;

	if (rfm_py_handle_arg(layout_obj, RFM_PY_LAYOUT, &layout, func) < 0 ||
	    rfm_py_node_arg(node_obj, &node, func) < 0 || rfm_py_name(name_obj, &name, func) < 0)
		return NULL;
	ret = rfm_record_open(layout, node, name, &rec);
	if (ret < 0) {
		rfm_py_set_error(ret, rfm_last_error());
		return NULL;
	}
	handle = rfm_py_handle_new(RFM_PY_RECORD, rec, node_obj,
				   &((rfm_py_node *)node_obj)->children);
	if (!handle)
		rfm_record_close(rec);
	return handle;
}

/* rfm_record_var(record, name) -> variable Handle on the record's image. */
static PyObject *rfm_py_record_var(PyObject *rec_obj, PyObject *name_obj)
{
	const char *func = "rfm_record_var", *name;
	void *rec;
	rfm_var *var;
	PyObject *handle;
	int ret;

	if (rfm_py_handle_arg(rec_obj, RFM_PY_RECORD, &rec, func) < 0 ||
	    rfm_py_name(name_obj, &name, func) < 0)
		return NULL;
	ret = rfm_record_var(rec, name, &var);
	if (ret < 0) {
		rfm_py_set_error(ret, rfm_last_error());
		return NULL;
	}
	handle = rfm_py_handle_new(RFM_PY_VAR, var, rec_obj, &((rfm_py_handle *)rec_obj)->children);
	if (!handle)
		rfm_var_close(var);
	return handle;
}

/*
 * rfm_record_wait(record, last, timeout_ns=None) -> the new sequence.
 * Blocks without the GIL, in slices (signals are handled between them);
 * counted on the record and its node, so that closing either wakes it
 * and waits for it to leave the library first.
 */
static PyObject *rfm_py_record_wait(PyObject *rec_obj, PyObject *last_obj, PyObject *timeout_obj)
{
	const char *func = "rfm_record_wait";
	rfm_py_handle *self = (rfm_py_handle *)rec_obj;
	rfm_py_node *owner;
	uint64_t deadline = 0, last;
	int64_t timeout, slice;
	uint32_t seq = 0;
	void *rec;
	int ret;

	if (rfm_py_handle_arg(rec_obj, RFM_PY_RECORD, &rec, func) < 0)
		return NULL;
	if (rfm_py_uint(last_obj, 32, &last, func) < 0 || rfm_py_timeout(timeout_obj, &timeout, func) < 0)
		return NULL;
	owner = (rfm_py_node *)self->parent;
	if (timeout > 0)
		deadline = rfm_event_now_ns() + (uint64_t)timeout;
	for (;;) {
		if (timeout == 0) {
			ret = rfm_record_wait(rec, (uint32_t)last, 0, &seq);
			break;
		}
		slice = RFM_PY_WAIT_SLICE_NS;
		if (timeout > 0) {
			uint64_t now = rfm_event_now_ns();

			slice = now >= deadline ? 0 : (int64_t)(deadline - now);
			if (slice > RFM_PY_WAIT_SLICE_NS)
				slice = RFM_PY_WAIT_SLICE_NS;
		}
		self->inflight++;
		owner->inflight++;
		Py_BEGIN_ALLOW_THREADS
		ret = rfm_record_wait(rec, (uint32_t)last, slice, &seq);
		Py_END_ALLOW_THREADS
		owner->inflight--;
		self->inflight--;
		if (!self->ptr || !owner->node) {
			rfm_py_raise(RFM_ECLOSED, PyUnicode_FromFormat(
					     "%s: the record was closed during the wait", func));
			return NULL;
		}
		if (ret == RFM_ETIMEDOUT || ret == RFM_EAGAIN) {
			if (timeout > 0 && rfm_event_now_ns() >= deadline) {
				ret = RFM_ETIMEDOUT;
				break;
			}
			if (PyErr_CheckSignals() < 0)
				return NULL;
			continue;
		}
		break;
	}
	if (ret < 0) {
		rfm_py_set_error(ret, rfm_last_error());
		return NULL;
	}
	return PyLong_FromUnsignedLong(seq);
}

/* The frees: close the Handle (twice is harmless; None is ignored, as NULL in C). */
static PyObject *rfm_py_free(PyObject *obj, int kind, const char *func)
{
	void *ptr;

	if (obj == Py_None)
		Py_RETURN_NONE;
	if (Py_TYPE(obj) == &rfm_py_handle_type && !((rfm_py_handle *)obj)->ptr &&
	    ((rfm_py_handle *)obj)->kind == kind)
		Py_RETURN_NONE;
	if (rfm_py_handle_arg(obj, kind, &ptr, func) < 0)
		return NULL;
	rfm_py_handle_close((rfm_py_handle *)obj);
	Py_RETURN_NONE;
}

static PyObject *rfm_py_layout_free(PyObject *obj)
{
	return rfm_py_free(obj, RFM_PY_LAYOUT, "rfm_layout_free");
}

static PyObject *rfm_py_var_close(PyObject *obj)
{
	return rfm_py_free(obj, RFM_PY_VAR, "rfm_var_close");
}

static PyObject *rfm_py_record_close(PyObject *obj)
{
	return rfm_py_free(obj, RFM_PY_RECORD, "rfm_record_close");
}

/* True while the Handle is open (for tests). */
static PyObject *rfm_py_handle_open(PyObject *obj)
{
	if (Py_TYPE(obj) != &rfm_py_handle_type) {
		PyErr_Format(PyExc_TypeError, "expected a Handle, not %.100s", Py_TYPE(obj)->tp_name);
		return NULL;
	}
	return PyBool_FromLong(((rfm_py_handle *)obj)->ptr != NULL);
}
%}

%init %{
	if (PyType_Ready(&rfm_py_handle_type) < 0)
		return NULL;
	Py_INCREF(&rfm_py_handle_type);
	if (PyModule_AddObject(m, "Handle", (PyObject *)&rfm_py_handle_type) < 0) {
		Py_DECREF(&rfm_py_handle_type);
		return NULL;
	}
%}

/* ---- typemaps ---- */

%define RFM_PY_HANDLE_IN(ctype, kind)
%typemap(in, noblock=1) ctype *, const ctype * {
	{
		void *handle_arg;

		if (rfm_py_handle_arg($input, kind, &handle_arg, "$symname") < 0)
			SWIG_fail;
		$1 = handle_arg;
	}
}
%enddef
RFM_PY_HANDLE_IN(rfm_layout, RFM_PY_LAYOUT)
RFM_PY_HANDLE_IN(rfm_var, RFM_PY_VAR)
RFM_PY_HANDLE_IN(rfm_record, RFM_PY_RECORD)

/* rfm_layout_new/load: a layout Handle. */
%typemap(argout, noblock=1) rfm_layout **layoutp {
	{
		PyObject *handle = rfm_py_handle_new(RFM_PY_LAYOUT, new_handle$argnum, NULL, NULL);

		if (!handle) {
			rfm_layout_free(new_handle$argnum);
			SWIG_fail;
		}
		%append_output(handle);
	}
}

/* A failed load: the problems go with the error before the list is freed. */
%typemap(freearg, noblock=1) rfm_diag_list **diagsp {
	rfm_py_attach_diags(diags$argnum);
	rfm_diag_list_free(diags$argnum);
}

/* ---- Python-only entry points ---- */

%ignore rfm_var_open;
%rename(rfm_var_open) rfm_py_var_open;
PyObject *rfm_py_var_open(PyObject *layout, PyObject *node, PyObject *name);
%ignore rfm_record_open;
%rename(rfm_record_open) rfm_py_record_open;
PyObject *rfm_py_record_open(PyObject *layout, PyObject *node, PyObject *name);
%ignore rfm_record_var;
%rename(rfm_record_var) rfm_py_record_var;
PyObject *rfm_py_record_var(PyObject *record, PyObject *name);
%ignore rfm_layout_free;
%rename(rfm_layout_free) rfm_py_layout_free;
PyObject *rfm_py_layout_free(PyObject *layout);
%ignore rfm_var_close;
%rename(rfm_var_close) rfm_py_var_close;
PyObject *rfm_py_var_close(PyObject *var);
%ignore rfm_record_close;
%rename(rfm_record_close) rfm_py_record_close;
PyObject *rfm_py_record_close(PyObject *record);
%ignore rfm_record_wait;
%rename(rfm_record_wait) rfm_py_record_wait;
PyObject *rfm_py_record_wait(PyObject *record, PyObject *last, PyObject *timeout_ns);
%rename(_handle_open) rfm_py_handle_open;
PyObject *rfm_py_handle_open(PyObject *handle);
