/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A recorder module of another librfm (recorder-module.h), for the
 * loader's refusals (tests/cli/test_record_module.py): built as
 * other-build (the same interface, another build's headers) and as
 * other-interface (another version of the interface). librfm must refuse
 * both before it calls anything of theirs: their init fails the test.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "recorder-module.h"

static int init(const struct rec_module_services *services)
{
	(void)services;
	fputs("other-module: librfm took a module of another build\n", stderr);
	abort();
}

RFM_API const struct rec_module *rfm_recorder_module(void);

RFM_API const struct rec_module *rfm_recorder_module(void)
{
	static const struct rec_module module = {
		.abi = RFM_REC_MODULE_ABI + OTHER_ABI_STEP,
		.version = PACKAGE_VERSION,
		.build = PACKAGE_VERSION "+another-build",
		.sizes = RFM_REC_MODULE_SIZES,
		.init = init,
		.sink = NULL,
	};

	return &module;
}
