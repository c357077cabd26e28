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
 *
 * @par Thread safety
 * Loading, building and describing layouts may be done from any thread;
 * a layout being built is used by one thread until rfm_layout_finish(),
 * a finished one by any number. A variable handle's gets and sets may be
 * called from several threads at once (one publishing thread per record
 * for variables in records); rfm_var_set_owner_check() and
 * rfm_var_close() must not race with them. A record handle, and the
 * handles of rfm_record_var() on its image, are used by one thread at a
 * time.
 *
 * @sa rfm-layout(5), rfm-protocols(7)
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
 * @param type An ::rfm_type value.
 * @return A static string owned by the library; "" for a value that is no
 *         ::rfm_type.
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

/**
 * @brief Number of problems in @p list.
 * @param list A list from a load, or NULL.
 * @return The count; 0 for NULL.
 */
RFM_API size_t rfm_diag_list_count(const rfm_diag_list *list);

/**
 * @brief Describe problem @p index of @p list.
 *
 * Problems come in the order of the source (by line, then column).
 * @param list The list.
 * @param index 0..rfm_diag_list_count() - 1.
 * @param[in,out] diag The caller sets @c struct_size to
 *        sizeof(struct rfm_diag); the rest is filled. Its strings belong
 *        to @p list and stay valid until rfm_diag_list_free().
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL An argument is NULL, @c diag->struct_size is too
 *         small, or @p index is not below the count.
 */
RFM_API int rfm_diag_list_get(const rfm_diag_list *list, size_t index, struct rfm_diag *diag);

/**
 * @brief Free a list of problems and its strings.
 * @param list The list, or NULL (then nothing happens).
 */
RFM_API void rfm_diag_list_free(rfm_diag_list *list);

/** @} */

/* ---------------------------------------------------------------------- */
/** @name Loading and freeing
 * @{
 */

/**
 * @brief Load and validate a layout file (YAML, see rfm-layout(5)).
 *
 * The file is read whole (a layout file may have at most 16 MiB), parsed
 * and validated: every problem is reported, each with its line and
 * column.
 * @param path The file.
 * @param[out] layoutp Receives the finished layout; the caller frees it
 *        with rfm_layout_free().
 * @param[out] diagsp May be NULL. On ::RFM_ELAYOUT receives every problem
 *        found, which the caller frees with rfm_diag_list_free(); otherwise
 *        set to NULL.
 * @return 0 on success, or a negative ::rfm_error code; rfm_last_error()
 *         then holds the first problem and the number of others.
 * @retval RFM_ELAYOUT The file is not a valid layout (or is too large).
 * @retval RFM_EINVAL @p path or @p layoutp is NULL, or @p path is not a
 *         regular file.
 * @retval RFM_ENOENT No such file.
 * @retval RFM_EPERM The file may not be read.
 * @retval RFM_ENOMEM Out of memory.
 * @retval RFM_ESYS The file cannot be read otherwise (errno is kept).
 */
RFM_API int rfm_layout_load_file(const char *path, rfm_layout **layoutp,
				 rfm_diag_list **diagsp);

/**
 * @brief Load and validate a layout from text in memory.
 * @param text The YAML text; need not be NUL-terminated. May be NULL when
 *        @p len is 0.
 * @param len Its length in bytes.
 * @param source_name Name used in diagnostics (NULL: "<string>").
 * @param[out] layoutp Receives the finished layout; the caller frees it
 *        with rfm_layout_free().
 * @param[out] diagsp May be NULL. On ::RFM_ELAYOUT receives every problem
 *        found, which the caller frees with rfm_diag_list_free(); otherwise
 *        set to NULL.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_ELAYOUT The text is not a valid layout.
 * @retval RFM_EINVAL @p layoutp is NULL, or @p text is NULL with @p len not 0.
 * @retval RFM_ENOMEM Out of memory.
 */
RFM_API int rfm_layout_load_string(const char *text, size_t len, const char *source_name,
				   rfm_layout **layoutp, rfm_diag_list **diagsp);

/**
 * @brief Drop the caller's reference to a layout.
 *
 * The memory goes when the last handle opened on it (variables, records)
 * is closed too, so handles may outlive the caller's reference.
 * @param layout The layout, finished or not, or NULL (then nothing happens).
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

/** Most significant digits a double has (rfm_var_spec::digits). */
#define RFM_VAR_MAX_DIGITS 17

/** A variable (scalar, array, string or bytes). */
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
 *
 * Add regions, records and variables, then rfm_layout_finish() it.
 * @param name Identifier used as the prefix of generated headers (NULL: "layout").
 * @param window_size The window the layout describes, in bytes (checked
 *        by rfm_layout_finish()).
 * @param[out] layoutp Receives the unfinished layout; the caller frees it
 *        with rfm_layout_free(), finished or not.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p layoutp is NULL.
 * @retval RFM_ENOMEM Out of memory.
 */
RFM_API int rfm_layout_new(const char *name, uint64_t window_size, rfm_layout **layoutp);

/**
 * @brief Add a region to a layout being built.
 *
 * The specification is copied (its strings too); it is checked with the
 * whole layout by rfm_layout_finish().
 * @param layout The unfinished layout.
 * @param spec The region; the caller sets @c struct_size.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL An argument is NULL, or @c spec->struct_size is too small.
 * @retval RFM_EBUSY The layout is finished.
 * @retval RFM_ENOMEM Out of memory.
 */
RFM_API int rfm_layout_add_region(rfm_layout *layout, const struct rfm_region_spec *spec);

