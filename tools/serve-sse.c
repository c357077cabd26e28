/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * rfm serve: the Server-Sent-Events stream /api/events. A stream holds no
 * thread: when it has sent the latest snapshot its connection is suspended
 * (libmicrohttpd takes it out of its poll set) and the sampler resumes
 * every waiting stream when it makes the next one. A client that does not
 * read fills its socket buffer; libmicrohttpd then makes no progress on it
 * and drops it after the idle timeout, or sooner when its address needs
 * room (serve-conns.c, told here when the stream last took data). The number of streams is capped
 * (--max-streams), beyond which a client gets 503. A frame carries one
 * "node" event per node change since the last frame, then the snapshot: a
 * stream too slow to take every frame gets the latest, and the changes of
 * the frames it skipped only as the counts and "since" of the snapshot.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

#include "serve.h"

struct sse_client {
	struct serve *s;
	struct MHD_Connection *conn;
	struct serve_conn *sc;	/* its connection's entry: outlives the stream */
	uint64_t generation;	/* of the last snapshot sent */
	struct serve_frame *frame;	/* the one being sent, referenced */
	size_t pos;		/* bytes of it handed to MHD */
	struct sse_client *next;	/* in s->sse_waiting while suspended */
	bool waiting;
};

int serve_sse_publish(struct serve *s, const char *json, struct json_object *changes)
{
	size_t n = strlen(json), nchanges = changes ? json_object_array_length(changes) : 0;
	size_t size = n + 64;
	struct serve_frame *f;

	for (size_t i = 0; i < nchanges; i++)
		size += strlen(json_object_to_json_string_ext(json_object_array_get_idx(changes, i),
							      JSON_C_TO_STRING_PLAIN)) + 32;
	f = malloc(sizeof(*f) + size);
	if (!f)
		return -1;
	f->refs = 1;
	f->len = 0;
	/* Each change before the snapshot that shows it: a client acts on
	 * the change, then draws the state it led to. */
	for (size_t i = 0; i < nchanges; i++)
		f->len += (size_t)sprintf(f->text + f->len, "event: node\ndata: %s\n\n",
					  json_object_to_json_string_ext(
						  json_object_array_get_idx(changes, i),
						  JSON_C_TO_STRING_PLAIN));
	f->len += (size_t)sprintf(f->text + f->len, "event: snapshot\nid: %llu\ndata: ",
				  (unsigned long long)s->generation + 1);
	memcpy(f->text + f->len, json, n);
	f->len += n;
	memcpy(f->text + f->len, "\n\n", 2);
	f->len += 2;
	if (s->frame)
		serve_frame_put(s, s->frame);
	s->frame = f;
	s->generation++;
	return 0;
}

void serve_frame_put(struct serve *s, struct serve_frame *f)
{
	(void)s;	/* callers hold s->lock */
	if (--f->refs == 0)
		free(f);
}

/* Take the latest frame if it is newer than the last one sent: 1, or 0 (none yet). */
static int take_frame(struct sse_client *c)
{
	struct serve *s = c->s;
	int got = 0;

	pthread_mutex_lock(&s->lock);
	if (c->frame)
		serve_frame_put(s, c->frame);
	c->frame = NULL;
	c->pos = 0;
	if (s->frame && s->generation != c->generation) {
		c->frame = s->frame;
		c->frame->refs++;
		c->generation = s->generation;
		got = 1;
	}
	pthread_mutex_unlock(&s->lock);
	return got;
}

static ssize_t sse_read(void *cls, uint64_t offset, char *buf, size_t max)
{
	struct sse_client *c = cls;
	struct serve *s = c->s;

	if (!c->frame || c->pos == c->frame->len) {
		/*
		 * Checked and suspended under sse_lock, which the sampler takes
		 * after it has made a new snapshot: a snapshot made between the
		 * check and the suspension still resumes this stream.
		 */
		pthread_mutex_lock(&s->sse_lock);
		if (s->sse_stopping) {
			pthread_mutex_unlock(&s->sse_lock);
			return MHD_CONTENT_READER_END_OF_STREAM;
		}
		int got = take_frame(c);
		if (got == 0) {
			c->waiting = true;
			c->next = s->sse_waiting;
			s->sse_waiting = c;
			MHD_suspend_connection(c->conn);
		}
		pthread_mutex_unlock(&s->sse_lock);
		if (got == 0) {
			serve_conn_stream_read(c->sc, false);
			return 0;	/* resumed by the next snapshot */
		}
	}
	size_t k = c->frame->len - c->pos < max ? c->frame->len - c->pos : max;
	memcpy(buf, c->frame->text + c->pos, k);
	c->pos += k;
	/* Until libmicrohttpd asks again, the client has these bytes to take. */
	serve_conn_stream_read(c->sc, true);
	return (ssize_t)k;
}

static void sse_free(void *cls)
{
	struct sse_client *c = cls;
	struct serve *s = c->s;

	pthread_mutex_lock(&s->sse_lock);
	if (c->waiting)
		for (struct sse_client **p = &s->sse_waiting; *p; p = &(*p)->next)
			if (*p == c) {
				*p = c->next;
				break;
			}
	s->sse_streams--;
	pthread_mutex_unlock(&s->sse_lock);
	if (c->frame) {
		pthread_mutex_lock(&s->lock);
		serve_frame_put(s, c->frame);
		pthread_mutex_unlock(&s->lock);
	}
	free(c);
}

struct MHD_Response *serve_sse_open(struct serve *s, struct MHD_Connection *conn,
				    struct serve_conn *sc, bool *full)
{
	struct sse_client *c;
	struct MHD_Response *r;

	*full = false;
	pthread_mutex_lock(&s->sse_lock);
	if (s->sse_streams >= s->max_streams) {
		pthread_mutex_unlock(&s->sse_lock);
		*full = true;
		return NULL;
	}
	s->sse_streams++;
	pthread_mutex_unlock(&s->sse_lock);
	c = calloc(1, sizeof(*c));
	if (c) {
		c->s = s;
		c->conn = conn;
		c->sc = sc;
	}
	r = c ? MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4 * 1024, sse_read, c,
						  sse_free)
	      : NULL;
	if (!r) {
		free(c);
		pthread_mutex_lock(&s->sse_lock);
		s->sse_streams--;
		pthread_mutex_unlock(&s->sse_lock);
		return NULL;
	}
	MHD_add_response_header(r, "Content-Type", "text/event-stream");
	MHD_add_response_header(r, "Cache-Control", "no-store");
	return r;
}

/* Resume every suspended stream; with @stop, they end instead of waiting again. */
static void resume_all(struct serve *s, bool stop)
{
	pthread_mutex_lock(&s->sse_lock);
	if (stop)
		s->sse_stopping = true;
	while (s->sse_waiting) {
		struct sse_client *c = s->sse_waiting;

		s->sse_waiting = c->next;
		c->waiting = false;
		MHD_resume_connection(c->conn);
	}
	pthread_mutex_unlock(&s->sse_lock);
}

void serve_sse_wake(struct serve *s)
{
	resume_all(s, false);
}

void serve_sse_stop(struct serve *s)
{
	resume_all(s, true);
}
