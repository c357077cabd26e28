/* SPDX-License-Identifier: LGPL-2.1-or-later */
/**
 * @file layout.h
 * @brief Typed-variable tables: the address map as data.
 *
 * @defgroup layout Layouts
 * @{
 * A layout describes a reflective window: its size, the **regions** in it
 * (offset, size and the one node allowed to write each), the **variables**
 * inside regions (name, type, element count, byte order, unit, limits) and
 * **records**, groups of variables that are published atomically with a
 * sequence lock. Layouts are loaded from a YAML file (docs/layout-format.md)
 * or built in code, and are validated as a whole: every problem found is
 * reported, each with its position, in one ::rfm_diag_list.
 *
 * A finished layout is immutable: it may be shared by any number of
 * threads and handles. Handles (::rfm_var, ::rfm_record) keep a reference
 * to it, so rfm_layout_free() may be called while handles are open; the
 * node a handle was opened on must stay open until the handle is closed.
 *
 * Names are dotted paths: `region.var`, `region.record.var`, and an array
 * element `region.var[3]`.
 */
#ifndef RFM_LAYOUT_H
#define RFM_LAYOUT_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#if defined(_MSC_VER)
#include <stdlib.h> /* _byteswap_*() */
#endif
#include <rfm/common.h>
#include <rfm/access.h>

RFM_BEGIN_DECLS

/** @brief A validated address map. Opaque; freed by rfm_layout_free(). */
typedef struct rfm_layout rfm_layout;

/** @brief The problems found in a layout. Opaque; freed by rfm_diag_list_free(). */
typedef struct rfm_diag_list rfm_diag_list;

/**
 * @brief A variable of a layout resolved on a node, ready for typed access.
 * Opaque; created by rfm_var_open() or rfm_record_var(), freed by rfm_var_close().
 */
typedef struct rfm_var rfm_var;

/**
 * @brief A record of a layout resolved on a node: seqlock publish and read.
 * Opaque; created by rfm_record_open(), freed by rfm_record_close().
 */
typedef struct rfm_record rfm_record;

/** Element types. Values are stable ABI. */
enum rfm_type {
	RFM_TYPE_U8 = 1,	/**< uint8_t */
	RFM_TYPE_U16,		/**< uint16_t */
	RFM_TYPE_U32,		/**< uint32_t */
	RFM_TYPE_U64,		/**< uint64_t */
	RFM_TYPE_I8,		/**< int8_t */
	RFM_TYPE_I16,		/**< int16_t */
	RFM_TYPE_I32,		/**< int32_t */
	RFM_TYPE_I64,		/**< int64_t */
	RFM_TYPE_F32,		/**< IEEE 754 binary32 (float) */
	RFM_TYPE_F64,		/**< IEEE 754 binary64 (double) */
	RFM_TYPE_BOOL,		/**< one byte, 0 = false, anything else = true */
	RFM_TYPE_STRING,	/**< fixed-length text, NUL-padded (element = byte) */
	RFM_TYPE_BYTES,		/**< fixed-length raw bytes (element = byte) */
};

/** Byte order of a variable in the window. */
enum rfm_byte_order {
	RFM_ORDER_LITTLE = 0,	/**< Little-endian (x86, the default). */
	RFM_ORDER_BIG = 1,	/**< Big-endian (VME/PowerPC nodes). */
};

/** Offset value meaning "place automatically, naturally aligned". */
#define RFM_OFFSET_AUTO UINT64_MAX

/** Highest layout-file format version this library reads. */
#define RFM_LAYOUT_VERSION 1

/**
 * @brief The type's name as written in layout files ("u32", "f64"...).
 * @return A static string; "" for an unknown value.
 */
RFM_API const char *rfm_type_name(int type);

/* ---------------------------------------------------------------------- */
/** @name Diagnostics
 * Every load or validation that fails with ::RFM_ELAYOUT hands back the
 * whole list of problems; rfm_last_error() then holds the first one and
 * the number of others.
 * @{
 */

/** One problem in a layout. Filled by rfm_diag_list_get(). */
struct rfm_diag {
	uint32_t struct_size;	/**< Set by the caller: sizeof(struct rfm_diag). */
	uint32_t line;		/**< 1-based line in the source; 0 when built in code. */
	uint32_t column;	/**< 1-based column; 0 when built in code. */
	int32_t code;		/**< The ::rfm_error class, usually ::RFM_ELAYOUT. */
	const char *file;	/**< Source name ("<string>", a path, "<code>"). */
	const char *message;	/**< What is wrong, without position. */
	const char *text;	/**< "file:line:column: message", as printed by tools. */
	uint32_t reserved[8];	/**< Zero; room for future fields. */
};

