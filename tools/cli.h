/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What every subcommand of the rfm tool shares: the run context, the
 * command descriptor, option and argument parsing, number parsing, error
 * reporting and JSON output.
 *
 * Adding a subcommand: write tools/cmd-NAME.c with its handler
 * "int cli_run_NAME(struct cli *cli, int argc, char **argv)" and its help
 * "const char cli_help_NAME[]" (declared below), add its row (name,
 * synopsis, summary, help, handler) to the table in tools/commands.c,
 * where rfm --help should list it, and the file to tools/local.mk.
 */
#ifndef RFM_TOOLS_CLI_H
#define RFM_TOOLS_CLI_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <json.h>
#include <rfm/rfm.h>

/* json_object_new_uint64() appeared in json-c 0.14. */
#if !defined(JSON_C_VERSION_NUM) || JSON_C_VERSION_NUM < ((0 << 16) | (14 << 8))
#error "the rfm tool needs json-c 0.14 or later"
#endif

/* Exit status of the tool; documented in rfm --help and rfm(1). */
enum cli_exit {
	CLI_EXIT_OK = 0,	/* success */
	CLI_EXIT_FAILED = 1,	/* the operation failed (library error) */
	CLI_EXIT_USAGE = 2,	/* bad option, number or argument count */
	CLI_EXIT_NOMATCH = 3,	/* verify found mismatches; a wait timed out */
	CLI_EXIT_STALE = 4,	/* get printed a value whose writer node is down */
	CLI_EXIT_INTERRUPTED = 130, /* Ctrl-C: the partial result was printed */
	/*
	 * Not an exit status: help or version was printed, stop here. main()
	 * exits 0. It lets helpers return 0 for "go on" and non-zero for "stop".
	 */
	CLI_EXIT_DONE = 0x100,
};

struct cli;

/* One subcommand. Each cmd-*.c file defines one or more of these. */
struct cli_command {
	const char *name;	/* "peek32" */
	const char *args;	/* synopsis after the name: "OFFSET [--dec]" */
	const char *summary;	/* one line for rfm --help, no final period */
	const char *help;	/* description and options for rfm NAME --help */
	/*
	 * Run the command: argv[0] is the name, parse the rest with
	 * cli_getopt(). Returns an enum cli_exit value.
	 */
	int (*run)(struct cli *cli, int argc, char **argv);
	/* A constant for handlers shared by several entries (peek: width in bits). */
	unsigned int arg;
};

/* Every command, in the order rfm --help lists them (commands.c); ends
 * with a row whose name is NULL. */
extern const struct cli_command cli_commands[];

/* What the rows of the table name: each command's handler and help. */
int cli_run_peek(struct cli *cli, int argc, char **argv);
int cli_run_poke(struct cli *cli, int argc, char **argv);
int cli_run_info(struct cli *cli, int argc, char **argv);
extern const char cli_help_info[];
extern const char cli_help_peek8[];
extern const char cli_help_peek16[];
extern const char cli_help_peek32[];
extern const char cli_help_peek64[];
extern const char cli_help_poke8[];
extern const char cli_help_poke16[];
extern const char cli_help_poke32[];
extern const char cli_help_poke64[];
int cli_run_read(struct cli *cli, int argc, char **argv);
extern const char cli_help_read[];
int cli_run_write(struct cli *cli, int argc, char **argv);
extern const char cli_help_write[];
int cli_run_dump(struct cli *cli, int argc, char **argv);
extern const char cli_help_dump[];
int cli_run_fill(struct cli *cli, int argc, char **argv);
extern const char cli_help_fill[];
int cli_run_verify(struct cli *cli, int argc, char **argv);
extern const char cli_help_verify[];
int cli_run_send(struct cli *cli, int argc, char **argv);
extern const char cli_help_send[];
int cli_run_wait(struct cli *cli, int argc, char **argv);
extern const char cli_help_wait[];
int cli_run_listen(struct cli *cli, int argc, char **argv);
extern const char cli_help_listen[];
int cli_run_stats(struct cli *cli, int argc, char **argv);
extern const char cli_help_stats[];
int cli_run_destroy(struct cli *cli, int argc, char **argv);
extern const char cli_help_destroy[];
int cli_run_list(struct cli *cli, int argc, char **argv);
extern const char cli_help_list[];
int cli_run_layout(struct cli *cli, int argc, char **argv);
extern const char cli_help_layout[];
int cli_run_get(struct cli *cli, int argc, char **argv);
extern const char cli_help_get[];
int cli_run_set(struct cli *cli, int argc, char **argv);
extern const char cli_help_set[];
int cli_run_watch(struct cli *cli, int argc, char **argv);
extern const char cli_help_watch[];
int cli_run_record(struct cli *cli, int argc, char **argv);
extern const char cli_help_record[];
int cli_run_replay(struct cli *cli, int argc, char **argv);
extern const char cli_help_replay[];
/* rfm replay's row, in rfm's table and in its helper program's (rfm-replay). */
#define CLI_REPLAY_ARGS                                                                 \
	"FILE [NAME...] [--speed X] [--loop] [--from S] [--to S] [--layout FILE] [--force]"
