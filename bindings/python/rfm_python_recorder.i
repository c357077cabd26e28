/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Python refinements for <rfm/recorder.h> (included by rfm_python.i).
 *
 *  - A recorder is layout.i's Handle type (kind recorder), a child of the
 *    node it reads: closing the node stops and frees it first, as
 *    recorder.h requires; closing it twice is harmless.
 *  - rfm_recorder_new(node, layout or None, path, config) takes the
 *    config as an rfm_recorder_config (bindings/rfm.i makes it sized).
 *  - rfm_recorder_wait() and rfm_recorder_stop() run without the GIL:
 *    the recorder's threads never take it.
 */

%{
/* rfm_recorder_new(node, layout, path, config) -> recorder Handle. */
static PyObject *rfm_py_recorder_new(PyObject *node_obj, PyObject *layout_obj, PyObject *path_obj,
				     PyObject *config_obj)
{
	const char *func = "rfm_recorder_new", *path;
	struct rfm_recorder_config *config = NULL;
	rfm_layout *layout = NULL;
	rfm_recorder *rec;
	rfm_node *node;
	void *arg;
	int ret;

	if (rfm_py_node_arg(node_obj, &node, func) < 0 || rfm_py_name(path_obj, &path, func) < 0)
		return NULL;
	if (layout_obj != Py_None) {
		if (rfm_py_handle_arg(layout_obj, RFM_PY_LAYOUT, &arg, func) < 0)
			return NULL;
		layout = arg;
	}
	if (config_obj != Py_None &&
	    !SWIG_IsOK(SWIG_ConvertPtr(config_obj, (void **)&config,
				       SWIGTYPE_p_rfm_recorder_config, 0))) {
		PyErr_Format(PyExc_TypeError, "%s: config must be an rfm_recorder_config", func);
		return NULL;
	}
	ret = rfm_recorder_new(node, layout, path, config, &rec);
	if (ret < 0) {
		rfm_py_set_error(ret, rfm_last_error());
		return NULL;
	}
	PyObject *handle = rfm_py_handle_new(RFM_PY_RECORDER, rec, node_obj,
					     &((rfm_py_node *)node_obj)->children);
	if (!handle)
		rfm_recorder_free(rec);
	return handle;
}

/* rfm_recorder_free(recorder): stop and free; None or a closed one is ignored. */
static PyObject *rfm_py_recorder_free(PyObject *obj)
{
	return rfm_py_free(obj, RFM_PY_RECORDER, "rfm_recorder_free");
}
%}

RFM_PY_HANDLE_IN(rfm_recorder, RFM_PY_RECORDER)

%thread rfm_recorder_wait;
%thread rfm_recorder_stop;
%thread rfm_recorder_start;

%ignore rfm_recorder_new;
%rename(rfm_recorder_new) rfm_py_recorder_new;
PyObject *rfm_py_recorder_new(PyObject *node, PyObject *layout, PyObject *path, PyObject *config);
%ignore rfm_recorder_free;
%rename(rfm_recorder_free) rfm_py_recorder_free;
PyObject *rfm_py_recorder_free(PyObject *recorder);
