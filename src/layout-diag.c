/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Diagnostics of layouts: every problem found in one load, with its
 * position, kept in a list the caller can walk (rfm_diag_list_get()).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout-internal.h"

struct rfm_diag_list *rfm__diag_list_new(const char *file)
{
	struct rfm_diag_list *list = calloc(1, sizeof(*list));

	if (!list)
		return NULL;
	list->file = strdup(file ? file : "<code>");
	if (!list->file) {
		free(list);
		return NULL;
	}
	return list;
}

void rfm__diag(struct rfm_diag_list *list, struct lay_pos pos, int code, const char *fmt, ...)
{
	struct rfm_diag_entry *e;
	va_list ap;
	int ret;

	/* A file with a problem per line must not make a list as long as itself. */
	if (list->count >= LAY_DIAGS_MAX) {
		list->dropped++;
		return;
	}
	if (rfm__grow(&list->entries, &list->capacity, list->count, sizeof(*list->entries))) {
		list->out_of_memory = true;
		return;
	}
	e = &list->entries[list->count];
	memset(e, 0, sizeof(*e));
	e->pos = pos;
	e->code = code;
	va_start(ap, fmt);
	ret = vasprintf(&e->message, fmt, ap);
	va_end(ap);
	if (ret < 0) {
		list->out_of_memory = true;
		return;
	}
	if (pos.line)
		ret = asprintf(&e->text, "%s:%u:%u: %s", list->file, pos.line, pos.column,
			       e->message);
	else
		ret = asprintf(&e->text, "%s: %s", list->file, e->message);
	if (ret < 0) {
		free(e->message);
		list->out_of_memory = true;
		return;
	}
	list->count++;
}

static int by_position(const void *a, const void *b)
{
	const struct rfm_diag_entry *x = a, *y = b;

	if (x->pos.line != y->pos.line)
		return x->pos.line < y->pos.line ? -1 : 1;
	if (x->pos.column != y->pos.column)
		return x->pos.column < y->pos.column ? -1 : 1;
	/* Equal positions keep the order they were found in. */
	return x < y ? -1 : x > y;
}

int rfm__diag_finish(struct rfm_diag_list *list)
{
	if (list->out_of_memory && list->count == 0)
		return rfm__error(RFM_ENOMEM, "%s: out of memory while reporting layout problems",
				  list->file);
	qsort(list->entries, list->count, sizeof(*list->entries), by_position);
	if (list->dropped) {
		size_t dropped = list->dropped;

		/* Appended after the sort: the last line says what is missing. */
		list->dropped = 0;
		list->count--; /* room for the note: the list is full */
		free(list->entries[list->count].message);
		free(list->entries[list->count].text);
		rfm__diag(list, (struct lay_pos){ 0, 0 }, RFM_ELAYOUT,
			  "%zu more problems not listed (the first %u found are)", dropped + 1,
			  LAY_DIAGS_MAX - 1);
	}
	if (list->count == 1)
		return rfm__error(RFM_ELAYOUT, "%s", list->entries[0].text);
	return rfm__error(RFM_ELAYOUT, "%s (and %zu more problems)", list->entries[0].text,
			  list->count - 1);
}

RFM_API size_t rfm_diag_list_count(const rfm_diag_list *list)
{
	return list ? list->count : 0;
}

RFM_API int rfm_diag_list_get(const rfm_diag_list *list, size_t index, struct rfm_diag *diag)
{
	struct rfm_diag full;
	int ret = rfm__sized_check("rfm_diag_list_get", list, diag, diag ? diag->struct_size : 0,
				 offsetof(struct rfm_diag, reserved));

	if (ret)
		return ret;
	if (index >= list->count)
		return rfm__error(RFM_EINVAL, "rfm_diag_list_get: index %zu, the list has %zu",
				  index, list->count);
	const struct rfm_diag_entry *e = &list->entries[index];
	memset(&full, 0, sizeof(full));
	full.line = e->pos.line;
	full.column = e->pos.column;
	full.code = e->code;
	full.file = list->file;
	full.message = e->message;
	full.text = e->text;
	rfm__sized_fill(diag, &full, sizeof(full));
	return 0;
}

RFM_API void rfm_diag_list_free(rfm_diag_list *list)
{
	if (!list)
		return;
	for (size_t i = 0; i < list->count; i++) {
		free(list->entries[i].message);
		free(list->entries[i].text);
	}
	free(list->entries);
	free(list->file);
	free(list);
}
