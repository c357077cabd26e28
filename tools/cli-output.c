/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The node a command works on, how failures are reported, and JSON output.
 * Results go to stdout; every message goes to stderr, prefixed "rfm:", so
 * that stdout stays clean for scripts even when a command fails.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Commands that only read or wait: they must not create a network by a typo. */
static bool reads_only(const struct cli *cli)
{
	static const char *const names[] = { "info", "peek8", "peek16", "peek32", "peek64",
					     "read", "dump", "verify", "get", "watch", "wait",
					     "listen", "nodes", NULL };

	for (const char *const *n = names; cli->command && *n; n++)
		if (!strcmp(cli->command->name, *n))
			return true;
	return false;
}

static int open_node(struct cli *cli, bool only_existing)
{
	const char *uri = cli_effective_uri(cli);
	char *existing = NULL; /* the URI with create=0 */
	int ret;

	if (cli->node)
		return 0;
	/*
	 * shm: "open only if it exists", unless the URI says otherwise: with
	 * create= or with size= (which describes the network to make).
	 */
	if (only_existing && !strncmp(uri, "shm:", 4) && !strstr(uri, "create=") &&
	    !strstr(uri, "size=") &&
	    asprintf(&existing, "%s%ccreate=0", uri, strchr(uri, '?') ? '&' : '?') < 0)
		existing = NULL;
	ret = rfm_open(existing ? existing : cli->uri, &cli->node);
	free(existing);
	if (ret) {
		cli->node = NULL;
		return cli_fail(cli);
	}
	return 0;
}

int cli_open(struct cli *cli)
{
	return open_node(cli, reads_only(cli));
}

int cli_open_existing(struct cli *cli)
{
	return open_node(cli, true);
}

const char *cli_effective_uri(const struct cli *cli)
{
	const char *env;

	/* The library's own rule (node.h); shown to the user, never parsed here. */
	if (cli->uri && cli->uri[0])
		return cli->uri;
	env = getenv("RFM_URI");
	return env && env[0] ? env : RFM_DEFAULT_URI;
}

int cli_fail(struct cli *cli)
{
	char buf[1024];

	fprintf(stderr, "rfm: %s\n", cli_user_message(cli, rfm_last_error(), buf, sizeof(buf)));
	return CLI_EXIT_FAILED;
}

/* "rfm: COMMAND: message", without the newline: every report starts so. */
__attribute__((format(printf, 2, 0)))
static void report(const struct cli *cli, const char *fmt, va_list ap)
{
	fputs("rfm: ", stderr);
	if (cli->command)
		fprintf(stderr, "%s: ", cli->command->name);
	vfprintf(stderr, fmt, ap);
}

int cli_error(struct cli *cli, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(cli, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return CLI_EXIT_FAILED;
}

int cli_usage_error(struct cli *cli, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	report(cli, fmt, ap);
	va_end(ap);
	if (cli->command)
		fprintf(stderr, "\nTry 'rfm %s --help'.\n", cli->command->name);
	else
		fputs("\nTry 'rfm --help'.\n", stderr);
	return CLI_EXIT_USAGE;
}

int cli_check_range(struct cli *cli, uint64_t offset, uint64_t length)
{
	uint64_t size = rfm_node_size(cli->node);
	uint8_t none;

	if (length <= size && offset <= size - length)
		return 0;
	/*
	 * Out of the window, the library refuses the whole request before it
	 * copies a byte (memory.h), so this only fetches its wording. Lengths
	 * that do not fit a size_t cannot be in any window either.
	 */
	if (length > SIZE_MAX || rfm_mem_read(cli->node, offset, &none, (size_t)length) == 0)
		return cli_error(cli, "%llu bytes at offset 0x%llx lie outside the %llu-byte window",
				 (unsigned long long)length, (unsigned long long)offset,
				 (unsigned long long)size);
	return cli_fail(cli);
}

void cli_print_version(const struct cli *cli)
{
	if (cli->json) {
		struct json_object *obj = json_object_new_object();

		cli_json_add_string(obj, "tool", PACKAGE_VERSION);
		cli_json_add_string(obj, "library", rfm_version_string());
		cli_json_print(obj);
		return;
	}
	printf("rfm %s (librfm %s)\n", PACKAGE_VERSION, rfm_version_string());
}

void cli_json_add_string(struct json_object *obj, const char *key, const char *value)
{
	json_object_object_add(obj, key, json_object_new_string(value));
}

void cli_json_add_u64(struct json_object *obj, const char *key, uint64_t value)
{
	json_object_object_add(obj, key, json_object_new_uint64(value));
}

void cli_json_add_int(struct json_object *obj, const char *key, int64_t value)
{
	json_object_object_add(obj, key, json_object_new_int64(value));
}

void cli_json_add_bool(struct json_object *obj, const char *key, bool value)
{
	json_object_object_add(obj, key, json_object_new_boolean(value));
}

int cli_json_print_bytes(struct cli *cli, uint64_t offset, size_t length)
{
	static const char digits[] = "0123456789abcdef";
	struct json_object *obj;
	uint8_t *buf = malloc(length ? length : 1);
	char *hex = malloc(2 * length + 1);
	int ret = CLI_EXIT_OK;

	if (!buf || !hex) {
		ret = cli_error(cli, "out of memory");
		goto out;
	}
	if (rfm_mem_read(cli->node, offset, buf, length)) {
		ret = cli_fail(cli);
		goto out;
	}
	for (size_t i = 0; i < length; i++) {
		hex[2 * i] = digits[buf[i] >> 4];
		hex[2 * i + 1] = digits[buf[i] & 0xf];
	}
	hex[2 * length] = '\0';
	obj = json_object_new_object();
	cli_json_add_u64(obj, "offset", offset);
	cli_json_add_u64(obj, "length", length);
	cli_json_add_string(obj, "hex", hex);
	cli_json_print(obj);
out:
	free(buf);
	free(hex);
	return ret;
}

void cli_json_print(struct json_object *obj)
{
	/* One line per object, so later streaming commands can print one per event. */
	puts(json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN |
							 JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(obj);
}

int cli_open_range(struct cli *cli, int opt, int argc, char **argv, uint64_t *offset,
		   size_t *length)
{
	int ret = cli_options_end(cli, opt, argc, argv, 2, 2);

	if (!ret)
		ret = cli_parse_bytes(cli, "OFFSET", argv[optind], UINT64_MAX, offset);
	if (!ret)
		ret = cli_parse_size(cli, "LENGTH", argv[optind + 1], length);
	if (!ret)
		ret = cli_open(cli);
	if (!ret)
		ret = cli_check_range(cli, *offset, *length);
	return ret;
}
