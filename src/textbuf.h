/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Text built in memory with printf: what open_memstream() gives, which
 * not every C library has (mingw's has none). Out of memory is remembered
 * and ends nothing: the builder looks once, at the end.
 */
#ifndef RFM_TEXTBUF_H
#define RFM_TEXTBUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "internal.h"

struct rfm_textbuf {
	char *text;		/* NUL-terminated once anything was added; NULL before */
	size_t len;		/* bytes of text */
	size_t size;		/* bytes allocated */
	bool nomem;		/* an append failed for want of memory */
};

/* Append printf(@fmt, ...) to @tb. */
__attribute__((format(RFM_PRINTF_FORMAT, 2, 3)))
void rfm__textbuf_printf(struct rfm_textbuf *tb, const char *fmt, ...);
__attribute__((format(RFM_PRINTF_FORMAT, 2, 0)))
void rfm__textbuf_vprintf(struct rfm_textbuf *tb, const char *fmt, va_list ap);
/* Append the character @c, or the string @s. */
void rfm__textbuf_putc(struct rfm_textbuf *tb, char c);
void rfm__textbuf_puts(struct rfm_textbuf *tb, const char *s);
/* Forget the text, keeping the memory for the next. */
void rfm__textbuf_clear(struct rfm_textbuf *tb);
/* Free the memory; @tb is empty again. */
void rfm__textbuf_free(struct rfm_textbuf *tb);

#endif /* RFM_TEXTBUF_H */
