/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The names of event types, for messages and the command line. */
#include "config.h"

#include <strings.h>

#include "internal.h"

static const char *const type_names[RFM_EVENT_TYPE_MAX + 1] = {
	[RFM_EVENT_RESET] = "reset",
	[RFM_EVENT_INTR1] = "intr1",
	[RFM_EVENT_INTR2] = "intr2",
	[RFM_EVENT_INTR3] = "intr3",
	[RFM_EVENT_INTR4] = "intr4",
	[RFM_EVENT_OVERFLOW] = "overflow",
	[RFM_EVENT_NODE_UP] = "node_up",
	[RFM_EVENT_NODE_DOWN] = "node_down",
	[RFM_EVENT_LINK] = "link",
};

RFM_API const char *rfm_event_type_name(unsigned int type)
{
	return type <= RFM_EVENT_TYPE_MAX && type_names[type] ? type_names[type] : "?";
}

RFM_API int rfm_event_type_parse(const char *name)
{
	if (name)
		for (unsigned int t = 0; t <= RFM_EVENT_TYPE_MAX; t++)
			if (type_names[t] && !strcasecmp(name, type_names[t]))
				return (int)t;
	return rfm__error(RFM_EINVAL, "unknown event type '%s' (expected reset, intr1..intr4)",
			  name ? name : "(null)");
}
