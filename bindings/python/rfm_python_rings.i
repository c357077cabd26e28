/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Python refinements for <rfm/ring.h> and <rfm/health.h> (included by rfm_python.i).
 *
 *  - Producer and consumer handles are layout.i's Handle type (kinds ring
 *    and ring consumer): cleared in place on close, closed with their node.
 *  - rfm_ring_publish() and rfm_ring_consume() block without the GIL, in
 *    slices of at most RFM_PY_WAIT_SLICE_NS (signals are handled between
 *    them), counted on the handle and its node so that a close in another
 *    thread waits until they have left the library.
 *  - rfm_ring_consume() returns (bytes, seq, lost); rfm_health_nodes()
 *    returns a list of row tuples.
 *  - Not bound: the zero-copy claim/commit and peek/release (a pointer
 *    into the window a script could keep after the slot moves on), ring
 *    callbacks, and the layout-region variants of create/open.
 */

%{
/* A new ring or consumer Handle on @node_obj (the C handle is closed on failure). */
static PyObject *rfm_py_ring_open_handle(int kind, void *ptr, PyObject *node_obj)
{
	PyObject *handle = rfm_py_handle_new(kind, ptr, node_obj,
					     &((rfm_py_node *)node_obj)->children);

	if (!handle) {
		if (kind == RFM_PY_RING)
			rfm_ring_close(ptr);
		else
			rfm_ring_consumer_close(ptr);
	}
	return handle;
}

/* rfm_ring_create(node, offset, size, slot_size, slot_count, flags, notify_type, ring_id, max_consumers). */
static PyObject *rfm_py_ring_create(PyObject *node_obj, PyObject *offset_obj, PyObject *size_obj,
				    PyObject *slot_size, PyObject *slot_count, PyObject *flags,
				    PyObject *notify_type, PyObject *ring_id,
				    PyObject *max_consumers)
{
	const char *func = "rfm_ring_create";
	struct rfm_ring_config config;
	uint64_t offset, size, v[6];
	PyObject *objs[6] = { slot_size, slot_count, flags, notify_type, ring_id, max_consumers };
	rfm_node *node;
	rfm_ring *ring;
	int i, ret;

	if (rfm_py_node_arg(node_obj, &node, func) < 0 || rfm_py_offset(offset_obj, &offset, func) < 0 ||
	    rfm_py_uint(size_obj, 64, &size, func) < 0)
		return NULL;
	for (i = 0; i < 6; i++)
		if (rfm_py_uint(objs[i], 32, &v[i], func) < 0)
			return NULL;
	memset(&config, 0, sizeof(config));
	config.struct_size = sizeof(config);
	config.slot_size = (uint32_t)v[0];
	config.slot_count = (uint32_t)v[1];
	config.flags = (uint32_t)v[2];
	config.notify_type = (uint32_t)v[3];
	config.ring_id = (uint32_t)v[4];
	config.max_consumers = (uint32_t)v[5];
	ret = rfm_ring_create(node, offset, size, &config, &ring);
	if (ret < 0) {
		rfm_py_set_error(ret, rfm_last_error());
		return NULL;
	}
	return rfm_py_ring_open_handle(RFM_PY_RING, ring, node_obj);
}

/* rfm_ring_attach(node, offset) -> ring Handle. */
static PyObject *rfm_py_ring_attach(PyObject *node_obj, PyObject *offset_obj)
{
	const char *func = "rfm_ring_attach";
	uint64_t offset;
	rfm_node *node;
	rfm_ring *ring;
	int ret;

	if (rfm_py_node_arg(node_obj, &node, func) < 0 || rfm_py_offset(offset_obj, &offset, func) < 0)
		return NULL;
	ret = rfm_ring_attach(node, offset, &ring);
	if (ret < 0) {
		rfm_py_set_error(ret, rfm_last_error());
		return NULL;
	}
	return rfm_py_ring_open_handle(RFM_PY_RING, ring, node_obj);
}

/* rfm_ring_consumer_open(node, offset, flags) -> ring consumer Handle. */
static PyObject *rfm_py_ring_consumer_open(PyObject *node_obj, PyObject *offset_obj,
					   PyObject *flags_obj)
{
	const char *func = "rfm_ring_consumer_open";
	uint64_t offset, flags;
	rfm_node *node;
	rfm_ring_consumer *cons;
	int ret;

	if (rfm_py_node_arg(node_obj, &node, func) < 0 || rfm_py_offset(offset_obj, &offset, func) < 0 ||
	    rfm_py_uint(flags_obj, 32, &flags, func) < 0)
		return NULL;
	ret = rfm_ring_consumer_open(node, offset, (unsigned int)flags, &cons);
	if (ret < 0) {
		rfm_py_set_error(ret, rfm_last_error());
		return NULL;
	}
	return rfm_py_ring_open_handle(RFM_PY_CONSUMER, cons, node_obj);
}

/* The next slice of a blocking call, from its deadline (0: none, wait for ever). */
static int64_t rfm_py_ring_slice(uint64_t deadline)
{
	uint64_t now;

	if (!deadline)
		return RFM_PY_WAIT_SLICE_NS;
	now = rfm_event_now_ns();
	if (now >= deadline)
		return 0;
	return deadline - now > RFM_PY_WAIT_SLICE_NS ? RFM_PY_WAIT_SLICE_NS
						     : (int64_t)(deadline - now);
}

/*
 * One blocking call in slices: @step runs without the GIL with a slice
 * timeout; between slices the handle is checked and signals handled.
 */
struct rfm_py_ring_call {
	rfm_ring *ring;
	rfm_ring_consumer *cons;
	const void *data;
	size_t len;
	void *buf;
	size_t cap;
	struct rfm_ring_msg msg;
};

static int rfm_py_ring_step(struct rfm_py_ring_call *call, int64_t timeout)
{
	if (call->ring)
		return rfm_ring_publish(call->ring, call->data, call->len, timeout);
	return rfm_ring_consume(call->cons, call->buf, call->cap, &call->msg, timeout);
}

static int rfm_py_ring_blocking(PyObject *obj, struct rfm_py_ring_call *call, int64_t timeout,
				const char *func)
{
	rfm_py_handle *self = (rfm_py_handle *)obj;
	rfm_py_node *owner = (rfm_py_node *)self->parent;
	uint64_t deadline = timeout > 0 ? rfm_event_now_ns() + (uint64_t)timeout : 0;
	int ret;

	if (timeout == 0)
		return rfm_py_ring_step(call, 0);
	for (;;) {
		int64_t slice = rfm_py_ring_slice(deadline);

		self->inflight++;
		owner->inflight++;
		Py_BEGIN_ALLOW_THREADS
		ret = rfm_py_ring_step(call, slice);
		Py_END_ALLOW_THREADS
		owner->inflight--;
		self->inflight--;
		if (!self->ptr || !owner->node) {
			rfm_py_raise(RFM_ECLOSED, PyUnicode_FromFormat(
					     "%s: the %s was closed during the wait", func,
					     rfm_py_kind_names[self->kind]));
			return INT_MIN;
		}
		if (ret != RFM_ETIMEDOUT && ret != RFM_EAGAIN && ret != RFM_ECANCELED)
			return ret;
		if (deadline && rfm_event_now_ns() >= deadline)
			return RFM_ETIMEDOUT;
		if (PyErr_CheckSignals() < 0)
			return INT_MIN;
	}
}

/* rfm_ring_publish(ring, data, timeout_ns=None): any bytes-like object. */
static PyObject *rfm_py_ring_publish(PyObject *ring_obj, PyObject *data_obj, PyObject *timeout_obj)
{
	const char *func = "rfm_ring_publish";
	struct rfm_py_ring_call call;
	int64_t timeout;
	Py_buffer view;
	void *ring;
	int ret;

	if (rfm_py_handle_arg(ring_obj, RFM_PY_RING, &ring, func) < 0 ||
	    rfm_py_timeout(timeout_obj, &timeout, func) < 0 ||
	    rfm_py_get_buffer(data_obj, &view, func) < 0)
		return NULL;
	memset(&call, 0, sizeof(call));
	call.ring = ring;
	call.data = view.buf;
	call.len = (size_t)view.len;
	ret = rfm_py_ring_blocking(ring_obj, &call, timeout, func);
	PyBuffer_Release(&view);
	if (ret == INT_MIN)
		return NULL;
	if (ret < 0) {
		rfm_py_set_error(ret, rfm_last_error());
		return NULL;
	}
	Py_RETURN_NONE;
}

/* rfm_ring_consume(consumer, timeout_ns=None) -> (data, seq, lost). */
static PyObject *rfm_py_ring_consume(PyObject *cons_obj, PyObject *timeout_obj)
{
	const char *func = "rfm_ring_consume";
	struct rfm_ring_info info;
	struct rfm_py_ring_call call;
	PyObject *bytes, *result;
	int64_t timeout;
	void *cons;
	int ret;

	if (rfm_py_handle_arg(cons_obj, RFM_PY_CONSUMER, &cons, func) < 0 ||
	    rfm_py_timeout(timeout_obj, &timeout, func) < 0)
		return NULL;
	memset(&info, 0, sizeof(info));
	info.struct_size = sizeof(info);
	ret = rfm_ring_consumer_get_info(cons, &info);
	if (ret < 0) {
		rfm_py_set_error(ret, rfm_last_error());
		return NULL;
	}
	bytes = PyBytes_FromStringAndSize(NULL, info.slot_size);
	if (!bytes)
		return NULL;
	memset(&call, 0, sizeof(call));
	call.cons = cons;
	call.buf = PyBytes_AS_STRING(bytes);
	call.cap = info.slot_size;
	ret = rfm_py_ring_blocking(cons_obj, &call, timeout, func);
	if (ret == INT_MIN) {
		Py_DECREF(bytes);
		return NULL;
	}
	if (ret < 0) {
		Py_DECREF(bytes);
		rfm_py_set_error(ret, rfm_last_error());
		return NULL;
	}
	if (_PyBytes_Resize(&bytes, call.msg.len < info.slot_size ? call.msg.len : info.slot_size) < 0)
		return NULL;
	result = Py_BuildValue("(NKK)", bytes, (unsigned long long)call.msg.seq,
			       (unsigned long long)call.msg.lost);
	return result;
}

static PyObject *rfm_py_ring_close(PyObject *obj)
{
	return rfm_py_free(obj, RFM_PY_RING, "rfm_ring_close");
}

static PyObject *rfm_py_ring_consumer_close(PyObject *obj)
{
	return rfm_py_free(obj, RFM_PY_CONSUMER, "rfm_ring_consumer_close");
}

/*
 * rfm_ring_inspect(node, offset) -> (info, [(node, entry, pid, flags, cursor, lag, laps)]),
 * info: (slot_size, slot_count, flags, producer, notify_type, ring_id,
 * max_consumers, offset, footprint, head).
 */
static PyObject *rfm_py_ring_inspect(PyObject *node_obj, PyObject *offset_obj)
{
	const char *func = "rfm_ring_inspect";
	struct rfm_ring_info *info;
	struct rfm_ring_consumer_view *views = NULL;
	size_t cap = 0, n = 0;
	uint64_t offset;
	rfm_node *node;
	PyObject *list, *info_obj;
	int ret;

	if (rfm_py_node_arg(node_obj, &node, func) < 0 || rfm_py_offset(offset_obj, &offset, func) < 0)
		return NULL;
	info = calloc(1, sizeof(*info));
	if (!info)
		return PyErr_NoMemory();
	info->struct_size = sizeof(*info);
	/* Ask for the count, then for that many (more may register meanwhile). */
	for (;;) {
		if (cap) {
			struct rfm_ring_consumer_view *more = realloc(views, cap * sizeof(*views));

			if (!more) {
				free(views);
				free(info);
				return PyErr_NoMemory();
			}
			views = more;
			memset(views, 0, cap * sizeof(*views));
			views[0].struct_size = sizeof(*views);
		}
		ret = rfm_ring_inspect(node, offset, info, views, cap, &n);
		if (ret < 0) {
			free(views);
			free(info);
			rfm_py_set_error(ret, rfm_last_error());
			return NULL;
		}
		if (n <= cap)
			break;
		cap = n + 4;
	}
	list = PyList_New(0);
	for (size_t i = 0; list && i < n; i++) {
		const struct rfm_ring_consumer_view *v = &views[i];
		PyObject *item = Py_BuildValue("(IIiIKKK)", v->node, v->entry, (int)v->pid, v->flags,
					       (unsigned long long)v->cursor,
					       (unsigned long long)v->lag,
					       (unsigned long long)v->laps);

		if (!item || PyList_Append(list, item) < 0)
			Py_CLEAR(list);
		Py_XDECREF(item);
	}
	free(views);
	if (!list) {
		free(info);
		return NULL;
	}
	info_obj = Py_BuildValue("(IIIIIIIKKK)", info->slot_size, info->slot_count, info->flags,
				 info->producer, info->notify_type, info->ring_id,
				 info->max_consumers, (unsigned long long)info->offset,
				 (unsigned long long)info->footprint, (unsigned long long)info->head);
	free(info);
	if (!info_obj) {
		Py_DECREF(list);
		return NULL;
	}
	return Py_BuildValue("(NN)", info_obj, list);
}

/* rfm_health_nodes(node) -> [(id, attached, alive, incarnation, age_ns, beats, period_ns, pid, host)]. */
static PyObject *rfm_py_health_nodes(PyObject *node_obj)
{
	const char *func = "rfm_health_nodes";
	struct rfm_node_status *rows = NULL;
	size_t max = 64;
	rfm_node *node;
	PyObject *list;
	int i, n;

	if (rfm_py_node_arg(node_obj, &node, func) < 0)
		return NULL;
	for (;;) {
		struct rfm_node_status *more = realloc(rows, max * sizeof(*rows));

		if (!more) {
			free(rows);
			return PyErr_NoMemory();
		}
		rows = more;
		memset(rows, 0, max * sizeof(*rows));
		n = rfm_health_nodes(node, rows, max);
		if (n < 0) {
			free(rows);
			rfm_py_set_error(n, rfm_last_error());
			return NULL;
		}
		if ((size_t)n <= max)
			break;
		max = (size_t)n;
	}
	list = PyList_New(0);
	for (i = 0; list && i < n; i++) {
		struct rfm_node_status *r = &rows[i];
		PyObject *item;

		r->host[sizeof(r->host) - 1] = '\0';
		item = Py_BuildValue("(IIIIKKKis)", r->id, r->attached, r->alive, r->incarnation,
				     (unsigned long long)r->age_ns, (unsigned long long)r->beats,
				     (unsigned long long)r->period_ns, (int)r->pid, r->host);
		if (!item || PyList_Append(list, item) < 0)
			Py_CLEAR(list);
		Py_XDECREF(item);
	}
	free(rows);
	return list;
}
%}

