/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The library's messages in the tool user's terms. librfm words its errors
 * for C programmers ("relax with rfm_var_set_owner_check()"); the tool
 * shows the same message with the C names replaced by the option, URI
 * parameter or command that does the same from the shell. The library's
 * own rfm_last_error() keeps the C names for C users.
 */
#include "config.h"

#include <ctype.h>
#include <string.h>

#include "cli.h"

static const struct {
	const char *c;		/* as the library says it */
	const char *cli;	/* as the tool says it */
} phrases[] = {
	{ "(relax with rfm_var_set_owner_check())", "(rfm set --force writes anyway)" },
	{ "(relax with rfm_record_set_owner_check())", "(rfm set --force writes anyway)" },
	{ "open it with rfm_record_open() or name one of its variables",
	  "name one of its variables, or read it whole with 'rfm get' or 'rfm watch'" },
	{ " raise rfm_record_set_max_tries()", "" },
	{ "enable loopback to send to it",
	  "add loopback=1 to the URI to send to it (-u 'URI?loopback=1')" },
	{ "(rfm_event_enable)", "(enable event types first)" },
	{ "(replace it with RFM_REC_F_OVERWRITE)", "(replace it with --force)" },
	{ "add before rfm_recorder_start()", "name it before the recording starts" },
};

/* Append @n bytes of @s to @buf (size @cap, @len used), truncating. */
static void append(char *buf, size_t cap, size_t *len, const char *s, size_t n)
{
	if (*len + n >= cap)
		n = cap - 1 - *len;
	memcpy(buf + *len, s, n);
	*len += n;
	buf[*len] = '\0';
}

/* The length of a leading "rfm_function: ", or 0. */
static size_t c_function_prefix(const char *msg)
{
	size_t n = 4;

	if (strncmp(msg, "rfm_", 4))
		return 0;
	while (islower((unsigned char)msg[n]) || isdigit((unsigned char)msg[n]) || msg[n] == '_')
		n++;
	return msg[n] == ':' && msg[n + 1] == ' ' ? n + 2 : 0;
}

const char *cli_user_message(const struct cli *cli, const char *msg, char *buf, size_t cap)
{
	size_t len = 0, skip = c_function_prefix(msg);

	buf[0] = '\0';
	/* "rfm_mem_peek32: offset..." is the command's own report: "peek32: offset...". */
	if (skip) {
		append(buf, cap, &len, cli->command ? cli->command->name : "rfm",
		       strlen(cli->command ? cli->command->name : "rfm"));
		append(buf, cap, &len, ": ", 2);
		msg += skip;
	}
	while (*msg) {
		size_t i;

		for (i = 0; i < sizeof(phrases) / sizeof(phrases[0]); i++)
			if (!strncmp(msg, phrases[i].c, strlen(phrases[i].c)))
				break;
		if (i < sizeof(phrases) / sizeof(phrases[0])) {
			append(buf, cap, &len, phrases[i].cli, strlen(phrases[i].cli));
			msg += strlen(phrases[i].c);
		} else {
			append(buf, cap, &len, msg, 1);
			msg++;
		}
	}
	return buf;
}
