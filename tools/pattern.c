/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Test patterns, computed per 8-byte aligned word of the window. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "pattern.h"

static const char *const names[] = {
	[PATTERN_ZERO] = "zero",
	[PATTERN_ONES] = "ones",
	[PATTERN_INCR] = "incr",
	[PATTERN_ADDR] = "addr",
	[PATTERN_RANDOM] = "random",
};

int pattern_from_name(const char *name, struct pattern *p)
{
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i] && !strcmp(names[i], name)) {
			memset(p, 0, sizeof(*p));
			p->kind = (enum pattern_kind)i;
			p->seed = 1;
			return 0;
		}
	return -1;
}

const char *pattern_name(const struct pattern *p, char *buf, size_t len)
{
	if (p->kind == PATTERN_VALUE)
		snprintf(buf, len, "0x%08x", p->value);
	else
		snprintf(buf, len, "%s", names[p->kind]);
	return buf;
}

/*
 * The random word number @index: xorshift64* run on a state made from the
 * seed and the index. Being indexed rather than a stream, it gives the same
 * bytes at an offset whatever range a fill or verify covers.
 */
static uint64_t random_word(uint64_t seed, uint64_t index)
{
	uint64_t x = seed ^ ((index + 1) * UINT64_C(0x9e3779b97f4a7c15));

	if (!x)
		x = UINT64_C(0x9e3779b97f4a7c15); /* xorshift never leaves 0 */
	for (int round = 0; round < 2; round++) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
	}
	x *= UINT64_C(0x2545f4914f6cdd1d);
	return x ^ (x >> 32);
}

/* The 8 bytes of the pattern at @aligned, a multiple of 8. */
static void pattern_word(const struct pattern *p, uint64_t aligned, uint8_t out[8])
{
	uint32_t words[2];
	uint64_t r;

	switch (p->kind) {
	case PATTERN_ZERO:
		memset(out, 0x00, 8);
		return;
	case PATTERN_ONES:
		memset(out, 0xff, 8);
		return;
	case PATTERN_INCR:
		for (int i = 0; i < 8; i++)
			out[i] = (uint8_t)(aligned + (uint64_t)i);
		return;
	case PATTERN_ADDR:
		words[0] = (uint32_t)aligned;
		words[1] = (uint32_t)(aligned + 4);
		memcpy(out, words, 8);
		return;
	case PATTERN_VALUE:
		words[0] = words[1] = p->value;
		memcpy(out, words, 8);
		return;
	case PATTERN_RANDOM:
		r = random_word(p->seed, aligned / 8);
		for (int i = 0; i < 8; i++)
			out[i] = (uint8_t)(r >> (8 * i));
		return;
	}
}

void pattern_generate(const struct pattern *p, uint64_t offset, uint8_t *buf, size_t len)
{
	uint8_t word[8];

	while (len) {
		uint64_t aligned = offset & ~UINT64_C(7);
		size_t skip = (size_t)(offset - aligned);
		size_t n = 8 - skip < len ? 8 - skip : len;

		pattern_word(p, aligned, word);
		memcpy(buf, word + skip, n);
		buf += n;
		offset += n;
		len -= n;
	}
}
