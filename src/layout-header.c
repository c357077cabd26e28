/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The generated C header of a layout: offset macros, a packed struct per
 * region (and per record), and a _Static_assert on every offset and size,
 * so a program compiled against it cannot silently drift from the layout.
 *
 * The text is produced in memory first, together with every identifier it
 * defines; it reaches @out only when no two identifiers collide (two
 * layout names can map to one macro: region x_y var a, region x var y_a).
 */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "layout-internal.h"
#include "textbuf.h"

#define NAME_MAX_LEN 256 /* of a macro prefix or a struct name */

struct gen {
	struct rfm_textbuf out;	/* the header so far */
	const rfm_layout *layout;
	const char *prefix;
	char **idents;		/* every macro and member name, scoped */
	size_t nidents, cap;
	bool nomem;
	char *clash;		/* first clash found */
	int pad;		/* padding member counter */
	char host_macro[NAME_MAX_LEN];	/* PREFIX_HOST_LITTLE: 1 on little-endian hosts */
	/* Who holds what, so that each block visits only its own members. */
	struct lay_groups record_vars;	/* variables per record */
	struct lay_groups region_records; /* records per region */
	struct lay_groups region_vars;	/* variables directly in each region */
};

/* The groups above; false: out of memory. */
static bool members_build(struct gen *g)
{
	const rfm_layout *l = g->layout;
	size_t n = l->nvars > l->nrecords ? l->nvars : l->nrecords;
	uint32_t *owner = malloc((n ? n : 1) * sizeof(*owner));
	bool ok = owner != NULL;

	for (size_t i = 0; ok && i < l->nvars; i++)
		owner[i] = l->vars[i].record;
	ok = ok && rfm__lay_groups_build(&g->record_vars, l->nrecords, owner, l->nvars);
	for (size_t i = 0; ok && i < l->nvars; i++)
		owner[i] = l->vars[i].record == LAY_NO_RECORD ? l->vars[i].region : UINT32_MAX;
	ok = ok && rfm__lay_groups_build(&g->region_vars, l->nregions, owner, l->nvars);
	for (size_t i = 0; ok && i < l->nrecords; i++)
		owner[i] = l->records[i].region;
	ok = ok && rfm__lay_groups_build(&g->region_records, l->nregions, owner, l->nrecords);
	free(owner);
	return ok;
}

static void members_free(struct gen *g)
{
	rfm__lay_groups_free(&g->record_vars);
	rfm__lay_groups_free(&g->region_records);
	rfm__lay_groups_free(&g->region_vars);
}

static size_t group_size(const struct lay_groups *groups, size_t k)
{
	return groups->first[k + 1] - groups->first[k];
}

static const char *const c_keywords[] = {
	"auto", "break", "case", "char", "const", "continue", "default", "do", "double",
	"else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
	"register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
	"switch", "typedef", "union", "unsigned", "void", "volatile", "while", "bool",
	"true", "false", "_Bool", "_Complex", "_Imaginary", "_Alignas", "_Alignof",
	"_Atomic", "_Generic", "_Noreturn", "_Static_assert", "_Thread_local",
	"alignas", "alignof", "static_assert", "thread_local", "nullptr", "typeof",
	"constexpr",
};

static bool is_keyword(const char *name)
{
	for (size_t i = 0; i < RFM_ARRAY_SIZE(c_keywords); i++)
		if (!strcmp(c_keywords[i], name))
			return true;
	return false;
}

static void note_ident(struct gen *g, const char *scope, const char *name)
{
	char *s;

	if (rfm__grow(&g->idents, &g->cap, g->nidents, sizeof(*g->idents))) {
		g->nomem = true;
		return;
	}
	if (asprintf(&s, "%s %s", scope, name) < 0) {
		g->nomem = true;
		return;
	}
	g->idents[g->nidents++] = s;
}

__attribute__((format(RFM_PRINTF_FORMAT, 2, 3)))
static void emit(struct gen *g, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rfm__textbuf_vprintf(&g->out, fmt, ap);
	va_end(ap);
}

