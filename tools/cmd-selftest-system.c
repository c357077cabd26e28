/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm selftest --system [--cpu LIST] [--rt-prio P]: run every check of system-checks.c
 * and report each finding with its fix, as text or one JSON object. Exit
 * 1 when a check failed for the chosen CPUs, 0 otherwise (warnings too).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "rt-util.h"
#include "system-checks.h"

static const struct option system_options[] = {
	{ "system", no_argument, NULL, 's' },
	{ "cpu", required_argument, NULL, 'c' },
	{ "rt-prio", required_argument, NULL, 'p' },
	{ NULL, 0, NULL, 0 },
};

/*
 * The CPUs to check must exist: an offline or absent CPU has nothing to
 * report. Unlike ping --cpu they may lie outside this process's affinity
 * (isolcpus= takes the isolated CPUs out of it, and those are the ones to
 * check).
 */
static int check_online(struct cli *cli, const char *arg, const rt_cpus *set)
{
	char line[256], bad[128];
	rt_cpus online, missing;

	if (!rt_read_line("/sys/devices/system/cpu/online", line, sizeof(line)) ||
	    rt_parse_cpu_list(line, &online))
		return 0;	/* unknown: the checks say what they find */
	rt_cpus_minus(&missing, set, &online);
	if (!rfm__os_cpus_count(&missing))
		return 0;
	rt_format_cpu_list(&missing, bad, sizeof(bad));
	return cli_usage_error(cli, "--cpu '%s': %s %s %s not online; the online CPUs are %s", arg,
			       rfm__os_cpus_count(&missing) > 1 ? "CPUs" : "CPU", bad,
			       rfm__os_cpus_count(&missing) > 1 ? "are" : "is", line);
}

static int parse_scope(struct cli *cli, int argc, char **argv, struct check_scope *scope)
{
	int opt;

	memset(scope, 0, sizeof(*scope));
	while ((opt = cli_getopt(cli, argc, argv, "sc:p:", system_options)) > 0) {
		if (opt == 'p') {
			char *end;
			long prio = strtol(optarg, &end, 10);

			if (*end || end == optarg || prio < 1 || prio > 99)
				return cli_usage_error(cli, "--rt-prio must be 1..99, not '%s'",
						       optarg);
			scope->rt_prio = (int)prio;
			continue;
		}
		if (opt != 'c')
			continue;
		if (rt_parse_cpu_list(optarg, &scope->cpus) || !rfm__os_cpus_count(&scope->cpus))
			return cli_usage_error(cli, "--cpu '%s' is not a CPU list such as 1 or 0,2-3",
					       optarg);
		int ret = check_online(cli, optarg, &scope->cpus);
		if (ret)
			return ret;
		scope->cpus_chosen = true;
	}
	int ret = cli_options_end(cli, opt, argc, argv, 0, 0);
	if (ret)
		return ret;
	if (!scope->cpus_chosen && tool_os_allowed_cpus(&scope->cpus))
		return cli_error(cli, "the CPUs this process may use are unknown");
	rt_format_cpu_list(&scope->cpus, scope->cpu_list, sizeof(scope->cpu_list));
	return 0;
}

int cli_selftest_system(struct cli *cli, int argc, char **argv)
{
	struct check_scope scope;
	struct json_object *obj = NULL, *checks = NULL;
	unsigned int failed = 0, warned = 0;
	int ret = parse_scope(cli, argc, argv, &scope);

	if (ret)
		return ret == CLI_EXIT_DONE ? CLI_EXIT_OK : ret;
	if (cli->json) {
		obj = json_object_new_object();
		checks = json_object_new_object();
	} else {
		printf("System check for a real-time loop on CPUs %s%s\n", scope.cpu_list,
		       scope.cpus_chosen ? "" : " (all allowed; choose with --cpu)");
	}
	for (const struct system_check *c = system_checks; c->key; c++) {
		struct check_result res;

		memset(&res, 0, sizeof(res));
		c->run(&scope, &res);
		failed += res.status == CHECK_FAIL;
		warned += res.status == CHECK_WARN;
		if (checks) {
			struct json_object *one = json_object_new_object();

			cli_json_add_string(one, "status", check_status_name(res.status));
			cli_json_add_string(one, "finding", res.finding);
			cli_json_add_string(one, "fix", res.fix);
			json_object_object_add(checks, c->key, one);
			continue;
		}
		printf("%-7s %-34s %s\n", check_status_name(res.status), c->title, res.finding);
		if (res.fix[0] && res.status != CHECK_OK)
			printf("        %-34s fix: %s\n", "", res.fix);
	}
	if (obj) {
		cli_json_add_string(obj, "cpus", scope.cpu_list);
		cli_json_add_bool(obj, "cpus_chosen", scope.cpus_chosen);
		cli_json_add_u64(obj, "rt_prio", (uint64_t)scope.rt_prio);
		cli_json_add_bool(obj, "passed", failed == 0);
		cli_json_add_u64(obj, "failed", failed);
		cli_json_add_u64(obj, "warnings", warned);
		json_object_object_add(obj, "checks", checks);
		cli_json_print(obj);
	} else {
		printf("%u failed, %u warning(s): %s\n", failed, warned,
		       failed ? "FAILED for these CPUs" : "passed");
	}
	return failed ? CLI_EXIT_FAILED : CLI_EXIT_OK;
}
