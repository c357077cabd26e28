/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The inline accessors of <rfm/access.h> and their exported twins: the
 * twins exist as real, versioned symbols of librfm (looked up at run time,
 * so the test cannot be satisfied by the inline copies), and both give the
 * same results on the same memory. Also: everything the version script
 * lists is exported, and the library's internals are not.
 */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"
#include "rfm-cmocka.h"

#define WINDOW 4096
#define ABI_VERSION "RFM_1.0"

struct fixture {
	struct harness_network net;
	rfm_node *node;
	uint8_t *base;
};

#define FIXTURE_NODES(f) ((rfm_node **const[]){ &(f)->node })

static int setup(void **state)
{
	static const int ids[] = { HARNESS_ANY_NODE };
	struct fixture *f = calloc(1, sizeof(*f));
	void *base;

	if (!f || harness_fixture_nodes(&f->net, WINDOW, ids, FIXTURE_NODES(f), 1)) {
		free(f);
		return -1;
	}
	if (rfm_mem_map(f->node, &base, NULL)) {
		print_error("setup: %s\n", rfm_last_error());
		harness_fixture_nodes_close(&f->net, FIXTURE_NODES(f), 1);
		free(f);
		return -1;
	}
	f->base = base;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	harness_fixture_nodes_close(&f->net, FIXTURE_NODES(f), 1);
	free(f);
	return 0;
}

/* The exported symbol @name of librfm, at ABI version @version. */
static void *exported_at(const char *name, const char *version)
{
	void *sym = dlvsym(RTLD_DEFAULT, name, version);
	Dl_info where;

	if (!sym)
		fail_msg("%s@%s is not exported: %s", name, version, dlerror());
	/* It must come from the library, not from this program. */
	if (!dladdr(sym, &where) || !where.dli_fname || !strstr(where.dli_fname, "librfm"))
		fail_msg("%s resolves to %s, not to librfm", name,
			 where.dli_fname ? where.dli_fname : "(unknown)");
	return sym;
}

/* The exported symbol @name of librfm, at ABI version RFM_1.0. */
static void *exported(const char *name)
{
	return exported_at(name, ABI_VERSION);
}

/* Values that catch truncation, sign extension and byte swaps. */
static const uint64_t samples[] = {
	0, 1, 0x7f, 0x80, 0xff, 0x8001, 0xffff, 0x80000001u, 0xdeadbeefu,
	0x0102030405060708ull, 0x8000000000000001ull, UINT64_MAX,
};
#define NSAMPLES (sizeof(samples) / sizeof(samples[0]))

/*
 * For one width: inline and exported loads agree on what either kind of
 * store wrote, at every naturally aligned offset of a stretch and at the
 * window's last slot.
 */
