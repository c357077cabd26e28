/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Stream digests: seeing a node's stream taken over at the RTPS level.
 *
 * Without DDS Security nothing authenticates an RTPS message: a stranger
 * who reads a node's traffic can send DATA as that node's own stream
 * writer (its GUID), with the next RTPS sequence numbers and the next
 * librfm ones. Cyclone delivers the forged samples as the writer's, and
 * drops the node's real samples that come later with those numbers as
 * duplicates: the receivers see an unbroken stream, and nothing, not the
 * participant binding nor the sequence, can tell (fault lab: three forged
 * writes landed at both victims, three real ones vanished, no LINK).
 *
 * What can tell is the content. Each node keeps a running digest of every
 * sample it numbers (in its order: kind, fields, data), and its MARK
 * samples carry it: the handle's thread sends one at most every
 * DIGEST_EVERY_NS while the stream moves (dds-answer.c), as well as when a
 * reader matches late. Each receiver keeps the same digest of every sample
 * it takes of that stream, in order, from the stream's first sample or
 * from a MARK it adopted (after a gap, or once joined). A MARK whose
 * digest is not the receiver's means that some sample it took since the
 * last one was not the node's own: the node's real samples it displaced
 * are lost. That is reported as such (RFM_EVENT_LINK, the samples since
 * the last good digest as lost; the `forged` counter), and the node's own
 * words are asked for again (a resync), which undoes what the forged
 * writes did to them.
 *
 * Not cryptographic (no key exists without DDS Security): a forger that
 * can predict a node's next samples can forge others with the same
 * digest, and one that displaces every sample of a node for good silences
 * it instead (its beats stop: NODE_DOWN). Older nodes' MARKs carry no
 * digest and older nodes ignore ours.
 */
#include "config.h"

#include <endian.h>
#include <string.h>

#include "backends/dds/dds-internal.h"

#define K1 UINT64_C(0x9e3779b97f4a7c15)
#define K2 UINT64_C(0xc2b2ae3d27d4eb4f)

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v * K1;
	h = (h << 31 | h >> 33) * K2;
	return h ^ (h >> 29);
}

uint64_t rfm__dds_digest_start(uint32_t inc)
{
	return mix(UINT64_C(0x7266642d73747265), inc); /* "rfd-stre" */
}

uint64_t rfm__dds_digest(uint64_t h, const rfm_dds_Msg *m)
{
	const uint8_t *p = m->data._buffer;
	uint32_t n = m->data._length;
	uint64_t lane[4] = { 0, 0, 0, 0 }, tail = 0;

	/* Fields as numbers, data as little-endian words: the same on every host. */
	h = mix(h, m->seq);
	h = mix(h, (uint64_t)m->kind | (uint64_t)m->writer << 8 | (uint64_t)m->to << 16 |
			   (uint64_t)m->type << 32);
	h = mix(h, (uint64_t)m->word | (uint64_t)n << 32);
	h = mix(h, m->offset);
	h = mix(h, m->stamp);
	h = mix(h, m->extra);
	/* Four lanes: the multiplies of one word do not wait for another's
	 * (a 4 KiB write's data in about a quarter of a microsecond). */
	for (; n >= 32; p += 32, n -= 32)
		for (int i = 0; i < 4; i++) {
			uint64_t x;

			memcpy(&x, p + 8 * i, 8);
			lane[i] = (lane[i] ^ le64toh(x)) * K1;
			lane[i] ^= lane[i] >> 31;
		}
	for (int i = 0; n >= 8; p += 8, n -= 8, i++) {
		uint64_t x;

		memcpy(&x, p, 8);
		lane[i] = (lane[i] ^ le64toh(x)) * K2;
	}
	for (uint32_t i = 0; i < n; i++)
		tail |= (uint64_t)p[i] << (8 * i);
	for (int i = 0; i < 4; i++)
		h = mix(h, lane[i]);
	return mix(h, tail);
}
