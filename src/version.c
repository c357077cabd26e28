/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The library's version, in a file of its own: the bottom of the core,
 * which anything may call (messages name the version) without depending
 * on the file that opens nodes.
 */
#include "config.h"

#include "internal.h"

RFM_API const char *rfm_version_string(void)
{
	return RFM_VERSION_STRING;
}

RFM_API unsigned int rfm_version(void)
{
	return RFM_VERSION;
}