#define DEFINE_TWIN_TEST(bits)                                                        \
	static void twins##bits(void **state)                                         \
	{                                                                             \
		struct fixture *f = *state;                                            \
		typedef uint##bits##_t word;                                           \
		word (*load)(const void *, uint64_t) = exported("rfm_load" #bits);     \
		word (*load_acq)(const void *, uint64_t) =                             \
			exported("rfm_load" #bits "_acquire");                        \
		void (*store)(void *, uint64_t, word) = exported("rfm_store" #bits);   \
		void (*store_rel)(void *, uint64_t, word) =                            \
			exported("rfm_store" #bits "_release");                       \
		const uint64_t width = bits / 8;                                       \
		uint64_t offsets[8];                                                   \
		for (int i = 0; i < 7; i++)                                            \
			offsets[i] = (uint64_t)i * width;                              \
		offsets[7] = WINDOW - width;                                           \
		for (size_t s = 0; s < NSAMPLES; s++)                                  \
			for (int i = 0; i < 8; i++) {                                  \
				uint64_t off = offsets[i];                             \
				word v = (word)(samples[s] + (uint64_t)i);             \
				word peeked;                                           \
                                                                                       \
				/* exported store, every load */                       \
				store(f->base, off, v);                                \
				assert_int_equal(rfm_load##bits(f->base, off), v);     \
				assert_int_equal(load(f->base, off), v);               \
				assert_int_equal(load_acq(f->base, off), v);           \
				assert_int_equal(rfm_load##bits##_acquire(f->base,     \
									  off), v);    \
				assert_rfm_ok(rfm_mem_peek##bits(f->node, off,         \
								 &peeked));            \
				assert_int_equal(peeked, v);                           \
				/* inline store, exported loads */                     \
				rfm_store##bits(f->base, off, (word)~v);               \
				assert_int_equal(load(f->base, off), (word)~v);        \
				/* release twins */                                    \
				store_rel(f->base, off, v);                            \
				assert_int_equal(rfm_load##bits##_acquire(f->base,     \
									  off), v);    \
				rfm_store##bits##_release(f->base, off, (word)~v);     \
				assert_int_equal(load_acq(f->base, off), (word)~v);    \
				/* poke, exported load */                              \
				assert_rfm_ok(rfm_mem_poke##bits(f->node, off, v));    \
				assert_int_equal(load(f->base, off), v);               \
			}                                                              \
		/* A store of N bits touches exactly N bits. */                        \
		memset(f->base, 0x5a, 32);                                             \
		store(f->base, 8, 0);                                                  \
		for (uint64_t i = 0; i < 32; i++)                                      \
			assert_int_equal(f->base[i],                                   \
					 i >= 8 && i < 8 + width ? 0 : 0x5a);          \
	}

DEFINE_TWIN_TEST(8)
DEFINE_TWIN_TEST(16)
DEFINE_TWIN_TEST(32)
DEFINE_TWIN_TEST(64)

static void fences_are_exported(void **state)
{
	void (*acquire)(void) = exported("rfm_fence_acquire");
	void (*release)(void) = exported("rfm_fence_release");
	void (*full)(void) = exported("rfm_fence_full");

	/* They have no observable result in one thread; they must be callable. */
	acquire();
	release();
	full();
	rfm_fence_acquire();
	rfm_fence_release();
	rfm_fence_full();
}

static void accessors_work_on_any_memory(void **state)
{
	/* They take a base pointer, not a node: a private buffer works too. */
	uint64_t buf[2] = { 0, 0 };
	uint32_t (*load32)(const void *, uint64_t) = exported("rfm_load32");

	rfm_store32(buf, 4, 0x12345678);
	assert_int_equal(load32(buf, 4), 0x12345678);
	assert_int_equal(rfm_load64(buf, 8), 0);
}

/* Every symbol the version script lists is exported at its version. */
static void version_script_symbols_are_exported(void **state)
{
	FILE *map = fopen(LIBRFM_MAP, "r");
	char line[256];
	bool in_global = false;
	int count = 0;
	char node[32] = ABI_VERSION; /* the version node being read: "RFM_1.1 {" */

	if (!map)
		fail_msg("cannot read %s", LIBRFM_MAP);
	while (fgets(line, sizeof(line), map)) {
		char name[128];

		if (sscanf(line, "%31[A-Z0-9_.] {", node) == 1)
			continue;
		if (strstr(line, "global:"))
			in_global = true;
		else if (strstr(line, "local:"))
			in_global = false;
		else if (in_global && sscanf(line, " %127[a-z0-9_] ;", name) == 1) {
			exported_at(name, node);
			count++;
		}
	}
	fclose(map);
	assert_true(count >= 42); /* the RFM_1.0 node as first released */
}

static void internals_are_hidden(void **state)
{
	static const char *const internal[] = {
		"rfm__error", "rfm__errno_code", "rfm__uri_parse", "rfm__uri_free",
		"rfm__parse_u64", "rfm__parse_size", "rfm__default_uri",
		"rfm__shm_ops", "rfm__shm_layout", "rfm__shm_header_validate",
	};

	for (size_t i = 0; i < sizeof(internal) / sizeof(internal[0]); i++)
		if (dlsym(RTLD_DEFAULT, internal[i]))
			fail_msg("internal symbol %s is exported", internal[i]);
}

#define TEST(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		TEST(twins8),
		TEST(twins16),
		TEST(twins32),
		TEST(twins64),
		cmocka_unit_test(fences_are_exported),
		cmocka_unit_test(accessors_work_on_any_memory),
		cmocka_unit_test(version_script_symbols_are_exported),
		cmocka_unit_test(internals_are_hidden),
	};

	harness_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
