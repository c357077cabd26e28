/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A layout file's YAML documents, built here from libyaml's events rather
 * than by its loader, so that the limits of layout-internal.h hold while
 * reading: nesting deeper than LAY_DEPTH_MAX stops the load (libyaml's
 * scanner costs time proportional to the depth for every token, so a file
 * of 100000 '[' would take minutes), and so do LAY_NODES_MAX nodes and
 * LAY_ALIASES_MAX aliases. Syntax errors become diagnostics at their
 * position. What the document means is layout-yaml.c's business.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "layout-internal.h"
#include "layout-yaml.h"

/* An anchor seen while loading: aliases name them. */
struct anchor {
	char *name;
	int node;
};

struct loader {
	yaml_parser_t *parser;
	yaml_document_t *doc;
	struct rfm_diag_list *diags;
	struct anchor *anchors;
	size_t nanchors, cap_anchors, nodes;
	unsigned int aliases;
	int stack[LAY_DEPTH_MAX];	/* open lists and mappings */
	int key[LAY_DEPTH_MAX];		/* a mapping's key waiting for its value, or 0 */
	unsigned int depth;
};

static void syntax_error(struct rfm_diag_list *diags, const yaml_parser_t *parser);

static struct lay_pos pos_of_mark(yaml_mark_t m)
{
	return (struct lay_pos){ (uint32_t)m.line + 1, (uint32_t)m.column + 1 };
}

/* Hang node @id under the open list or mapping (the root needs nothing). */
static bool attach(struct loader *ld, int id)
{
	if (!ld->depth)
		return true;
	unsigned int top = ld->depth - 1;
	int parent = ld->stack[top];

	if (ld->doc->nodes.start[parent - 1].type == YAML_SEQUENCE_NODE)
		return yaml_document_append_sequence_item(ld->doc, parent, id);
	if (!ld->key[top]) {
		ld->key[top] = id;
		return true;
	}
	int key = ld->key[top];
	ld->key[top] = 0;
	return yaml_document_append_mapping_pair(ld->doc, parent, key, id);
}

static bool remember_anchor(struct loader *ld, const yaml_char_t *name, int id)
{
	if (!name)
		return true;
	if (rfm__grow(&ld->anchors, &ld->cap_anchors, ld->nanchors, sizeof(*ld->anchors)))
		return false;
	ld->anchors[ld->nanchors].name = strdup((const char *)name);
	if (!ld->anchors[ld->nanchors].name)
		return false;
	ld->anchors[ld->nanchors++].node = id;
	return true;
}

/*
 * An alias: hang the anchored node again, so that the walk reports it
 * where it was anchored (as it reports any node reached twice). Only the
 * first few are looked up: the search is linear in the anchors.
 */
static int alias(struct loader *ld, const yaml_event_t *ev)
{
	const char *name = (const char *)ev->data.alias.anchor;

	if (++ld->aliases > LAY_ALIASES_MAX) {
		rfm__diag(ld->diags, pos_of_mark(ev->start_mark), RFM_ELAYOUT,
			  "more than %u aliases: aliases are not supported, write the values out",
			  LAY_ALIASES_MAX);
		return -1;
	}
	for (size_t i = ld->nanchors; i-- > 0;)
		if (!strcmp(ld->anchors[i].name, name))
			return ld->anchors[i].node;
	rfm__diag(ld->diags, pos_of_mark(ev->start_mark), RFM_ELAYOUT,
		  "alias '*%.64s' names no anchor before it (and aliases are not supported)",
		  name);
	return -1;
}

/* Add the node an event starts; its id, 0 when out of memory, -1 on a reported error. */
static int add_node(struct loader *ld, const yaml_event_t *ev)
{
	int id;

	if (++ld->nodes > LAY_NODES_MAX) {
		rfm__diag(ld->diags, pos_of_mark(ev->start_mark), RFM_ELAYOUT,
			  "more than %u values: the limit of a layout file", LAY_NODES_MAX);
		return -1;
	}
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		id = yaml_document_add_scalar(ld->doc, NULL, ev->data.scalar.value,
					      (int)ev->data.scalar.length, ev->data.scalar.style);
		if (id && !remember_anchor(ld, ev->data.scalar.anchor, id))
			id = 0;
		break;
	case YAML_SEQUENCE_START_EVENT:
		id = yaml_document_add_sequence(ld->doc, NULL, ev->data.sequence_start.style);
		if (id && !remember_anchor(ld, ev->data.sequence_start.anchor, id))
			id = 0;
		break;
	default:
		id = yaml_document_add_mapping(ld->doc, NULL, ev->data.mapping_start.style);
		if (id && !remember_anchor(ld, ev->data.mapping_start.anchor, id))
			id = 0;
		break;
	}
	if (id) {
		ld->doc->nodes.start[id - 1].start_mark = ev->start_mark;
		ld->doc->nodes.start[id - 1].end_mark = ev->end_mark;
	}
	return id;
}

