/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The typed part of the mixed-host peer: typed variables of every number
 * type in both byte orders, a string, arrays and records, set by one node
 * and checked by the other. Each value is checked twice: through the
 * typed getters (the library's conversion on this host) and as the bytes
 * in the window, decoded here by hand in the variable's byte order (the
 * wire format the other host wrote, whatever this host's order).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mixed-peer.h"

#define REGION_OFF(id) (0x20000u + 0x1000u * (id))
#define NTYPES 10
#define NRECS 2

static const char *const type_names[NTYPES] = {
	"u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64",
};
static const char *const orders[2] = { "little", "big" };
static const char *const rec_names[NRECS] = { "rle", "rbe" };

struct mixed_typed {
	rfm_node *n;
	rfm_layout *layout;
	uint32_t me, peer;
	rfm_var *mine[2][NTYPES], *theirs[2][NTYPES];
	rfm_var *my_text, *their_text, *my_arr[2], *their_arr[2];
	rfm_record *my_rec[NRECS], *their_rec[NRECS];
};

/* The value node @id gives type @t, as its bit pattern (floats by memcpy):
 * every byte distinct, so a swapped or shifted word cannot pass. */
static uint64_t value_bits(int t, uint32_t id)
{
	float f = 1.5f + (float)id;
	double d = -1234.0625 - id;
	uint32_t f32;
	uint64_t f64;

	memcpy(&f32, &f, 4);
	memcpy(&f64, &d, 8);
	switch (t) {
	case 0: return 0xa0u + id;
	case 1: return 0xb1c2u + id;
	case 2: return 0xd3e4f506u + id;
	case 3: return 0x8877665544332211ull + id;
	case 4: return (uint8_t)(int8_t)(-100 + (int)id);
	case 5: return (uint16_t)(int16_t)(-30000 + (int)id);
	case 6: return (uint32_t)(-2000000000 + (int32_t)id);
	case 7: return (uint64_t)(-0x123456789abcdef0ll + id);
	case 8: return f32;
	default: return f64;
	}
}

/* A word of @size bytes at @p in byte order @big, decoded by hand. */
static uint64_t load_bits(const uint8_t *p, unsigned int size, int big)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < size; i++)
		v |= (uint64_t)p[big ? size - 1 - i : i] << (8 * i);
	return v;
}

