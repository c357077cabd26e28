/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * URI grammar, as rfm_open() shows it: which URIs open, what each bad one
 * returns and says, and that a refused URI creates nothing.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "rfm-cmocka.h"

struct bad_uri {
	const char *uri;
	int code;
	const char *message; /* a fragment rfm_last_error() must contain */
};

/* Scheme and path: these never name the fixture's network. */
static const struct bad_uri bad_whole_uris[] = {
	{ "no-colon", RFM_EURI, "not a URI" },
	{ ":path", RFM_EURI, "not a URI" },
	{ "SHM:x", RFM_EURI, "bad scheme 'SHM'" },
	{ "sh m:x", RFM_EURI, "bad scheme" },
	{ "sh-m:x", RFM_EURI, "bad scheme" },
	{ "nope:x", RFM_ESCHEME, "unknown scheme 'nope:'" },
	{ "dev:/nonexistent-rfm-device", RFM_ENOENT, "no device /nonexistent-rfm-device" },
	{ "dev:", RFM_EURI, "no device path" },
	{ "dev:dev/rfm0", RFM_EURI, "must be absolute" },
	{ "dev:/dev/null", RFM_EVERSION, "not an rfm.ko device" },
	{ "dev:/", RFM_EVERSION, "/ is not a character device" },
	{ "dev:/dev/null?depth=10", RFM_EURI, "depth '10' must be 1024..65536" },
	{ "dev:/dev/null?dma=lots", RFM_EURI, "dma 'lots' must be a byte count" },
	{ "dev:/dev/null?node=1", RFM_EURI, "unknown parameter 'node' for dev:" },
	{ "rfm2g:/nonexistent/rfm2g0", RFM_ENOENT, "no such RFM2g device" },
	{ "shm:", RFM_EURI, "network name ''" },
	{ "shm:a/b", RFM_EURI, "network name 'a/b'" },
	{ "shm:../etc", RFM_EURI, "network name" },
	{ "shm:.hidden", RFM_EURI, "network name" },
	{ "shm:-dash", RFM_EURI, "network name" },
	{ "shm:sp ace", RFM_EURI, "network name" },
	{ "shm:per%cent", RFM_EURI, "network name" },
	{ "shm:nul\x01", RFM_EURI, "network name" },
};

/* Parameters, appended to the fixture's network: "shm:NAME?<query>". */
static const struct bad_uri bad_queries[] = {
	{ "node", RFM_EURI, "parameter 'node' is not key=value" },
	{ "=1", RFM_EURI, "is not key=value" },
	{ "node=", RFM_EURI, "is not key=value" },
	{ "Node=1", RFM_EURI, "bad parameter name 'Node'" },
	{ "no-de=1", RFM_EURI, "bad parameter name" },
	{ "node=1&node=2", RFM_EURI, "parameter 'node' given twice" },
	{ "node=1&", RFM_EURI, "an empty parameter" }, /* not ignored: a typo shows */
	{ "&node=1", RFM_EURI, "an empty parameter" },
	{ "node=1&&size=4K", RFM_EURI, "an empty parameter" },
	{ "a=1&b=1&c=1&d=1&e=1&f=1&g=1&h=1&i=1&j=1&k=1&l=1&m=1&n=1&o=1&p=1&q=1", RFM_EURI,
	  "more than 16 parameters" },
	{ "colour=red", RFM_EURI, "unknown parameter 'colour'" },
	{ "node=1&colour=red", RFM_EURI, "unknown parameter 'colour'" },
	{ "node=abc", RFM_EURI, "node 'abc' is not a number" },
	{ "node=-1", RFM_EURI, "node '-1' is not a number" },
	{ "node=+1", RFM_EURI, "is not a number" },
	{ "node= 1", RFM_EURI, "is not a number" },
	{ "node=1x", RFM_EURI, "is not a number" },
	{ "node=08", RFM_EURI, "is not a number" }, /* C notation: octal */
	{ "node=99999999999999999999", RFM_EURI, "is not a number" },
	{ "node=256", RFM_ENODEID, "node id 256 is outside 0..255" },
	{ "node=0x100", RFM_ENODEID, "outside 0..255" },
	{ "node=4294967296", RFM_ENODEID, "outside 0..255" },
	{ "size=abc", RFM_EURI, "size 'abc' is not a byte count" },
	{ "size=-4096", RFM_EURI, "is not a byte count" },
	{ "size=4096B", RFM_EURI, "is not a byte count" },
	{ "size=16E", RFM_EURI, "is not a byte count" },
	{ "size=K", RFM_EURI, "is not a byte count" },
	{ "size=17179869184G", RFM_EURI, "is not a byte count" }, /* 2^64: overflows */
	{ "size=0", RFM_ESIZE, "window size 0 must be a multiple of 4096" },
	{ "size=1000", RFM_ESIZE, "window size 1000" },
	{ "size=4095", RFM_ESIZE, "window size 4095" },
	{ "size=4097", RFM_ESIZE, "window size 4097" },
	{ "size=2048G", RFM_ESIZE, "between 4096 and 2^40" },
	{ "mode=600", RFM_EURI, "mode '600' must be octal" },
	{ "mode=0700", RFM_EURI, "no execute" },
	{ "mode=0601", RFM_EURI, "must be octal" },
	{ "mode=0400", RFM_EURI, "owner read-write" },
	{ "mode=0", RFM_EURI, "must be octal" },
	{ "mode=01600", RFM_EURI, "must be octal" },
	{ "mode=0abc", RFM_EURI, "must be octal" },
	{ "mode=0x180", RFM_EURI, "must be octal" },
	{ "mode=0608", RFM_EURI, "must be octal" },
};

