/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm replay --help: in rfm itself, which answers it without running the
 * helper program rfm-replay (cmd-replay-exec.c), and in the helper.
 */
#include "config.h"

#include "cli.h"

const char cli_help_replay[] =
	"Write the recording FILE (HDF5, from rfm record) back into the network at\n"
	"its recorded times: variables, records and regions are written, ring\n"
	"messages published, events re-sent in the order they came. Only what the\n"
	"replaying node may write is replayed (the one-writer rule): a recorded\n"
	"item of another node's region, and an event another node sent, are\n"
	"skipped (refused when named in NAMES) unless --force. Replay as the node\n"
	"that wrote them (-u URI?node=N). The recording must match the network's\n"
	"layout (the one named, else the one it holds): a variable whose type,\n"
	"size, byte order or place differ is refused, naming the difference.\n"
	"\n"
	"Options:\n"
	"      --layout FILE   the network's layout (default $RFM_LAYOUT, else the\n"
	"                      recording's own)\n"
	"      --speed X       X times the recorded pace (default 1)\n"
	"      --loop          start again at the end, until Ctrl-C\n"
	"      --from S        start at S seconds of the recording (its t column)\n"
	"      --to S          end at S seconds\n"
	"      --force         write into other nodes' regions, send their events\n"
	"\n"
	"Output: one line: rows replayed, events sent, seconds, passes, the latest\n"
	"a row was written behind its time; JSON keys file, rows, events_sent,\n"
	"passes, seconds, late_max_ns, interrupted. Ctrl-C stops (exit 130).\n";