/** @brief Number of problems in @p list (0 for NULL). */
RFM_API size_t rfm_diag_list_count(const rfm_diag_list *list);

/**
 * @brief Describe problem @p index of @p list.
 *
 * The strings stay valid until rfm_diag_list_free(). Problems come in the
 * order of the source (by line, then column).
 * @return 0, or ::RFM_EINVAL (NULL, struct_size too small, index too big).
 */
RFM_API int rfm_diag_list_get(const rfm_diag_list *list, size_t index, struct rfm_diag *diag);

/** @brief Free a list; NULL is ignored. */
RFM_API void rfm_diag_list_free(rfm_diag_list *list);

/** @} */

/* ---------------------------------------------------------------------- */
/** @name Loading and freeing
 * @{
 */

/**
 * @brief Load and validate a layout file (YAML, see docs/layout-format.md).
 * @param path The file.
 * @param[out] layoutp Receives the layout; free it with rfm_layout_free().
 * @param[out] diagsp May be NULL. On ::RFM_ELAYOUT receives every problem
 *        found (free with rfm_diag_list_free()); otherwise set to NULL.
 * @return 0, ::RFM_ELAYOUT (the file is not a valid layout), ::RFM_ENOENT,
 *         ::RFM_EPERM, ::RFM_ESYS (the file cannot be read), ::RFM_ENOMEM,
 *         ::RFM_EINVAL. Thread-safe.
 */
RFM_API int rfm_layout_load_file(const char *path, rfm_layout **layoutp,
				 rfm_diag_list **diagsp);

/**
 * @brief Load and validate a layout from text in memory.
 * @param text The YAML text; need not be NUL-terminated.
 * @param len Its length in bytes.
 * @param source_name Name used in diagnostics (NULL: "<string>").
 * @return As rfm_layout_load_file().
 */
RFM_API int rfm_layout_load_string(const char *text, size_t len, const char *source_name,
				   rfm_layout **layoutp, rfm_diag_list **diagsp);

/**
 * @brief Drop the caller's reference to a layout; NULL is ignored.
 *
 * The memory goes when the last handle opened on it is closed too.
 */
RFM_API void rfm_layout_free(rfm_layout *layout);

/** @} */

/* ---------------------------------------------------------------------- */
/** @name Building a layout in code
 * rfm_layout_new(), then regions, records and variables in any order
 * (parents before children), then rfm_layout_finish(), which places the
 * automatic offsets and validates like a file load. Until then the layout
 * cannot be used to open handles; after it, nothing can be added.
 * Specification structs carry their size: set @c struct_size to sizeof.
 * Strings are copied.
 * @{
 */

/** A region: a window range with exactly one writer node. */
struct rfm_region_spec {
	uint32_t struct_size;	/**< sizeof(struct rfm_region_spec). */
	uint32_t writer;	/**< The one node id allowed to write. */
	const char *name;	/**< Identifier: [A-Za-z][A-Za-z0-9_]*, at most 63. */
	uint64_t offset;	/**< Byte offset in the window. */
	uint64_t size;		/**< Size in bytes. */
	const char *description; /**< May be NULL. */
	uint32_t reserved[8];	/**< Zero. */
};

/** A record: variables published together under one sequence word. */
struct rfm_record_spec {
	uint32_t struct_size;	/**< sizeof(struct rfm_record_spec). */
	uint32_t byte_order;	/**< ::rfm_byte_order of the sequence word. */
	const char *name;	/**< Identifier. */
	uint64_t offset;	/**< In the region, or ::RFM_OFFSET_AUTO. */
	uint64_t size;		/**< Data bytes to reserve, or 0: what the variables need. */
	const char *description; /**< May be NULL. */
	/** Event type (INTR1..INTR4) broadcast after each publish, data = the
	 *  new sequence; 0: none. Layout key `notify`. */
	uint32_t notify;
	/** Milliseconds after which a record whose sequence has not advanced
	 *  is shown stale by readers such as rfm serve (0: no such period).
	 *  Layout key `stale_after`. (since RFM_1.1) */
	uint32_t stale_after_ms;
	uint32_t reserved[6];	/**< Zero. */
};

/** A variable (scalar, array, string or bytes). */
/** Most significant digits a double has (rfm_var_spec::digits). */
#define RFM_VAR_MAX_DIGITS 17