/**
 * @brief Add a record to region @p region of a layout being built.
 * @param layout The unfinished layout.
 * @param region The name of a region added before.
 * @param spec The record; the caller sets @c struct_size. Copied.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL An argument is NULL, @c spec->struct_size is too
 *         small, or @c spec->notify is not 0 nor INTR1..INTR4.
 * @retval RFM_ENOTFOUND No such region.
 * @retval RFM_EBUSY The layout is finished.
 * @retval RFM_ENOMEM Out of memory.
 */
RFM_API int rfm_layout_add_record(rfm_layout *layout, const char *region,
				  const struct rfm_record_spec *spec);

/**
 * @brief Add a variable to @p parent: "region" or "region.record".
 * @param layout The unfinished layout.
 * @param parent A region, or a record as "region.record", added before.
 * @param spec The variable; the caller sets @c struct_size. Copied.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL An argument is NULL, @c spec->struct_size is too
 *         small, or @c spec->digits is over ::RFM_VAR_MAX_DIGITS.
 * @retval RFM_ENOTFOUND No such region or record.
 * @retval RFM_EBUSY The layout is finished.
 * @retval RFM_ENOMEM Out of memory.
 */
RFM_API int rfm_layout_add_var(rfm_layout *layout, const char *parent,
			       const struct rfm_var_spec *spec);

/**
 * @brief Place automatic offsets and validate everything.
 *
 * The same checks as a file load: overlaps, alignment, bounds, names,
 * writers. After it nothing can be added, and handles can be opened.
 * @param layout The unfinished layout.
 * @param[out] diagsp May be NULL. On ::RFM_ELAYOUT receives every problem
 *        found, which the caller frees with rfm_diag_list_free(); otherwise
 *        set to NULL.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_ELAYOUT The layout is invalid: it stays unfinished and
 *         unusable (free it).
 * @retval RFM_EBUSY The layout is finished already.
 * @retval RFM_EINVAL @p layout is NULL.
 * @retval RFM_ENOMEM Out of memory.
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
	const char *name;	/**< Its name. */
	const char *description; /**< "" when none. */
	uint64_t offset;	/**< In the window. */
	uint64_t size;		/**< In bytes. */
	uint32_t reserved[8];	/**< Zero. */
};

/** Facts about a record. */
struct rfm_record_info {
	uint32_t struct_size;	/**< Set by the caller. */
	uint32_t byte_order;	/**< Of the sequence word. */
	const char *name;	/**< Full dotted name "region.record". */
	const char *description; /**< "" when none. */
	uint64_t offset;	/**< Of the sequence word, in the window. */
	uint64_t size;		/**< Whole record: sequence word, padding and data. */
	uint64_t data_offset;	/**< Of the data, in the window. */
	uint64_t data_size;	/**< Of the data: what rfm_record_read() copies. */
	uint32_t region;	/**< Index of its region. */
	/** rfm_record_spec::stale_after_ms (0: not set; since RFM_1.1). */
	uint32_t stale_after_ms;
	uint32_t reserved[6];	/**< Zero. */
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
	uint32_t reserved[4];	/**< Zero. */
};
/* Fields declared two to a line: documented here. */
/** @var rfm_var_info::has_min
 *  @c min is a limit enforced on writes. */
/** @var rfm_var_info::has_max
 *  @c max is a limit enforced on writes. */
/** @var rfm_var_info::min
 *  Lowest value accepted by set functions. */
/** @var rfm_var_info::max
 *  Highest value accepted by set functions. */

/**
 * @brief The layout's name (generated-header prefix).
 * @param layout The layout.
 * @return A string owned by the layout; "" for NULL.
 */
RFM_API const char *rfm_layout_name(const rfm_layout *layout);
/**
 * @brief The window size the layout was written for.
 * @param layout The layout.
 * @return Bytes; 0 for NULL.
 */
RFM_API uint64_t rfm_layout_window_size(const rfm_layout *layout);
/**
 * @brief Number of regions.
 * @param layout The layout.
 * @return The count; 0 for NULL.
 */
RFM_API size_t rfm_layout_region_count(const rfm_layout *layout);
/**
 * @brief Number of records.
 * @param layout The layout.
 * @return The count; 0 for NULL.
 */
RFM_API size_t rfm_layout_record_count(const rfm_layout *layout);
/**
 * @brief Number of variables, those in records included.
 * @param layout The layout.
 * @return The count; 0 for NULL.
 */
RFM_API size_t rfm_layout_var_count(const rfm_layout *layout);
/**
 * @brief Describe region @p index.
 * @param layout The layout.
 * @param index 0..rfm_layout_region_count() - 1, in declaration order.
 * @param[in,out] info The caller sets @c struct_size; the rest is filled.
 *        Its strings belong to the layout.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL An argument is NULL, @c info->struct_size is too
 *         small, or @p index is not below the count.
 */
RFM_API int rfm_layout_region_info(const rfm_layout *layout, size_t index,
				   struct rfm_region_info *info);
/**
 * @brief Describe record @p index.
 * @param layout The layout.
 * @param index 0..rfm_layout_record_count() - 1, in declaration order.
 * @param[in,out] info The caller sets @c struct_size; the rest is filled.
 *        Its strings belong to the layout.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL An argument is NULL, @c info->struct_size is too
 *         small, or @p index is not below the count.
 */
RFM_API int rfm_layout_record_info(const rfm_layout *layout, size_t index,
				   struct rfm_record_info *info);
/**
 * @brief Describe variable @p index.
 * @param layout The layout.
 * @param index 0..rfm_layout_var_count() - 1, in declaration order.
 * @param[in,out] info The caller sets @c struct_size; the rest is filled.
 *        Its strings belong to the layout.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL An argument is NULL, @c info->struct_size is too
 *         small, or @p index is not below the count.
 */
RFM_API int rfm_layout_var_info(const rfm_layout *layout, size_t index,
				struct rfm_var_info *info);