/* What a query of node=, size= and mode= needs: a segment network of
 * chosen node ids and window size. */
#define SEGMENT_QUERIES (HARNESS_CAP_ANY_NODE_ID | HARNESS_CAP_WINDOW_SIZE | HARNESS_CAP_SEGMENT)
/* node= and size= only. */
#define ID_AND_SIZE_QUERIES                                                                        \
	(HARNESS_CAP_ANY_NODE_ID | HARNESS_CAP_WINDOW_SIZE | HARNESS_CAP_OWN_NETWORKS)

static int setup(void **state)
{
	return harness_fixture_network(state, 0);
}

/* The fixture's network must not have been created by a refused open. */
static void assert_no_network(const struct harness_network *net)
{
	char path[128];

	if (harness_shm_path(net, path, sizeof(path)) && access(path, F_OK) == 0)
		fail_msg("a refused URI left %s behind", path);
}

static void check_bad(const struct bad_uri *bad, const char *uri,
		      const struct harness_network *net)
{
	rfm_node *node = NULL;
	int ret = rfm_open(uri, &node);

	if (ret != bad->code)
		fail_msg("rfm_open(\"%s\") returned %d (%s), expected %d (%s); \"%s\"", uri, ret,
			 rfm_strerror(ret), bad->code, rfm_strerror(bad->code), rfm_last_error());
	assert_null(node);
	if (!strstr(rfm_last_error(), bad->message))
		fail_msg("rfm_open(\"%s\"): message \"%s\" does not mention \"%s\"", uri,
			 rfm_last_error(), bad->message);
	assert_no_network(net);
}

/* Is @uri's scheme one this build has? (dev: is Linux's.) */
static bool scheme_built(const char *uri)
{
	char probe[32];
	const char *colon = strchr(uri, ':');

	snprintf(probe, sizeof(probe), "%.*s:probe", colon ? (int)(colon - uri) : 0, uri);
	return rfm_network_destroy(probe, 0) != RFM_ESCHEME;
}

static void bad_schemes_and_names(void **state)
{
	static const struct bad_uri unknown = { NULL, RFM_ESCHEME, "unknown scheme" };
	/* test-rfm2g-backend-win covers rfm2g: with a DLL standing in for GE's. */
	static const struct bad_uri no_vendor_dll = { NULL, RFM_ENOTSUP,
						      "cannot load GE's RFM2g DLL" };

	for (size_t i = 0; i < sizeof(bad_whole_uris) / sizeof(bad_whole_uris[0]); i++) {
		const struct bad_uri *bad = &bad_whole_uris[i];

		/* A scheme this build leaves out is refused as unknown, whatever follows. */
		if (!scheme_built(bad->uri))
			bad = &unknown;
		else if (strncmp(bad->uri, "rfm2g:", 6) == 0 && harness_vendor_dll_needed() &&
			 !getenv("RFM_RFM2G_DLL"))
			bad = &no_vendor_dll;
		check_bad(bad, bad_whole_uris[i].uri, *state);
	}
}

static void bad_parameters(void **state)
{
	struct harness_network *net = *state;

	skip_unless_can(SEGMENT_QUERIES, "the network's URI takes node=, size= and mode=");
	for (size_t i = 0; i < sizeof(bad_queries) / sizeof(bad_queries[0]); i++)
		check_bad(&bad_queries[i], harness_network_uri(net, "%s", bad_queries[i].uri), net);
}

