/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A program linked with both librfm and librfm2g has one librfm: librfm2g
 * calls the shared librfm.so, not a private copy of its objects. A copy
 * would give the process two node registries, two fork handlers, two open
 * locks and two error states, and a fix to librfm.so would not reach
 * programs through librfm2g until librfm2g was rebuilt.
 *
 * Checked as a user sees it (the error state librfm2g's calls leave is
 * the one rfm_last_error() reads) and as the loader sees it (librfm2g.so
 * needs librfm.so.1, loaded once).
 */
#include "config.h"

#include <elf.h>
#include <link.h>

#include "rfm2g-test.h"

/*
 * Parse failures: rfm_open() refuses them before it creates anything, each
 * with its own message. The path is never created.
 */
#define BAD_SIZE_URI "shm:r2g-one-librfm?size=banana"
#define OTHER_BAD_SIZE_URI "shm:r2g-one-librfm?size=12Q"

/* RFM2gOpen() is rfm_open() underneath: its failure is rfm_last_error()'s. */
static void rfm2g_open_failure_is_librfms_error(void **state)
{
	RFM2GHANDLE h = NULL;
	rfm_node *node = NULL;
	char *direct;

	(void) state;
	assert_int_equal(rfm_open(BAD_SIZE_URI, &node), RFM_EURI);
	direct = strdup(rfm_last_error());
	assert_non_null(direct);
	assert_non_null(strstr(direct, "banana"));

	/* Another message in between, so a stale one cannot pass. */
	assert_int_equal(rfm_open(OTHER_BAD_SIZE_URI, &node), RFM_EURI);
	assert_null(strstr(rfm_last_error(), "banana"));

	assert_int_not_equal(RFM2gOpen((char *) BAD_SIZE_URI, &h), RFM2G_SUCCESS);
	assert_null(h);
	assert_string_equal(rfm_last_error(), direct);
	free(direct);
}

struct loaded {
	int librfm;			/* objects named librfm.so* */
	bool librfm2g;			/* librfm2g.so* seen */
	bool librfm2g_needs_librfm;	/* ... with librfm.so.1 in its DT_NEEDED */
};

static bool named(const char *path, const char *soname)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	return !strncmp(base, soname, strlen(soname));
}

/*
 * DT_NEEDED names of a loaded object. glibc relocates DT_STRTAB in the
 * loaded dynamic section on most architectures, not on all: an address
 * below the load base is still an offset from it.
 */
static bool needs(const struct dl_phdr_info *info, const char *soname)
{
	const ElfW(Dyn) *dyn = NULL;
	const char *strtab = NULL;

	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_DYNAMIC)
			dyn = (const ElfW(Dyn) *) (info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
	if (!dyn)
		return false;
	for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_STRTAB)
			strtab = (const char *) (d->d_un.d_ptr < info->dlpi_addr
						 ? info->dlpi_addr + d->d_un.d_ptr
						 : d->d_un.d_ptr);
	if (!strtab)
		return false;
	for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++)
		if (d->d_tag == DT_NEEDED && !strcmp(strtab + d->d_un.d_val, soname))
			return true;
	return false;
}

static int visit(struct dl_phdr_info *info, size_t size, void *data)
{
	struct loaded *seen = data;

	(void) size;
	if (named(info->dlpi_name, "librfm.so"))
		seen->librfm++;
	if (named(info->dlpi_name, "librfm2g.so")) {
		seen->librfm2g = true;
		seen->librfm2g_needs_librfm = needs(info, "librfm.so.1");
	}
	return 0;
}

static void librfm2g_uses_the_shared_librfm(void **state)
{
	struct loaded seen = { 0 };

	(void) state;
	dl_iterate_phdr(visit, &seen);
	assert_true(seen.librfm2g);
	assert_int_equal(seen.librfm, 1);
	assert_true(seen.librfm2g_needs_librfm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rfm2g_open_failure_is_librfms_error),
		cmocka_unit_test(librfm2g_uses_the_shared_librfm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
