/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm ping's echo side: `rfm ping --echo` answering in this process, and
 * the echoer `--local` starts on a second node of the same network. Both
 * run the mode's echo loop (ping-slot.c, ping-ring.c).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "ping.h"

static int echo_loop(struct ping *p, uint64_t max_echoes, uint64_t *echoed)
{
	return p->mode == MODE_RING ? ring_echo_loop(p, max_echoes, echoed)
				    : slot_echo_loop(p, max_echoes, echoed);
}

int ping_run_echo(struct ping *p, const struct ping_opts *o)
{
	struct cli *cli = p->cli;
	uint64_t echoed = 0;
	int ret = 0;

	if (p->mode == MODE_RING)
		ret = ring_echo_setup(p);
	if (!ret)
		ret = echo_loop(p, o->count, &echoed);
	if (ret == CLI_EXIT_NOMATCH)
		cli_error(cli, "no request within %lld ms", (long long)(p->timeout_ns / MS));
	if (ret == PING_INTERRUPTED)
		ret = CLI_EXIT_INTERRUPTED;
	else if (ret)
		return ret;
	if (cli->json) {
		struct json_object *obj = json_object_new_object();
		cli_json_add_string(obj, "mode", ping_mode_names[p->mode]);
		cli_json_add_u64(obj, "echoed", echoed);
		cli_json_add_bool(obj, "interrupted", ret == CLI_EXIT_INTERRUPTED);
		cli_json_print(obj);
	} else {
		printf("echoed %llu request(s)\n", (unsigned long long)echoed);
	}
	return ret;
}

/*
 * The URI of the --local echoer: the pinger's URI without its node=
 * parameter, so that the child takes the first free id.
 */
static char *uri_without_node(const char *uri)
{
	char *copy = malloc(strlen(uri) + 1), *q = strchr(uri, '?');
	size_t n;

	if (!copy)
		return NULL;
	if (!q) {
		strcpy(copy, uri);
		return copy;
	}
	n = (size_t)(q - uri);
	memcpy(copy, uri, n);
	copy[n] = 0;
	char sep = '?';
	for (const char *param = q + 1; *param;) {
		size_t len = strcspn(param, "&");
		if (strncmp(param, "node=", 5)) {
			size_t at = strlen(copy);
			copy[at] = sep;
			memcpy(copy + at + 1, param, len);
			copy[at + 1 + len] = 0;
			sep = '&';
		}
		param += len;
		if (*param == '&')
			param++;
	}
	return copy;
}

/* The child's node, window and event settings: its node id, or -1 after saying why. */
static int echoer_open(struct ping *p, const struct rt_setup *rt)
{
	struct cli *cli = p->cli;

	if (rt_apply(cli, rt) || rt_open(cli, rt))
		return -1;
	if ((p->mode == MODE_EVENT &&
	     rfm_event_enable(cli->node, RFM_EVENT_BIT(RFM_EVENT_INTR1))) ||
	    rfm_event_set_spin(cli->node, p->mode == MODE_RING ? YIELD_AFTER_NS : 0) ||
	    rfm_mem_map(cli->node, (void **)&p->base, NULL)) {
		cli_fail(cli);
		return -1;
	}
	/* The request ring exists already: the pinger made it before starting us. */
	if (p->mode == MODE_RING && ring_echo_setup(p))
		return -1;
	return rfm_node_id(cli->node);
}

int ping_local_echoer(struct ping *parent, const struct rt_setup *rt,
		      void (*ready)(void *arg, int id), void *arg)
{
	struct cli cli = *parent->cli;
	struct ping p = *parent;
	char *uri = uri_without_node(cli_effective_uri(parent->cli));
	int id = -1;

	cli.node = NULL;
	cli.uri = uri;
	p.cli = &cli;
	p.out = NULL;	/* the pinger's: this side produces the reply ring */
	p.in = NULL;
	p.msg = NULL;
	if (uri)
		id = echoer_open(&p, rt);
	else
		cli_error(&cli, "out of memory");
	ready(arg, id);	/* the pinger goes on from here: *parent is its own again */
	int ret = 1;
	if (id >= 0) {
		uint64_t echoed;

		p.timeout_ns = -1;	/* the pinger stops us (a stop request, or a kill) */
		ret = echo_loop(&p, 0, &echoed);
	}
	rfm_ring_close(p.out);
	rfm_ring_consumer_close(p.in);
	free(p.msg);
	rfm_close(cli.node);
	free(uri);
	return ret;
}
