/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Two hosts, one loop: a plant simulator (node 1) and its controller
 * (node 2), each on its own host with its own copy of the window
 * (examples/demo-hosts.sh runs them in two network namespaces on dds:).
 *
 * Every cycle the simulator writes its typed variables (plant.speed,
 * plant.temperature, then plant.cycle) and sends INTR1 with the cycle
 * number; the controller, woken by it, reads them — interrupts follow the
 * data, so they are there — writes control.throttle and control.cycle and
 * answers with INTR1. Each side checks that the cycle it reads is the one
 * the interrupt announced, and fails loudly if not.
 *
 *   hosts-demo controller URI LAYOUT   print "ready", answer until INTR2
 *   hosts-demo sim URI LAYOUT CYCLES   find node 2, run CYCLES cycles, stop it
 *
 * The layout is examples/layouts/hosts-demo.yaml.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rfm/rfm.h>

#define CONTROLLER 2
#define TARGET_RPM 1500.0
#define WAIT_NS 10000000000  /* an answer within 10 s, or the demo fails */
#define HELLO_NS 20000000000 /* node 2 must be found within 20 s */
#define STEP_NS 100000000    /* hello every 100 ms until then */
#define IDLE_NS 60000000000  /* the controller gives up after 60 s of silence */

struct vars {
	rfm_var *plant_cycle, *speed, *temperature, *control_cycle, *throttle;
};

static int fail(const char *who, const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", who, what, rfm_last_error());
	return 1;
}

static int open_all(const char *who, const char *uri, const char *layout_path,
		    rfm_node **nodep, rfm_layout **layoutp, struct vars *v)
{
	static const char *const names[] = { "plant.cycle", "plant.speed", "plant.temperature",
					     "control.cycle", "control.throttle" };
	rfm_var **slots[] = { &v->plant_cycle, &v->speed, &v->temperature, &v->control_cycle,
			      &v->throttle };

	if (rfm_layout_load_file(layout_path, layoutp, NULL))
		return fail(who, layout_path);
	if (rfm_open(uri, nodep))
		return fail(who, uri);
	if (rfm_event_enable(*nodep, RFM_EVENT_BIT(RFM_EVENT_INTR1) | RFM_EVENT_BIT(RFM_EVENT_INTR2)))
		return fail(who, "rfm_event_enable");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (rfm_var_open(*layoutp, *nodep, names[i], slots[i]))
			return fail(who, names[i]);
	return 0;
}

static void close_all(rfm_node *node, rfm_layout *layout, struct vars *v)
{
	rfm_var_close(v->plant_cycle);
	rfm_var_close(v->speed);
	rfm_var_close(v->temperature);
	rfm_var_close(v->control_cycle);
	rfm_var_close(v->throttle);
	rfm_close(node);
	rfm_layout_free(layout);
}

/* Waits for INTR1 from node `from` carrying `data`; other records are skipped. */
static int wait_intr1(rfm_node *node, unsigned int from, uint32_t data, int64_t timeout_ns)
{
	uint64_t end = rfm_event_now_ns() + (uint64_t)timeout_ns;
	struct rfm_event ev;

	for (;;) {
		uint64_t now = rfm_event_now_ns();
		int rc;

		if (now >= end)
			return RFM_ETIMEDOUT;
		rc = rfm_event_wait(node, &ev, (int64_t)(end - now));
		if (rc)
			return rc;
		if (ev.type == RFM_EVENT_INTR1 && ev.sender == from && ev.data == data)
			return 0;
	}
}

static int controller(const char *uri, const char *layout_path)
{
	const char *who = "controller";
	rfm_node *node = NULL;
	rfm_layout *layout = NULL;
	struct vars v = { 0 };
	struct rfm_event ev;
	unsigned int answered = 0;
	int rc = 1;

	if (open_all(who, uri, layout_path, &node, &layout, &v))
		goto out;
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		uint32_t cycle;
		double speed, temperature, throttle;

		if (rfm_event_wait(node, &ev, IDLE_NS)) {
			fail(who, "waiting for the simulator");
			goto out;
		}
		if (ev.type == RFM_EVENT_INTR2)
			break;
		if (ev.type != RFM_EVENT_INTR1)
			continue;
		if (ev.data == 0) { /* hello */
			if (rfm_event_send(node, ev.sender, RFM_EVENT_INTR1, 0) < 0) {
				fail(who, "answering hello");
				goto out;
			}
			continue;
		}
		if (rfm_var_get_u32(v.plant_cycle, 0, &cycle) || rfm_var_get_f64(v.speed, 0, &speed) ||
		    rfm_var_get_f64(v.temperature, 0, &temperature)) {
			fail(who, "reading the plant");
			goto out;
		}
		if (cycle != ev.data) {
			fprintf(stderr, "%s: INTR1 announced cycle %u but plant.cycle is %u: "
					"the interrupt overtook the data\n", who, ev.data, cycle);
			goto out;
		}
		/* A proportional controller towards TARGET_RPM. */
		throttle = 0.5 + (TARGET_RPM - speed) / 2000.0;
		throttle = throttle < 0 ? 0 : throttle > 1 ? 1 : throttle;
		if (rfm_var_set_f64(v.throttle, 0, throttle) ||
		    rfm_var_set_u32(v.control_cycle, 0, cycle) ||
		    rfm_event_send(node, ev.sender, RFM_EVENT_INTR1, cycle) < 0) {
			fail(who, "answering");
			goto out;
		}
		answered++;
	}
	printf("controller (node %d): answered %u cycles, every plant.cycle matched its "
	       "interrupt\n", rfm_node_id(node), answered);
	rc = 0;
