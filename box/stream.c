/* The Messages API's stream into its Message (stream.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "sse.h"
#include "stream.h"

enum block_kind {
	BK_TEXT,		/* text_delta */
	BK_THINKING,		/* thinking_delta, signature_delta */
	BK_INPUT,		/* input_json_delta: tool_use's input */
	BK_WHOLE		/* whole at its start: kept as it came */
};

struct buf {
	char		*s;
	size_t		 len;
};

struct block {
	enum block_kind	 kind;
	char		*type;		/* its type's raw JSON */
	char		*start;		/* BK_WHOLE's block as it came */
	struct buf	 text, sig;
	int		 closed;
};

struct stream {
	const struct json *j;		/* the event's data */
	char		*why;
	size_t		 whysz;
	int		 started, stopped;
	char		*id, *model, *stop_reason, *stop_seq;	/* raw JSON */
	int64_t		 in, out;
	int		 has_in, has_out;
	struct block	 b[STREAM_BLOCKS_MAX];
	size_t		 nb;
};

static int	 ev_start(struct stream *);
static int	 ev_block_start(struct stream *);
static int	 ev_block_delta(struct stream *);
static int	 ev_block_stop(struct stream *);
static int	 ev_delta(struct stream *);
static int	 ev_stop(struct stream *);
static int	 ev_ping(struct stream *);

static const struct {
	const char	*name;
	int		(*fn)(struct stream *);
	int		 any_time;	/* may come before message_start */
} events[] = {
	{ "message_start",		ev_start,	1 },
	{ "content_block_start",	ev_block_start,	0 },
	{ "content_block_delta",	ev_block_delta,	0 },
	{ "content_block_stop",		ev_block_stop,	0 },
	{ "message_delta",		ev_delta,	0 },
	{ "message_stop",		ev_stop,	0 },
	{ "ping",			ev_ping,	1 },
	{ "error",			NULL,		1 },
};

static int
broken(struct stream *st, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	(void)vsnprintf(st->why, st->whysz, fmt, ap);
	va_end(ap);
	return -1;
}

static char *
raw_dup(const struct json *j, long tok)
{
	const char	*raw;
	size_t		 n;

	if (tok == -1)
		return NULL;
	raw = json_raw(j, tok, &n);
	return strndup(raw, n);
}

/* Replaces *dst by tok's raw JSON, when tok is there. */
static int
raw_set(struct stream *st, char **dst, long tok)
{
	char	*s;

	if (tok == -1)
		return 0;
	if ((s = raw_dup(st->j, tok)) == NULL)
		return broken(st, "out of memory");
	free(*dst);
	*dst = s;
	return 0;
}

static int
buf_add(struct stream *st, struct buf *b, long tok)
{
	size_t	 raw, got;
	char	*p;

	if (tok == -1 || st->j->toks[tok].type != JSON_STRING)
		return broken(st, "a delta without its string");
	raw = st->j->toks[tok].end - st->j->toks[tok].start;
	if ((p = realloc(b->s, b->len + raw + 1)) == NULL)
		return broken(st, "out of memory");
	b->s = p;
	(void)json_string_copy(st->j, tok, b->s + b->len, raw + 1, &got);
	b->len += got;
	return 0;
}

/* The token counts that usage holds, the later over the earlier. */
static int
usage_set(struct stream *st, long usage)
{
	long	 t;

	if (usage == -1 || st->j->toks[usage].type == JSON_NULL)
		return 0;
	if (st->j->toks[usage].type != JSON_OBJECT)
		return broken(st, "usage is not an object");
	if ((t = json_find(st->j, usage, "input_tokens")) != -1 &&
	    st->j->toks[t].type != JSON_NULL) {
		if (json_int(st->j, t, 0, INT64_MAX, &st->in) == -1)
			return broken(st, "usage: input_tokens is not a count");
		st->has_in = 1;
	}
	if ((t = json_find(st->j, usage, "output_tokens")) != -1 &&
	    st->j->toks[t].type != JSON_NULL) {
		if (json_int(st->j, t, 0, INT64_MAX, &st->out) == -1)
			return broken(st, "usage: output_tokens is not a count");
		st->has_out = 1;
	}
	return 0;
}

static int
ev_start(struct stream *st)
{
	const struct json	*j = st->j;
	long			 m;

	if (st->started)
		return broken(st, "a second message_start");
	st->started = 1;
	if ((m = json_find(j, 0, "message")) == -1 ||
	    j->toks[m].type != JSON_OBJECT)
		return broken(st, "message_start without its message");
	if (raw_set(st, &st->id, json_find(j, m, "id")) == -1 ||
	    raw_set(st, &st->model, json_find(j, m, "model")) == -1 ||
	    raw_set(st, &st->stop_reason, json_find(j, m,
	    "stop_reason")) == -1 ||
	    raw_set(st, &st->stop_seq, json_find(j, m, "stop_sequence")) == -1)
		return -1;
	return usage_set(st, json_find(j, m, "usage"));
}

