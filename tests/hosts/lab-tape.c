/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The fault lab switch's tape: it records what one node sends (every frame
 * that port K's TAP gives the switch, with its time) and plays it back
 * later as if that node sent it again, at the recorded pace, over and over
 * for as long as asked. That is a replay attack on a network whose
 * messages carry no freshness (DDS Security has no replay protection):
 * a dead node's captured traffic keeps its DDS participant, its presence
 * and its readers alive at the other nodes.
 *
 *   record K      start recording port K's frames (a new tape)
 *   record stop   stop; the tape is kept
 *   replay MS     play the tape back as port K's, looping, for MS ms
 *   save PATH     write the tape to PATH as a pcap file (tcpdump,
 *                 Wireshark, and the takeover test's RTPS reader)
 *
 * Played frames go through the same forwarding and rules as live ones;
 * port K's "replayed" counter counts them. A tape holds LAB_TAPE_MAX bytes
 * at most; frames past that are counted ("tape_full"), not kept.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lab-switch.h"

void lab_tape_free(struct lab *lab)
{
	struct lab_tape *t = &lab->tape;

	for (size_t i = 0; i < t->n; i++)
		free(t->frames[i].data);
	free(t->frames);
	memset(t, 0, sizeof(*t));
}

int lab_tape_record(struct lab *lab, unsigned int port)
{
	lab_tape_free(lab);
	lab->tape.port = (uint8_t)port;
	lab->tape.recording = true;
	lab->tape.start_ns = lab_now_ns();
	return 0;
}

void lab_tape_stop(struct lab *lab)
{
	if (lab->tape.recording)
		lab->tape.length_ns = lab_now_ns() - lab->tape.start_ns;
	lab->tape.recording = false;
}

void lab_tape_frame(struct lab *lab, unsigned int port, const uint8_t *data, size_t len)
{
	struct lab_tape *t = &lab->tape;
	struct lab_frame *f;

	if (!t->recording || port != t->port)
		return;
	if (t->bytes + len > LAB_TAPE_MAX) {
		lab->port[port].c.tape_full++;
		return;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 1024;
		struct lab_frame *frames = realloc(t->frames, cap * sizeof(*frames));

		if (!frames) {
			lab->port[port].c.tape_full++;
			return;
		}
		t->frames = frames;
		t->cap = cap;
	}
	f = &t->frames[t->n];
	f->data = malloc(len);
	if (!f->data) {
		lab->port[port].c.tape_full++;
		return;
	}
	memcpy(f->data, data, len);
	f->len = (uint32_t)len;
	f->at_ns = lab_now_ns() - t->start_ns;
	t->bytes += len;
	t->n++;
}

int lab_tape_replay(struct lab *lab, uint64_t ms)
{
	struct lab_tape *t = &lab->tape;

	if (t->recording || !t->n)
		return -1;
	t->replay_end_ns = lab_now_ns() + ms * 1000000u;
	t->loop_start_ns = lab_now_ns();
	t->next = 0;
	t->replaying = true;
	return 0;
}

/* When the next played frame is due (0: none). */
uint64_t lab_tape_due(const struct lab *lab)
{
	const struct lab_tape *t = &lab->tape;

	return t->replaying ? t->loop_start_ns + t->frames[t->next].at_ns : 0;
}

void lab_tape_run(struct lab *lab)
{
	struct lab_tape *t = &lab->tape;
	uint64_t now = lab_now_ns();

	while (t->replaying && lab_tape_due(lab) <= now) {
		if (now >= t->replay_end_ns) {
			t->replaying = false;
			break;
		}
		const struct lab_frame *f = &t->frames[t->next];

		lab->port[t->port].c.replayed++;
		lab_forward_frame(lab, t->port, f->data, f->len);
		if (++t->next == t->n) {
			/* Around again, after as long as the recording lasted. */
			t->next = 0;
			t->loop_start_ns += t->length_ns > t->frames[t->n - 1].at_ns
						    ? t->length_ns
						    : t->frames[t->n - 1].at_ns + 1;
		}
	}
}

int lab_tape_save(const struct lab *lab, const char *path)
{
	const struct lab_tape *t = &lab->tape;
	/* pcap: magic, version 2.4, zone 0, accuracy 0, snap length, Ethernet. */
	const uint32_t head[6] = { 0xa1b2c3d4u, 0x00040002u, 0, 0, LAB_FRAME_MAX, 1 };
	FILE *f = fopen(path, "we");
	bool ok = f && fwrite(head, sizeof(head), 1, f) == 1;

	for (size_t i = 0; ok && i < t->n; i++) {
		const struct lab_frame *fr = &t->frames[i];
		uint32_t rec[4] = { (uint32_t)(fr->at_ns / 1000000000u),
				    (uint32_t)(fr->at_ns % 1000000000u / 1000u), fr->len, fr->len };

		ok = fwrite(rec, sizeof(rec), 1, f) == 1 && fwrite(fr->data, fr->len, 1, f) == 1;
	}
	if (f && fclose(f))
		ok = false;
	return ok ? 0 : -1;
}