/* One event of a document's body: 0 to go on, 1 at its end, -1 stop, -2 out of memory. */
static int load_event(struct loader *ld, const yaml_event_t *ev)
{
	int id;

	switch (ev->type) {
	case YAML_DOCUMENT_END_EVENT:
		return 1;
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (ld->depth)
			ld->depth--;
		return 0;
	case YAML_ALIAS_EVENT:
		id = alias(ld, ev);
		if (id < 0)
			return -1;
		return attach(ld, id) ? 0 : -2;
	case YAML_SCALAR_EVENT:
	case YAML_SEQUENCE_START_EVENT:
	case YAML_MAPPING_START_EVENT:
		break;
	default:
		return 0;
	}
	if (ev->type != YAML_SCALAR_EVENT && ld->depth == LAY_DEPTH_MAX) {
		rfm__diag(ld->diags, pos_of_mark(ev->start_mark), RFM_ELAYOUT,
			  "lists and mappings nested more than %u deep: the limit of a layout file",
			  LAY_DEPTH_MAX);
		return -1;
	}
	id = add_node(ld, ev);
	if (id <= 0)
		return id ? -1 : -2;
	if (!attach(ld, id))
		return -2;
	if (ev->type != YAML_SCALAR_EVENT) {
		ld->stack[ld->depth] = id;
		ld->key[ld->depth++] = 0;
	}
	return 0;
}

/*
 * Load the next document of the stream into @doc, as yaml_parser_load()
 * would, within the limits. 1: a document (delete it); 0: the stream has
 * no more; -1: an error, reported in the diagnostics (or out of memory).
 */
static int load_document(struct loader *ld, yaml_document_t *doc)
{
	yaml_event_t ev;
	int ret = 0;

	ld->doc = doc;
	ld->depth = 0;
	for (;;) {
		if (!yaml_parser_parse(ld->parser, &ev)) {
			syntax_error(ld->diags, ld->parser);
			return -1;
		}
		yaml_event_type_t type = ev.type;
		yaml_event_delete(&ev);
		if (type == YAML_STREAM_END_EVENT)
			return 0;
		if (type == YAML_DOCUMENT_START_EVENT)
			break;
	}
	if (!yaml_document_initialize(doc, NULL, NULL, NULL, 1, 1)) {
		ld->diags->out_of_memory = true;
		return -1;
	}
	while (!ret) {
		if (!yaml_parser_parse(ld->parser, &ev)) {
			syntax_error(ld->diags, ld->parser);
			ret = -1;
			break;
		}
		ret = load_event(ld, &ev);
		yaml_event_delete(&ev);
	}
	if (ret == -2)
		ld->diags->out_of_memory = true;
	if (ret < 0) {
		yaml_document_delete(doc);
		return -1;
	}
	return 1;
}

static void free_anchors(struct loader *ld)
{
	for (size_t i = 0; i < ld->nanchors; i++)
		free(ld->anchors[i].name);
	free(ld->anchors);
}

static void syntax_error(struct rfm_diag_list *diags, const yaml_parser_t *parser)
{
	struct lay_pos pos = { (uint32_t)parser->problem_mark.line + 1,
			       (uint32_t)parser->problem_mark.column + 1 };
	const char *problem = parser->problem ? parser->problem : "unreadable YAML";

	if (parser->error == YAML_MEMORY_ERROR) {
		diags->out_of_memory = true;
		return;
	}
	if (parser->context)
		rfm__diag(diags, pos, RFM_ELAYOUT, "YAML syntax: %s %s", problem, parser->context);
	else
		rfm__diag(diags, pos, RFM_ELAYOUT, "YAML syntax: %s", problem);
}

struct lay_yaml_reader {
	yaml_parser_t parser;
	struct loader ld;
};

struct lay_yaml_reader *rfm__yaml_reader_new(const char *text, size_t len,
					     struct rfm_diag_list *diags)
{
	struct lay_yaml_reader *rd = calloc(1, sizeof(*rd));

	if (!rd)
		return NULL;
	if (!yaml_parser_initialize(&rd->parser)) {
		free(rd);
		return NULL;
	}
	yaml_parser_set_input_string(&rd->parser, (const unsigned char *)text, len);
	rd->ld.parser = &rd->parser;
	rd->ld.diags = diags;
	return rd;
}

int rfm__yaml_reader_next(struct lay_yaml_reader *rd, yaml_document_t *doc)
{
	return load_document(&rd->ld, doc);
}

void rfm__yaml_reader_free(struct lay_yaml_reader *rd)
{
	if (!rd)
		return;
	free_anchors(&rd->ld);
	yaml_parser_delete(&rd->parser);
	free(rd);
}
