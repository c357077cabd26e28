/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The address map shared by publish-sender.c and publish-receiver.c: one
 * region written only by the sender node, holding a sequence word and two
 * sample buffers (a double buffer, so a reader never copies a buffer that
 * is being rewritten unless it falls two whole samples behind).
 */
#ifndef EXAMPLE_PUBLISH_H
#define EXAMPLE_PUBLISH_H

#include <stdint.h>

#define PUBLISH_REGION 0x1000	/* owned by the sender */
#define PUBLISH_SEQ (PUBLISH_REGION + 0x00)	/* sample count, 0 = none yet */
#define PUBLISH_DONE (PUBLISH_REGION + 0x08)	/* 1 once the last sample is out */
#define PUBLISH_BUFFER(seq) (PUBLISH_REGION + 0x40 + ((seq) & 1) * 0x40)

struct sample {
	uint64_t seq;		/* repeats the sequence number: lets readers check */
	uint64_t time_ns;	/* sender's CLOCK_MONOTONIC */
	double position;
	double velocity;
	uint64_t checksum;	/* of the fields above */
};

static inline uint64_t sample_checksum(const struct sample *s)
{
	uint64_t words[4];

	__builtin_memcpy(&words[0], &s->seq, 8);
	__builtin_memcpy(&words[1], &s->time_ns, 8);
	__builtin_memcpy(&words[2], &s->position, 8);
	__builtin_memcpy(&words[3], &s->velocity, 8);
	return (words[0] * 31 + words[1]) * 31 + (words[2] ^ (words[3] << 1));
}

#endif /* EXAMPLE_PUBLISH_H */