#define CLI_REPLAY_SUMMARY "Write a recording back into the network at its recorded times"
int cli_run_plot(struct cli *cli, int argc, char **argv);
extern const char cli_help_plot[];
int cli_run_ping(struct cli *cli, int argc, char **argv);
extern const char cli_help_ping[];
int cli_run_jitter(struct cli *cli, int argc, char **argv);
extern const char cli_help_jitter[];
int cli_run_bench(struct cli *cli, int argc, char **argv);
extern const char cli_help_bench[];
int cli_run_ring(struct cli *cli, int argc, char **argv);
extern const char cli_help_ring[];
int cli_run_nodes(struct cli *cli, int argc, char **argv);
extern const char cli_help_nodes[];
int cli_run_serve(struct cli *cli, int argc, char **argv);
extern const char cli_help_serve[];
int cli_run_selftest(struct cli *cli, int argc, char **argv);
extern const char cli_help_selftest[];
int cli_run_help(struct cli *cli, int argc, char **argv); /* cmd-help.c */
extern const char cli_help_help[];
/* rfm --help and rfm help: the commands of cli->commands with their summaries. */
void cli_print_global_help(const struct cli *cli, FILE *out);
extern const char cli_serve_args[];
extern const char cli_serve_summary[];


/* The command of the program's table (cli->commands) named @name, or NULL. */
const struct cli_command *cli_find_command(const struct cli *cli, const char *name);

/* The command of cli->commands nearest to a mistyped @name, or NULL. */
const char *cli_suggest_command(const struct cli *cli, const char *name);

/* Report the unknown command @name, with a did-you-mean; returns CLI_EXIT_USAGE. */
int cli_unknown_command(struct cli *cli, const char *name);

/* The state of one run of the tool. */
struct cli {
	char **argv;		/* the whole command line, argv[0] first, NULL after the last */
	const struct cli_command *commands; /* the program's table (cli_commands), set by main */
	const char *uri;	/* -u/--uri; NULL lets the library choose */
	bool json;		/* --json: print one JSON object */
	const struct cli_command *command; /* the subcommand being run */
	rfm_node *node;		/* opened by cli_open(), closed by main */
	bool want_help;		/* -h/--help seen */
	bool want_version;	/* -V/--version seen */
	int status;		/* exit status after cli_getopt() returned CLI_OPT_STOP */
	/* Common options merged with the running command's own (cli_getopt). */
	struct option longopts[40];
	char shortopts[80];
	bool options_merged;
};

/* ---- options and arguments (cli-options.c) ---- */

/*
 * Make @cmd the running command (NULL: none yet, parsing the options before
 * it) and restart option parsing for its arguments.
 */
void cli_set_command(struct cli *cli, const struct cli_command *cmd);

/* cli_getopt() result: stop and return cli->status (help shown or bad option). */
#define CLI_OPT_STOP 0

/*
 * getopt_long() over the command's own options merged with the common ones
 * (-u/--uri, --json, -h/--help, --version), which it handles itself, so
 * that common options work before and after the subcommand. Options and
 * arguments may be mixed. Returns the command's next option character,
 * -1 when the options end (positional arguments start at optind), or
 * CLI_OPT_STOP. The command's long options must use a non-zero val and a
 * NULL flag; their vals must not collide with 'u', 'h' or CLI_OPT_COMMON.
 * Help and version requests are answered when the options end, so that
 * "--version --json" and "--json --version" mean the same.
 */
int cli_getopt(struct cli *cli, int argc, char **argv, const char *shortopts,
	       const struct option *longopts);

/* Values reserved for the common long options without a short form. */
#define CLI_OPT_COMMON 0x1000

/*
 * Check that the number of positional arguments (argc - optind) lies in
 * [min, max]; otherwise report it and return CLI_EXIT_USAGE.
 */
int cli_check_args(struct cli *cli, int argc, char **argv, int min, int max);