/* The block the event's index names, which must be the last and open. */
static struct block *
block_of(struct stream *st)
{
	int64_t	 i;

	if (json_int(st->j, json_find(st->j, 0, "index"), 0,
	    STREAM_BLOCKS_MAX - 1, &i) == -1 || st->nb == 0 ||
	    (size_t)i != st->nb - 1 || st->b[i].closed) {
		(void)broken(st, "a block's event for no open block");
		return NULL;
	}
	return &st->b[i];
}

static int
ev_block_start(struct stream *st)
{
	const struct json	*j = st->j;
	struct block		*b;
	int64_t			 i;
	long			 cb, t;

	if (json_int(j, json_find(j, 0, "index"), 0, INT64_MAX, &i) == -1 ||
	    (size_t)i != st->nb)
		return broken(st, "content_block_start's index is not the "
		    "next block's (%zu)", st->nb);
	if (st->nb > 0 && !st->b[st->nb - 1].closed)
		return broken(st, "a block starts before the last stops");
	if (st->nb == STREAM_BLOCKS_MAX)
		return broken(st, "more than %d content blocks",
		    STREAM_BLOCKS_MAX);
	if ((cb = json_find(j, 0, "content_block")) == -1 ||
	    j->toks[cb].type != JSON_OBJECT ||
	    (t = json_find(j, cb, "type")) == -1 ||
	    j->toks[t].type != JSON_STRING)
		return broken(st, "content_block_start without its block");
	b = &st->b[st->nb++];
	if ((b->type = raw_dup(j, t)) == NULL)
		return broken(st, "out of memory");
	if (json_streq(j, t, "text")) {
		b->kind = BK_TEXT;
		return buf_add(st, &b->text, json_find(j, cb, "text"));
	}
	if (json_streq(j, t, "thinking")) {
		b->kind = BK_THINKING;
		return buf_add(st, &b->text, json_find(j, cb, "thinking"));
	}
	if (json_streq(j, t, "tool_use") || json_streq(j, t, "server_tool_use")) {
		b->kind = BK_INPUT;
		return 0;
	}
	b->kind = BK_WHOLE;
	return raw_set(st, &b->start, cb);
}

static const struct {
	const char	*type;
	enum block_kind	 kind;
	const char	*field;
	int		 sig;
} deltas[] = {
	{ "text_delta",		BK_TEXT,	"text",		0 },
	{ "thinking_delta",	BK_THINKING,	"thinking",	0 },
	{ "signature_delta",	BK_THINKING,	"signature",	1 },
	{ "input_json_delta",	BK_INPUT,	"partial_json",	0 },
};

static int
ev_block_delta(struct stream *st)
{
	const struct json	*j = st->j;
	struct block		*b;
	size_t			 i;
	long			 d, t;

	if ((b = block_of(st)) == NULL)
		return -1;
	if ((d = json_find(j, 0, "delta")) == -1 ||
	    j->toks[d].type != JSON_OBJECT ||
	    (t = json_find(j, d, "type")) == -1)
		return broken(st, "content_block_delta without its delta");
	for (i = 0; i < sizeof(deltas) / sizeof(deltas[0]); i++)
		if (json_streq(j, t, deltas[i].type))
			break;
	/* citations_delta and those to come: nothing the box reads. */
	if (i == sizeof(deltas) / sizeof(deltas[0]))
		return 0;
	if (b->kind != deltas[i].kind)
		return broken(st, "a %s in a block of type %s", deltas[i].type,
		    b->type);
	return buf_add(st, deltas[i].sig ? &b->sig : &b->text,
	    json_find(j, d, deltas[i].field));
}

static int
ev_block_stop(struct stream *st)
{
	struct block	*b;

	if ((b = block_of(st)) == NULL)
		return -1;
	b->closed = 1;
	return 0;
}

static int
ev_delta(struct stream *st)
{
	const struct json	*j = st->j;
	long			 d;

	if ((d = json_find(j, 0, "delta")) == -1 ||
	    j->toks[d].type != JSON_OBJECT)
		return broken(st, "message_delta without its delta");
	if (raw_set(st, &st->stop_reason, json_find(j, d,
	    "stop_reason")) == -1 ||
	    raw_set(st, &st->stop_seq, json_find(j, d, "stop_sequence")) == -1)
		return -1;
	return usage_set(st, json_find(j, 0, "usage"));
}

static int
ev_stop(struct stream *st)
{
	if (st->nb > 0 && !st->b[st->nb - 1].closed)
		return broken(st, "message_stop with a block open");
	st->stopped = 1;
	return 0;
}

static int
ev_ping(struct stream *st)
{
	(void)st;
	return 0;
}

