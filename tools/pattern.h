/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Test patterns for rfm fill and rfm verify. Each pattern is a function of
 * the absolute window offset, not of where a fill started, so any
 * sub-range of a filled range verifies, from any node.
 */
#ifndef RFM_TOOLS_PATTERN_H
#define RFM_TOOLS_PATTERN_H

#include <stddef.h>
#include <stdint.h>

enum pattern_kind {
	PATTERN_ZERO,	/* every byte 0x00 */
	PATTERN_ONES,	/* every byte 0xff */
	PATTERN_INCR,	/* the byte at offset X is X mod 256 */
	PATTERN_ADDR,	/* the 32-bit word at offset X (X % 4 == 0) is X, host order */
	PATTERN_RANDOM,	/* seeded pseudo-random 64-bit words (xorshift), little endian */
	PATTERN_VALUE,	/* a 32-bit value in every aligned 32-bit word, host order */
};

struct pattern {
	enum pattern_kind kind;
	uint32_t value;	/* PATTERN_VALUE */
	uint64_t seed;	/* PATTERN_RANDOM */
};

/* The pattern named @name ("zero", "ones", "incr", "addr", "random"); -1 if none. */
int pattern_from_name(const char *name, struct pattern *p);

/* Write its name, or the value as "0x%08x", into @buf (16 bytes suffice); returns @buf. */
const char *pattern_name(const struct pattern *p, char *buf, size_t len);

/* Fill @buf with the bytes @p holds at window offsets [offset, offset + len). */
void pattern_generate(const struct pattern *p, uint64_t offset, uint8_t *buf, size_t len);

#endif /* RFM_TOOLS_PATTERN_H */
