/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Python refinements for <rfm/event.h> (included by rfm_python.i).
 *
 *  - A received record is an rfm.Event, a C struct sequence (a named
 *    tuple: type, sender, data, seq, sent_ns, flags), made without Python
 *    code so callbacks under load stay cheap.
 *  - rfm_event_wait()/rfm_event_fetch() release the GIL while they block,
 *    in slices of at most RFM_PY_WAIT_SLICE_NS so Ctrl-C is seen; a poll
 *    (timeout 0) keeps the GIL. The node counts them as in flight: a close
 *    in another thread cancels them and waits until they have left the
 *    library, so none can enter it with a freed node.
 *  - Callbacks are Python callables kept in the node handle. The
 *    dispatcher thread takes the GIL (PyGILState_Ensure) for each call; an
 *    exception goes to sys.unraisablehook (never lost, never fatal) and is
 *    counted. Registering and unregistering run without the GIL, because
 *    the library waits there for a running callback, which needs the GIL.
 */

%{
/* Longest stretch a blocking wait spends without looking at signals. */
#define RFM_PY_WAIT_SLICE_NS 100000000LL

static PyTypeObject *rfm_py_event_type;

static PyStructSequence_Field rfm_py_event_fields[] = {
	{ "type", "the event type (rfm.EventType value)" },
	{ "sender", "node id of the sender" },
	{ "data", "the 32-bit data word" },
	{ "seq", "this handle's sequence number: 1, 2, 3... with no gap" },
	{ "sent_ns", "sender's CLOCK_MONOTONIC at the send (rfm.now_ns())" },
	{ "flags", "RFM_EVENT_F_LOOPBACK or 0" },
	{ NULL, NULL },
};

static PyStructSequence_Desc rfm_py_event_desc = {
	"rfm.Event",
	"One received network interrupt (struct rfm_event).",
	rfm_py_event_fields,
	6,
};

static PyObject *rfm_py_event_new(const struct rfm_event *ev)
{
	PyObject *obj = PyStructSequence_New(rfm_py_event_type);
	PyObject *items[6];
	int i;

	if (!obj)
		return NULL;
	items[0] = PyLong_FromUnsignedLong(ev->type);
	items[1] = PyLong_FromUnsignedLong(ev->sender);
	items[2] = PyLong_FromUnsignedLong(ev->data);
	items[3] = PyLong_FromUnsignedLongLong(ev->seq);
	items[4] = PyLong_FromUnsignedLongLong(ev->sent_ns);
	items[5] = PyLong_FromUnsignedLong(ev->flags);
	for (i = 0; i < 6; i++) {
		if (!items[i]) {
			for (; i < 6; i++)
				Py_XDECREF(items[i]);
			Py_DECREF(obj);
			return NULL;
		}
		PyStructSequence_SET_ITEM(obj, i, items[i]);
	}
	return obj;
}

static int rfm_py_timeout(PyObject *obj, int64_t *out, const char *func)
{
	long long value;

	if (obj == Py_None) {
		*out = -1;
		return 0;
	}
	if (!PyLong_Check(obj)) {
		PyErr_Format(PyExc_TypeError, "%s: timeout_ns must be an int or None, not %.100s",
			     func, Py_TYPE(obj)->tp_name);
		return -1;
	}
	value = PyLong_AsLongLong(obj);
	if (value == -1 && PyErr_Occurred()) {
		if (!PyErr_ExceptionMatches(PyExc_OverflowError))
			return -1;
		PyErr_Clear();
		value = -1; /* beyond 292 years: forever */
	}
	*out = value < 0 ? -1 : value;
	return 0;
}

/*
 * Take 1..max records (max 0: one, returned as an Event, not a list).
 * Blocks without the GIL in slices; between slices signals are handled.
 */
static PyObject *rfm_py_take(PyObject *obj, Py_ssize_t max, PyObject *timeout_obj,
			     const char *func)
{
	rfm_py_node *self = (rfm_py_node *)obj;
	struct rfm_event one, *evs = &one;
	size_t want = max > 0 ? (size_t)max : 1;
	int64_t timeout, slice;
	uint64_t deadline = 0;
	rfm_node *node;
	PyObject *result = NULL;
	int ret, i;

	if (rfm_py_node_arg(obj, &node, func) < 0)
		return NULL;
	if (rfm_py_timeout(timeout_obj, &timeout, func) < 0)
		return NULL;
	if (want > 1) {
		if (want > 65536)
			want = 65536;
		evs = PyMem_Malloc(want * sizeof(*evs));
		if (!evs)
			return PyErr_NoMemory();
	}
	if (timeout > 0)
		deadline = rfm_event_now_ns() + (uint64_t)timeout;
	for (;;) {
		if (timeout == 0) {
			ret = rfm_event_fetch(node, evs, want, 0);
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
		Py_BEGIN_ALLOW_THREADS
		ret = rfm_event_fetch(node, evs, want, slice);
		Py_END_ALLOW_THREADS
		self->inflight--;
		if (!self->node) {
			rfm_py_raise(RFM_ECLOSED, PyUnicode_FromFormat(
					     "%s: the node was closed during the wait", func));
			goto out;
		}
		if (ret == RFM_ETIMEDOUT || ret == RFM_EAGAIN) {
			if (timeout > 0 && rfm_event_now_ns() >= deadline) {
				ret = RFM_ETIMEDOUT;
				break;
			}
			if (PyErr_CheckSignals() < 0)
				goto out;
			continue;
		}
		break;
	}
	if (ret < 0) {
		rfm_py_set_error(ret, rfm_last_error());
		goto out;
	}
	if (max == 0) {
		result = rfm_py_event_new(&evs[0]);
		goto out;
	}
	result = PyList_New(ret);
	if (!result)
		goto out;
	for (i = 0; i < ret; i++) {
		PyObject *ev = rfm_py_event_new(&evs[i]);

		if (!ev) {
			Py_CLEAR(result);
			goto out;
		}
		PyList_SET_ITEM(result, i, ev);
	}
out:
	if (evs != &one)
		PyMem_Free(evs);
	return result;
}

/* rfm_event_wait(handle, timeout_ns=None) -> Event. */
static PyObject *rfm_py_event_wait(PyObject *handle, PyObject *timeout_ns)
{
	return rfm_py_take(handle, 0, timeout_ns, "rfm_event_wait");
}

/* rfm_event_fetch(handle, max, timeout_ns=None) -> [Event...]. */
static PyObject *rfm_py_event_fetch(PyObject *handle, PyObject *max_obj, PyObject *timeout_ns)
{
	Py_ssize_t max;

	if (rfm_py_length(max_obj, &max, "rfm_event_fetch") < 0)
		return NULL;
	if (max == 0) {
		rfm_py_raise(RFM_EINVAL, PyUnicode_FromString("rfm_event_fetch: max must be at least 1"));
		return NULL;
	}
	return rfm_py_take(handle, max, timeout_ns, "rfm_event_fetch");
}

#if PY_VERSION_HEX >= 0x030D0000
#define rfm_py_finalizing() Py_IsFinalizing()
#else
#define rfm_py_finalizing() _Py_IsFinalizing()
#endif

/* Runs on the dispatcher thread of the node's handle. */
static void rfm_py_dispatch(rfm_node *node, const struct rfm_event *ev, void *arg)
{
	rfm_py_node *self = arg;
	PyGILState_STATE gil;
	PyObject *fn, *event, *res;

	(void)node;
	if (rfm_py_finalizing())
		return; /* taking the GIL now would stop this thread for good */
	gil = PyGILState_Ensure();
	fn = ev->type <= RFM_EVENT_TYPE_MAX ? self->callbacks[ev->type] : NULL;
	if (fn) {
		Py_INCREF(fn); /* the callback may unregister itself */
		event = rfm_py_event_new(ev);
		res = event ? PyObject_CallOneArg(fn, event) : NULL;
		if (!res) {
			self->callback_errors++;
			PyErr_WriteUnraisable(fn);
		}
		Py_XDECREF(res);
		Py_XDECREF(event);
		Py_DECREF(fn);
	}
	PyGILState_Release(gil);
}

static int rfm_py_event_type_arg(PyObject *obj, unsigned int *out, const char *func)
{
	long value;

	if (!PyLong_Check(obj)) {
		PyErr_Format(PyExc_TypeError, "%s: type must be an int, not %.100s", func,
			     Py_TYPE(obj)->tp_name);
		return -1;
	}
	value = PyLong_AsLong(obj);
	if (value == -1 && PyErr_Occurred())
		PyErr_Clear();
	if (value < 0 || value > RFM_EVENT_TYPE_MAX) {
		rfm_py_raise(RFM_EINVAL, PyUnicode_FromFormat("%s: event type %R is not 0..%d",
							      func, obj, RFM_EVENT_TYPE_MAX));
		return -1;
	}
	*out = (unsigned int)value;
	return 0;
}

/* rfm_event_callback_register(handle, type, callable). */
static PyObject *rfm_py_callback_register(PyObject *handle, PyObject *type_obj, PyObject *fn)
{
	rfm_py_node *self = (rfm_py_node *)handle;
	const char *func = "rfm_event_callback_register";
	unsigned int type;
	rfm_node *node;
	int ret;

	if (rfm_py_node_arg(handle, &node, func) < 0 || rfm_py_event_type_arg(type_obj, &type, func) < 0)
		return NULL;
	if (!PyCallable_Check(fn)) {
		PyErr_Format(PyExc_TypeError, "%s: the callback must be callable, not %.100s", func,
			     Py_TYPE(fn)->tp_name);
		return NULL;
	}
	if (self->callbacks[type]) {
		rfm_py_raise(RFM_EBUSY, PyUnicode_FromFormat(
				     "%s: type %u already has a callback", func, type));
		return NULL;
	}
	/* In place before the dispatcher can see the type (it needs the GIL to read it). */
	self->callbacks[type] = Py_NewRef(fn);
	self->inflight++;
	Py_BEGIN_ALLOW_THREADS
	ret = rfm_event_callback_register(node, type, rfm_py_dispatch, self);
	Py_END_ALLOW_THREADS
	self->inflight--;
	if (ret < 0) {
		Py_CLEAR(self->callbacks[type]);
		rfm_py_set_error(ret, rfm_last_error());
		return NULL;
	}
	Py_RETURN_NONE;
}

/* rfm_event_callback_unregister(handle, type): also from inside a callback. */
static PyObject *rfm_py_callback_unregister(PyObject *handle, PyObject *type_obj)
{
	rfm_py_node *self = (rfm_py_node *)handle;
	const char *func = "rfm_event_callback_unregister";
	unsigned int type;
	rfm_node *node;
	int ret;

	if (rfm_py_node_arg(handle, &node, func) < 0 || rfm_py_event_type_arg(type_obj, &type, func) < 0)
		return NULL;
	self->inflight++;
	Py_BEGIN_ALLOW_THREADS
	ret = rfm_event_callback_unregister(node, type);
	Py_END_ALLOW_THREADS
	self->inflight--;
	if (ret < 0) {
		rfm_py_set_error(ret, rfm_last_error());
		return NULL;
	}
	/* Not called again: a call running now holds its own reference. */
	Py_CLEAR(self->callbacks[type]);
	Py_RETURN_NONE;
}

/* Number of exceptions callbacks of this handle have raised. */
static PyObject *rfm_py_callback_errors(PyObject *handle)
{
	if (Py_TYPE(handle) != &rfm_py_node_type) {
		PyErr_Format(PyExc_TypeError, "expected a NodeHandle, not %.100s", Py_TYPE(handle)->tp_name);
		return NULL;
	}
	return PyLong_FromUnsignedLong(((rfm_py_node *)handle)->callback_errors);
}
%}

%init %{
	rfm_py_event_type = PyStructSequence_NewType(&rfm_py_event_desc);
	if (!rfm_py_event_type)
		return NULL;
	if (PyModule_AddObject(m, "Event", (PyObject *)rfm_py_event_type) < 0) {
		Py_DECREF(rfm_py_event_type);
		return NULL;
	}
	Py_INCREF(rfm_py_event_type);
%}

/* Waits that block release the GIL themselves (above); the rest are short. */
%ignore rfm_event_wait;
%rename(rfm_event_wait) rfm_py_event_wait;
PyObject *rfm_py_event_wait(PyObject *handle, PyObject *timeout_ns);
%ignore rfm_event_fetch;
%rename(rfm_event_fetch) rfm_py_event_fetch;
PyObject *rfm_py_event_fetch(PyObject *handle, PyObject *max, PyObject *timeout_ns);
%ignore rfm_event_callback_register;
%rename(rfm_event_callback_register) rfm_py_callback_register;
PyObject *rfm_py_callback_register(PyObject *handle, PyObject *type, PyObject *fn);
%ignore rfm_event_callback_unregister;
%rename(rfm_event_callback_unregister) rfm_py_callback_unregister;
PyObject *rfm_py_callback_unregister(PyObject *handle, PyObject *type);
%rename(_callback_errors) rfm_py_callback_errors;
PyObject *rfm_py_callback_errors(PyObject *handle);