RFM_PY_HANDLE_IN(rfm_ring, RFM_PY_RING)
RFM_PY_HANDLE_IN(rfm_ring_consumer, RFM_PY_CONSUMER)

/* rfm_health_start(node, config=None): NULL for the defaults. */
%typemap(default) const struct rfm_health_config *config {
	$1 = NULL;
}

%ignore rfm_ring_create_region;
%ignore rfm_ring_consumer_open_region;
%ignore rfm_ring_claim;
%ignore rfm_ring_commit;
%ignore rfm_ring_peek;
%ignore rfm_ring_release;
%ignore rfm_ring_consumer_set_callback;
%ignore rfm_ring_callback;

%ignore rfm_ring_create;
%rename(rfm_ring_create) rfm_py_ring_create;
PyObject *rfm_py_ring_create(PyObject *node, PyObject *offset, PyObject *size, PyObject *slot_size,
			     PyObject *slot_count, PyObject *flags, PyObject *notify_type,
			     PyObject *ring_id, PyObject *max_consumers);
%ignore rfm_ring_attach;
%rename(rfm_ring_attach) rfm_py_ring_attach;
PyObject *rfm_py_ring_attach(PyObject *node, PyObject *offset);
%ignore rfm_ring_consumer_open;
%rename(rfm_ring_consumer_open) rfm_py_ring_consumer_open;
PyObject *rfm_py_ring_consumer_open(PyObject *node, PyObject *offset, PyObject *flags);
%ignore rfm_ring_publish;
%rename(rfm_ring_publish) rfm_py_ring_publish;
PyObject *rfm_py_ring_publish(PyObject *ring, PyObject *data, PyObject *timeout_ns);
%ignore rfm_ring_consume;
%rename(rfm_ring_consume) rfm_py_ring_consume;
PyObject *rfm_py_ring_consume(PyObject *consumer, PyObject *timeout_ns);
%ignore rfm_ring_close;
%rename(rfm_ring_close) rfm_py_ring_close;
PyObject *rfm_py_ring_close(PyObject *ring);
%ignore rfm_ring_consumer_close;
%rename(rfm_ring_consumer_close) rfm_py_ring_consumer_close;
PyObject *rfm_py_ring_consumer_close(PyObject *consumer);
%ignore rfm_ring_inspect;
%ignore rfm_ring_inspect_region;
%rename(rfm_ring_inspect) rfm_py_ring_inspect;
PyObject *rfm_py_ring_inspect(PyObject *node, PyObject *offset);
%ignore rfm_health_nodes;
%rename(rfm_health_nodes) rfm_py_health_nodes;
PyObject *rfm_py_health_nodes(PyObject *node);