struct rfm_var_spec {
	uint32_t struct_size;	/**< sizeof(struct rfm_var_spec). */
	int32_t type;		/**< ::rfm_type. */
	const char *name;	/**< Identifier. */
	uint32_t count;		/**< Elements (0 or 1: scalar); bytes for string/bytes. */
	uint32_t byte_order;	/**< ::rfm_byte_order. */
	uint64_t offset;	/**< In the region or record, or ::RFM_OFFSET_AUTO. */
	const char *unit;	/**< May be NULL. */
	const char *description; /**< May be NULL. */
	bool has_min;		/**< @c min is a limit enforced on writes. */
	bool has_max;		/**< @c max is a limit enforced on writes. */
	double min;		/**< Lowest value accepted by set functions. */
	double max;		/**< Highest value accepted by set functions. */
	/** Significant digits a float is shown with (1-17; 0: the tool's
	 *  default). Display only: values are stored whole. (since RFM_1.1) */
	uint32_t digits;
	/** Milliseconds after which a value that has not changed is shown
	 *  stale by readers such as rfm serve (0: no such period). A plain
	 *  word carries no write stamp: a writer that re-writes the same value
	 *  looks stale. Layout key `stale_after`. (since RFM_1.1) */
	uint32_t stale_after_ms;
	uint32_t reserved[6];	/**< Zero. */
};

/**
 * @brief Start an empty layout for a window of @p window_size bytes.
 * @param name Identifier used as the prefix of generated headers (NULL: "layout").
 * @return 0, ::RFM_EINVAL, ::RFM_ENOMEM.
 */
RFM_API int rfm_layout_new(const char *name, uint64_t window_size, rfm_layout **layoutp);

/** @brief Add a region. @return 0, ::RFM_EINVAL, ::RFM_EBUSY (finished), ::RFM_ENOMEM. */
RFM_API int rfm_layout_add_region(rfm_layout *layout, const struct rfm_region_spec *spec);

/**
 * @brief Add a record to region @p region.
 * @return 0, ::RFM_ENOTFOUND (no such region), ::RFM_EINVAL, ::RFM_EBUSY, ::RFM_ENOMEM.
 */
RFM_API int rfm_layout_add_record(rfm_layout *layout, const char *region,
				  const struct rfm_record_spec *spec);

/**
 * @brief Add a variable to @p parent: "region" or "region.record".
 * @return 0, ::RFM_ENOTFOUND, ::RFM_EINVAL, ::RFM_EBUSY, ::RFM_ENOMEM.
 */
RFM_API int rfm_layout_add_var(rfm_layout *layout, const char *parent,
			       const struct rfm_var_spec *spec);

/**
 * @brief Place automatic offsets and validate everything.
 * @param[out] diagsp As in rfm_layout_load_file().
 * @return 0, ::RFM_ELAYOUT (the layout stays unfinished and unusable;
 *         free it), ::RFM_EBUSY (already finished), ::RFM_ENOMEM, ::RFM_EINVAL.
 */
RFM_API int rfm_layout_finish(rfm_layout *layout, rfm_diag_list **diagsp);

/** @} */

/* ---------------------------------------------------------------------- */
/** @name Describing a layout
 * Read-only, thread-safe on a finished layout. Strings belong to the
 * layout. Info structs carry their size: set @c struct_size first.
 * @{
 */

/** Facts about a region. */
struct rfm_region_info {
	uint32_t struct_size;	/**< Set by the caller. */
	uint32_t writer;	/**< The one writer node. */
	const char *name;
	const char *description; /**< "" when none. */
	uint64_t offset;	/**< In the window. */
	uint64_t size;
	uint32_t reserved[8];
};

/** Facts about a record. */
struct rfm_record_info {
	uint32_t struct_size;	/**< Set by the caller. */
	uint32_t byte_order;	/**< Of the sequence word. */
	const char *name;	/**< Full dotted name "region.record". */
	const char *description;
	uint64_t offset;	/**< Of the sequence word, in the window. */
	uint64_t size;		/**< Whole record: sequence word, padding and data. */
	uint64_t data_offset;	/**< Of the data, in the window. */
	uint64_t data_size;	/**< Of the data: what rfm_record_read() copies. */
	uint32_t region;	/**< Index of its region. */
	/** rfm_record_spec::stale_after_ms (0: not set; since RFM_1.1). */
	uint32_t stale_after_ms;
	uint32_t reserved[6];
};