out:
	close_all(node, layout, &v);
	return rc;
}

static int find_controller(const char *who, rfm_node *node)
{
	uint64_t end = rfm_event_now_ns() + HELLO_NS;

	while (rfm_event_now_ns() < end) {
		/* RFM_ENODE until node 2 is discovered: keep saying hello. */
		int rc = rfm_event_send(node, CONTROLLER, RFM_EVENT_INTR1, 0);

		if (rc < 0 && rc != RFM_ENODE)
			return fail(who, "hello");
		rc = wait_intr1(node, CONTROLLER, 0, STEP_NS);
		if (rc == 0)
			return 0;
		if (rc != RFM_ETIMEDOUT)
			return fail(who, "waiting for the controller");
	}
	fprintf(stderr, "%s: node %d did not answer in %d s\n", who, CONTROLLER,
		(int)(HELLO_NS / 1000000000));
	return 1;
}

static int sim(const char *uri, const char *layout_path, uint32_t cycles)
{
	const char *who = "simulator";
	rfm_node *node = NULL;
	rfm_layout *layout = NULL;
	struct vars v = { 0 };
	double speed = 0, temperature = 20, throttle = 0;
	int rc = 1;

	if (open_all(who, uri, layout_path, &node, &layout, &v) || find_controller(who, node))
		goto out;
	printf("simulator (node %d) found the controller (node %d)\n", rfm_node_id(node),
	       CONTROLLER);
	for (uint32_t cycle = 1; cycle <= cycles; cycle++) {
		uint32_t answered;

		/* The plant: speed follows the throttle, temperature the speed. */
		speed += (throttle * 3000.0 - speed) * 0.3;
		temperature += (20.0 + speed / 50.0 - temperature) * 0.1;
		/* Data first, the cycle number last, then the interrupt. */
		if (rfm_var_set_f64(v.speed, 0, speed) ||
		    rfm_var_set_f64(v.temperature, 0, temperature) ||
		    rfm_var_set_u32(v.plant_cycle, 0, cycle) ||
		    rfm_event_send(node, CONTROLLER, RFM_EVENT_INTR1, cycle) < 0) {
			fail(who, "writing the plant");
			goto out;
		}
		if (wait_intr1(node, CONTROLLER, cycle, WAIT_NS)) {
			fail(who, "waiting for the controller's answer");
			goto out;
		}
		if (rfm_var_get_u32(v.control_cycle, 0, &answered) ||
		    rfm_var_get_f64(v.throttle, 0, &throttle)) {
			fail(who, "reading the control");
			goto out;
		}
		if (answered != cycle) {
			fprintf(stderr, "%s: the answer to cycle %u carries control.cycle %u\n", who,
				cycle, answered);
			goto out;
		}
		printf("cycle %2u  speed %6.1f rpm  temperature %4.1f degC  ->  throttle %.3f\n",
		       cycle, speed, temperature, throttle);
	}
	if (rfm_event_send(node, CONTROLLER, RFM_EVENT_INTR2, 0) < 0) {
		fail(who, "stopping the controller");
		goto out;
	}
	rc = 0;
out:
	close_all(node, layout, &v);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "controller"))
		return controller(argv[2], argv[3]);
	if (argc == 5 && !strcmp(argv[1], "sim")) {
		char *end;
		unsigned long n;

		errno = 0;
		n = strtoul(argv[4], &end, 10);
		if (!errno && end != argv[4] && !*end && argv[4][0] != '-' && n >= 1 && n <= 100000)
			return sim(argv[2], argv[3], (uint32_t)n);
	}
	fprintf(stderr, "usage: hosts-demo controller URI LAYOUT\n"
			"       hosts-demo sim URI LAYOUT CYCLES   (CYCLES 1..100000)\n");
	return 2;
}