/*
 * The end of a command's option loop, @opt being what cli_getopt()
 * returned last: non-zero to stop, either the status of a stop (an error
 * reported, or help or version printed: CLI_EXIT_DONE) or a wrong number
 * of arguments (cli_check_args()); 0 to go on.
 */
int cli_options_end(struct cli *cli, int opt, int argc, char **argv, int min, int max);

/*
 * The end of read's and dump's option loop (@opt, its last cli_getopt() value,
 * as for cli_options_end()) and their "OFFSET LENGTH" arguments: parse both,
 * open the node, and check the range lies in its window. 0 or an exit code.
 */
int cli_open_range(struct cli *cli, int opt, int argc, char **argv, uint64_t *offset,
		   size_t *length);

/*
 * For commands without options of their own: parse the common options and
 * check that there are @min to @max positional arguments, at argv[optind].
 * Returns 0 to go on, or the status the command must return now.
 */
int cli_parse_args(struct cli *cli, int argc, char **argv, int min, int max);

/* Print the usage of @cmd: synopsis, description, common options, exits. */
void cli_print_command_help(FILE *out, const struct cli_command *cmd);

/* The common-options and exit-status sections of every help text. */
void cli_print_common_help(FILE *out);

/* ---- numbers and data in arguments (cli-parse.c) ---- */

/*
 * Parse an unsigned number in C notation (decimal, 0x hex, 0 octal), all of
 * @text, at most @max. @what names it in messages ("OFFSET"). Returns 0 or
 * CLI_EXIT_USAGE after reporting why (negative, junk, overflow, too wide).
 */
int cli_parse_u64(struct cli *cli, const char *what, const char *text, uint64_t max,
		  uint64_t *value);

/*
 * As cli_parse_u64() for offsets and sizes: also takes a K, M or G suffix
 * (2^10, 2^20, 2^30), as URIs and layouts do: "64M", "0x10K".
 */
int cli_parse_bytes(struct cli *cli, const char *what, const char *text, uint64_t max,
		    uint64_t *value);

/* As cli_parse_bytes() into a size_t. */
int cli_parse_size(struct cli *cli, const char *what, const char *text, size_t *value);

/*
 * Parse hex bytes ("deadbeef", "de ad be ef", "de:ad:be:ef") into a new
 * buffer the caller frees. Returns 0 or CLI_EXIT_USAGE.
 */
int cli_parse_hex(struct cli *cli, const char *text, uint8_t **bufp, size_t *lenp);

/* ---- the node, errors and output (cli-output.c) ---- */

/* How a command attaches to the network (rfm(1), "Observers and tools"). */
enum cli_attach {
	CLI_ATTACH_OBSERVER,	/* observe=1: reads, holds no node id, creates nothing */
	CLI_ATTACH_TOOL,	/* tool=1: the id the URI names, else one of 240..255 */
};

/*
 * Open cli->node from cli->uri unless it is open, as @how: an observer's
 * URI loses node=, shared=, create=, mode= and depth= and gains observe=1;
 * a tool's gains tool=1, and with @must_exist an shm: network is opened
 * with create=0 unless its URI gives size= or create=, so that a typo in
 * the name fails ("no network 'lba'") instead of making a network.
 * Returns 0 or CLI_EXIT_FAILED.
 */
int cli_open_as(struct cli *cli, enum cli_attach how, bool must_exist);

/* Whether the URI (-u, $RFM_URI) names a node id (node=). */
bool cli_uri_names_node(const struct cli *cli);

/* cli_open_as() for the running command: observers for the commands that
 * only look (info, peek*, read, dump, verify, get, watch, nodes), tools for
 * the others (wait, listen and stats must find the network). */
int cli_open(struct cli *cli);

/* Bytes the shm: network @name occupies in the segment directory (cmd-list.c); 0 or -1. */
int cli_shm_footprint(const char *name, uint64_t *bytes);

/* The URI the library uses for cli->uri: -u, else $RFM_URI, else the default. */
const char *cli_effective_uri(const struct cli *cli);

/* Print the tool's and the library's versions (text or JSON). */
void cli_print_version(const struct cli *cli);

/* Report the library's last error ("rfm: <message>"); returns CLI_EXIT_FAILED. */
int cli_fail(struct cli *cli);

/*
 * The library's message @msg in the tool user's terms: C function names
 * replaced by the command, option or URI parameter to use (into @buf).
 */
const char *cli_user_message(const struct cli *cli, const char *msg, char *buf, size_t cap);

