/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Windows: rfm__os_path_private() (os/file.h). A file is private when its
 * DACL lets no one read it but its owner, this process's user, SYSTEM and
 * the Administrators (who may read every file anyway): the rule of
 * OpenSSH for Windows for private keys. A NULL DACL lets everyone read.
 * Deny entries are not weighed: a grant beside a deny is still refused,
 * which errs on the side of the key.
 */
#include "config.h"

#include <aclapi.h>
#include <errno.h>
#include <sddl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "os/file.h"
#include "os/win/win-internal.h"

#define PRIVATE_PATH_MAX 4200

/* @sid's name as Windows shows it (DOMAIN\name), else its S-1-... text. */
static void sid_name(PSID sid, char *buf, size_t len)
{
	char name[256], domain[256], *text = NULL;
	DWORD nlen = sizeof(name), dlen = sizeof(domain);
	SID_NAME_USE use;

	if (LookupAccountSidA(NULL, sid, name, &nlen, domain, &dlen, &use))
		snprintf(buf, len, "%s%s%s", domain, *domain ? "\\" : "", name);
	else if (ConvertSidToStringSidA(sid, &text))
		snprintf(buf, len, "%s", text);
	else
		snprintf(buf, len, "(unknown)");
	if (text)
		LocalFree(text);
}

static bool trusted(PSID sid, PSID owner, PSID me)
{
	return (owner && EqualSid(sid, owner)) || (me && EqualSid(sid, me)) ||
	       IsWellKnownSid(sid, WinLocalSystemSid) ||
	       IsWellKnownSid(sid, WinBuiltinAdministratorsSid);
}

const char *rfm__os_private_fix(void)
{
	return "icacls FILE /inheritance:r /grant:r %USERNAME%:F";
}

int rfm__os_path_private(const char *path, char *who, size_t len)
{
	union {
		TOKEN_USER user;
		uint8_t bytes[256];
	} tu;
	wchar_t *w = malloc(PRIVATE_PATH_MAX * sizeof(*w));
	PSECURITY_DESCRIPTOR sd = NULL;
	PSID owner = NULL, me;
	PACL dacl = NULL;
	size_t used = 0;
	DWORD err;
	int ret = 0;

	if (!w)
		return -1;
	if (!rfm__win_widen(path, w, PRIVATE_PATH_MAX)) {
		free(w);
		errno = ENAMETOOLONG;
		return -1;
	}
	err = GetNamedSecurityInfoW(w, SE_FILE_OBJECT,
				    OWNER_SECURITY_INFORMATION | DACL_SECURITY_INFORMATION, &owner,
				    NULL, &dacl, NULL, &sd);
	free(w);
	if (err != ERROR_SUCCESS) {
		errno = rfm__win_errno(err);
		return -1;
	}
	if (!dacl) {
		snprintf(who, len, "it has no access list: everyone may read it");
		LocalFree(sd);
		return 1;
	}
	me = rfm__win_token_user(&tu, sizeof(tu));
	for (DWORD i = 0; i < dacl->AceCount; i++) {
		ACE_HEADER *ace;
		DWORD mask;
		PSID sid;
		char name[300];

		if (!GetAce(dacl, i, (void **)&ace) || ace->AceType != ACCESS_ALLOWED_ACE_TYPE ||
		    (ace->AceFlags & INHERIT_ONLY_ACE))
			continue;
		mask = ((ACCESS_ALLOWED_ACE *)ace)->Mask;
		sid = &((ACCESS_ALLOWED_ACE *)ace)->SidStart;
		if (!(mask & (FILE_READ_DATA | GENERIC_READ | GENERIC_ALL)) ||
		    trusted(sid, owner, me))
			continue;
		sid_name(sid, name, sizeof(name));
		if (used < len) {
			int n = snprintf(who + used, len - used, "%s%s", ret ? ", " : "", name);
			used += n > 0 ? (size_t)n : 0;
		}
		ret = 1;
	}
	if (ret && used < len)
		snprintf(who + used, len - used, " may read it");
	LocalFree(sd);
	return ret;
}