/**
 * @brief Write a C header for the layout to @p out.
 *
 * Per region: offset macros for every variable and record, a packed
 * struct mirroring the region, and `_Static_assert`s on every offset and
 * size, so a program using it fails to compile if it drifts from the
 * layout. Big-endian variables appear as unsigned members named `NAME_be`
 * that hold the raw bits. `rfm layout header` writes the same.
 * @param layout A finished layout.
 * @param prefix Identifier prefixed to every name (NULL: the layout's name).
 * @param out An open stream; written, not closed.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL An argument is NULL, the layout is not finished, or
 *         @p prefix (or a name it makes) is not a C identifier.
 * @retval RFM_ENOMEM Out of memory.
 * @retval RFM_ESYS Writing to @p out failed.
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
 * ::RFM_EOWNER, ::RFM_ETORN (record kept changing), and on `dds:` the
 * errors of a store (memory.h).
 * @{
 */

/**
 * @brief Resolve @p name of @p layout on @p node.
 *
 * The handle keeps a reference to the layout (rfm_layout_free() may come
 * first); @p node must stay open until the handle is closed.
 * @param layout A finished layout.
 * @param node The node whose window holds the variable.
 * @param name "region.var", "region.record.var", optionally with "[index]"
 *        (then the handle covers that one element).
 * @param[out] varp Receives the handle; the caller frees it with
 *        rfm_var_close().
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL An argument is NULL, or the layout is not finished.
 * @retval RFM_ENOTFOUND No such variable, or the index is beyond the array.
 * @retval RFM_ESIZE The node's window is smaller than the layout's.
 * @retval RFM_ENOMEM Out of memory.
 */
RFM_API int rfm_var_open(rfm_layout *layout, rfm_node *node, const char *name, rfm_var **varp);

/**
 * @brief Free a variable handle and its reference to the layout.
 *
 * Views taken from it (rfm_var_get_view()) are invalid afterwards.
 * @param var The handle, or NULL (then nothing happens).
 */
RFM_API void rfm_var_close(rfm_var *var);

/**
 * @brief Enforce (the default) or relax the one-writer check for this handle.
 *
 * Relaxed, two nodes may write one word; on real reflective memory, where
 * each node holds its own copy of the window, their writes then arrive in
 * different orders on different nodes and the copies may disagree for good.
 * Take views again afterwards.
 * @param var The handle.
 * @param enforce true: refuse writes from a node other than the region's
 *        writer (::RFM_EOWNER); false: allow them.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p var is NULL.
 */
RFM_API int rfm_var_set_owner_check(rfm_var *var, bool enforce);