/* One event: 1 for an error event, 0 for any other, -1 when it breaks. */
static int
stream_event(struct stream *st, const struct sse_event *ev)
{
	struct json	 j;
	const char	*why;
	size_t		 i;
	long		 t;
	int		 r;

	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++)
		if (strcmp(ev->type, events[i].name) == 0)
			break;
	if (i == sizeof(events) / sizeof(events[0]))
		return 0;
	if (!st->started && !events[i].any_time)
		return broken(st, "%s before message_start", ev->type);
	if (json_parse(&j, ev->data, ev->datalen, &why) == -1)
		return broken(st, "%s: its data is not JSON: %s at byte %zu",
		    ev->type, why, j.erroff);
	if (j.toks[0].type != JSON_OBJECT ||
	    (t = json_find(&j, 0, "type")) == -1 ||
	    !json_streq(&j, t, ev->type))
		r = broken(st, "%s: its data's type is not %s", ev->type,
		    ev->type);
	else if (events[i].fn == NULL)
		r = 1;
	else {
		st->j = &j;
		r = events[i].fn(st);
		st->j = NULL;
	}
	json_free(&j);
	return r;
}

static void
write_block(struct json_writer *w, const struct block *b)
{
	struct json	 j;
	const char	*why;

	if (b->kind == BK_WHOLE) {
		json_write_raw(w, b->start, strlen(b->start));
		return;
	}
	json_write_object(w);
	json_write_key(w, "type");
	json_write_raw(w, b->type, strlen(b->type));
	if (b->kind == BK_INPUT) {
		json_write_key(w, "input");
		if (b->text.len > 0 && json_parse(&j, b->text.s, b->text.len,
		    &why) == 0) {
			json_free(&j);
			json_write_raw(w, b->text.s, b->text.len);
		} else {
			json_write_object(w);
			json_write_close(w);
		}
	} else {
		json_write_key(w, b->kind == BK_TEXT ? "text" : "thinking");
		json_write_string_len(w, b->text.s != NULL ? b->text.s : "",
		    b->text.len);
	}
	if (b->kind == BK_THINKING) {
		json_write_key(w, "signature");
		json_write_string_len(w, b->sig.s != NULL ? b->sig.s : "",
		    b->sig.len);
	}
	json_write_close(w);
}

static void
write_raw_key(struct json_writer *w, const char *key, const char *raw)
{
	json_write_key(w, key);
	if (raw != NULL)
		json_write_raw(w, raw, strlen(raw));
	else
		json_write_null(w);
}

/* The Message, its fields as a reply not streamed has them. */
static char *
stream_write(const struct stream *st, size_t *len)
{
	struct json_writer	 w;
	size_t			 i;

	json_writer_init(&w);
	json_write_object(&w);
	write_raw_key(&w, "id", st->id);
	json_write_key(&w, "type");
	json_write_string(&w, "message");
	json_write_key(&w, "role");
	json_write_string(&w, "assistant");
	write_raw_key(&w, "model", st->model);
	json_write_key(&w, "content");
	json_write_array(&w);
	for (i = 0; i < st->nb; i++)
		write_block(&w, &st->b[i]);
	json_write_close(&w);
	write_raw_key(&w, "stop_reason", st->stop_reason);
	write_raw_key(&w, "stop_sequence", st->stop_seq);
	if (st->has_in && st->has_out) {
		json_write_key(&w, "usage");
		json_write_object(&w);
		json_write_key(&w, "input_tokens");
		json_write_int(&w, st->in);
		json_write_key(&w, "output_tokens");
		json_write_int(&w, st->out);
		json_write_close(&w);
	}
	json_write_close(&w);
	return json_writer_finish(&w, len);
}

static void
stream_free(struct stream *st)
{
	size_t	 i;

	for (i = 0; i < st->nb; i++) {
		free(st->b[i].type);
		free(st->b[i].start);
		free(st->b[i].text.s);
		free(st->b[i].sig.s);
	}
	free(st->id);
	free(st->model);
	free(st->stop_reason);
	free(st->stop_seq);
}

enum stream_verdict
stream_message(const char *body, size_t len, char **out, size_t *outlen,
    char *why, size_t whysz)
{
	struct stream		 st;
	struct sse		 s;
	struct sse_event	 ev;
	const char		*swhy;
	enum stream_verdict	 v = STREAM_BROKEN;
	int			 r = 0;

	memset(&st, 0, sizeof(st));
	st.why = why;
	st.whysz = whysz;
	*out = NULL;
	sse_init(&s, body, len, STREAM_DATA_MAX);
	while (!st.stopped && (r = sse_next(&s, &ev, &swhy)) == 1) {
		if ((r = stream_event(&st, &ev)) == -1)
			goto done;
		if (r == 1) {
			if ((*out = strndup(ev.data, ev.datalen)) == NULL)
				(void)broken(&st, "out of memory");
			else {
				*outlen = ev.datalen;
				v = STREAM_ERROR;
			}
			goto done;
		}
	}
	if (!st.stopped && r == -1)
		(void)broken(&st, "%s", swhy);
	else if (!st.stopped)
		(void)broken(&st, "the stream ends before message_stop");
	else if ((*out = stream_write(&st, outlen)) == NULL)
		(void)broken(&st, "out of memory");
	else
		v = STREAM_MESSAGE;
done:
	sse_free(&s);
	stream_free(&st);
	return v;
}