/** Facts about a variable (or the element range a handle covers). */
struct rfm_var_info {
	uint32_t struct_size;	/**< Set by the caller. */
	int32_t type;		/**< ::rfm_type. */
	const char *name;	/**< Full dotted name. */
	const char *unit;	/**< "" when none. */
	const char *description; /**< "" when none. */
	uint64_t offset;	/**< In the window. */
	uint64_t size;		/**< In bytes: count * element size. */
	uint32_t count;		/**< Elements (bytes for string/bytes). */
	uint32_t element_size;	/**< Bytes per element. */
	uint32_t byte_order;	/**< ::rfm_byte_order. */
	uint32_t writer;	/**< Writer node of its region. */
	bool has_min, has_max;
	double min, max;
	int32_t record;		/**< Index of its record, or -1. */
	uint32_t region;	/**< Index of its region. */
	uint64_t record_offset;	/**< Offset in the record's data (when in one). */
	uint32_t digits;	/**< Significant digits to show (0: not set; since RFM_1.1). */
	/** rfm_var_spec::stale_after_ms (0: not set; since RFM_1.1). */
	uint32_t stale_after_ms;
	uint32_t reserved[4];
};

/** @brief The layout's name (generated-header prefix); "" for NULL. */
RFM_API const char *rfm_layout_name(const rfm_layout *layout);
/** @brief The window size the layout was written for; 0 for NULL. */
RFM_API uint64_t rfm_layout_window_size(const rfm_layout *layout);
/** @brief Number of regions (0 for NULL). */
RFM_API size_t rfm_layout_region_count(const rfm_layout *layout);
/** @brief Number of records (0 for NULL). */
RFM_API size_t rfm_layout_record_count(const rfm_layout *layout);
/** @brief Number of variables, those in records included (0 for NULL). */
RFM_API size_t rfm_layout_var_count(const rfm_layout *layout);
/** @brief Describe region @p index. @return 0 or ::RFM_EINVAL. */
RFM_API int rfm_layout_region_info(const rfm_layout *layout, size_t index,
				   struct rfm_region_info *info);
/** @brief Describe record @p index. @return 0 or ::RFM_EINVAL. */
RFM_API int rfm_layout_record_info(const rfm_layout *layout, size_t index,
				   struct rfm_record_info *info);
/** @brief Describe variable @p index (declaration order). @return 0 or ::RFM_EINVAL. */
RFM_API int rfm_layout_var_info(const rfm_layout *layout, size_t index,
				struct rfm_var_info *info);

/**
 * @brief Write a C header for the layout to @p out.
 *
 * Per region: offset macros for every variable and record, a packed
 * struct mirroring the region, and `_Static_assert`s on every offset and
 * size, so a program using it fails to compile if it drifts from the
 * layout. Big-endian variables appear as unsigned members named `NAME_be`
 * that hold the raw bits.
 * @param prefix Identifier prefixed to every name (NULL: the layout's name).
 * @return 0, ::RFM_EINVAL (unfinished layout, bad prefix), ::RFM_ESYS (write error).
 */
RFM_API int rfm_layout_write_header(const rfm_layout *layout, const char *prefix, FILE *out);

/** @} */

/* ---------------------------------------------------------------------- */
/** @name Variables
 * A variable handle is the variable (or one element of it, `name[3]`)
 * resolved on a node: an address and a type. Typed access checks the type,
 * the index, byte order, ownership and limits, then does one single-copy
 * atomic load or store (lock-free, no system call, no allocation).
 *
 * Ownership: a write through a handle whose node is not the writer of the
 * variable's region fails with ::RFM_EOWNER, unless rfm_var_set_owner_check()
 * turned the check off for that handle.
 *
 * A variable inside a record is read consistently (retrying while the
 * writer publishes) and written as a one-variable publish of the record
 * (one publishing thread per record, as for rfm_record_write()).
 *
 * Get and set functions may be called from several threads at once;
 * rfm_var_set_owner_check() and rfm_var_close() must not race with them.
 * Errors: ::RFM_EINVAL (NULL, wrong type for the function), ::RFM_ERANGE
 * (index outside the variable; a value outside min/max or too long),
 * ::RFM_EOWNER, ::RFM_ETORN (record kept changing).
 * @{
 */

/**
 * @brief Resolve @p name of @p layout on @p node.
 * @param name "region.var", "region.record.var", optionally with "[index]".
 * @param[out] varp The handle; free it with rfm_var_close().
 * @return 0, ::RFM_ENOTFOUND (no such variable; index beyond the array),
 *         ::RFM_EINVAL, ::RFM_ESIZE (the node's window is smaller than the
 *         layout's), ::RFM_ENOMEM.
 */
