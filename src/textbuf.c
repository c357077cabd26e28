/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Text built in memory with printf (textbuf.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "textbuf.h"

/* The first allocation: most texts (a CSV row, a header line) fit. */
#define TEXTBUF_FIRST 4096

/* Room for @more bytes and the NUL after them: false (and nomem) when there is none. */
static bool reserve(struct rfm_textbuf *tb, size_t more)
{
	size_t size = tb->size ? tb->size : TEXTBUF_FIRST;
	char *p;

	if (tb->nomem)
		return false;
	if (tb->len + more < tb->size)
		return true;
	while (size <= tb->len + more)
		size *= 2;
	p = realloc(tb->text, size);
	if (!p) {
		tb->nomem = true;
		return false;
	}
	tb->text = p;
	tb->size = size;
	return true;
}

void rfm__textbuf_vprintf(struct rfm_textbuf *tb, const char *fmt, va_list ap)
{
	va_list again;
	int n;

	if (tb->nomem)
		return;
	va_copy(again, ap);
	n = vsnprintf(tb->text ? tb->text + tb->len : NULL, tb->text ? tb->size - tb->len : 0,
		      fmt, ap);
	if (n >= 0 && tb->len + (size_t)n >= tb->size) {
		n = reserve(tb, (size_t)n) ? vsnprintf(tb->text + tb->len, tb->size - tb->len, fmt,
						       again)
					   : -1;
	}
	va_end(again);
	if (n < 0)
		tb->nomem = true;
	else
		tb->len += (size_t)n;
}

void rfm__textbuf_printf(struct rfm_textbuf *tb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rfm__textbuf_vprintf(tb, fmt, ap);
	va_end(ap);
}

void rfm__textbuf_putc(struct rfm_textbuf *tb, char c)
{
	if (!reserve(tb, 1))
		return;
	tb->text[tb->len++] = c;
	tb->text[tb->len] = '\0';
}

void rfm__textbuf_puts(struct rfm_textbuf *tb, const char *s)
{
	size_t n = strlen(s);

	if (!reserve(tb, n))
		return;
	memcpy(tb->text + tb->len, s, n + 1);
	tb->len += n;
}

void rfm__textbuf_clear(struct rfm_textbuf *tb)
{
	tb->len = 0;
	if (tb->text)
		tb->text[0] = '\0';
}

void rfm__textbuf_free(struct rfm_textbuf *tb)
{
	free(tb->text);
	memset(tb, 0, sizeof(*tb));
}