/* The C library's printf archetype (config.h: gnu_printf for mingw-w64's C99 stdio). */
#ifndef RFM_PRINTF_FORMAT
#define RFM_PRINTF_FORMAT printf
#endif

/* Report a failure of the tool itself (I/O...); returns CLI_EXIT_FAILED. */
__attribute__((format(RFM_PRINTF_FORMAT, 2, 3)))
int cli_error(struct cli *cli, const char *fmt, ...);

/* Report a usage error with a hint to --help; returns CLI_EXIT_USAGE. */
__attribute__((format(RFM_PRINTF_FORMAT, 2, 3)))
int cli_usage_error(struct cli *cli, const char *fmt, ...);

/*
 * The library's error for an access that would leave the window, worded by
 * the library itself: memory.h promises that such a call touches nothing.
 * Returns 0 when [offset, offset+length) lies in the window, else
 * CLI_EXIT_FAILED after reporting it. The node must be open.
 */
int cli_check_range(struct cli *cli, uint64_t offset, uint64_t length);

/* Add members to a JSON object (json-c owns the new values). */
void cli_json_add_string(struct json_object *obj, const char *key, const char *value);
void cli_json_add_u64(struct json_object *obj, const char *key, uint64_t value);
void cli_json_add_int(struct json_object *obj, const char *key, int64_t value);
void cli_json_add_bool(struct json_object *obj, const char *key, bool value);

/* Print @obj as one line on stdout and release it. */
void cli_json_print(struct json_object *obj);

/*
 * Read @length bytes at @offset and print {"offset", "length", "hex"}.
 * Returns an enum cli_exit value.
 */
int cli_json_print_bytes(struct cli *cli, uint64_t offset, size_t length);

/* ---- events (cmd-event.c), shared with stats ---- */

/* "intr1,node_up,overflow..." into a mask of RFM_EVENT_BIT()s. 0 or CLI_EXIT_USAGE. */
int cli_parse_event_types(struct cli *cli, const char *text, uint32_t *mask);

/* Open the node and receive the types of @mask (health types start a monitor). */
int cli_start_receiving(struct cli *cli, uint32_t mask);

/* ---- did you mean (cli-suggest.c) ---- */

/* The one of @n @candidates nearest to the mistyped @word, or NULL if none is near. */
const char *cli_suggest(const char *word, const char *const *candidates, size_t n);

/* ---- timestamps (cli-time.c): --time=realtime|monotonic ---- */

enum cli_clock { CLI_CLOCK_REALTIME, CLI_CLOCK_MONOTONIC };

/* Parse "realtime" or "monotonic". 0 or CLI_EXIT_USAGE. */
int cli_parse_clock(struct cli *cli, const char *text, enum cli_clock *clock);

/*
 * The moment @mono_ns (CLOCK_MONOTONIC, as rfm_event_now_ns()) in @clock:
 * "2026-12-01T14:40:00.123456Z" (UTC) or "1234.567890123" (seconds).
 */
void cli_format_time(enum cli_clock clock, uint64_t mono_ns, char *buf, size_t len);

/* Add it to @obj: an ISO 8601 string (realtime) or a number of seconds (monotonic). */
void cli_json_add_time(struct json_object *obj, const char *key, enum cli_clock clock,
		       uint64_t mono_ns);

/* ---- programs run in the tool's place (cli-exec.c) ---- */

/* Does this program run from the build tree it was made in (RFM_BUILDDIR)? */
bool cli_in_build_tree(void);

/*
 * Run the tool's helper program @name in this process's place, with the
 * whole command line (cli->argv): the build tree's tools/@name when this
 * rfm runs from its build tree, else $(pkglibexecdir)/@name. Returns only
 * when it could not, having said why: CLI_EXIT_FAILED.
 */
int cli_exec_helper(struct cli *cli, const char *name);

/* ---- output files (cli-file.c) ---- */

/*
 * A file the tool writes (-o, --hist-csv): a regular file (or a new name)
 * is written to a temporary file beside it and renamed over it by
 * cli_out_commit(); anything else (a device, a FIFO) is written in place.
 * The tool never removes or truncates a file it did not create.
 */
struct cli_out_file {
	FILE *fp;		/* write here */
	const char *path;	/* as the user gave it, for messages */
	char *target;		/* the file that is replaced (links resolved) */
	char *tmp;		/* the temporary file, NULL when writing in place */
};

/* Open @path for writing. 0, or CLI_EXIT_FAILED after saying why. */
int cli_out_open(struct cli *cli, struct cli_out_file *f, const char *path, bool binary);