/* "sim.state.pos" -> "RIG_SIM_STATE_POS" */
static void macro_name(const struct gen *g, const char *dotted, char *buf, size_t len)
{
	snprintf(buf, len, "%s_%s", g->prefix, dotted);
	for (char *c = buf; *c; c++)
		*c = *c == '.' ? '_' : (char)toupper((unsigned char)*c);
}

static void struct_name(const struct gen *g, const char *dotted, char *buf, size_t len)
{
	snprintf(buf, len, "%s_%s", g->prefix, dotted);
	for (char *c = buf; *c; c++)
		*c = *c == '.' ? '_' : (char)tolower((unsigned char)*c);
}

__attribute__((format(RFM_PRINTF_FORMAT, 4, 5)))
static void define(struct gen *g, const char *base, const char *suffix, const char *fmt, ...)
{
	char name[256];
	va_list ap;

	snprintf(name, sizeof(name), "%s%s", base, suffix);
	note_ident(g, "macro", name);
	emit(g, "#define %s ", name);
	va_start(ap, fmt);
	rfm__textbuf_vprintf(&g->out, fmt, ap);
	va_end(ap);
	emit(g, "\n");
}

/* Does @v's value depend on byte order (a multi-byte number)? */
static bool orderable(const struct lay_var *v)
{
	return rfm__type_size(v->type) > 1 && v->type != RFM_TYPE_STRING &&
	       v->type != RFM_TYPE_BYTES;
}

/* The raw word type of @v's elements (for orderable variables). */
static const char *raw_type(const struct lay_var *v)
{
	unsigned int size = rfm__type_size(v->type);

	return size == 2 ? "uint16_t" : size == 4 ? "uint32_t" : "uint64_t";
}

/* The C type of @v's elements in host order. */
static const char *c_type(const struct lay_var *v)
{
	switch (v->type) {
	case RFM_TYPE_U8: return "uint8_t";
	case RFM_TYPE_U16: return "uint16_t";
	case RFM_TYPE_U32: return "uint32_t";
	case RFM_TYPE_U64: return "uint64_t";
	case RFM_TYPE_I8: return "int8_t";
	case RFM_TYPE_I16: return "int16_t";
	case RFM_TYPE_I32: return "int32_t";
	case RFM_TYPE_I64: return "int64_t";
	case RFM_TYPE_F32: return "float";
	case RFM_TYPE_F64: return "double";
	case RFM_TYPE_STRING: return "char";
	default: return "uint8_t"; /* bool (0/1) and bytes */
	}
}

static const char *order_name(enum rfm_byte_order o)
{
	return o == RFM_ORDER_BIG ? "big" : "little";
}

/*
 * "#if" opening the host-order branch of an orderable member: the member
 * is a plain C type on a host of its byte order, raw words (suffix _be or
 * _le) on the other.
 */
static void open_host_branch(struct gen *g, const struct lay_var *v)
{
	emit(g, "#if %s%s\n", v->byte_order == RFM_ORDER_BIG ? "!" : "",
		g->host_macro);
}

/* The member's name in the raw branch: NAME_be or NAME_le. */
static void raw_name(const struct lay_var *v, char *buf, size_t len)
{
	snprintf(buf, len, "%s_%s", v->name, v->byte_order == RFM_ORDER_BIG ? "be" : "le");
}

/* A member of a generated struct, in offset order. */
struct member {
	uint64_t offset, size;
	const struct lay_var *var;	/* or NULL for a record */
	const struct lay_record *rec;
};

