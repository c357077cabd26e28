/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm serve: the write token. 256 random bits from the OS, printed
 * once at start; every write request must carry it as
 * "Authorization: Bearer TOKEN". The comparison takes the same time
 * wherever the first difference lies, so timing tells nothing about it.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "os/tool-os.h"
#include "serve.h"

int serve_make_token(struct serve *s)
{
	unsigned char raw[32];

	if (tool_os_random(raw, sizeof(raw)))
		return -1;
	for (size_t i = 0; i < sizeof(raw); i++)
		snprintf(s->token + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

bool serve_token_matches(const struct serve *s, const char *auth)
{
	static const char prefix[] = "Bearer ";
	size_t len = strlen(s->token);
	unsigned char diff = 0;

	if (!auth || strncmp(auth, prefix, sizeof(prefix) - 1))
		return false;
	auth += sizeof(prefix) - 1;
	if (strlen(auth) != len)
		return false;
	for (size_t i = 0; i < len; i++)
		diff |= (unsigned char)(auth[i] ^ s->token[i]);
	return diff == 0;
}
