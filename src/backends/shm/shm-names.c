/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Network names: the ones shm: accepts, and "no network 'lba'": opening
 * with create=0 (what the rfm tool's reading commands do) or as an observer
 * fails on a name that does not exist, and the message lists the networks
 * that do, with the nearest as a did-you-mean.
 */
#include "config.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "backends/shm/shm-internal.h"

/* How many existing names the message lists before "...". */
#define LISTED_MAX 8

/* Edit distance with adjacent transpositions ("lba" is one step from "lab"). */
static unsigned int distance(const char *a, const char *b)
{
	unsigned int d[RFM_SHM_NAME_MAX + 1][RFM_SHM_NAME_MAX + 1];
	size_t n = strlen(a), m = strlen(b);

	if (n > RFM_SHM_NAME_MAX || m > RFM_SHM_NAME_MAX)
		return UINT32_MAX;
	for (size_t i = 0; i <= n; i++)
		d[i][0] = (unsigned int)i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = (unsigned int)j;
	for (size_t i = 1; i <= n; i++)
		for (size_t j = 1; j <= m; j++) {
			unsigned int cost = a[i - 1] != b[j - 1];
			unsigned int best = d[i - 1][j] + 1;

			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < best)
				best = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[n][m];
}

bool rfm__shm_valid_name(const char *name)
{
	size_t len = strlen(name);

	if (len == 0 || len > RFM_SHM_NAME_MAX || name[0] == '.' || name[0] == '-')
		return false;
	for (const char *c = name; *c; c++)
		if (!(*c >= 'a' && *c <= 'z') && !(*c >= 'A' && *c <= 'Z') &&
		    !(*c >= '0' && *c <= '9') && *c != '_' && *c != '-' && *c != '.')
			return false;
	return true;
}

int rfm__shm_no_network(const char *uri, const char *name)
{
	char listed[LISTED_MAX * (RFM_SHM_NAME_MAX + 2) + 8] = "";
	char nearest[RFM_SHM_NAME_MAX + 1] = "";
	unsigned int best = 3; /* suggest only names at most two edits away */
	size_t prefix = strlen(RFM_SHM_PREFIX);
	int count = 0;
	DIR *dir = opendir(rfm__os_seg_dir());
	struct dirent *de;

	while (dir && (de = readdir(dir))) {
		const char *other = de->d_name + prefix;
		unsigned int dist;

		if (strncmp(de->d_name, RFM_SHM_PREFIX, prefix) || !*other ||
		    strlen(other) > RFM_SHM_NAME_MAX)
			continue;
		if (count < LISTED_MAX) {
			if (count)
				strcat(listed, ", ");
			strcat(listed, other);
		} else if (count == LISTED_MAX) {
			strcat(listed, ", ...");
		}
		count++;
		dist = distance(name, other);
		if (dist < best) {
			best = dist;
			snprintf(nearest, sizeof(nearest), "%s", other);
		}
	}
	if (dir)
		closedir(dir);
	if (nearest[0])
		return rfm__error(RFM_ENOENT, "%s: no network '%s'; did you mean '%s'? (networks: %s)",
				  uri, name, nearest, listed);
	if (count)
		return rfm__error(RFM_ENOENT, "%s: no network '%s' (networks: %s)", uri, name, listed);
	return rfm__error(RFM_ENOENT, "%s: no network '%s' (there are none on this host)", uri,
			  name);
}