RFM_API int rfm_var_open(rfm_layout *layout, rfm_node *node, const char *name, rfm_var **varp);

/** @brief Free a handle; NULL is ignored. */
RFM_API void rfm_var_close(rfm_var *var);

/**
 * @brief Enforce (the default) or relax the one-writer check for this handle.
 *
 * Relaxed, two nodes may write one word; on real reflective memory, where
 * each node holds its own copy of the window, their writes then arrive in
 * different orders on different nodes and the copies may disagree for good.
 * @return 0 or ::RFM_EINVAL.
 */
RFM_API int rfm_var_set_owner_check(rfm_var *var, bool enforce);

/** @brief Describe what the handle covers. @return 0 or ::RFM_EINVAL. */
RFM_API int rfm_var_get_info(const rfm_var *var, struct rfm_var_info *info);

/**
 * @brief Whether the value of @p var is stale: its writer is down.
 *
 * The writer is the writer node of the variable's region
 * (rfm_var_info::writer). It is down when it is not attached to the
 * network, or when it has beaten and stopped (missed its misses:
 * rfm_node_status::alive is 0). A writer that is attached and has never
 * beaten counts as fresh: nothing says it stopped. What `rfm serve`
 * shows as a variable's state. Reads the node table through @p node (any
 * handle on the network); writes nothing.
 * @return 1 stale, 0 fresh, ::RFM_EINVAL (NULL), ::RFM_ENOMEM, or an
 *         error of rfm_health_nodes().
 * @since RFM_1.1
 */
RFM_API int rfm_var_stale(rfm_node *node, const rfm_var *var);

/** @brief The handle's name as resolved ("sim.pos[2]"); "" for NULL. */
RFM_API const char *rfm_var_name(const rfm_var *var);

/**
 * @name Typed scalar access
 * Element @p index (0 for a scalar) of a variable of exactly the function's
 * type, converted between the variable's byte order and the host's.
 * @{
 */
RFM_API int rfm_var_get_u8(const rfm_var *var, uint32_t index, uint8_t *value);
RFM_API int rfm_var_get_u16(const rfm_var *var, uint32_t index, uint16_t *value);
RFM_API int rfm_var_get_u32(const rfm_var *var, uint32_t index, uint32_t *value);
RFM_API int rfm_var_get_u64(const rfm_var *var, uint32_t index, uint64_t *value);
RFM_API int rfm_var_get_i8(const rfm_var *var, uint32_t index, int8_t *value);
RFM_API int rfm_var_get_i16(const rfm_var *var, uint32_t index, int16_t *value);
RFM_API int rfm_var_get_i32(const rfm_var *var, uint32_t index, int32_t *value);
RFM_API int rfm_var_get_i64(const rfm_var *var, uint32_t index, int64_t *value);
RFM_API int rfm_var_get_f32(const rfm_var *var, uint32_t index, float *value);
RFM_API int rfm_var_get_f64(const rfm_var *var, uint32_t index, double *value);
RFM_API int rfm_var_get_bool(const rfm_var *var, uint32_t index, bool *value);
RFM_API int rfm_var_set_u8(rfm_var *var, uint32_t index, uint8_t value);
RFM_API int rfm_var_set_u16(rfm_var *var, uint32_t index, uint16_t value);
RFM_API int rfm_var_set_u32(rfm_var *var, uint32_t index, uint32_t value);
RFM_API int rfm_var_set_u64(rfm_var *var, uint32_t index, uint64_t value);
RFM_API int rfm_var_set_i8(rfm_var *var, uint32_t index, int8_t value);
RFM_API int rfm_var_set_i16(rfm_var *var, uint32_t index, int16_t value);
RFM_API int rfm_var_set_i32(rfm_var *var, uint32_t index, int32_t value);
RFM_API int rfm_var_set_i64(rfm_var *var, uint32_t index, int64_t value);
RFM_API int rfm_var_set_f32(rfm_var *var, uint32_t index, float value);
RFM_API int rfm_var_set_f64(rfm_var *var, uint32_t index, double value);
RFM_API int rfm_var_set_bool(rfm_var *var, uint32_t index, bool value);
/** @} */