static int append(char *buf, size_t len, size_t *at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int append(char *buf, size_t len, size_t *at, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(buf + *at, len - *at, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= len - *at)
		return -1;
	*at += (size_t)k;
	return 0;
}

static int region_text(char *buf, size_t len, size_t *at, uint32_t id)
{
	int r = append(buf, len, at,
		       "  - name: n%u\n    offset: 0x%x\n    size: 0x1000\n    writer: %u\n"
		       "    variables:\n", id, REGION_OFF(id), id);

	for (int o = 0; o < 2; o++)
		for (int t = 0; t < NTYPES; t++)
			r |= append(buf, len, at, "      - { name: %c_%s, type: %s, byte_order: %s }\n",
				    orders[o][0], type_names[t], type_names[t], orders[o]);
	r |= append(buf, len, at,
		    "      - { name: text, type: string, length: 24 }\n"
		    "      - { name: l_arr, type: u32, count: 4, byte_order: little }\n"
		    "      - { name: b_arr, type: i16, count: 4, byte_order: big }\n"
		    "    records:\n");
	for (int o = 0; o < NRECS; o++)
		r |= append(buf, len, at,
			    "      - name: %s\n        byte_order: %s\n        variables:\n"
			    "          - { name: k, type: u32 }\n"
			    "          - { name: wide, type: u64 }\n"
			    "          - { name: neg, type: i32 }\n"
			    "          - { name: f, type: f64 }\n", rec_names[o], orders[o]);
	return r;
}

static rfm_var *open_var(struct mixed_typed *t, rfm_node *n, uint32_t id, const char *name)
{
	char full[64];
	rfm_var *v = NULL;

	snprintf(full, sizeof(full), "n%u.%s", id, name);
	if (rfm_var_open(t->layout, n, full, &v))
		fprintf(stderr, "mixed-peer %u: variable %s: %s\n", t->me, full, rfm_last_error());
	return v;
}

static int open_side(struct mixed_typed *t, rfm_node *n, uint32_t id, int mine)
{
	char name[16];
	int bad = 0;

	for (int o = 0; o < 2; o++)
		for (int k = 0; k < NTYPES; k++) {
			snprintf(name, sizeof(name), "%c_%s", orders[o][0], type_names[k]);
			rfm_var **slot = mine ? &t->mine[o][k] : &t->theirs[o][k];
			bad |= !(*slot = open_var(t, n, id, name));
		}
	rfm_var **text = mine ? &t->my_text : &t->their_text;
	rfm_var **arr = mine ? t->my_arr : t->their_arr;
	bad |= !(*text = open_var(t, n, id, "text"));
	bad |= !(arr[0] = open_var(t, n, id, "l_arr"));
	bad |= !(arr[1] = open_var(t, n, id, "b_arr"));
	for (int o = 0; o < NRECS; o++) {
		char full[32];
		rfm_record **rec = mine ? &t->my_rec[o] : &t->their_rec[o];

		snprintf(full, sizeof(full), "n%u.%s", id, rec_names[o]);
		if (rfm_record_open(t->layout, n, full, rec)) {
			fprintf(stderr, "mixed-peer %u: record %s: %s\n", t->me, full, rfm_last_error());
			bad = 1;
		}
	}
	return bad ? -1 : 0;
}

struct mixed_typed *mixed_typed_open(rfm_node *n, uint32_t me, uint32_t peer)
{
	struct mixed_typed *t = calloc(1, sizeof(*t));
	char text[8192];
	size_t at = 0;
	rfm_diag_list *diags = NULL;

	if (!t)
		return NULL;
	t->n = n;
	t->me = me;
	t->peer = peer;
	if (append(text, sizeof(text), &at, "version: 1\nname: mixed\nwindow: 1M\nregions:\n") ||
	    region_text(text, sizeof(text), &at, me) || region_text(text, sizeof(text), &at, peer)) {
		fprintf(stderr, "mixed-peer %u: the layout text does not fit\n", me);
		free(t);
		return NULL;
	}
	if (rfm_layout_load_string(text, at, "mixed.yaml", &t->layout, &diags)) {
		fprintf(stderr, "mixed-peer %u: layout: %s\n", me, rfm_last_error());
		rfm_diag_list_free(diags);
		free(t);
		return NULL;
	}
	rfm_diag_list_free(diags);
	if (open_side(t, n, me, 1) || open_side(t, n, peer, 0)) {
		mixed_typed_close(t);
		return NULL;
	}
	return t;
}

void mixed_typed_close(struct mixed_typed *t)
{
	if (!t)
		return;
	for (int o = 0; o < 2; o++) {
		for (int k = 0; k < NTYPES; k++) {
			rfm_var_close(t->mine[o][k]);
			rfm_var_close(t->theirs[o][k]);
		}
		rfm_var_close(t->my_arr[o]);
		rfm_var_close(t->their_arr[o]);
	}
	rfm_var_close(t->my_text);
	rfm_var_close(t->their_text);
	for (int o = 0; o < NRECS; o++) {
		rfm_record_close(t->my_rec[o]);
		rfm_record_close(t->their_rec[o]);
	}
	rfm_layout_free(t->layout);
	free(t);
}

/* Set a number variable through its type's own setter. */
static int set_bits(rfm_var *v, int t, uint64_t bits)
{
	float f;
	double d;
	uint32_t b32 = (uint32_t)bits;

	switch (t) {
	case 0: return rfm_var_set_u8(v, 0, (uint8_t)bits);
	case 1: return rfm_var_set_u16(v, 0, (uint16_t)bits);
	case 2: return rfm_var_set_u32(v, 0, (uint32_t)bits);
	case 3: return rfm_var_set_u64(v, 0, bits);
	case 4: return rfm_var_set_i8(v, 0, (int8_t)(uint8_t)bits);
	case 5: return rfm_var_set_i16(v, 0, (int16_t)(uint16_t)bits);
	case 6: return rfm_var_set_i32(v, 0, (int32_t)(uint32_t)bits);
	case 7: return rfm_var_set_i64(v, 0, (int64_t)bits);
	case 8: memcpy(&f, &b32, 4); return rfm_var_set_f32(v, 0, f);
	default: memcpy(&d, &bits, 8); return rfm_var_set_f64(v, 0, d);
	}
}

/* Read a number variable through its type's own getter, as its bit pattern. */
static int get_bits(rfm_var *v, int t, uint64_t *bits)
{
	union { uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64; int8_t i8; int16_t i16;
		int32_t i32; int64_t i64; float f; double d; } u;
	int r;

	memset(&u, 0, sizeof(u));
	switch (t) {
	case 0: r = rfm_var_get_u8(v, 0, &u.u8); *bits = u.u8; break;
	case 1: r = rfm_var_get_u16(v, 0, &u.u16); *bits = u.u16; break;
	case 2: r = rfm_var_get_u32(v, 0, &u.u32); *bits = u.u32; break;
	case 3: r = rfm_var_get_u64(v, 0, &u.u64); *bits = u.u64; break;
	case 4: r = rfm_var_get_i8(v, 0, &u.i8); *bits = (uint8_t)u.i8; break;
	case 5: r = rfm_var_get_i16(v, 0, &u.i16); *bits = (uint16_t)u.i16; break;
	case 6: r = rfm_var_get_i32(v, 0, &u.i32); *bits = (uint32_t)u.i32; break;
	case 7: r = rfm_var_get_i64(v, 0, &u.i64); *bits = (uint64_t)u.i64; break;
	case 8: r = rfm_var_get_f32(v, 0, &u.f); *bits = u.u32; break;
	default: r = rfm_var_get_f64(v, 0, &u.d); *bits = u.u64; break;
	}
	return r;
}

static void arrays_of(uint32_t id, uint32_t l[4], int16_t b[4])
{
	for (int i = 0; i < 4; i++) {
		l[i] = (id + 1u) << (8 * i) | 0x80u;
		b[i] = (int16_t)(-1000 * (i + 1) - (int)id);
	}
}

int mixed_typed_set(struct mixed_typed *t)
{
	char text[24];
	uint32_t l[4];
	int16_t b[4];

	for (int o = 0; o < 2; o++)
		for (int k = 0; k < NTYPES; k++)
			if (set_bits(t->mine[o][k], k, value_bits(k, t->me))) {
				fprintf(stderr, "mixed-peer %u: set %s: %s\n", t->me,
					rfm_var_name(t->mine[o][k]), rfm_last_error());
				return -1;
			}
	snprintf(text, sizeof(text), "node %u was here", t->me);
	arrays_of(t->me, l, b);
	if (rfm_var_set_string(t->my_text, text) ||
	    rfm_var_set_array(t->my_arr[0], 0, 4, l, sizeof(l)) ||
	    rfm_var_set_array(t->my_arr[1], 0, 4, b, sizeof(b))) {
		fprintf(stderr, "mixed-peer %u: set text or arrays: %s\n", t->me, rfm_last_error());
		return -1;
	}
	return 0;
}

/* The variable's bytes in the window, decoded in its byte order. */
static int window_bits(rfm_node *n, rfm_var *v, uint32_t index, uint64_t *bits)
{
	struct rfm_var_info info = { .struct_size = sizeof(info) };
	uint8_t raw[8];

	if (rfm_var_get_info(v, &info) ||
	    rfm_mem_read(n, info.offset + (uint64_t)index * info.element_size, raw,
			 info.element_size))
		return -1;
	*bits = load_bits(raw, info.element_size, info.byte_order == RFM_ORDER_BIG);
	return 0;
}

static int check_bits(struct mixed_typed *t, rfm_var *v, int k, uint32_t index,
		      uint64_t want, uint64_t got_api)
{
	uint64_t raw = 0;

	if (window_bits(t->n, v, index, &raw)) {
		fprintf(stderr, "mixed-peer %u: %s: %s\n", t->me, rfm_var_name(v), rfm_last_error());
		return -1;
	}
	if (got_api != want || raw != want) {
		fprintf(stderr, "mixed-peer %u: %s[%u] (%s): typed get 0x%llx, window bytes 0x%llx, "
			"expected 0x%llx\n", t->me, rfm_var_name(v), index, k >= 0 ? type_names[k] : "",
			(unsigned long long)got_api, (unsigned long long)raw,
			(unsigned long long)want);
		return -1;
	}
	return 0;
}

int mixed_typed_check(struct mixed_typed *t)
{
	char text[32], want[24];
	uint32_t l[4], wl[4];
	int16_t b[4], wb[4];
	uint64_t bits;

	for (int o = 0; o < 2; o++)
		for (int k = 0; k < NTYPES; k++) {
			rfm_var *v = t->theirs[o][k];

			if (get_bits(v, k, &bits)) {
				fprintf(stderr, "mixed-peer %u: get %s: %s\n", t->me, rfm_var_name(v),
					rfm_last_error());
				return -1;
			}
			if (check_bits(t, v, k, 0, value_bits(k, t->peer), bits))
				return -1;
		}
	snprintf(want, sizeof(want), "node %u was here", t->peer);
	if (rfm_var_get_string(t->their_text, text, sizeof(text)) < 0 || strcmp(text, want)) {
		fprintf(stderr, "mixed-peer %u: text '%s', expected '%s' (%s)\n", t->me, text, want,
			rfm_last_error());
		return -1;
	}
	arrays_of(t->peer, wl, wb);
	if (rfm_var_get_array(t->their_arr[0], 0, 4, l, sizeof(l)) ||
	    rfm_var_get_array(t->their_arr[1], 0, 4, b, sizeof(b))) {
		fprintf(stderr, "mixed-peer %u: arrays: %s\n", t->me, rfm_last_error());
		return -1;
	}
	for (uint32_t i = 0; i < 4; i++)
		if (check_bits(t, t->their_arr[0], -1, i, wl[i], l[i]) ||
		    check_bits(t, t->their_arr[1], -1, i, (uint16_t)wb[i], (uint16_t)b[i]))
			return -1;
	return 0;
}

/* The fields of a record with counter k: all derived from k, so a snapshot
 * mixing two publishes shows. */
static uint64_t rec_wide(uint32_t k) { return (uint64_t)k * 0x100000001ull ^ 0xa5a5000000000000ull; }
static int32_t rec_neg(uint32_t k) { return -(int32_t)k - 7; }
static double rec_f(uint32_t k) { return (double)k + 0.25; }

int mixed_records_publish(struct mixed_typed *t, uint32_t k)
{
	for (int o = 0; o < NRECS; o++) {
		rfm_var *v[4] = { NULL, NULL, NULL, NULL };
		int r = rfm_record_var(t->my_rec[o], "k", &v[0]) ||
			rfm_record_var(t->my_rec[o], "wide", &v[1]) ||
			rfm_record_var(t->my_rec[o], "neg", &v[2]) ||
			rfm_record_var(t->my_rec[o], "f", &v[3]) ||
			rfm_var_set_u32(v[0], 0, k) || rfm_var_set_u64(v[1], 0, rec_wide(k)) ||
			rfm_var_set_i32(v[2], 0, rec_neg(k)) || rfm_var_set_f64(v[3], 0, rec_f(k)) ||
			rfm_record_publish(t->my_rec[o]);

		for (int i = 0; i < 4; i++)
			rfm_var_close(v[i]);
		if (r) {
			fprintf(stderr, "mixed-peer %u: publish %s: %s\n", t->me, rec_names[o],
				rfm_last_error());
			return -1;
		}
	}
	return 0;
}

/* One consistent snapshot of the peer's record @o, decoded by hand from
 * its bytes in the record's order; *@k its counter. */
static int record_snapshot(struct mixed_typed *t, int o, uint32_t *k)
{
	rfm_record *rec = t->their_rec[o];
	uint8_t data[64];
	uint32_t seq = 0;
	size_t size = rfm_record_size(rec);
	int big = o == 1;

	if (size > sizeof(data) || rfm_record_read(rec, data, size, &seq) < 0) {
		fprintf(stderr, "mixed-peer %u: read %s: %s\n", t->me, rec_names[o], rfm_last_error());
		return -1;
	}
	/* The data: k (u32) at 0, wide (u64) at 8, neg (i32) at 16, f (f64) at 24. */
	uint32_t kk = (uint32_t)load_bits(data, 4, big);
	uint64_t wide = load_bits(data + 8, 8, big), fbits = load_bits(data + 24, 8, big);
	int32_t neg = (int32_t)(uint32_t)load_bits(data + 16, 4, big);
	double f;

	memcpy(&f, &fbits, 8);
	if (seq & 1u || (kk && (wide != rec_wide(kk) || neg != rec_neg(kk) || f != rec_f(kk)))) {
		fprintf(stderr, "mixed-peer %u: %s torn or wrong: sequence %u, k %u, wide 0x%llx, "
			"neg %d, f %g\n", t->me, rec_names[o], seq, kk, (unsigned long long)wide, neg, f);
		return -1;
	}
	*k = kk;
	return 0;
}

/* The typed view of the same record: rfm_record_fetch() and its variables. */
static int record_typed(struct mixed_typed *t, int o, uint32_t *k)
{
	rfm_var *v[4] = { NULL, NULL, NULL, NULL };
	uint32_t kk = 0;
	uint64_t wide = 0;
	int32_t neg = 0;
	double f = 0;
	int r = rfm_record_fetch(t->their_rec[o]) < 0 ||
		rfm_record_var(t->their_rec[o], "k", &v[0]) ||
		rfm_record_var(t->their_rec[o], "wide", &v[1]) ||
		rfm_record_var(t->their_rec[o], "neg", &v[2]) ||
		rfm_record_var(t->their_rec[o], "f", &v[3]) ||
		rfm_var_get_u32(v[0], 0, &kk) || rfm_var_get_u64(v[1], 0, &wide) ||
		rfm_var_get_i32(v[2], 0, &neg) || rfm_var_get_f64(v[3], 0, &f);

	for (int i = 0; i < 4; i++)
		rfm_var_close(v[i]);
	if (r || (kk && (wide != rec_wide(kk) || neg != rec_neg(kk) || f != rec_f(kk)))) {
		fprintf(stderr, "mixed-peer %u: %s typed: k %u, wide 0x%llx, neg %d, f %g (%s)\n",
			t->me, rec_names[o], kk, (unsigned long long)wide, neg, f,
			r ? rfm_last_error() : "inconsistent");
		return -1;
	}
	*k = kk;
	return 0;
}

int mixed_records_check(struct mixed_typed *t, uint32_t *k)
{
	uint32_t kb, kb_typed, kl, kl_typed;

	/* The writer publishes rle then rbe with one counter: read rbe first,
	 * and rle carries the same counter or a later one. */
	if (record_snapshot(t, 1, &kb) || record_typed(t, 1, &kb_typed) ||
	    record_snapshot(t, 0, &kl) || record_typed(t, 0, &kl_typed))
		return -1;
	if (kb_typed < kb || kl < kb_typed || kl_typed < kl) {
		fprintf(stderr, "mixed-peer %u: records went back: rbe %u then %u, rle %u then %u\n",
			t->me, kb, kb_typed, kl, kl_typed);
		return -1;
	}
	*k = kl_typed;
	return 0;
}
