/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The grants of a node's permissions document (security=DIR's
 * permissions.p7s, its signature checked by dds-security-files.c): is one
 * of them for this node's certificate, and valid now? Cyclone's access
 * control answers the same question with an anonymous refusal; this says
 * which file, and what it names instead.
 *
 * Read the way Cyclone reads them: a grant is for a certificate when every
 * NAME=VALUE of the certificate's subject (RFC 2253, split at ',', '/' or
 * '|') is in the grant's <subject_name> with the same value; its
 * <validity> is <not_before> and <not_after>, "YYYY-MM-DDTHH:MM:SS", an
 * optional fraction and an optional zone (Z, +HH:MM, -HH:MM; none: UTC).
 * This is not an XML parser: it looks for those elements only, and says
 * nothing when it finds no grant or cannot read a date (Cyclone decides).
 */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backends/dds/dds-internal.h"

#define TEXT_MAX 512 /* of a subject or a date */

/* The text of <@tag>...</@tag> between @from and @end, entities decoded and
 * trimmed, into @out; false: not there (or longer than TEXT_MAX). */
static bool element(const char *from, const char *end, const char *tag, char *out)
{
	char open[48], close[48];
	static const struct { const char *entity, *text; } entities[] = {
		{ "&amp;", "&" }, { "&lt;", "<" }, { "&gt;", ">" }, { "&quot;", "\"" },
		{ "&apos;", "'" },
	};

	snprintf(open, sizeof(open), "<%s>", tag);
	snprintf(close, sizeof(close), "</%s>", tag);
	const char *a = strstr(from, open), *b;

	if (!a || a >= end || !(b = strstr(a, close)) || b > end)
		return false;
	a += strlen(open);
	while (a < b && isspace((unsigned char)*a))
		a++;
	while (b > a && isspace((unsigned char)b[-1]))
		b--;
	size_t n = 0;
	while (a < b) {
		size_t k = 0;

		while (k < RFM_ARRAY_SIZE(entities) &&
		       strncmp(a, entities[k].entity, strlen(entities[k].entity)))
			k++;
		if (n + 1 >= TEXT_MAX)
			return false;
		out[n++] = k < RFM_ARRAY_SIZE(entities) ? entities[k].text[0] : *a;
		a += k < RFM_ARRAY_SIZE(entities) ? strlen(entities[k].entity) : 1;
	}
	out[n] = '\0';
	return true;
}

/* The value of @key in a subject's "K=V,K=V" (split at , / |), into @val. */
static bool subject_value(const char *subject, const char *key, size_t key_len, char *val)
{
	const char *p = subject;

	while (*p) {
		size_t len = strcspn(p, ",/|");
		const char *eq = memchr(p, '=', len);

		if (eq && (size_t)(eq - p) == key_len && !memcmp(p, key, key_len)) {
			snprintf(val, TEXT_MAX, "%.*s", (int)(len - (size_t)(eq + 1 - p)), eq + 1);
			return true;
		}
		p += len + (p[len] ? 1 : 0);
	}
	return false;
}

/* Is the grant's @granted subject the certificate's @subject (Cyclone's rule)? */
static bool subject_matches(const char *granted, const char *subject)
{
	const char *p = subject;
	char val[TEXT_MAX];

	while (*p) {
		size_t len = strcspn(p, ",/|");
		const char *eq = memchr(p, '=', len);

		if (!eq)
			return false;
		if (!subject_value(granted, p, (size_t)(eq - p), val) ||
		    strlen(val) != len - (size_t)(eq + 1 - p) || memcmp(val, eq + 1, strlen(val)))
			return false;
		p += len + (p[len] ? 1 : 0);
	}
	return true;
}

/* Days from 1970-01-01 to @y-@m-@d of the proleptic Gregorian calendar
 * (the civil-from-days inverse of the usual era arithmetic): no timegm(),
 * which not every C library has. */
static int64_t days_since_1970(int64_t y, int64_t m, int64_t d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;

	return era * 146097 + doe - 719468;
}

/* "YYYY-MM-DDTHH:MM:SS[.fff][Z|+HH:MM|-HH:MM]" as seconds since 1970; false:
 * another form. */
static bool xml_date(const char *s, int64_t *t)
{
	struct tm tm = { 0 };
	int n = 0, zh = 0, zm = 0;

	if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
		   &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &n) != 6 || n != 19)
		return false;
	s += n;
	if (*s == '.')
		for (s++; isdigit((unsigned char)*s); s++)
			;
	if ((*s == '+' || *s == '-') && sscanf(s + 1, "%2d:%2d", &zh, &zm) == 2 &&
	    strlen(s) == 6) {
		zh = *s == '-' ? -zh : zh;
		zm = *s == '-' ? -zm : zm;
	} else if (*s && strcmp(s, "Z")) {
		return false;
	}
	*t = days_since_1970(tm.tm_year, tm.tm_mon, tm.tm_mday) * 86400 + tm.tm_hour * 3600 +
	     tm.tm_min * 60 + tm.tm_sec - (int64_t)zh * 3600 - (int64_t)zm * 60;
	return true;
}

/* A grant's validity against now: 0, or the error naming the file. */
static int grant_valid(const char *uri, const char *dir, const char *from, const char *end,
		       const char *subject)
{
	char before[TEXT_MAX], after[TEXT_MAX];
	int64_t b, a, now = (int64_t)time(NULL);

	if (element(from, end, "not_before", before) && xml_date(before, &b) && now < b)
		return rfm__error(RFM_EPERM,
				  "%s: security: %s/permissions.p7s: the grant for \"%s\" is not "
				  "valid before %s (is the clock right?)",
				  uri, dir, subject, before);
	if (element(from, end, "not_after", after) && xml_date(after, &a) && now > a)
		return rfm__error(RFM_EPERM,
				  "%s: security: %s/permissions.p7s: the grant for \"%s\" ended at "
				  "%s: sign new permissions (docs/security.md)",
				  uri, dir, subject, after);
	return 0;
}

int rfm__dds_permissions_check(const char *uri, const char *dir, const char *doc,
			       const char *subject)
{
	char granted[TEXT_MAX], first[TEXT_MAX] = "";
	const char *p = doc;
	bool grants = false;

	while ((p = strstr(p, "<grant")) != NULL) {
		const char *end = strstr(p, "</grant>");

		if (!end)
			break;
		if (element(p, end, "subject_name", granted)) {
			grants = true;
			if (!first[0])
				snprintf(first, sizeof(first), "%s", granted);
			if (subject_matches(granted, subject))
				return grant_valid(uri, dir, p, end, subject);
		}
		p = end;
	}
	if (!grants)
		return 0; /* nothing this file can read: Cyclone decides */
	return rfm__error(RFM_EPERM,
			  "%s: security: %s/permissions.p7s grants nothing to node.pem's subject "
			  "\"%s\" (it grants \"%s\"%s): are they another node's?",
			  uri, dir, subject, first, strcmp(first, granted) ? " and more" : "");
}