/**
 * @name Inline fast path (views)
 * A view is a caller-held copy of what the fast path of a handle needs:
 * the element address, the bounds, the type and flags. The inline
 * `rfm_view_get_T()` / `rfm_view_set_T()` below do the plain case — the
 * variable's type, an index in range, not in a record, and for sets no
 * ownership refusal and no limits — in the caller's code, at the cost of
 * a raw load or store plus three compares; any other case, errors
 * included, falls through to rfm_var_get_T() / rfm_var_set_T() on the
 * handle, so the results are the same. (Those exported functions are the
 * non-inline twins, for FFI users.)
 *
 * A view is a snapshot: take it again after rfm_var_set_owner_check().
 * It is valid while its handle is open. Thread-safety as for the handle.
 * @{
 */

/**
 * The key of a type on the inline path: the ::rfm_type, plus this bit when
 * the variable's byte order differs from the host's.
 */
#define RFM_VIEW_SWAPPED 0x100u

/** The fast-path facts of a handle (see rfm_var_get_view()). */
struct rfm_var_view {
	uint32_t struct_size;	/**< Set by the caller: sizeof(struct rfm_var_view). */
	uint32_t count;		/**< Elements covered by the handle. */
	uint32_t get_key;	/**< Type key when gets may go inline, else 0. */
	uint32_t set_key;	/**< Type key when sets may go inline, else 0. */
	void *addr;		/**< Element 0 in the mapped window. */
	rfm_var *var;		/**< The handle, for everything but the fast path. */
	uint32_t reserved[4];	/**< Zero. */
};

/**
 * @brief Fill @p view from @p var for the inline accessors.
 * @return 0, or ::RFM_EINVAL (NULL, struct_size smaller than this header's).
 */
RFM_API int rfm_var_get_view(rfm_var *var, struct rfm_var_view *view);

/** @cond RFM_INTERNAL */
/* Byte swaps and the likely-branch hint: GCC and Clang builtins, or
 * Microsoft's (clang-cl takes that branch too). */
#if defined(_MSC_VER)
static inline uint8_t rfm__bswap8(uint8_t x) { return x; }
static inline uint16_t rfm__bswap16(uint16_t x) { return _byteswap_ushort(x); }
static inline uint32_t rfm__bswap32(uint32_t x) { return _byteswap_ulong(x); }
static inline uint64_t rfm__bswap64(uint64_t x) { return _byteswap_uint64(x); }
#define RFM__LIKELY(x) (x)
#else
static inline uint8_t rfm__bswap8(uint8_t x) { return x; }
static inline uint16_t rfm__bswap16(uint16_t x) { return __builtin_bswap16(x); }
static inline uint32_t rfm__bswap32(uint32_t x) { return __builtin_bswap32(x); }
static inline uint64_t rfm__bswap64(uint64_t x) { return __builtin_bswap64(x); }
#define RFM__LIKELY(x) __builtin_expect(!!(x), 1)
#endif
/** @endcond */

#define RFM__VIEW_ACCESSORS(name, ctype, bits, TYPE)                                   \
	static inline int rfm_view_get_##name(const struct rfm_var_view *view,         \
					      uint32_t index, ctype *value)            \
	{                                                                              \
		uint32_t key_ = view->get_key;                                         \
		if (RFM__LIKELY(index < view->count)) {                                \
			uint64_t at_ = (uint64_t)index * (bits / 8);                   \
			uint##bits##_t raw_;                                           \
			if (RFM__LIKELY(key_ == (TYPE)))                               \
				raw_ = rfm_load##bits(view->addr, at_);                \
			else if (key_ == ((TYPE) | RFM_VIEW_SWAPPED))                  \
				raw_ = rfm__bswap##bits(rfm_load##bits(view->addr, at_)); \
			else                                                           \
				goto slow_;                                            \
			memcpy(value, &raw_, sizeof(raw_));                           \
			return 0;                                                      \
		}                                                                      \
	slow_:                                                                         \
		return rfm_var_get_##name(view->var, index, value);                    \
	}                                                                              \
	static inline int rfm_view_set_##name(const struct rfm_var_view *view,         \
					      uint32_t index, ctype value)             \
	{                                                                              \
		uint32_t key_ = view->set_key;                                         \
		if (RFM__LIKELY(index < view->count)) {                                \
			uint64_t at_ = (uint64_t)index * (bits / 8);                   \
			uint##bits##_t raw_;                                           \
			memcpy(&raw_, &value, sizeof(raw_));                          \
			if (RFM__LIKELY(key_ == (TYPE))) {                             \
				rfm_store##bits(view->addr, at_, raw_);                \
				return 0;                                              \
			}                                                              \
			if (key_ == ((TYPE) | RFM_VIEW_SWAPPED)) {                     \
				rfm_store##bits(view->addr, at_, rfm__bswap##bits(raw_)); \
				return 0;                                              \
			}                                                              \
		}                                                                      \
		return rfm_var_set_##name(view->var, index, value);                    \
	}

