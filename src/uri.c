/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * URIs that name a node: "scheme:path?key=value&key=value".
 * The grammar is deliberately small (no escapes, no fragments): every name
 * the backends accept is a plain word or device path, and anything else is
 * rejected with a message saying which part is wrong.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "os/process.h"

#define URI_MAX_LENGTH 1024

static bool is_scheme_char(char c)
{
	return islower((unsigned char)c) || isdigit((unsigned char)c);
}

static bool is_key_char(char c)
{
	return islower((unsigned char)c) || isdigit((unsigned char)c) || c == '_';
}

static int parse_params(struct rfm_uri *uri, char *query)
{
	char *next = query;

	if (!*query)
		return 0; /* "shm:NAME?" has no parameters */
	/* Split by hand: strtok_r() would skip empty items such as a trailing '&'. */
	while (next) {
		char *item = next, *amp = strchr(item, '&');

		if (amp)
			*amp = '\0';
		next = amp ? amp + 1 : NULL;
		if (!*item)
			return rfm__error(RFM_EURI,
					  "%s: an empty parameter (a '&' at the start, the end, or "
					  "twice in a row)",
					  uri->text);
		char *eq = strchr(item, '=');

		if (!eq || eq == item || eq[1] == '\0')
			return rfm__error(RFM_EURI, "%s: parameter '%s' is not key=value",
					  uri->text, item);
		*eq = '\0';
		for (const char *k = item; *k; k++)
			if (!is_key_char(*k))
				return rfm__error(RFM_EURI, "%s: bad parameter name '%s'",
						  uri->text, item);
		for (unsigned int i = 0; i < uri->nparams; i++)
			if (!strcmp(uri->params[i].key, item))
				return rfm__error(RFM_EURI, "%s: parameter '%s' given twice",
						  uri->text, item);
		if (uri->nparams == RFM_URI_MAX_PARAMS)
			return rfm__error(RFM_EURI, "%s: more than %d parameters",
					  uri->text, RFM_URI_MAX_PARAMS);
		uri->params[uri->nparams].key = item;
		uri->params[uri->nparams].value = eq + 1;
		uri->params[uri->nparams].used = false;
		uri->nparams++;
	}
	return 0;
}

int rfm__uri_parse(const char *text, struct rfm_uri *uri)
{
	char *colon, *query;
	int ret;

	memset(uri, 0, sizeof(*uri));
	if (strnlen(text, URI_MAX_LENGTH + 1) > URI_MAX_LENGTH)
		return rfm__error(RFM_EURI, "URI longer than %d characters", URI_MAX_LENGTH);

	/* One buffer holds the original text and, after it, the split copy. */
	size_t len = strlen(text);
	uri->text = malloc(2 * (len + 1));
	if (!uri->text)
		return rfm__error(RFM_ENOMEM, "out of memory parsing a URI");
	memcpy(uri->text, text, len + 1);
	uri->scheme = uri->text + len + 1;
	memcpy(uri->scheme, text, len + 1);

	colon = strchr(uri->scheme, ':');
	if (!colon || colon == uri->scheme) {
		ret = rfm__error(RFM_EURI,
				 "'%s' is not a URI: expected scheme:path such as shm:NAME",
				 text);
		goto fail;
	}
	*colon = '\0';
	for (const char *s = uri->scheme; *s; s++)
		if (!is_scheme_char(*s)) {
			ret = rfm__error(RFM_EURI, "'%s': bad scheme '%s'", text, uri->scheme);
			goto fail;
		}

	uri->path = colon + 1;
	query = strchr(uri->path, '?');
	if (query) {
		*query++ = '\0';
		ret = parse_params(uri, query);
		if (ret)
			goto fail;
	}
	return 0;
fail:
	rfm__uri_free(uri);
	return ret;
}

void rfm__uri_free(struct rfm_uri *uri)
{
	free(uri->text);
	memset(uri, 0, sizeof(*uri));
}

const char *rfm__uri_take(struct rfm_uri *uri, const char *key)
{
	for (unsigned int i = 0; i < uri->nparams; i++)
		if (!strcmp(uri->params[i].key, key)) {
			uri->params[i].used = true;
			return uri->params[i].value;
		}
	return NULL;
}

int rfm__uri_take_bool(struct rfm_uri *uri, const char *key, bool *out)
{
	const char *v = rfm__uri_take(uri, key);

	if (!v)
		return 0;
	if (strcmp(v, "0") && strcmp(v, "1"))
		return rfm__error(RFM_EURI, "%s: %s must be 0 or 1, not '%s'", uri->text, key, v);
	*out = v[0] == '1';
	return 0;
}

int rfm__uri_check_all_used(const struct rfm_uri *uri)
{
	for (unsigned int i = 0; i < uri->nparams; i++)
		if (!uri->params[i].used)
			return rfm__error(RFM_EURI, "%s: unknown parameter '%s' for %s:",
					  uri->text, uri->params[i].key, uri->scheme);
	return 0;
}

int rfm__parse_u64(const char *text, uint64_t *value)
{
	char *end;

	/* strtoull accepts a sign and leading blanks: reject both. */
	if (!text || !isdigit((unsigned char)text[0]))
		return RFM_EINVAL;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 0);
	if (errno || *end != '\0')
		return RFM_EINVAL;
	*value = v;
	return 0;
}

int rfm__parse_size(const char *text, uint64_t *value)
{
	char buf[32];
	size_t len = text ? strlen(text) : 0;
	unsigned int shift = 0;

	if (len == 0 || len >= sizeof(buf))
		return RFM_EINVAL;
	memcpy(buf, text, len + 1);
	switch (buf[len - 1]) {
	case 'k': case 'K': shift = 10; break;
	case 'm': case 'M': shift = 20; break;
	case 'g': case 'G': shift = 30; break;
	}
	if (shift)
		buf[len - 1] = '\0';
	uint64_t v;
	if (rfm__parse_u64(buf, &v) || (v << shift >> shift) != v)
		return RFM_EINVAL;
	*value = v << shift;
	return 0;
}

const char *rfm__default_uri(const char *uri)
{
	if (uri && uri[0])
		return uri;
	/* A set-uid program must not be steered by the caller (os/process.h). */
	const char *env = rfm__os_getenv("RFM_URI");
	return env && env[0] ? env : RFM_DEFAULT_URI;
}
