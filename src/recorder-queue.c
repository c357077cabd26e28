/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The recorder's queue (recorder-queue.h): its memory. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "recorder-queue.h"

#define REC_Q_MIN (64u << 10)

int rfm__rec_q_init(struct rec_queue *q, uint64_t bytes)
{
	uint64_t size = REC_Q_MIN;

	while (size < bytes && size < (UINT64_C(1) << 40))
		size <<= 1;
	memset(q, 0, sizeof(*q));
	if (size > SIZE_MAX)
		return rfm__error(RFM_ENOMEM, "recorder: a queue of %llu bytes does not fit this "
				  "address space", (unsigned long long)size);
	q->buf = malloc((size_t)size);
	if (!q->buf)
		return rfm__error(RFM_ENOMEM, "recorder: out of memory for a queue of %llu MiB",
				  (unsigned long long)(size >> 20));
	/* Every page mapped now: the sampler must not fault on a page per sample. */
	memset(q->buf, 0, (size_t)size);
	q->size = size;
	return 0;
}

void rfm__rec_q_free(struct rec_queue *q)
{
	free(q->buf);
	q->buf = NULL;
}