static int by_offset(const void *a, const void *b)
{
	const struct member *x = a, *y = b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

static void comment_text(struct gen *g, const char *text)
{
	/* A description must not end the comment it is put in. */
	for (const char *c = text; *c; c++) {
		if (c[0] == '*' && c[1] == '/')
			emit(g, "* /"), c++;
		else if (*c == '\n')
			emit(g, " ");
		else
			emit(g, "%c", *c);
	}
}

/* "\tTYPE NAME[COUNT]; / * comment * /" for one variable, in one byte order. */
static void emit_member_line(struct gen *g, const struct lay_var *v, bool raw)
{
	char name[80];

	if (raw)
		raw_name(v, name, sizeof(name));
	else
		snprintf(name, sizeof(name), "%s", v->name);
	emit(g, "\t%s %s", raw ? raw_type(v) : c_type(v), name);
	if (v->count > 1 || v->type == RFM_TYPE_STRING || v->type == RFM_TYPE_BYTES)
		emit(g, "[%u]", v->count);
	emit(g, ";");
	if (raw || v->type == RFM_TYPE_BOOL || v->unit[0]) {
		emit(g, " /* ");
		if (raw)
			emit(g, "%s-endian %s", order_name(v->byte_order),
				rfm_type_name(v->type));
		else if (v->type == RFM_TYPE_BOOL)
			emit(g, "bool, 0 or 1");
		if (v->unit[0]) {
			emit(g, "%s", raw || v->type == RFM_TYPE_BOOL ? ", " : "");
			comment_text(g, v->unit);
		}
		emit(g, " */");
	}
	emit(g, "\n");
}

/* A variable's member: for a multi-byte number, both byte-order branches. */
static void emit_var_member(struct gen *g, const char *scope, const struct lay_var *v)
{
	char raw[80];

	note_ident(g, scope, v->name);
	if (!orderable(v)) {
		emit_member_line(g, v, false);
		return;
	}
	raw_name(v, raw, sizeof(raw));
	note_ident(g, scope, raw);
	open_host_branch(g, v);
	emit_member_line(g, v, false);
	emit(g, "#else\n");
	emit_member_line(g, v, true);
	emit(g, "#endif\n");
}

/* Emit "struct NAME { members, padding } packed;" for members within [0, size). */
static void emit_struct(struct gen *g, const char *sname, struct member *m, size_t n,
			uint64_t size)
{
	uint64_t at = 0;
	char scope[300];

	snprintf(scope, sizeof(scope), "struct %s", sname);
	note_ident(g, "struct", sname);
	qsort(m, n, sizeof(*m), by_offset);
	emit(g, "struct %s {\n", sname);
	for (size_t i = 0; i < n; i++) {
		if (m[i].offset > at)
			emit(g, "\tuint8_t _rfm_pad%d[%llu];\n", g->pad++,
				(unsigned long long)(m[i].offset - at));
		if (m[i].rec) {
			char rs[256];
			struct_name(g, m[i].rec->full, rs, sizeof(rs));
			emit(g, "\tstruct %s %s;\n", rs, m[i].rec->name);
			note_ident(g, scope, m[i].rec->name);
		} else {
			emit_var_member(g, scope, m[i].var);
		}
		at = m[i].offset + m[i].size;
	}
	if (at < size)
		emit(g, "\tuint8_t _rfm_pad%d[%llu];\n", g->pad++,
			(unsigned long long)(size - at));
	emit(g, "} __attribute__((packed));\n");
}

static void emit_var_macros(struct gen *g, const struct lay_var *v)
{
	char m[256];

	macro_name(g, v->full, m, sizeof(m));
	emit(g, "/* %s: %s", v->full, rfm_type_name(v->type));
	if (v->count > 1 || v->type == RFM_TYPE_STRING || v->type == RFM_TYPE_BYTES)
		emit(g, "[%u]", v->count);
	if (orderable(v))
		emit(g, ", %s-endian", order_name(v->byte_order));
	if (v->unit[0]) {
		emit(g, ", ");
		comment_text(g, v->unit);
	}
	if (v->range.has_min || v->range.has_max)
		emit(g, ", range %g..%g", v->range.has_min ? v->range.min : -INFINITY,
			v->range.has_max ? v->range.max : INFINITY);
	if (v->description[0]) {
		emit(g, ". ");
		comment_text(g, v->description);
	}
	emit(g, " */\n");
	define(g, m, "_OFFSET", "UINT64_C(0x%llx)", (unsigned long long)v->abs);
	define(g, m, "_COUNT", "%uu", v->count);
	define(g, m, "_SIZE", "%lluu",
	       (unsigned long long)v->count * rfm__type_size(v->type));
}

/* "#if" opening the branch where @order differs from the host's (swap). */
static void open_swap_branch(struct gen *g, enum rfm_byte_order order)
{
	emit(g, "#if %s%s\n", order == RFM_ORDER_BIG ? "" : "!", g->host_macro);
}

/* The raw word at @at (an expression from the struct's start) as host order into raw. */
static void emit_raw_load(struct gen *g, const char *rtype, unsigned int bits,
			  enum rfm_byte_order order, const char *at)
{
	emit(g, "\t%s raw;\n\n\tmemcpy(&raw, (const char *)r + %s, sizeof(raw));\n", rtype,
		at);
	if (bits > 8) {
		open_swap_branch(g, order);
		emit(g, "\traw = __builtin_bswap%u(raw);\n#endif\n", bits);
	}
}

/*
 * NAME_get() and NAME_set() for variable @v of struct @sname (whose offset
 * macro is @base_macro): the value in host order on either kind of host,
 * whichever byte order the layout gives it. An array's take an index.
 */
static void emit_accessors(struct gen *g, const char *sname, const char *base_macro,
			   const struct lay_var *v)
{
	unsigned int bytes = rfm__type_size(v->type), bits = bytes * 8;
	const char *t = c_type(v), *rtype = bytes == 1 ? "uint8_t" : raw_type(v);
	char fn[NAME_MAX_LEN], mm[NAME_MAX_LEN], at[700], idx[32] = "";

	if (v->type == RFM_TYPE_STRING || v->type == RFM_TYPE_BYTES)
		return;
	struct_name(g, v->full, fn, sizeof(fn));
	macro_name(g, v->full, mm, sizeof(mm));
	if (v->count > 1) {
		snprintf(idx, sizeof(idx), ", unsigned int i");
		snprintf(at, sizeof(at), "(%s_OFFSET - %s) + (size_t)i * %u", mm, base_macro, bytes);
	} else {
		snprintf(at, sizeof(at), "(%s_OFFSET - %s)", mm, base_macro);
	}
	char name[NAME_MAX_LEN + 8];
	snprintf(name, sizeof(name), "%s_get", fn);
	note_ident(g, "function", name);
	emit(g, "static inline %s %s(const struct %s *r%s)\n{\n\t%s v;\n", t, name, sname,
		idx, t);
	emit_raw_load(g, rtype, bits, v->byte_order, at);
	emit(g, "\tmemcpy(&v, &raw, sizeof(v));\n\treturn v;\n}\n");
	snprintf(name, sizeof(name), "%s_set", fn);
	note_ident(g, "function", name);
	emit(g, "static inline void %s(struct %s *r%s, %s v)\n{\n\t%s raw;\n\n"
		      "\tmemcpy(&raw, &v, sizeof(raw));\n", name, sname, idx, t, rtype);
	if (bits > 8) {
		open_swap_branch(g, v->byte_order);
		emit(g, "\traw = __builtin_bswap%u(raw);\n#endif\n", bits);
	}
	emit(g, "\tmemcpy((char *)r + %s, &raw, sizeof(raw));\n}\n", at);
}

static void emit_all_accessors(struct gen *g, const char *sname, const char *base_macro,
			       const struct member *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (m[i].var)
			emit_accessors(g, sname, base_macro, m[i].var);
}


static void emit_asserts(struct gen *g, const char *sname, const char *base_macro,
			 struct member *m, size_t n, const char *size_macro)
{
	for (size_t i = 0; i < n; i++) {
		char mm[256], member[80];
		const char *full = m[i].rec ? m[i].rec->full : m[i].var->full;
		bool both = m[i].var && orderable(m[i].var);

		macro_name(g, full, mm, sizeof(mm));
		snprintf(member, sizeof(member), "%s", m[i].rec ? m[i].rec->name : m[i].var->name);
		if (both)
			open_host_branch(g, m[i].var);
		for (int branch = 0; branch < (both ? 2 : 1); branch++) {
			if (branch) {
				raw_name(m[i].var, member, sizeof(member));
				emit(g, "#else\n");
			}
			emit(g,
				"_Static_assert(offsetof(struct %s, %s) == %s_OFFSET - %s, "
				"\"%s moved\");\n",
				sname, member, mm, base_macro, full);
			emit(g,
				"_Static_assert(sizeof(((struct %s *)0)->%s) == %s_SIZE, "
				"\"%s resized\");\n",
				sname, member, mm, full);
		}
		if (both)
			emit(g, "#endif\n");
	}
	emit(g, "_Static_assert(sizeof(struct %s) == %s, \"struct %s resized\");\n", sname,
		size_macro, sname);
}


/*
 * A record's or region's block: room for @max_members members (NULL, and
 * g->nomem, when there is none), its macro prefix and struct name from @name.
 */
static struct member *begin_block(struct gen *g, const char *name, size_t max_members,
				  char mm[NAME_MAX_LEN], char sname[NAME_MAX_LEN])
{
	struct member *m = calloc(max_members, sizeof(*m));

	if (!m) {
		g->nomem = true;
		return NULL;
	}
	macro_name(g, name, mm, NAME_MAX_LEN);
	struct_name(g, name, sname, NAME_MAX_LEN);
	return m;
}

/* NAME_sequence(): a record's sequence word in host order. */
static void emit_sequence_get(struct gen *g, const char *sname, enum rfm_byte_order order)
{
	char name[NAME_MAX_LEN + 16], at[NAME_MAX_LEN + 32];

	snprintf(name, sizeof(name), "%s_sequence", sname);
	snprintf(at, sizeof(at), "offsetof(struct %s, sequence)", sname);
	note_ident(g, "function", name);
	emit(g, "static inline uint32_t %s(const struct %s *r)\n{\n", name, sname);
	emit_raw_load(g, "uint32_t", 32, order, at);
	emit(g, "\treturn raw;\n}\n");
}

static void emit_record(struct gen *g, size_t ri)
{
	const rfm_layout *l = g->layout;
	const struct lay_record *rec = &l->records[ri];
	char mm[NAME_MAX_LEN], sname[NAME_MAX_LEN], dname[300], base[300], size[300];
	struct member *m = begin_block(g, rec->full, group_size(&g->record_vars, ri) + 1, mm,
				       sname);
	size_t n = 0;

	if (!m)
		return;
	emit(g, "\n/* record %s: sequence word (%s-endian), 4 reserved bytes, data.",
		rec->full, rec->byte_order == RFM_ORDER_BIG ? "big" : "little");
	if (rec->description[0]) {
		emit(g, " ");
		comment_text(g, rec->description);
	}
	emit(g, " */\n");
	define(g, mm, "_OFFSET", "UINT64_C(0x%llx)", (unsigned long long)rec->abs);
	define(g, mm, "_SIZE", "%lluu", (unsigned long long)(LAY_RECORD_HEADER + rec->data_size));
	define(g, mm, "_DATA_OFFSET", "UINT64_C(0x%llx)",
	       (unsigned long long)(rec->abs + LAY_RECORD_HEADER));
	define(g, mm, "_DATA_SIZE", "%lluu", (unsigned long long)rec->data_size);
	LAY_GROUP_FOR(&g->record_vars, ri, i) {
		const struct lay_var *v = &l->vars[i];

		emit_var_macros(g, v);
		m[n++] = (struct member){ v->offset, (uint64_t)v->count * rfm__type_size(v->type),
					  v, NULL };
	}
	snprintf(dname, sizeof(dname), "%s_data", sname);
	emit_struct(g, dname, m, n, rec->data_size);
	snprintf(base, sizeof(base), "%s_DATA_OFFSET", mm);
	snprintf(size, sizeof(size), "%s_DATA_SIZE", mm);
	emit_asserts(g, dname, base, m, n, size);
	emit_all_accessors(g, dname, base, m, n);
	emit(g, "struct %s {\n\tuint32_t sequence; /* %s-endian; odd while publishing */\n"
		      "\tuint32_t reserved;\n\tstruct %s data;\n} __attribute__((packed));\n",
		sname, rec->byte_order == RFM_ORDER_BIG ? "big" : "little", dname);
	note_ident(g, "struct", sname);
	emit(g, "_Static_assert(offsetof(struct %s, data) == %s_DATA_OFFSET - %s_OFFSET, "
		      "\"%s header\");\n", sname, mm, mm, rec->full);
	emit(g, "_Static_assert(sizeof(struct %s) == %s_SIZE, \"%s resized\");\n", sname, mm,
		rec->full);
	emit_sequence_get(g, sname, rec->byte_order);
	free(m);
}

static void emit_region(struct gen *g, size_t ri)
{
	const rfm_layout *l = g->layout;
	const struct lay_region *r = &l->regions[ri];
	char mm[NAME_MAX_LEN], sname[NAME_MAX_LEN], base[300], size[300];
	struct member *m = begin_block(g, r->name,
				       group_size(&g->region_vars, ri) +
					       group_size(&g->region_records, ri) + 1,
				       mm, sname);
	size_t n = 0;

	if (!m)
		return;
	emit(g, "\n/* ---- region %s: [0x%llx, 0x%llx), written by node %u only.", r->name,
		(unsigned long long)r->offset, (unsigned long long)(r->offset + r->size), r->writer);
	if (r->description[0]) {
		emit(g, " ");
		comment_text(g, r->description);
	}
	emit(g, " */\n");
	define(g, mm, "_OFFSET", "UINT64_C(0x%llx)", (unsigned long long)r->offset);
	define(g, mm, "_SIZE", "%lluu", (unsigned long long)r->size);
	define(g, mm, "_WRITER", "%uu", r->writer);
	LAY_GROUP_FOR(&g->region_records, ri, i) {
		emit_record(g, i);
		m[n++] = (struct member){ l->records[i].offset,
					  LAY_RECORD_HEADER + l->records[i].data_size, NULL,
					  &l->records[i] };
	}
	emit(g, "\n");
	LAY_GROUP_FOR(&g->region_vars, ri, i) {
		const struct lay_var *v = &l->vars[i];

		emit_var_macros(g, v);
		m[n++] = (struct member){ v->offset, (uint64_t)v->count * rfm__type_size(v->type),
					  v, NULL };
	}
	emit_struct(g, sname, m, n, r->size);
	snprintf(base, sizeof(base), "%s_OFFSET", mm);
	snprintf(size, sizeof(size), "%s_SIZE", mm);
	emit_asserts(g, sname, base, m, n, size);
	emit_all_accessors(g, sname, base, m, n);
	emit(g, "/* The region in a window mapped at @base (rfm_mem_map()). */\n");
	char ptr[300];
	snprintf(ptr, sizeof(ptr), "%s", mm);
	note_ident(g, "macro", ptr);
	emit(g, "#define %s(base) ((struct %s *)((char *)(base) + %s_OFFSET))\n", mm, sname,
		mm);
	free(m);
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int check_names(struct gen *g)
{
	const rfm_layout *l = g->layout;

	for (size_t i = 0; i < l->nvars; i++)
		if (is_keyword(l->vars[i].name))
			return rfm__error(RFM_EINVAL,
					  "%s: variable %s is named after a C keyword: rename it",
					  l->name, l->vars[i].full);
	for (size_t i = 0; i < l->nrecords; i++)
		if (is_keyword(l->records[i].name))
			return rfm__error(RFM_EINVAL,
					  "%s: record %s is named after a C keyword: rename it",
					  l->name, l->records[i].full);
	return 0;
}

/*
 * The host's byte order, decided where the header is compiled (it may be
 * generated on one kind of host and used on the other).
 */
static void emit_host_order(struct gen *g)
{
	const char *m = g->host_macro;

	note_ident(g, "macro", m);
	emit(g,
		"/*\n * Byte order: a multi-byte number in the host's order is a plain C member;\n"
		" * one in the other order holds raw words (NAME_be, NAME_le). NAME_get()\n"
		" * and NAME_set() read and write every number in host order on any host.\n */\n"
		"#if !defined(__BYTE_ORDER__) || !defined(__ORDER_LITTLE_ENDIAN__)\n"
		"#error \"the host's byte order is unknown (__BYTE_ORDER__: GCC or Clang)\"\n"
		"#endif\n#define %s (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)\n\n", m);
}

/* The header's text into g->out: guard, byte order, window size, regions. */
static void emit_header(struct gen *g)
{
	const rfm_layout *layout = g->layout;
	char guard[128], m[256];

	macro_name(g, "LAYOUT_H", guard, sizeof(guard));
	emit(g, "/* Generated by librfm %s from %s: do not edit; regenerate it. */\n",
	     RFM_VERSION_STRING, layout->source);
	emit(g, "#ifndef %s\n#define %s\n\n#include <stddef.h>\n#include <stdint.h>\n"
		"#include <string.h>\n\n", guard, guard);
	macro_name(g, "HOST_LITTLE", g->host_macro, sizeof(g->host_macro));
	emit_host_order(g);
	emit(g, "#if defined(__cplusplus) && !defined(_Static_assert)\n"
		"#define _Static_assert static_assert\n#endif\n\n");
	macro_name(g, "WINDOW_SIZE", m, sizeof(m));
	note_ident(g, "macro", m);
	emit(g, "/* Layout %s for a window of %llu bytes. */\n#define %s UINT64_C(0x%llx)\n",
	     layout->name, (unsigned long long)layout->window_size, m,
	     (unsigned long long)layout->window_size);
	for (size_t i = 0; i < layout->nregions; i++)
		emit_region(g, i);
	emit(g, "\n#endif /* %s */\n", guard);
}

/* RFM_EINVAL when two names of the layout became the same C name, else 0. */
static int check_idents(struct gen *g)
{
	qsort(g->idents, g->nidents, sizeof(*g->idents), by_string);
	for (size_t i = 1; i < g->nidents; i++)
		if (!strcmp(g->idents[i], g->idents[i - 1]))
			return rfm__error(RFM_EINVAL,
					  "%s: two names of the layout both become the C name "
					  "'%s'; rename one",
					  g->layout->name, strchr(g->idents[i], ' ') + 1);
	return 0;
}

RFM_API int rfm_layout_write_header(const rfm_layout *layout, const char *prefix, FILE *out)
{
	struct gen g = { .layout = layout };
	int ret = 0;

	if (!layout || !out)
		return rfm__error(RFM_EINVAL, "rfm_layout_write_header: NULL argument");
	if (!layout->finished)
		return rfm__error(RFM_EINVAL, "rfm_layout_write_header: layout %s is not finished",
				  layout->name);
	g.prefix = prefix ? prefix : layout->name;
	if (!rfm__valid_name(g.prefix))
		return rfm__error(RFM_EINVAL, "rfm_layout_write_header: prefix '%s' is not an "
				  "identifier", g.prefix);
	ret = check_names(&g);
	if (ret)
		return ret;
	if (!members_build(&g)) {
		members_free(&g);
		return rfm__error(RFM_ENOMEM, "rfm_layout_write_header: out of memory");
	}

	emit_header(&g);
	if (g.nomem || g.out.nomem) {
		ret = rfm__error(RFM_ENOMEM, "rfm_layout_write_header: out of memory");
		goto out;
	}
	ret = check_idents(&g);
	if (ret)
		goto out;
	if (fwrite(g.out.text, 1, g.out.len, out) != g.out.len || fflush(out) != 0)
		ret = rfm__error(RFM_ESYS, "rfm_layout_write_header: write failed");
out:
	members_free(&g);
	for (size_t i = 0; i < g.nidents; i++)
		free(g.idents[i]);
	free(g.idents);
	rfm__textbuf_free(&g.out);
	return ret;
}