RFM__VIEW_ACCESSORS(u8, uint8_t, 8, RFM_TYPE_U8)
RFM__VIEW_ACCESSORS(u16, uint16_t, 16, RFM_TYPE_U16)
RFM__VIEW_ACCESSORS(u32, uint32_t, 32, RFM_TYPE_U32)
RFM__VIEW_ACCESSORS(u64, uint64_t, 64, RFM_TYPE_U64)
RFM__VIEW_ACCESSORS(i8, int8_t, 8, RFM_TYPE_I8)
RFM__VIEW_ACCESSORS(i16, int16_t, 16, RFM_TYPE_I16)
RFM__VIEW_ACCESSORS(i32, int32_t, 32, RFM_TYPE_I32)
RFM__VIEW_ACCESSORS(i64, int64_t, 64, RFM_TYPE_I64)
RFM__VIEW_ACCESSORS(f32, float, 32, RFM_TYPE_F32)
RFM__VIEW_ACCESSORS(f64, double, 64, RFM_TYPE_F64)

/** @} */

/**
 * @brief Read elements [first, first+count) into @p buf, in host byte order.
 * @param buf Holds @p count elements of the variable's C type (bytes for
 *        string and bytes); @p len is its size in bytes and must be at
 *        least count * element size.
 * @return 0 or an error; nothing is copied on error.
 */
RFM_API int rfm_var_get_array(const rfm_var *var, uint32_t first, uint32_t count,
			      void *buf, size_t len);

/**
 * @brief Write elements [first, first+count) from @p buf (host byte order).
 *
 * Every element is checked against min/max before any is written.
 * Elements are stored one by one (each atomic); for an all-or-nothing
 * update of several values, put them in a record.
 */
RFM_API int rfm_var_set_array(rfm_var *var, uint32_t first, uint32_t count,
			      const void *buf, size_t len);

/**
 * @brief Read a string variable into @p buf as a NUL-terminated string.
 * @return The string's length, or ::RFM_ERANGE when @p len cannot hold it
 *         (nothing copied), ::RFM_EINVAL for a non-string variable.
 */
RFM_API int rfm_var_get_string(const rfm_var *var, char *buf, size_t len);

/**
 * @brief Store @p text into a string variable, NUL-padding the rest.
 * @return 0, ::RFM_ERANGE (longer than the variable), ::RFM_EINVAL, ::RFM_EOWNER.
 */
RFM_API int rfm_var_set_string(rfm_var *var, const char *text);

/**
 * @brief Format the handle's value as text: a number, `true`/`false`, a
 *        quoted string, hex bytes, or `[a, b, c]` for several elements.
 * @return The text's length, or ::RFM_ERANGE when @p len is too small.
 */
RFM_API int rfm_var_get_text(const rfm_var *var, char *buf, size_t len);

/**
 * @brief Parse @p text for the variable's type and store it.
 *
 * Numbers in C notation (decimal, 0x hex; floats with exponent, inf, nan),
 * true/false/1/0 for bool, raw text for strings, hex digits for bytes;
 * several elements as "a, b, c" or "[a, b, c]" (exactly the handle's count).
 * Nothing is written unless everything parses and is within limits.
 * @return 0, ::RFM_EINVAL (does not parse: the message says why),
 *         ::RFM_ERANGE (outside the type or min/max), ::RFM_EOWNER.
 */
RFM_API int rfm_var_set_text(rfm_var *var, const char *text);

/** @} */

/* ---------------------------------------------------------------------- */
/** @name Records
 * A record is laid out as a 32-bit sequence word, 4 reserved bytes and the
 * data. A publish makes the sequence odd, writes the data and makes it
 * even again, with release ordering, so a reader that sees the same even
 * sequence before and after copying the data has a consistent copy; a
 * reader retries otherwise, at most max-tries times (default 1000), then
 * fails with ::RFM_ETORN.
 *
 * Only the region's writer node may publish (::RFM_EOWNER otherwise,
 * unless relaxed), and only from one thread at a time. A record handle
 * carries a private image of the data for rfm_record_fetch(),
 * rfm_record_publish() and the handles of rfm_record_var(); it is not
 * thread-safe. No call here allocates or makes a system call except open.
 * @{
 */

