/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Between the layout file's two halves: layout-yaml-doc.c reads the text
 * into bounded YAML documents, layout-yaml.c walks a document into the
 * layout builder. Needs <yaml.h>.
 */
#ifndef RFM_LAYOUT_YAML_H
#define RFM_LAYOUT_YAML_H

#include <stddef.h>
#include <yaml.h>

struct rfm_diag_list;
struct lay_yaml_reader;

/* A reader of the YAML stream @text (@len bytes, not copied: it must
 * outlive the reader) reporting into @diags; NULL when out of memory. */
struct lay_yaml_reader *rfm__yaml_reader_new(const char *text, size_t len,
					     struct rfm_diag_list *diags);
/*
 * The next document of the stream into @doc, as yaml_parser_load() would,
 * within the limits. 1: a document (the caller deletes it); 0: the stream
 * has no more; -1: an error, reported in the diagnostics (or out of memory).
 */
int rfm__yaml_reader_next(struct lay_yaml_reader *rd, yaml_document_t *doc);
void rfm__yaml_reader_free(struct lay_yaml_reader *rd);

#endif /* RFM_LAYOUT_YAML_H */
