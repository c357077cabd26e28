/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm serve: what the server reads from its node. Variables are read
 * through the library's typed handles and events are taken from the
 * server's own queue: the server never writes the window unless a write
 * request (--allow-write) asks it to.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "serve.h"

int serve_open_vars(struct serve *s)
{
	size_t n = rfm_layout_var_count(s->layout);

	if (!n)
		return 0;
	s->vars = calloc(n, sizeof(*s->vars));
	if (!s->vars)
		return cli_error(s->cli, "out of memory");
	for (size_t i = 0; i < n; i++) {
		struct serve_var *v = &s->vars[s->nvars];

		v->info.struct_size = sizeof(v->info);
		if (rfm_layout_var_info(s->layout, i, &v->info) ||
		    rfm_var_open(s->layout, s->cli->node, v->info.name, &v->var))
			return cli_fail(s->cli);
		s->nvars++;
	}
	return 0;
}

void serve_close_vars(struct serve *s)
{
	for (size_t i = 0; i < s->nvars; i++)
		rfm_var_close(s->vars[i].var);
	free(s->vars);
	s->vars = NULL;
	s->nvars = 0;
}

struct serve_var *serve_find_var(struct serve *s, const char *name)
{
	for (size_t i = 0; i < s->nvars; i++)
		if (!strcmp(s->vars[i].info.name, name))
			return &s->vars[i];
	return NULL;
}

static bool numeric(int type)
{
	return type >= RFM_TYPE_U8 && type <= RFM_TYPE_F64;
}

/*
 * A numeric scalar, read straight into a local: the sampler reads every
 * variable HZ times a second, so this path makes no allocation of its own.
 */
static struct json_object *scalar_value(struct serve_var *v)
{
	union { uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64; int8_t i8; int16_t i16;
		int32_t i32; int64_t i64; float f32; double f64; } e = { .u64 = 0 };

	if (v->info.element_size > sizeof(e) || rfm_var_get_array(v->var, 0, 1, &e, sizeof(e)))
		return NULL;
	switch (v->info.type) {
	case RFM_TYPE_U8: return json_object_new_int64(e.u8);
	case RFM_TYPE_U16: return json_object_new_int64(e.u16);
	case RFM_TYPE_U32: return json_object_new_int64(e.u32);
	case RFM_TYPE_U64: return json_object_new_uint64(e.u64);
	case RFM_TYPE_I8: return json_object_new_int64(e.i8);
	case RFM_TYPE_I16: return json_object_new_int64(e.i16);
	case RFM_TYPE_I32: return json_object_new_int64(e.i32);
	case RFM_TYPE_I64: return json_object_new_int64(e.i64);
	case RFM_TYPE_F32: return json_object_new_double(e.f32);
	default: return json_object_new_double(e.f64);
	}
}

struct json_object *serve_var_value(struct serve *s, struct serve_var *v, double *number)
{
	struct json_object *value = NULL;
	bool scalar = numeric(v->info.type) && v->info.count <= 1;

	*number = NAN;
	if (scalar)
		value = scalar_value(v);
	else if (cli_var_json(s->cli, v->var, &value))
		return NULL;
	if (scalar && value) {
		*number = json_object_get_double(value);
		/* JSON has no NaN or infinity: such a float is shown as null. */
		if (!isfinite(*number)) {
			json_object_put(value);
			value = NULL;
		}
	}
	return value;
}

bool serve_out_of_range(const struct serve_var *v, double value)
{
	if (isnan(value))
		return false;
	return (v->info.has_min && value < v->info.min) || (v->info.has_max && value > v->info.max);
}

bool serve_node_up(const struct rfm_node_status *r)
{
	enum serve_node_state s = serve_node_state(r);

	return s == SERVE_NODE_UP || s == SERVE_NODE_NO_HEARTBEAT;
}

enum serve_node_state serve_node_state(const struct rfm_node_status *r)
{
	switch (r->state) {
	case RFM_NODE_STATE_UP: return SERVE_NODE_UP;
	case RFM_NODE_STATE_ATTACHED: return SERVE_NODE_NO_HEARTBEAT;
	case RFM_NODE_STATE_LEFT: return SERVE_NODE_LEFT;
	case RFM_NODE_STATE_CRASHED: return SERVE_NODE_CRASHED;
	default: return SERVE_NODE_SILENT;
	}
}

const char *serve_node_state_name(enum serve_node_state state)
{
	static const char *const names[] = { "absent", "up", "no_heartbeat", "silent", "left",
					     "crashed" };

	return state < SERVE_NODE_STATES ? names[state] : "absent";
}

bool serve_node_down(enum serve_node_state state)
{
	return state == SERVE_NODE_SILENT || state == SERVE_NODE_CRASHED;
}

void serve_node_states(struct serve *s, uint8_t states[RFM_MAX_NODES])
{
	struct rfm_node_status rows[RFM_MAX_NODES];
	int n = rfm_health_nodes(s->cli->node, rows, RFM_MAX_NODES);

	memset(states, SERVE_NODE_ABSENT, RFM_MAX_NODES);
	for (int i = 0; i < n && i < RFM_MAX_NODES; i++)
		if (rows[i].id < RFM_MAX_NODES)
			states[rows[i].id] = (uint8_t)serve_node_state(&rows[i]);
}

bool serve_writer_stale(const uint8_t states[RFM_MAX_NODES], uint32_t writer)
{
	if (writer >= RFM_MAX_NODES)
		return false;	/* a region any node writes: no one writer to watch */
	return states[writer] != SERVE_NODE_UP && states[writer] != SERVE_NODE_NO_HEARTBEAT;
}