static void too_long_uri(void **state)
{
	struct harness_network *net = *state;
	char uri[1100];
	rfm_node *node = NULL;

	snprintf(uri, sizeof(uri), "%s?node=1", net->uri);
	memset(uri + strlen(uri), '0', sizeof(uri) - strlen(uri) - 1);
	uri[sizeof(uri) - 1] = '\0';
	assert_rfm_code(rfm_open(uri, &node), RFM_EURI);
	assert_last_error_has("longer than 1024");
	assert_null(node);
	assert_no_network(net);
}

/* A URI that opens: the node gets @id and a window of @size. */
static void check_opens(const char *uri, int id, uint64_t size)
{
	rfm_node *node = NULL;
	int ret = rfm_open(uri, &node);

	if (ret)
		fail_msg("rfm_open(\"%s\") returned %d: %s", uri, ret, rfm_last_error());
	if (id >= 0)
		assert_int_equal(rfm_node_id(node), id);
	assert_int_equal(rfm_node_size(node), size);
	rfm_close(node);
}

static void numbers_in_c_notation(void **state)
{
	static const struct {
		const char *size;
		uint64_t bytes;
	} sizes[] = {
		{ "8192", 8192 }, { "8k", 8192 }, { "8K", 8192 }, { "0x2000", 8192 },
		{ "020000", 8192 }, { "1M", 1 << 20 }, { "1m", 1 << 20 },
	};
	static const struct {
		const char *node;
		int id;
	} ids[] = {
		{ "0", 0 }, { "7", 7 }, { "255", 255 }, { "0xff", 255 }, { "0x10", 16 },
		{ "010", 8 }, { "00", 0 },
	};
	struct harness_network *net = *state;

	skip_unless_can(ID_AND_SIZE_QUERIES, "the network's URI takes node= and size=");
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		check_opens(harness_network_uri(net, "size=%s", sizes[i].size), -1, sizes[i].bytes);
		assert_rfm_ok(harness_network_destroy(net));
	}
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++)
		check_opens(harness_network_uri(net, "node=%s&size=4K", ids[i].node), ids[i].id,
			    4096);
}

static void parameters_in_any_order(void **state)
{
	struct harness_network *net = *state;

	skip_unless_can(SEGMENT_QUERIES, "the network's URI takes node=, size= and mode=");
	check_opens(harness_network_uri(net, "mode=0600&size=4K&node=3"), 3, 4096);
	check_opens(harness_network_uri(net, "size=4K&node=4"), 4, 4096);
	check_opens(harness_network_uri(net, "node=5"), 5, 4096);
}

static void empty_query_is_no_parameters(void **state)
{
	struct harness_network *net = *state;

	skip_unless_can(ID_AND_SIZE_QUERIES, "the network's URI takes node= and size=");
	check_opens(harness_network_uri(net, "size=4K"), 0, 4096);
	check_opens(harness_network_uri(net, "%s", ""), 0, 4096);
	char uri[HARNESS_URI_MAX];
	snprintf(uri, sizeof(uri), "%s?", net->uri);
	check_opens(uri, 0, 4096);
}

static void longest_name(void **state)
{
	char name[65], uri[128];
	int prefix;

	skip_unless_can(HARNESS_CAP_SEGMENT, "a network's name is its segment file's");
	/* 64 characters open; 65 are refused. */
	prefix = snprintf(name, sizeof(name), "t-uri-%d-", (int)getpid());
	memset(name + prefix, 'n', sizeof(name) - 1 - (size_t)prefix);
	name[64] = '\0';
	snprintf(uri, sizeof(uri), "shm:%s?size=4K", name);
	check_opens(uri, 0, 4096);
	assert_rfm_ok(rfm_network_destroy(uri, 0));

	snprintf(uri, sizeof(uri), "shm:%sn?size=4K", name);
	assert_rfm_code(rfm_open(uri, &(rfm_node *){ NULL }), RFM_EURI);
	assert_last_error_has("1-64 characters");
}

static void name_characters(void **state)
{
	char uri[128];

	skip_unless_can(HARNESS_CAP_SEGMENT, "a network's name is its segment file's");
	/* Letters, digits, '_', '-' and '.' (not leading) make a name. */
	snprintf(uri, sizeof(uri), "shm:Az09_-.x.%d?size=4K", (int)getpid());
	check_opens(uri, 0, 4096);
	assert_rfm_ok(rfm_network_destroy(uri, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(bad_schemes_and_names, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(bad_parameters, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(too_long_uri, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(numbers_in_c_notation, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(parameters_in_any_order, setup, harness_fixture_teardown),
		cmocka_unit_test_setup_teardown(empty_query_is_no_parameters, setup, harness_fixture_teardown),
		cmocka_unit_test(longest_name),
		cmocka_unit_test(name_characters),
	};

	harness_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