/**
 * @brief Describe what the handle covers.
 *
 * For a handle on one element (`name[3]`), offset, size and count are the
 * element's.
 * @param var The handle.
 * @param[in,out] info The caller sets @c struct_size; the rest is filled.
 *        Its strings belong to the handle and the layout.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL An argument is NULL, or @c info->struct_size is too small.
 */
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
 * @param node Any handle on the network.
 * @param var The variable.
 * @return 1 stale, 0 fresh, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p node or @p var is NULL, or the variable has no
 *         writer node (a record's image, rfm_record_var()).
 * @retval RFM_ENOMEM Out of memory.
 * @retval RFM_ESIZE The window is smaller than the heartbeat table, and
 *         the backend does not know who is attached.
 * @retval RFM_ERANGE The heartbeat table (URI `heartbeat=`) does not fit
 *         the window.
 * @since RFM_1.1
 */
RFM_API int rfm_var_stale(rfm_node *node, const rfm_var *var);

/**
 * @brief The handle's name as resolved ("sim.pos[2]").
 * @param var The handle.
 * @return A string owned by the handle, valid until rfm_var_close(); ""
 *         for NULL.
 */
RFM_API const char *rfm_var_name(const rfm_var *var);

/** @} */

/* Doxygen's member groups do not nest: the typed access, views, arrays
 * and text each have their own, and "Variables" above says what holds
 * for all of them. */

/**
 * @name Typed scalar access
 * Element @p index (0 for a scalar) of a variable of exactly the function's
 * type, converted between the variable's byte order and the host's: one
 * rfm_var_get_T() and one rfm_var_set_T() for each type T of ::rfm_type
 * with a C type (u8..u64, i8..i64, f32, f64, bool). Each has its own
 * manual page; they differ only in the type of @p value.
 * @{
 */

/**
 * @brief Read element @p index of a variable of type `u8` (uint8_t).
 *
 * Reads element @p index of a variable whose type is the function's (its
 * C type is that of @p value), converted from the variable's byte order to
 * the host's, with one single-copy atomic load. A variable inside a
 * record is read consistently: the read retries while the record's
 * writer publishes (rfm_record_set_max_tries() of the record bounds it,
 * default ::RFM_RECORD_DEFAULT_TRIES). A bool reads as false for 0 and
 * true for anything else.
 * @param var The handle.
 * @param index The element, 0 for a scalar; relative to the handle's
 *        first element.
 * @param[out] value Receives the value.
 * @return 0 on success, or a negative ::rfm_error code; on error @p value
 *         is not written.
 * @retval RFM_EINVAL @p var or @p value is NULL, or the variable is of
 *         another type (the message names the function to use).
 * @retval RFM_ERANGE @p index is not below the handle's element count.
 * @retval RFM_ETORN The variable is in a record that kept changing during
 *         every try (is its writer alive?).
 * @sa rfm_view_get_u8() and its family: the same, inline.
 */
RFM_API int rfm_var_get_u8(const rfm_var *var, uint32_t index, uint8_t *value);
/** @brief Read element @p index of a variable of type `u16` (uint16_t). @copydetails rfm_var_get_u8() */
RFM_API int rfm_var_get_u16(const rfm_var *var, uint32_t index, uint16_t *value);
/** @brief Read element @p index of a variable of type `u32` (uint32_t). @copydetails rfm_var_get_u8() */
RFM_API int rfm_var_get_u32(const rfm_var *var, uint32_t index, uint32_t *value);
/** @brief Read element @p index of a variable of type `u64` (uint64_t). @copydetails rfm_var_get_u8() */
RFM_API int rfm_var_get_u64(const rfm_var *var, uint32_t index, uint64_t *value);
/** @brief Read element @p index of a variable of type `i8` (int8_t). @copydetails rfm_var_get_u8() */
RFM_API int rfm_var_get_i8(const rfm_var *var, uint32_t index, int8_t *value);
/** @brief Read element @p index of a variable of type `i16` (int16_t). @copydetails rfm_var_get_u8() */
RFM_API int rfm_var_get_i16(const rfm_var *var, uint32_t index, int16_t *value);
/** @brief Read element @p index of a variable of type `i32` (int32_t). @copydetails rfm_var_get_u8() */
RFM_API int rfm_var_get_i32(const rfm_var *var, uint32_t index, int32_t *value);
/** @brief Read element @p index of a variable of type `i64` (int64_t). @copydetails rfm_var_get_u8() */
RFM_API int rfm_var_get_i64(const rfm_var *var, uint32_t index, int64_t *value);
/** @brief Read element @p index of a variable of type `f32` (float). @copydetails rfm_var_get_u8() */
RFM_API int rfm_var_get_f32(const rfm_var *var, uint32_t index, float *value);
/** @brief Read element @p index of a variable of type `f64` (double). @copydetails rfm_var_get_u8() */
RFM_API int rfm_var_get_f64(const rfm_var *var, uint32_t index, double *value);
/** @brief Read element @p index of a variable of type `bool` (bool). @copydetails rfm_var_get_u8() */
RFM_API int rfm_var_get_bool(const rfm_var *var, uint32_t index, bool *value);
/**
 * @brief Write element @p index of a variable of type `u8` (uint8_t).
 *
 * Stores @p value into element @p index of a variable whose type is the
 * function's, converted to the variable's byte order, with one
 * single-copy atomic store, after checking that this handle's node is the
 * region's writer and that the value is within the variable's min/max. A
 * variable inside a record is written as a one-variable publish of the
 * record (odd sequence, data, even sequence; one publishing thread per
 * record). A bool is stored as 1 or 0.
 * @param var The handle.
 * @param index The element, 0 for a scalar; relative to the handle's
 *        first element.
 * @param value The value.
 * @return 0 on success, or a negative ::rfm_error code; on an argument,
 *         owner or limit error nothing is written.
 * @retval RFM_EINVAL @p var is NULL, or the variable is of another type.
 * @retval RFM_ERANGE @p index is not below the handle's element count, or
 *         @p value is outside the variable's min/max (or NaN with limits).
 * @retval RFM_EPERM The handle was opened through an observer (`observe=1`),
 *         which never writes.
 * @retval RFM_EOWNER This handle's node is not the region's writer (and
 *         rfm_var_set_owner_check() did not relax the check).
 * @retval RFM_EIO `dds:` Cyclone refused the data (the local copy has it;
 *         memory.h, "Errors of a store", has ::RFM_ENOMEM, ::RFM_ETIMEDOUT,
 *         ::RFM_EAGAIN and ::RFM_ECLOSED there too).
 * @sa rfm_view_set_u8() and its family: the same, inline.
 */
RFM_API int rfm_var_set_u8(rfm_var *var, uint32_t index, uint8_t value);
/** @brief Write element @p index of a variable of type `u16` (uint16_t). @copydetails rfm_var_set_u8() */
RFM_API int rfm_var_set_u16(rfm_var *var, uint32_t index, uint16_t value);
/** @brief Write element @p index of a variable of type `u32` (uint32_t). @copydetails rfm_var_set_u8() */
RFM_API int rfm_var_set_u32(rfm_var *var, uint32_t index, uint32_t value);
/** @brief Write element @p index of a variable of type `u64` (uint64_t). @copydetails rfm_var_set_u8() */
RFM_API int rfm_var_set_u64(rfm_var *var, uint32_t index, uint64_t value);
/** @brief Write element @p index of a variable of type `i8` (int8_t). @copydetails rfm_var_set_u8() */
RFM_API int rfm_var_set_i8(rfm_var *var, uint32_t index, int8_t value);
/** @brief Write element @p index of a variable of type `i16` (int16_t). @copydetails rfm_var_set_u8() */
RFM_API int rfm_var_set_i16(rfm_var *var, uint32_t index, int16_t value);
/** @brief Write element @p index of a variable of type `i32` (int32_t). @copydetails rfm_var_set_u8() */
RFM_API int rfm_var_set_i32(rfm_var *var, uint32_t index, int32_t value);
/** @brief Write element @p index of a variable of type `i64` (int64_t). @copydetails rfm_var_set_u8() */
RFM_API int rfm_var_set_i64(rfm_var *var, uint32_t index, int64_t value);
/** @brief Write element @p index of a variable of type `f32` (float). @copydetails rfm_var_set_u8() */
RFM_API int rfm_var_set_f32(rfm_var *var, uint32_t index, float value);
/** @brief Write element @p index of a variable of type `f64` (double). @copydetails rfm_var_set_u8() */
RFM_API int rfm_var_set_f64(rfm_var *var, uint32_t index, double value);
/** @brief Write element @p index of a variable of type `bool` (bool). @copydetails rfm_var_set_u8() */
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
 *
 * A snapshot of what the inline path needs: take it again after
 * rfm_var_set_owner_check(). Bool, string and bytes variables, and
 * variables in records, are never on the inline path (their keys are 0:
 * every access goes to the handle).
 * @param var The handle; it must stay open while the view is used.
 * @param[in,out] view The caller sets @c struct_size to
 *        sizeof(struct rfm_var_view); the rest is filled.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL An argument is NULL, or @c view->struct_size is
 *         smaller than this header's structure.
 */
RFM_API int rfm_var_get_view(rfm_var *var, struct rfm_var_view *view);

/* The inline accessors' byte swaps, and the macro that defines one
 * rfm_view_get_NAME() and rfm_view_set_NAME() per type: not API (the
 * reference leaves rfm__ and RFM__ names out), each function it makes is
 * documented below by an @fn block of its own. */
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

/*
 * The functions RFM__VIEW_ACCESSORS() made above, one pair per type: an
 * @fn block each, so each has its entry and manual page with its own
 * signature (the text is shared through @copydetails).
 */
/**
 * @fn int rfm_view_get_u8(const struct rfm_var_view *view, uint32_t index, uint8_t *value)
 * @brief Read element @p index of a variable of type `u8` through a view (inline).
 *
 * The plain case in the caller's code: when the view says gets may go
 * inline for the function's type (its C type is that of @p value) and
 * @p index is below the view's count, one single-copy atomic load (and a
 * byte swap when the variable's order is not the host's). Any other case
 * calls rfm_var_get_u8() or its sibling of the same type on the handle,
 * so results and errors are exactly the same; "inline" changes only
 * the cost. Exported twin: none (the rfm_var_get_T() functions are).
 * @param view A view filled by rfm_var_get_view(); its handle must be open.
 * @param index The element, 0 for a scalar.
 * @param[out] value Receives the value.
 * @return 0 on success, or a negative ::rfm_error code (those of
 *         rfm_var_get_u8() and its family).
 * @retval RFM_EINVAL @p value is NULL, or the variable is of another type.
 * @retval RFM_ERANGE @p index is not below the handle's element count.
 * @retval RFM_ETORN The variable is in a record that kept changing.
 * @par Thread safety
 * As for the variable handle: any number of threads may read at once;
 * rfm_var_close() and rfm_var_set_owner_check() must not race with them
 * (take views again after the latter).
 */
/**
 * @fn int rfm_view_get_u16(const struct rfm_var_view *view, uint32_t index, uint16_t *value)
 * @brief Read element @p index of a variable of type `u16` through a view (inline).
 * @copydetails rfm_view_get_u8()
 */
/**
 * @fn int rfm_view_get_u32(const struct rfm_var_view *view, uint32_t index, uint32_t *value)
 * @brief Read element @p index of a variable of type `u32` through a view (inline).
 * @copydetails rfm_view_get_u8()
 */
/**
 * @fn int rfm_view_get_u64(const struct rfm_var_view *view, uint32_t index, uint64_t *value)
 * @brief Read element @p index of a variable of type `u64` through a view (inline).
 * @copydetails rfm_view_get_u8()
 */
/**
 * @fn int rfm_view_get_i8(const struct rfm_var_view *view, uint32_t index, int8_t *value)
 * @brief Read element @p index of a variable of type `i8` through a view (inline).
 * @copydetails rfm_view_get_u8()
 */
/**
 * @fn int rfm_view_get_i16(const struct rfm_var_view *view, uint32_t index, int16_t *value)
 * @brief Read element @p index of a variable of type `i16` through a view (inline).
 * @copydetails rfm_view_get_u8()
 */
/**
 * @fn int rfm_view_get_i32(const struct rfm_var_view *view, uint32_t index, int32_t *value)
 * @brief Read element @p index of a variable of type `i32` through a view (inline).
 * @copydetails rfm_view_get_u8()
 */
/**
 * @fn int rfm_view_get_i64(const struct rfm_var_view *view, uint32_t index, int64_t *value)
 * @brief Read element @p index of a variable of type `i64` through a view (inline).
 * @copydetails rfm_view_get_u8()
 */
/**
 * @fn int rfm_view_get_f32(const struct rfm_var_view *view, uint32_t index, float *value)
 * @brief Read element @p index of a variable of type `f32` through a view (inline).
 * @copydetails rfm_view_get_u8()
 */
/**
 * @fn int rfm_view_get_f64(const struct rfm_var_view *view, uint32_t index, double *value)
 * @brief Read element @p index of a variable of type `f64` through a view (inline).
 * @copydetails rfm_view_get_u8()
 */
/**
 * @fn int rfm_view_set_u8(const struct rfm_var_view *view, uint32_t index, uint8_t value)
 * @brief Write element @p index of a variable of type `u8` through a view (inline).
 *
 * The plain case in the caller's code: when the view says sets may go
 * inline for the function's type (this node writes the region, the
 * variable has no limits and is not in a record) and @p index is below
 * the view's count, one single-copy atomic store (and a byte swap when
 * the variable's order is not the host's). Any other case calls
 * rfm_var_set_u8() or its sibling of the same type on the handle, so
 * results and errors are exactly the same. Views are never inline on
 * `dds:`, whose stores must be sent.
 * @param view A view filled by rfm_var_get_view(); its handle must be open.
 * @param index The element, 0 for a scalar.
 * @param value The value.
 * @return 0 on success, or a negative ::rfm_error code (those of
 *         rfm_var_set_u8() and its family).
 * @retval RFM_EINVAL The variable is of another type.
 * @retval RFM_ERANGE @p index is not below the handle's element count, or
 *         @p value is outside the variable's min/max.
 * @retval RFM_EPERM The handle was opened through an observer (`observe=1`),
 *         which never writes.
 * @retval RFM_EOWNER This handle's node is not the region's writer.
 * @retval RFM_EIO `dds:` Cyclone refused the data (see rfm_var_set_u8()
 *         for the other errors of a store).
 * @par Thread safety
 * As for the variable handle: any number of threads may set at once (a
 * variable in a record: one publishing thread per record);
 * rfm_var_close() and rfm_var_set_owner_check() must not race with them.
 */
/**
 * @fn int rfm_view_set_u16(const struct rfm_var_view *view, uint32_t index, uint16_t value)
 * @brief Write element @p index of a variable of type `u16` through a view (inline).
 * @copydetails rfm_view_set_u8()
 */
/**
 * @fn int rfm_view_set_u32(const struct rfm_var_view *view, uint32_t index, uint32_t value)
 * @brief Write element @p index of a variable of type `u32` through a view (inline).
 * @copydetails rfm_view_set_u8()
 */
/**
 * @fn int rfm_view_set_u64(const struct rfm_var_view *view, uint32_t index, uint64_t value)
 * @brief Write element @p index of a variable of type `u64` through a view (inline).
 * @copydetails rfm_view_set_u8()
 */
/**
 * @fn int rfm_view_set_i8(const struct rfm_var_view *view, uint32_t index, int8_t value)
 * @brief Write element @p index of a variable of type `i8` through a view (inline).
 * @copydetails rfm_view_set_u8()
 */
/**
 * @fn int rfm_view_set_i16(const struct rfm_var_view *view, uint32_t index, int16_t value)
 * @brief Write element @p index of a variable of type `i16` through a view (inline).
 * @copydetails rfm_view_set_u8()
 */
/**
 * @fn int rfm_view_set_i32(const struct rfm_var_view *view, uint32_t index, int32_t value)
 * @brief Write element @p index of a variable of type `i32` through a view (inline).
 * @copydetails rfm_view_set_u8()
 */
/**
 * @fn int rfm_view_set_i64(const struct rfm_var_view *view, uint32_t index, int64_t value)
 * @brief Write element @p index of a variable of type `i64` through a view (inline).
 * @copydetails rfm_view_set_u8()
 */
/**
 * @fn int rfm_view_set_f32(const struct rfm_var_view *view, uint32_t index, float value)
 * @brief Write element @p index of a variable of type `f32` through a view (inline).
 * @copydetails rfm_view_set_u8()
 */
/**
 * @fn int rfm_view_set_f64(const struct rfm_var_view *view, uint32_t index, double value)
 * @brief Write element @p index of a variable of type `f64` through a view (inline).
 * @copydetails rfm_view_set_u8()
 */

/** @} */

/**
 * @name Arrays, strings and text
 * Several elements at once, string variables, and values as text (what
 * the `rfm` tool and the bindings use). The errors, ownership and thread
 * rules of "Variables" hold.
 * @{
 */

/**
 * @brief Read elements [first, first+count) into @p buf, in host byte order.
 *
 * Each element is read atomically; a variable in a record is read
 * consistently as a whole (retrying while the writer publishes).
 * @param var The handle, of any type.
 * @param first The first element, relative to the handle's first.
 * @param count Elements to read.
 * @param[out] buf Holds @p count elements of the variable's C type (bytes
 *        for string and bytes); may be NULL when @p count is 0.
 * @param len The size of @p buf in bytes: at least count * element size.
 * @return 0 on success, or a negative ::rfm_error code; nothing is copied
 *         on error.
 * @retval RFM_EINVAL @p var is NULL, @p buf is NULL with @p count not 0,
 *         or @p len cannot hold @p count elements.
 * @retval RFM_ERANGE The elements are not all in the handle.
 * @retval RFM_ETORN The variable is in a record that kept changing.
 */
RFM_API int rfm_var_get_array(const rfm_var *var, uint32_t first, uint32_t count,
			      void *buf, size_t len);

/**
 * @brief Write elements [first, first+count) from @p buf (host byte order).
 *
 * Every element is checked against min/max before any is written.
 * Elements are stored one by one (each atomic); for an all-or-nothing
 * update of several values, put them in a record (a variable in a record
 * is written as one publish).
 * @param var The handle, of any type.
 * @param first The first element, relative to the handle's first.
 * @param count Elements to write.
 * @param buf Holds @p count elements of the variable's C type; may be
 *        NULL when @p count is 0.
 * @param len The size of @p buf in bytes: at least count * element size.
 * @return 0 on success, or a negative ::rfm_error code; on an argument,
 *         owner or limit error nothing is written.
 * @retval RFM_EINVAL @p var is NULL, @p buf is NULL with @p count not 0,
 *         or @p len cannot hold @p count elements.
 * @retval RFM_ERANGE The elements are not all in the handle, or a value
 *         is outside the variable's min/max.
 * @retval RFM_EPERM The handle was opened through an observer (`observe=1`),
 *         which never writes.
 * @retval RFM_EOWNER This handle's node is not the region's writer.
 * @retval RFM_EIO `dds:` Cyclone refused the data (the local copy has it;
 *         memory.h, "Errors of a store", has ::RFM_ENOMEM, ::RFM_ETIMEDOUT,
 *         ::RFM_EAGAIN and ::RFM_ECLOSED there too).
 */
RFM_API int rfm_var_set_array(rfm_var *var, uint32_t first, uint32_t count,
			      const void *buf, size_t len);

/**
 * @brief Read a string variable into @p buf as a NUL-terminated string.
 *
 * The text ends at the variable's first NUL byte or its length.
 * @param var The handle of a string variable.
 * @param[out] buf Receives the text and a NUL.
 * @param len The size of @p buf in bytes.
 * @return The string's length (without the NUL), or a negative
 *         ::rfm_error code.
 * @retval RFM_EINVAL @p var or @p buf is NULL, or the variable is not a
 *         string.
 * @retval RFM_ERANGE @p len cannot hold the text and its NUL; nothing is
 *         copied.
 * @retval RFM_ETORN The variable is in a record that kept changing.
 * @retval RFM_ENOMEM Out of memory (a long variable read aside).
 */
RFM_API int rfm_var_get_string(const rfm_var *var, char *buf, size_t len);

/**
 * @brief Store @p text into a string variable, NUL-padding the rest.
 * @param var The handle of a string variable.
 * @param text The text, NUL-terminated; at most the variable's length
 *        (a text of exactly that length has no NUL in the window).
 * @return 0 on success, or a negative ::rfm_error code; nothing is
 *         written on an argument or owner error.
 * @retval RFM_EINVAL @p var or @p text is NULL, or the variable is not a string.
 * @retval RFM_ERANGE @p text is longer than the variable.
 * @retval RFM_EPERM The handle was opened through an observer (`observe=1`),
 *         which never writes.
 * @retval RFM_EOWNER This handle's node is not the region's writer.
 * @retval RFM_ENOMEM Out of memory (a long variable built aside).
 * @retval RFM_EIO `dds:` Cyclone refused the data (the local copy has it;
 *         memory.h, "Errors of a store", has ::RFM_ENOMEM, ::RFM_ETIMEDOUT,
 *         ::RFM_EAGAIN and ::RFM_ECLOSED there too).
 */
RFM_API int rfm_var_set_string(rfm_var *var, const char *text);

/**
 * @brief Format the handle's value as text: a number, `true`/`false`, a
 *        quoted string, hex bytes, or `[a, b, c]` for several elements.
 *
 * Floats are written with the digits that read back the same value.
 * @param var The handle, of any type.
 * @param[out] buf Receives the text and a NUL.
 * @param len The size of @p buf in bytes.
 * @return The text's length (without the NUL), or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p var or @p buf is NULL.
 * @retval RFM_ERANGE @p len cannot hold the text and its NUL.
 * @retval RFM_ETORN The variable is in a record that kept changing.
 * @retval RFM_ENOMEM Out of memory.
 */
RFM_API int rfm_var_get_text(const rfm_var *var, char *buf, size_t len);

/**
 * @brief Parse @p text for the variable's type and store it.
 *
 * Numbers in C notation (decimal, 0x hex; floats with exponent, inf, nan),
 * true/false/1/0 for bool, raw text for strings, hex digits for bytes;
 * several elements as "a, b, c" or "[a, b, c]" (exactly the handle's count).
 * Nothing is written unless everything parses and is within limits.
 * @param var The handle, of any type.
 * @param text The value as text, NUL-terminated.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p var or @p text is NULL, or the text does not parse
 *         or has another number of elements (the message says why).
 * @retval RFM_ERANGE A value is outside the type or the variable's min/max,
 *         or the bytes do not fit.
 * @retval RFM_EPERM The handle was opened through an observer (`observe=1`),
 *         which never writes.
 * @retval RFM_EOWNER This handle's node is not the region's writer.
 * @retval RFM_ENOMEM Out of memory.
 * @retval RFM_EIO `dds:` Cyclone refused the data (the local copy has it;
 *         memory.h, "Errors of a store", has ::RFM_ENOMEM, ::RFM_ETIMEDOUT,
 *         ::RFM_EAGAIN and ::RFM_ECLOSED there too).
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
 * thread-safe. No call here allocates or makes a system call except
 * open, a publish's notify event and a sleeping wait.
 * @{
 */

/** Default number of attempts of a consistent read. */
#define RFM_RECORD_DEFAULT_TRIES 1000

/**
 * @brief Resolve record @p name ("region.record") of @p layout on @p node.
 *
 * The handle keeps a reference to the layout (rfm_layout_free() may come
 * first); @p node must stay open until the handle is closed. The image
 * starts zeroed.
 * @param layout A finished layout.
 * @param node The node whose window holds the record.
 * @param name "region.record".
 * @param[out] recp Receives the handle; the caller frees it with
 *        rfm_record_close().
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL An argument is NULL, or the layout is not finished.
 * @retval RFM_ENOTFOUND No such record.
 * @retval RFM_ESIZE The node's window is smaller than the layout's.
 * @retval RFM_ENOMEM Out of memory.
 */
RFM_API int rfm_record_open(rfm_layout *layout, rfm_node *node, const char *name,
			    rfm_record **recp);

/**
 * @brief Free a record handle, its image and its reference to the layout.
 *
 * Close its rfm_record_var() handles first.
 * @param rec The handle, or NULL (then nothing happens).
 */
RFM_API void rfm_record_close(rfm_record *rec);

/**
 * @brief Size of the record's data in bytes.
 *
 * What rfm_record_read() and rfm_record_write() copy, without the
 * sequence word.
 * @param rec The handle.
 * @return Bytes; 0 for NULL.
 */
RFM_API size_t rfm_record_size(const rfm_record *rec);

/**
 * @brief Describe the record.
 * @param rec The handle.
 * @param[in,out] info The caller sets @c struct_size; the rest is filled.
 *        Its strings belong to the layout.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL An argument is NULL, or @c info->struct_size is too small.
 */
RFM_API int rfm_record_get_info(const rfm_record *rec, struct rfm_record_info *info);

/**
 * @brief Set the attempts of a consistent read.
 *
 * Applies to rfm_record_read(), rfm_record_fetch() and the reads of the
 * record's variables. Default ::RFM_RECORD_DEFAULT_TRIES.
 * @param rec The handle.
 * @param tries Attempts before ::RFM_ETORN, at least 1.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p rec is NULL, or @p tries is 0.
 */
RFM_API int rfm_record_set_max_tries(rfm_record *rec, uint32_t tries);

/**
 * @brief Enforce (default) or relax the one-writer check on publish.
 *
 * The sequence lock assumes one writer node: relaxed, publishes from two
 * nodes race on the sequence word, and where each node holds its own copy
 * of the window a reader may accept a mix of both (see
 * rfm_var_set_owner_check()).
 * @param rec The handle.
 * @param enforce true: refuse publishes from a node other than the
 *        region's writer (::RFM_EOWNER); false: allow them.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p rec is NULL.
 */
RFM_API int rfm_record_set_owner_check(rfm_record *rec, bool enforce);

/**
 * @brief Copy a consistent snapshot of the data into @p buf.
 *
 * Reads the sequence, copies the data and reads the sequence again; a
 * copy taken while the writer published (an odd sequence, or one that
 * moved) is thrown away and taken again, up to the handle's maximum
 * tries (rfm_record_set_max_tries()).
 * @param rec The handle.
 * @param[out] buf Receives the data.
 * @param len Must equal rfm_record_size().
 * @param[out] seqp Receives the (even) sequence of the snapshot; may be NULL.
 * @return The number of retries needed (0: the first attempt was
 *         consistent), or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p rec or @p buf is NULL, or @p len is not the
 *         record's size.
 * @retval RFM_ETORN A publish was under way during every try (a writer
 *         killed in a publish leaves the sequence odd until its next
 *         publish).
 */
RFM_API int rfm_record_read(rfm_record *rec, void *buf, size_t len, uint32_t *seqp);

/**
 * @brief Publish @p buf as the record's data (seqlock write).
 *
 * Makes the sequence odd, copies the data, makes the sequence even with
 * release order; with a `notify` type in the layout, then broadcasts that
 * event with the new sequence as data. One publishing thread per record.
 * @param rec The handle.
 * @param buf The data.
 * @param len Must equal rfm_record_size().
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p rec or @p buf is NULL, or @p len is not the
 *         record's size.
 * @retval RFM_EPERM The handle was opened through an observer (`observe=1`),
 *         which never writes.
 * @retval RFM_EOWNER This handle's node is not the region's writer;
 *         nothing is written.
 * @retval RFM_EIO `dds:` Cyclone refused the data (the local copy has it;
 *         memory.h, "Errors of a store", has ::RFM_ENOMEM, ::RFM_ETIMEDOUT,
 *         ::RFM_EAGAIN and ::RFM_ECLOSED there too).
 * @retval RFM_ESYS The notify event could not be sent (see rfm_event_send()
 *         for the errors of a send; the data is published).
 */
RFM_API int rfm_record_write(rfm_record *rec, const void *buf, size_t len);

/**
 * @brief rfm_record_read() into the handle's image.
 *
 * Then the handles of rfm_record_var() read what was fetched.
 * @param rec The handle.
 * @return The number of retries needed, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p rec is NULL.
 * @retval RFM_ETORN A publish was under way during every try.
 */
RFM_API int rfm_record_fetch(rfm_record *rec);

/**
 * @brief rfm_record_write() of the handle's image.
 *
 * Publishes what the handles of rfm_record_var() set since the image was
 * last fetched or published.
 * @param rec The handle.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p rec is NULL.
 * @retval RFM_EPERM The handle was opened through an observer (`observe=1`),
 *         which never writes.
 * @retval RFM_EOWNER This handle's node is not the region's writer.
 * @retval RFM_EIO `dds:` Cyclone refused the data (the local copy has it;
 *         memory.h, "Errors of a store", has ::RFM_ENOMEM, ::RFM_ETIMEDOUT,
 *         ::RFM_EAGAIN and ::RFM_ECLOSED there too).
 * @retval RFM_ESYS The notify event could not be sent.
 */
RFM_API int rfm_record_publish(rfm_record *rec);

/**
 * @brief The record's current sequence word (even when idle), with acquire
 *        ordering: a cheap "has anything new been published?" check.
 * @param rec The handle.
 * @param[out] seqp Receives the sequence (odd while a publish is under way).
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p rec or @p seqp is NULL.
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
 * @param rec The handle.
 * @param last A sequence seen before (rfm_record_sequence(), or a read's).
 * @param timeout_ns 0: only look; < 0: for ever; else nanoseconds.
 * @param[out] seqp The new sequence; may be NULL.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL @p rec is NULL.
 * @retval RFM_EAGAIN @p timeout_ns is 0 and nothing new is published
 *         (rfm_last_error() is left as it was).
 * @retval RFM_ETIMEDOUT Nothing was published within @p timeout_ns.
 * @retval RFM_ECANCELED rfm_event_cancel() on the node's handle ended the wait.
 * @retval RFM_ECLOSED The node's handle is being closed.
 * @retval RFM_EBUSY Callbacks own the node handle's records (a notify
 *         record's wait sleeps on its events).
 * @retval RFM_EFULL `shm:` the node id has no room for another receiving
 *         handle (enabling the notify type).
 */
RFM_API int rfm_record_wait(rfm_record *rec, uint32_t last, int64_t timeout_ns, uint32_t *seqp);

/**
 * @brief A variable handle on the record's image, for typed access between
 *        rfm_record_fetch() and rfm_record_publish().
 * @param rec The record handle.
 * @param name The variable's name inside the record ("pos", "pos[1]").
 * @param[out] varp Receives the handle; the caller frees it with
 *        rfm_var_close() before closing @p rec. Its sets are never
 *        refused for ownership (the image is local); the publish is.
 * @return 0 on success, or a negative ::rfm_error code.
 * @retval RFM_EINVAL An argument is NULL, or @p name is not a name such
 *         as `var` or `var[2]`.
 * @retval RFM_ENOTFOUND The record has no such variable, or the index is
 *         beyond its elements.
 * @retval RFM_ENOMEM Out of memory.
 */
RFM_API int rfm_record_var(rfm_record *rec, const char *name, rfm_var **varp);

/** @} */

RFM_END_DECLS

/** @} */
#endif /* RFM_LAYOUT_H */
