/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Cost of librfm's memory accessors against raw access to the same mapping,
 * measured in one run:
 *   raw       volatile loads/stores through the mapped pointer
 *   inline    rfm_load32()/rfm_store32() from <rfm/access.h>
 *   exported  rfm_mem_peek32()/rfm_mem_poke32() (bounds + alignment checked)
 * Each variant runs ROUNDS times over the same offsets, interleaved so that
 * machine noise hits all of them alike; the medians and ratios are printed.
 *
 *   bench-mem [URI] [--json]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rfm/rfm.h>

#include "stats.h"

#define OPS 4000000u
#define ROUNDS 15
#define SPAN 4096u /* bytes touched: stays in L1, so we time the call, not memory */

enum variant { RAW, INLINE, EXPORTED, VARIANTS };
static const char *const variant_names[] = { "raw", "inline", "exported" };

static uint32_t sink;

__attribute__((noinline)) static double time_peek(enum variant v, rfm_node *node, uint8_t *base)
{
	uint32_t sum = 0, value;
	uint64_t start = bench_now_ns();

	switch (v) {
	case RAW:
		for (uint32_t i = 0; i < OPS; i++)
			sum += *(volatile uint32_t *)(base + ((i * 4) & (SPAN - 1)));
		break;
	case INLINE:
		for (uint32_t i = 0; i < OPS; i++)
			sum += rfm_load32(base, (i * 4) & (SPAN - 1));
		break;
	case EXPORTED:
		for (uint32_t i = 0; i < OPS; i++) {
			rfm_mem_peek32(node, (i * 4) & (SPAN - 1), &value);
			sum += value;
		}
		break;
	default:
		break;
	}
	sink += sum;
	return (double)(bench_now_ns() - start) / OPS;
}

__attribute__((noinline)) static double time_poke(enum variant v, rfm_node *node, uint8_t *base)
{
	uint64_t start = bench_now_ns();

	switch (v) {
	case RAW:
		for (uint32_t i = 0; i < OPS; i++)
			*(volatile uint32_t *)(base + ((i * 4) & (SPAN - 1))) = i;
		break;
	case INLINE:
		for (uint32_t i = 0; i < OPS; i++)
			rfm_store32(base, (i * 4) & (SPAN - 1), i);
		break;
	case EXPORTED:
		for (uint32_t i = 0; i < OPS; i++)
			rfm_mem_poke32(node, (i * 4) & (SPAN - 1), i);
		break;
	default:
		break;
	}
	return (double)(bench_now_ns() - start) / OPS;
}

int main(int argc, char **argv)
{
	const char *uri = NULL;
	int json = 0;
	double peek[VARIANTS][ROUNDS], poke[VARIANTS][ROUNDS];
	double peek_median[VARIANTS], poke_median[VARIANTS];
	char own_uri[96];
	rfm_node *node;
	uint8_t *base;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--json"))
			json = 1;
		else
			uri = argv[i];
	}
	if (!uri) {
		snprintf(own_uri, sizeof(own_uri), "shm:bench-mem-%d?size=64K", (int)getpid());
		uri = own_uri;
	}
	if (rfm_open(uri, &node) || rfm_mem_map(node, (void **)&base, NULL)) {
		fprintf(stderr, "bench-mem: %s\n", rfm_last_error());
		return 1;
	}
	for (int r = 0; r < ROUNDS; r++)
		for (int v = 0; v < VARIANTS; v++) {
			peek[v][r] = time_peek(v, node, base);
			poke[v][r] = time_poke(v, node, base);
		}
	for (int v = 0; v < VARIANTS; v++) {
		peek_median[v] = bench_median(peek[v], ROUNDS);
		poke_median[v] = bench_median(poke[v], ROUNDS);
	}
	rfm_close(node);
	if (uri == own_uri)
		rfm_network_destroy(own_uri, RFM_DESTROY_FORCE);

	if (json) {
		printf("{\"bench\":\"mem\",\"ops\":%u,\"rounds\":%d", OPS, ROUNDS);
		for (int v = 0; v < VARIANTS; v++)
			printf(",\"peek32_%s_ns\":%.3f,\"poke32_%s_ns\":%.3f", variant_names[v],
			       peek_median[v], variant_names[v], poke_median[v]);
		printf("}\n");
		return 0;
	}
	printf("bench-mem: 32-bit access, median of %d rounds x %u ops (ns per call)\n", ROUNDS, OPS);
	printf("  %-10s %10s %10s %14s %14s\n", "variant", "peek32", "poke32", "peek vs raw",
	       "poke vs raw");
	for (int v = 0; v < VARIANTS; v++)
		printf("  %-10s %10.3f %10.3f %7.3fx %+5.2fns %7.3fx %+5.2fns\n", variant_names[v],
		       peek_median[v], poke_median[v], peek_median[v] / peek_median[RAW],
		       peek_median[v] - peek_median[RAW], poke_median[v] / poke_median[RAW],
		       poke_median[v] - poke_median[RAW]);
	printf("  targets: exported overhead <= 5 ns/call (peek %+.2f, poke %+.2f); "
	       "inline <= 1.05x raw (peek %.3fx, poke %.3fx)\n",
	       peek_median[EXPORTED] - peek_median[RAW], poke_median[EXPORTED] - poke_median[RAW],
	       peek_median[INLINE] / peek_median[RAW], poke_median[INLINE] / poke_median[RAW]);
	return 0;
}
