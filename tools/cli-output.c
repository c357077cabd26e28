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

static bool named(const struct cli *cli, const char *const *names)
{
	for (const char *const *n = names; cli->command && *n; n++)
		if (!strcmp(cli->command->name, *n))
			return true;
	return false;
}

/*
 * How the command attaches (rfm(1), "Observers and tools"): commands that
 * only look are observers, holding no node id a real node may need; the
 * others act as a node and take the id the URI names, else one of the
 * range kept for tools.
 */
static enum cli_attach attach_of(const struct cli *cli)
{
	static const char *const observers[] = { "info", "peek8", "peek16", "peek32", "peek64",
						 "read", "dump", "verify", "get", "watch",
						 "nodes", NULL };

	return named(cli, observers) ? CLI_ATTACH_OBSERVER : CLI_ATTACH_TOOL;
}

/* Commands that wait: they must not create a network by a typo. */
static bool only_existing(const struct cli *cli)
{
	static const char *const names[] = { "wait", "listen", "stats", NULL };

	return named(cli, names);
}

/* Whether the URI's query has parameter @key. */
static bool has_param(const char *uri, const char *key)
{
	const char *q = strchr(uri, '?');
	size_t len = strlen(key);

	for (const char *p = q; p; p = strchr(p + 1, '&'))
		if (!strncmp(p + 1, key, len) && p[1 + len] == '=')
			return true;
	return false;
}

/*
 * @uri as @how opens it: an observer's without the parameters of a node
 * (node=, shared=: it holds no id; create=, mode=, depth=: it makes no
 * network) and with observe=1; a tool's with tool=1 (and create=0 for the
 * commands that wait, unless the URI describes a network to make). NULL:
 * no memory.
 */
static char *attach_uri(const char *uri, enum cli_attach how, bool must_exist)
{
	static const char *const node_params[] = { "node", "shared", "create", "mode", "depth",
						   NULL };
	const char *q = strchr(uri, '?');
	size_t base = q ? (size_t)(q - uri) : strlen(uri);
	char *out = malloc(strlen(uri) + 32), *w;

	if (!out)
		return NULL;
	memcpy(out, uri, base);
	w = out + base;
	for (const char *p = q; p && *p;) {
		const char *item = p + 1, *amp = strchr(item, '&');
		size_t len = amp ? (size_t)(amp - item) : strlen(item);
		bool drop = false;

		for (const char *const *k = node_params; how == CLI_ATTACH_OBSERVER && *k; k++)
			drop |= len > strlen(*k) && !strncmp(item, *k, strlen(*k)) &&
				item[strlen(*k)] == '=';
		if (!drop) {
			char sep = w == out + base ? '?' : '&';

			*w++ = sep;
			memcpy(w, item, len);
			w += len;
		}
		p = amp;
	}
	*w = '\0';
	if (how == CLI_ATTACH_OBSERVER)
		strcat(out, w == out + base ? "?observe=1" : "&observe=1");
	else if (how == CLI_ATTACH_TOOL && !has_param(uri, "tool") && !has_param(uri, "observe"))
		strcat(out, w == out + base ? "?tool=1" : "&tool=1");
	/* shm: "open only if it exists", unless the URI describes one to make. */
	if (how == CLI_ATTACH_TOOL && must_exist && !strncmp(uri, "shm:", 4) &&
	    !has_param(uri, "create") && !has_param(uri, "size"))
		strcat(out, "&create=0");
	return out;
}

bool cli_uri_names_node(const struct cli *cli)
{
	return has_param(cli_effective_uri(cli), "node");
}

/*
 * An observer never makes a network; a URI that describes one to make
 * (size=, create=1) still makes it, as it did for these commands: a tool
 * opens it and lets go at once, holding nothing, and the observer looks.
 */
static int make_for_observer(const char *uri)
{
	char *tool = attach_uri(uri, CLI_ATTACH_TOOL, false);
	rfm_node *maker = NULL;
	int ret;

	if (!tool)
		return RFM_ENOMEM;
	ret = rfm_open(tool, &maker);
	free(tool);
	rfm_close(maker);
	return ret;
}

int cli_open_as(struct cli *cli, enum cli_attach how, bool must_exist)
{
	const char *given = cli_effective_uri(cli);
	char *uri;
	int ret;

	if (cli->node)
		return 0;
	uri = attach_uri(given, how, must_exist);
	if (!uri)
		return cli_error(cli, "out of memory");
	ret = rfm_open(uri, &cli->node);
	if (ret == RFM_ENOENT && how == CLI_ATTACH_OBSERVER && !strncmp(given, "shm:", 4) &&
	    (has_param(given, "size") || strstr(given, "create=1")) &&
	    (ret = make_for_observer(given)) == 0)
		ret = rfm_open(uri, &cli->node);
	free(uri);
	if (ret) {
		cli->node = NULL;
		return cli_fail(cli);
	}
	return 0;
}

int cli_open(struct cli *cli)
{
	return cli_open_as(cli, attach_of(cli), only_existing(cli));
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
