/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Timestamps in the output of listen, wait, watch and nodes (--time). The
 * library stamps events with CLOCK_MONOTONIC (rfm_event_now_ns()); a
 * wall-clock (realtime) time is that moment moved by the present offset
 * between the two clocks. Realtime is shown in UTC, ISO 8601, to the
 * microsecond; monotonic as seconds since boot.
 */
#include "config.h"

#include <string.h>
#include <time.h>

#include "cli.h"

int cli_parse_clock(struct cli *cli, const char *text, enum cli_clock *clock)
{
	static const char *const names[] = { "realtime", "monotonic" };

	if (!strcmp(text, "realtime")) {
		*clock = CLI_CLOCK_REALTIME;
		return 0;
	}
	if (!strcmp(text, "monotonic")) {
		*clock = CLI_CLOCK_MONOTONIC;
		return 0;
	}
	const char *near = cli_suggest(text, names, 2);
	return cli_usage_error(cli, "unknown clock '%s' (use realtime or monotonic)%s%s%s", text,
			       near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
}

void cli_format_time(enum cli_clock clock, uint64_t mono_ns, char *buf, size_t len)
{
	if (clock == CLI_CLOCK_MONOTONIC) {
		snprintf(buf, len, "%llu.%09llu", (unsigned long long)(mono_ns / 1000000000u),
			 (unsigned long long)(mono_ns % 1000000000u));
		return;
	}
	struct timespec real;
	uint64_t now = rfm_event_now_ns(), ns;
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &real);
	ns = (uint64_t)real.tv_sec * 1000000000u + (uint64_t)real.tv_nsec;
	ns -= now > mono_ns ? now - mono_ns : 0;
	time_t secs = (time_t)(ns / 1000000000u);
	gmtime_r(&secs, &tm);
	size_t n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%06lluZ", (unsigned long long)(ns % 1000000000u / 1000));
}

void cli_json_add_time(struct json_object *obj, const char *key, enum cli_clock clock,
		       uint64_t mono_ns)
{
	char text[64];

	cli_format_time(clock, mono_ns, text, sizeof(text));
	if (clock == CLI_CLOCK_MONOTONIC)
		json_object_object_add(obj, key, json_object_new_double((double)mono_ns / 1e9));
	else
		cli_json_add_string(obj, key, text);
}
