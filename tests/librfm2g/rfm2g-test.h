/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Shared by the RFM2g compatibility tests: status assertions and opening nodes. */
#ifndef RFM2G_TEST_H
#define RFM2G_TEST_H

#include "rfm-cmocka.h"
#include "rfm2g_api.h"

/* @expr must return the RFM2G_STATUS @code. */
#define assert_st(expr, code)                                                 \
	do {                                                                  \
		RFM2G_STATUS st_got_ = (expr), st_want_ = (code);             \
		if (st_got_ != st_want_)                                      \
			fail_msg("%s returned %d (%s), expected %d (%s)",     \
				 #expr, (int) st_got_, RFM2gErrorMsg(st_got_), \
				 (int) st_want_, RFM2gErrorMsg(st_want_));      \
	} while (0)

/* Open node @node_id of @net through RFM2gOpen, the URI as device path. */
static inline RFM2GHANDLE rfm2g_test_open(struct harness_network *net, int node_id)
{
	RFM2GHANDLE h = NULL;

	assert_st(RFM2gOpen((char *) harness_node_uri(net, node_id), &h), RFM2G_SUCCESS);
	assert_non_null(h);
	return h;
}

#endif /* RFM2G_TEST_H */
