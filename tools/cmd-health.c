/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm nodes and rfm selftest: the node table and the own-node test.
 */
#include "config.h"

#include <string.h>

#include "cli.h"

static int nodes_run(struct cli *cli, int argc, char **argv)
{
	struct rfm_node_status rows[RFM_MAX_NODES];
	int ret = cli_parse_args(cli, argc, argv, 0, 0), n;

	if (ret)
		return ret;
	ret = cli_open(cli);
	if (ret)
		return ret;
	n = rfm_health_nodes(cli->node, rows, RFM_MAX_NODES);
	if (n < 0)
		return cli_fail(cli);
	if (cli->json) {
		struct json_object *obj = json_object_new_object();
		struct json_object *arr = json_object_new_array();

		for (int i = 0; i < n; i++) {
			struct json_object *o = json_object_new_object();
			const struct rfm_node_status *r = &rows[i];

			cli_json_add_u64(o, "id", r->id);
			cli_json_add_bool(o, "attached", r->attached);
			cli_json_add_bool(o, "alive", r->alive);
			cli_json_add_u64(o, "incarnation", r->incarnation);
			if (r->age_ns == UINT64_MAX)
				json_object_object_add(o, "age_ns", NULL);
			else
				cli_json_add_u64(o, "age_ns", r->age_ns);
			cli_json_add_u64(o, "beats", r->beats);
			cli_json_add_u64(o, "period_ns", r->period_ns);
			cli_json_add_int(o, "pid", r->pid);
			cli_json_add_string(o, "host", r->host);
			cli_json_add_bool(o, "self", (int)r->id == rfm_node_id(cli->node));
			json_object_array_add(arr, o);
		}
		json_object_object_add(obj, "nodes", arr);
		cli_json_print(obj);
		return CLI_EXIT_OK;
	}
	printf("%4s  %-8s %-5s %11s %12s %10s %8s  %s\n", "NODE", "ATTACHED", "ALIVE", "INCARNATION",
	       "LAST BEAT", "PERIOD", "PID", "HOST");
	for (int i = 0; i < n; i++) {
		const struct rfm_node_status *r = &rows[i];
		char age[32] = "never", period[32] = "-";

		if (r->age_ns != UINT64_MAX)
			snprintf(age, sizeof(age), "%.1f ms ago", (double)r->age_ns / 1e6);
		if (r->period_ns)
			snprintf(period, sizeof(period), "%.1f ms", (double)r->period_ns / 1e6);
		printf("%4u%s %-8s %-5s %11u %12s %10s %8d  %s\n", r->id,
		       (int)r->id == rfm_node_id(cli->node) ? "*" : " ",
		       r->attached ? "yes" : "no", r->alive ? "yes" : "no", r->incarnation, age,
		       period, r->pid, r->host);
	}
	return CLI_EXIT_OK;
}

const struct cli_command cli_cmd_nodes = {
	.name = "nodes",
	.args = "",
	.summary = "List the network's nodes: attached, alive, incarnation, last beat",
	.help = "Print the node table: every node id attached or that has beaten, whether\n"
		"it beats within its misses (alive), its incarnation (1: cold start, more:\n"
		"restarts), the age of its last heartbeat, its period, process and host.\n"
		"The own node (this command's) is marked '*'; it only beats when a program\n"
		"runs rfm_health_start() on it.\n"
		"\n"
		"JSON: {\"nodes\": [{id, attached, alive, incarnation, age_ns (null: never),\n"
		"beats, period_ns, pid, host, self}]}.\n",
	.run = nodes_run,
};

static const struct option selftest_options[] = {
	{ "offset", required_argument, NULL, 'o' },
	{ NULL, 0, NULL, 0 },
};

static int selftest_run(struct cli *cli, int argc, char **argv)
{
	struct rfm_selftest_result res = { .struct_size = sizeof(res) };
	uint64_t offset = RFM_SELFTEST_NO_MEMORY;
	int opt, ret;

	while ((opt = cli_getopt(cli, argc, argv, "o:", selftest_options)) > 0)
		if (opt == 'o' && (ret = cli_parse_bytes(cli, "offset", optarg, UINT64_MAX, &offset)))
			return ret;
	if (opt == CLI_OPT_STOP)
		return cli->status;
	ret = cli_check_args(cli, argc, argv, 0, 0);
	if (!ret)
		ret = cli_open(cli);
	if (ret)
		return ret;
	ret = rfm_selftest(cli->node, offset, &res);
	if (ret && ret != RFM_EIO)
		return cli_fail(cli);
	bool mem = offset != RFM_SELFTEST_NO_MEMORY;
	if (cli->json) {
		struct json_object *obj = json_object_new_object();

		cli_json_add_bool(obj, "passed", ret == 0);
		if (mem) {
			cli_json_add_bool(obj, "memory_ok", res.memory_ok);
			cli_json_add_u64(obj, "memory_errors", res.memory_errors);
		}
		cli_json_add_bool(obj, "event_ok", res.event_ok);
		cli_json_add_u64(obj, "event_latency_ns", res.event_latency_ns);
		cli_json_print(obj);
	} else {
		if (mem)
			printf("memory write/readback: %s (%u byte errors)\n",
			       res.memory_ok ? "ok" : "FAILED", res.memory_errors);
		printf("loopback event: %s", res.event_ok ? "ok" : "FAILED");
		if (res.event_ok)
			printf(" (%llu ns)", (unsigned long long)res.event_latency_ns);
		printf("\nself-test %s\n", ret ? "FAILED" : "passed");
	}
	return ret ? CLI_EXIT_FAILED : CLI_EXIT_OK;
}

const struct cli_command cli_cmd_selftest = {
	.name = "selftest",
	.args = "[--offset OFFSET]",
	.summary = "Test the own node: loopback event, and write/readback at OFFSET",
	.help = "Send an event to this node with loopback and take it back; with --offset,\n"
		"first write patterns to 64 bytes at OFFSET, read them back and restore\n"
		"the old contents (choose bytes no other node writes meanwhile).\n"
		"Exit 0 when every part passed, 1 otherwise.\n"
		"\n"
		"Options:\n"
		"  -o, --offset OFFSET  also test 64 bytes of the window at OFFSET\n"
		"\n"
		"JSON keys: passed, memory_ok, memory_errors (with --offset), event_ok,\n"
		"event_latency_ns.\n",
	.run = selftest_run,
};