/* Flush, close and put the file in place. 0, or CLI_EXIT_FAILED (file left as it was). */
int cli_out_commit(struct cli *cli, struct cli_out_file *f);

/* Give up: close, and remove the temporary file; the target is untouched. */
void cli_out_abort(struct cli_out_file *f);

/* ---- Ctrl-C and progress (cli-interrupt.c) ---- */

/* Catch SIGINT and SIGTERM: cli_interrupted() then turns true, sleeps end
 * early and the waits of the node cli_watch_node() named are cancelled, so
 * the command stops at a clean point and closes its node (it left; a
 * process killed holding an id would read as crashed). */
void cli_catch_interrupt(void);

/* The node whose waits an interrupt cancels (for a command that handles
 * RFM_ECANCELED; NULL: none). */
void cli_watch_node(rfm_node *node);

/* Whether Ctrl-C was pressed since cli_catch_interrupt(). */
bool cli_interrupted(void);

/* Progress reports on stderr, once a second, only when stderr is a terminal. */
struct cli_progress {
	bool tty;		/* stderr is a terminal */
	bool shown;		/* a report is on the screen */
	uint64_t next_ns;	/* monotonic time of the next report */
};

void cli_progress_start(struct cli_progress *pr);

/*
 * Whether a report is due now; if so, the cursor is at the start of a
 * cleared line: print the report (no newline) to stderr.
 */
bool cli_progress_due(struct cli_progress *pr);

/* Clear the last report, before the result is printed. */
void cli_progress_end(struct cli_progress *pr);

/* ---- layouts (cli-layout.c): typed-variable tables ---- */

/* Long option --layout FILE of the commands that name variables. */
#define CLI_OPT_LAYOUT 'L'

/*
 * Load the layout @path (NULL: $RFM_LAYOUT). Every problem of an invalid
 * file goes to stderr as "rfm: FILE:LINE:COLUMN: message". Returns 0,
 * CLI_EXIT_USAGE (no layout named) or CLI_EXIT_FAILED.
 */
int cli_load_layout(struct cli *cli, const char *path, rfm_layout **layoutp);

/*
 * Raw writes (poke, write, fill) under a layout: with $RFM_LAYOUT set, a
 * write of @length bytes at @offset must lie wholly in regions whose writer
 * is this node, as `rfm set` requires. 0 when allowed (or no layout), else
 * CLI_EXIT_FAILED with a message naming the region and its writer.
 */
int cli_guard_write(struct cli *cli, uint64_t offset, uint64_t length);

/* cli_guard_write()'s check against @layout (read from @path, for messages). */
int cli_guard_in_layout(struct cli *cli, const rfm_layout *layout, const char *path,
			uint64_t offset, uint64_t length);

/*
 * Writes the tool chooses itself (bench): no byte of [offset, offset +
 * length) may lie in a region of @layout that another node writes; bytes
 * outside every region are free. 0, or CLI_EXIT_FAILED after the message
 * cli_guard_write() gives, ending with "(@hint)".
 */
int cli_guard_foreign(struct cli *cli, const rfm_layout *layout, uint64_t offset,
		      uint64_t length, const char *hint);

/*
 * cli_guard_foreign() against $RFM_LAYOUT when it is set (ping's slots and
 * rings): 0 when no layout is set or no other node's region is touched.
 */
int cli_guard_scratch(struct cli *cli, uint64_t offset, uint64_t length, const char *hint);

/*
 * rfm_var_open() on cli->node, reporting a failure; a name the layout does
 * not have gets the nearest one it has ("did you mean 'sim.state.speed'?").
 * 0 or CLI_EXIT_FAILED.
 */
int cli_var_open(struct cli *cli, rfm_layout *layout, const char *name, rfm_var **varp);

/* Whether a variable's value is current (rfm_var_stale(): its writer is down). */
struct cli_freshness {
	bool known;		/* the rule could be applied (a writer node, a node table) */
	bool stale;
	uint32_t writer;	/* its region's writer node */
	const char *why;	/* when stale: "stopped beating", "is not attached"... */
	char reason[80];	/* when stale: "writer node 1 stopped beating" */
};

void cli_var_freshness(struct cli *cli, rfm_var *var, struct cli_freshness *f);

/* The value of @var as JSON: number, boolean, string, hex string, or array. */
int cli_var_json(struct cli *cli, rfm_var *var, struct json_object **valuep);

#endif /* RFM_TOOLS_CLI_H */
