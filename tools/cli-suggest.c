/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * "Did you mean ...?" for a mistyped command, option, event type or clock:
 * the candidate nearest by edit distance (a swap of two neighbours counts
 * as one edit, as "pek32", "peak32" and "lsit" are typed), if it is near.
 */
#include "config.h"

#include <string.h>

#include "cli.h"

#define MAX_WORD 64

/* Optimal string alignment distance between @a and @b (both < MAX_WORD). */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t d[MAX_WORD + 1][MAX_WORD + 1];

	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

const char *cli_suggest(const char *word, const char *const *candidates, size_t n)
{
	size_t len = strlen(word), best = SIZE_MAX;
	const char *found = NULL;

	if (!len || len >= MAX_WORD)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (!candidates[i] || strlen(candidates[i]) >= MAX_WORD)
			continue;
		size_t d = distance(word, candidates[i]);
		if (d < best) {
			best = d;
			found = candidates[i];
		}
	}
	/* Near: one edit in a short word, two in a longer one; never most of it. */
	if (!found || best > (len <= 4 ? 1u : 2u) || best >= len)
		return NULL;
	return found;
}