/** Default number of attempts of a consistent read. */
#define RFM_RECORD_DEFAULT_TRIES 1000

/**
 * @brief Resolve record @p name ("region.record") of @p layout on @p node.
 * @return 0, ::RFM_ENOTFOUND, ::RFM_EINVAL, ::RFM_ESIZE, ::RFM_ENOMEM.
 */
RFM_API int rfm_record_open(rfm_layout *layout, rfm_node *node, const char *name,
			    rfm_record **recp);

/** @brief Free a record handle; NULL is ignored. Close its rfm_record_var() handles first. */
RFM_API void rfm_record_close(rfm_record *rec);

/** @brief Size of the record's data in bytes (0 for NULL). */
RFM_API size_t rfm_record_size(const rfm_record *rec);

/** @brief Describe the record. @return 0 or ::RFM_EINVAL. */
RFM_API int rfm_record_get_info(const rfm_record *rec, struct rfm_record_info *info);

/** @brief Set the attempts of a consistent read (at least 1). @return 0 or ::RFM_EINVAL. */
RFM_API int rfm_record_set_max_tries(rfm_record *rec, uint32_t tries);

/**
 * @brief Enforce (default) or relax the one-writer check on publish.
 *
 * The sequence lock assumes one writer node: relaxed, publishes from two
 * nodes race on the sequence word, and where each node holds its own copy
 * of the window a reader may accept a mix of both (see
 * rfm_var_set_owner_check()).
 * @return 0 or ::RFM_EINVAL.
 */
RFM_API int rfm_record_set_owner_check(rfm_record *rec, bool enforce);

/**
 * @brief Copy a consistent snapshot of the data into @p buf.
 * @param len Must equal rfm_record_size().
 * @param[out] seqp Receives the (even) sequence of the snapshot; may be NULL.
 * @return The number of retries needed (0: the first attempt was
 *         consistent), or ::RFM_ETORN, ::RFM_EINVAL.
 */
RFM_API int rfm_record_read(rfm_record *rec, void *buf, size_t len, uint32_t *seqp);

/**
 * @brief Publish @p buf as the record's data (seqlock write).
 * @param len Must equal rfm_record_size().
 * @return 0, ::RFM_EOWNER, ::RFM_EINVAL.
 */
RFM_API int rfm_record_write(rfm_record *rec, const void *buf, size_t len);

/** @brief rfm_record_read() into the handle's image. */
RFM_API int rfm_record_fetch(rfm_record *rec);

/** @brief rfm_record_write() of the handle's image. */
RFM_API int rfm_record_publish(rfm_record *rec);

/**
 * @brief The record's current sequence word (even when idle), with acquire
 *        ordering: a cheap "has anything new been published?" check.
 * @return 0 or ::RFM_EINVAL.
 */
RFM_API int rfm_record_sequence(const rfm_record *rec, uint32_t *seqp);

/**
 * @brief Wait until the record's sequence is even and differs from @p last.
 *
 * With a `notify` type in the layout, the wait sleeps on that event (the
 * handle's node enables it; give record waits a handle of their own, as
 * they take its records), also while a publish seems under way (a writer
 * that died mid-publish costs no CPU); without, it polls: yields for
 * 100 us, then pauses growing to 1 ms. rfm_event_cancel() on the handle
 * ends the wait with ::RFM_ECANCELED.
 * @param last A sequence seen before (rfm_record_sequence(), or a read's).
 * @param timeout_ns 0: only look; < 0: for ever; else nanoseconds.
 * @param[out] seqp The new sequence; may be NULL.
 * @return 0, ::RFM_EAGAIN, ::RFM_ETIMEDOUT, ::RFM_EINVAL, or the errors of
 *         rfm_event_wait().
 */
RFM_API int rfm_record_wait(rfm_record *rec, uint32_t last, int64_t timeout_ns, uint32_t *seqp);

/**
 * @brief A variable handle on the record's image, for typed access between
 *        rfm_record_fetch() and rfm_record_publish().
 * @param name The variable's name inside the record ("pos", "pos[1]").
 * @param[out] varp Free it with rfm_var_close() before closing @p rec.
 *        Its sets are never refused for ownership (the image is local);
 *        the publish is.
 * @return 0, ::RFM_ENOTFOUND, ::RFM_EINVAL, ::RFM_ENOMEM.
 */
RFM_API int rfm_record_var(rfm_record *rec, const char *name, rfm_var **varp);

/** @} */

RFM_END_DECLS

/** @} */
#endif /* RFM_LAYOUT_H */
