/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm replay: a recording (HDF5, docs/recording.md) written back into a
 * network at its recorded times. replay-file.c reads the file as streams
 * of rows (one time base each) holding tracks (what a row writes);
 * replay-check.c matches each track against the network's layout and
 * the replaying node's regions and opens what writes it; cmd-replay.c
 * merges the streams in time order and paces them.
 */
#ifndef RFM_TOOLS_REPLAY_H
#define RFM_TOOLS_REPLAY_H

#include <hdf5.h>
#include <stdbool.h>
#include <stdint.h>

#include "cli.h"

/* Rows read from the file at a time, per dataset. */
#define REPLAY_BLOCK 1024u

enum track_kind { TRACK_VAR, TRACK_RECORD, TRACK_BYTES, TRACK_RING, TRACK_EVENTS };

struct track {
	enum track_kind kind;
	char *name;		/* as recorded: variable, record, region or ring name */
	hid_t dset;		/* its data (TRACK_EVENTS: the type dataset) */
	hid_t mtype;		/* a row in memory (records: the window's raw bytes) */
	size_t row;		/* bytes of a row in memory */
	uint64_t offset;	/* the recorded window offset */
	uint64_t size;		/* the recorded size in bytes */
	int64_t writer;		/* the recorded writer node, -1: none */
	bool selected;		/* replayed */
	uint8_t *buf;		/* REPLAY_BLOCK rows */
	/* What writes it (replay-check.c). */
	rfm_var *var;
	rfm_record *rec;
	rfm_ring *ring;
	/* TRACK_EVENTS / TRACK_RING: the extra columns. */
	hid_t sender, data, len;
	uint32_t *sender_buf, *data_buf, *len_buf;
	uint64_t skipped;	/* events not sent: another node's, or status records */
};

struct rstream {
	char *group;
	hid_t t_mono;		/* t_mono_ns */
	hid_t t;		/* t (seconds) */
	uint64_t rows;		/* rows every dataset of the stream holds (the least) */
	uint64_t first, end;	/* the rows in --from/--to */
	struct track *tracks;
	size_t ntracks;
	uint64_t block_at;	/* first row of the block in memory */
	uint32_t block_len;
	uint64_t times[REPLAY_BLOCK];
	uint64_t cur;		/* next row */
};

struct replay {
	const char *path;
	hid_t file;
	char *layout_text;	/* the recording's layout, or NULL */
	int64_t recorded_node;
	struct rstream *streams;
	size_t nstreams;
};

/* replay-file.c */
/* A string attribute (fixed or variable length) as a new string, or NULL. */
char *replay_attr_text(hid_t obj, const char *name);
int replay_open(struct cli *cli, struct replay *rp, const char *path);
void replay_close(struct replay *rp);
/* Rows [first, end) of each stream whose t lies in [from, to] (seconds). */
int replay_select_time(struct cli *cli, struct replay *rp, double from, double to);
/* Load the block holding @row of @s (its times and every selected track's data). */
int replay_load(struct cli *cli, struct replay *rp, struct rstream *s, uint64_t row);

/* replay-check.c: pick the tracks (NAMES, ownership), match the layout, open writers. */
int replay_prepare(struct cli *cli, struct replay *rp, rfm_layout *layout, char **names,
		   int nnames, bool force);
/* Write row @row of @s (in memory) into the network. */
int replay_apply(struct cli *cli, struct replay *rp, struct rstream *s, uint64_t row,
		 bool force, uint64_t *events_sent);
/* Close what replay_prepare() opened. */
void replay_release(struct replay *rp);

#endif /* RFM_TOOLS_REPLAY_H */
