/* The Messages API's stream into its Message, as the SDKs read it (stream.h). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "sse.h"
#include "stream.h"

enum block_kind {
	BK_TEXT,
	BK_THINKING,
	BK_INPUT,
	BK_WHOLE		/* whole at its start: kept as it came */
};

/* Decoded bytes: a lone surrogate half as WTF-8 until its other half comes. */
struct buf {
	char		*s;
	size_t		 len;
	int		 set;
};

struct block {
	enum block_kind	 kind;
	char		*start;		/* the block content_block_start gave */
	char		*type;		/* its type's raw JSON */
	struct buf	 text, sig;	/* text, thinking or input's JSON; signature */
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

static const struct {
	const char	*name;
	int		(*fn)(struct stream *);	/* NULL: ping or error */
	int		 any_time;	/* may come before message_start */
	int		 by_type;	/* read by its data's type under any name */
} events[] = {
	{ "message_start",		ev_start,	1,	1 },
	{ "content_block_start",	ev_block_start,	0,	1 },
	{ "content_block_delta",	ev_block_delta,	0,	1 },
	{ "content_block_stop",		ev_block_stop,	0,	1 },
	{ "message_delta",		ev_delta,	0,	1 },
	{ "message_stop",		ev_stop,	0,	1 },
	{ "ping",			NULL,		1,	0 },
	{ "error",			NULL,		1,	0 },
};
#define EV_ERROR	(NEVENTS - 1)
#define NEVENTS	(sizeof(events) / sizeof(events[0]))

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

/* A lone half at p, high (0xa0) or low (0xb0), as WTF-8 writes it. */
static int
half(const char *p, size_t n, unsigned int which)
{
	const unsigned char	*u = (const unsigned char *)p;

	return n >= 3 && u[0] == 0xed && (u[1] & 0xf0) == which;
}

static uint32_t
half_of(const char *p)
{
	const unsigned char	*u = (const unsigned char *)p;

	return (u[0] & 0x0f) << 12 | (u[1] & 0x3f) << 6 | (u[2] & 0x3f);
}

/* The high half ending b and the low half at its end, as one character. */
static void
buf_join(struct buf *b, size_t got)
{
	char		*at = b->s + b->len - 3;
	uint32_t	 cp;

	cp = 0x10000 + ((half_of(at) - 0xd800) << 10) +
	    (half_of(at + 3) - 0xdc00);
	at[0] = 0xf0 | cp >> 18;
	at[1] = 0x80 | (cp >> 12 & 0x3f);
	at[2] = 0x80 | (cp >> 6 & 0x3f);
	at[3] = 0x80 | (cp & 0x3f);
	memmove(at + 4, at + 6, got - 3);
	b->len += got - 2;
}

/* Appends tok's string, as the SDKs join two strings (stream.h). */
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
	b->set = 1;
	(void)json_string_copy(st->j, tok, b->s + b->len, raw + 1, &got);
	if (b->len >= 3 && half(b->s + b->len - 3, 3, 0xa0) &&
	    half(b->s + b->len, got, 0xb0))
		buf_join(b, got);
	else
		b->len += got;
	b->s[b->len] = '\0';
	return 0;
}

/* Replaces b by tok's string: the last signature_delta is the signature. */
static int
buf_set(struct stream *st, struct buf *b, long tok)
{
	b->len = 0;
	return buf_add(st, b, tok);
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

/* The blocks deltas add to, begun as their start gave them, as the SDKs do. */
static const struct {
	const char	*type;
	enum block_kind	 kind;
	const char	*text, *sig;
} kinds[] = {
	{ "text",		BK_TEXT,	"text",		NULL },
	{ "thinking",		BK_THINKING,	"thinking",	"signature" },
	{ "tool_use",		BK_INPUT,	NULL,		NULL },
	{ "server_tool_use",	BK_INPUT,	NULL,		NULL },
};

static int
start_field(struct stream *st, struct buf *b, long cb, const char *key)
{
	long	 t;

	if (key == NULL || (t = json_find(st->j, cb, key)) == -1 ||
	    st->j->toks[t].type != JSON_STRING)
		return 0;
	return buf_add(st, b, t);
}

static int
ev_block_start(struct stream *st)
{
	const struct json	*j = st->j;
	struct block		*b;
	int64_t			 i;
	size_t			 k;
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
	b->kind = BK_WHOLE;
	if ((b->type = raw_dup(j, t)) == NULL ||
	    (b->start = raw_dup(j, cb)) == NULL)
		return broken(st, "out of memory");
	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (json_streq(j, t, kinds[k].type))
			break;
	if (k == sizeof(kinds) / sizeof(kinds[0]))
		return 0;
	b->kind = kinds[k].kind;
	if (start_field(st, &b->text, cb, kinds[k].text) == -1)
		return -1;
	return start_field(st, &b->sig, cb, kinds[k].sig);
}

static const struct {
	const char	*type;
	enum block_kind	 kind;
	const char	*field;
	int		 sig;		/* replaces the signature */
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
	if (deltas[i].sig)
		return buf_set(st, &b->sig, json_find(j, d, deltas[i].field));
	return buf_add(st, &b->text, json_find(j, d, deltas[i].field));
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

static size_t
event_of(const char *name, size_t len)
{
	size_t	 i;

	for (i = 0; i < NEVENTS; i++)
		if (strlen(events[i].name) == len &&
		    memcmp(events[i].name, name, len) == 0)
			break;
	return i;
}

/* The event the data's type names, for a name the API does not send. */
static size_t
event_by_type(const struct json *j, long t)
{
	char	 type[64];
	size_t	 len, i;

	if (t == -1 || json_string_copy(j, t, type, sizeof(type), &len) == -1)
		return NEVENTS;
	i = event_of(type, len);
	return i < NEVENTS && events[i].by_type ? i : NEVENTS;
}

/* The event i, or by its data's type when i is none: as stream_event. */
static int
stream_apply(struct stream *st, struct json *j, size_t i)
{
	long	 t = -1;
	int	 r;

	if (j->toks[0].type == JSON_OBJECT)
		t = json_find(j, 0, "type");
	if (i == NEVENTS && (i = event_by_type(j, t)) == NEVENTS)
		return 0;
	if (!json_streq(j, t, events[i].name))
		return broken(st, "%s: its data's type is not %s",
		    events[i].name, events[i].name);
	if (!st->started && !events[i].any_time)
		return broken(st, "%s before message_start", events[i].name);
	if (i == EV_ERROR)
		return 1;
	st->j = j;
	r = events[i].fn(st);
	st->j = NULL;
	return r;
}

/*
 * 1 for an error event, 0 for another, -1 when it breaks.  A cut event
 * whose data is not whole JSON was never sent.
 */
static int
stream_event(struct stream *st, const struct sse_event *ev)
{
	struct json	 j;
	const char	*why;
	size_t		 i;
	int		 r;

	i = event_of(ev->type, ev->typelen);
	if ((i < NEVENTS && events[i].fn == NULL && i != EV_ERROR) ||
	    (st->stopped && i != EV_ERROR) || (i == NEVENTS && !ev->named))
		return 0;
	if (json_parse_lone(&j, ev->data, ev->datalen, &why) == -1) {
		if (i == NEVENTS || ev->cut)
			return 0;
		return broken(st, "%s: its data is not JSON: %s at byte %zu",
		    events[i].name, why, j.erroff);
	}
	r = stream_apply(st, &j, i);
	json_free(&j);
	return r;
}

/* The block's fields the stream made, as JSON; NULL keeps the start's. */
static char *
field_json(const struct buf *b, int string)
{
	struct json_writer	 w;
	struct json		 j;
	const char		*why;
	char			*s;
	size_t			 i, n;

	if (!b->set || (!string && b->len == 0))
		return NULL;
	if (!string) {
		if (json_parse_lone(&j, b->s, b->len, &why) == -1)
			return NULL;
		json_free(&j);
		return strndup(b->s, b->len);
	}
	if ((s = malloc(b->len + 1)) == NULL)
		return NULL;
	memcpy(s, b->s, b->len);
	/* A half no other half met: U+FFFD, as a UTF-8 encoder writes it. */
	for (i = 0; i + 2 < b->len; i++)
		if (half(s + i, 3, 0xa0) || half(s + i, 3, 0xb0))
			memcpy(s + i, "\xef\xbf\xbd", 3);
	json_writer_init(&w);
	json_write_string_len(&w, s, b->len);
	free(s);
	return json_writer_finish(&w, &n);
}

/* The start's members, the stream's fields in place of its own or after. */
static void
block_members(FILE *f, const struct json *j, const char *const keys[2],
    char *vals[2])
{
	const char	*raw;
	size_t		 m, k, n;
	int		 v;

	for (m = 0, k = 1; m < j->toks[0].size; m++, k = json_next(j, k + 1)) {
		if (m > 0)
			(void)fputc(',', f);
		raw = json_raw(j, k, &n);
		(void)fwrite(raw, 1, n, f);
		(void)fputc(':', f);
		for (v = 0; v < 2; v++)
			if (vals[v] != NULL && json_streq(j, k, keys[v]))
				break;
		if (v < 2) {
			(void)fputs(vals[v], f);
			free(vals[v]);
			vals[v] = NULL;
		} else {
			raw = json_raw(j, k + 1, &n);
			(void)fwrite(raw, 1, n, f);
		}
	}
	for (v = 0; v < 2; v++)
		if (vals[v] != NULL)
			(void)fprintf(f, ",\"%s\":%s", keys[v], vals[v]);
}

/* The block as the start gave it, with what its deltas made. */
static char *
block_json(const struct block *b, size_t *len)
{
	const char	*keys[2] = { NULL, "signature" };
	char		*vals[2], *s = NULL;
	struct json	 j;
	const char	*why;
	FILE		*f;
	int		 ok;

	keys[0] = b->kind == BK_TEXT ? "text" : b->kind == BK_THINKING ?
	    "thinking" : "input";
	vals[0] = field_json(&b->text, b->kind != BK_INPUT);
	vals[1] = b->kind == BK_THINKING ? field_json(&b->sig, 1) : NULL;
	ok = json_parse_lone(&j, b->start, strlen(b->start), &why) == 0;
	if (ok && (f = open_memstream(&s, len)) != NULL) {
		(void)fputc('{', f);
		block_members(f, &j, keys, vals);
		(void)fputc('}', f);
		ok = !ferror(f);
		ok = fclose(f) == 0 && ok;
	} else
		ok = 0;
	json_free(&j);
	free(vals[0]);
	free(vals[1]);
	if (!ok) {
		free(s);
		return NULL;
	}
	return s;
}

static void
write_block(struct json_writer *w, const struct block *b)
{
	char	*s;
	size_t	 len;

	if (b->kind == BK_WHOLE) {
		json_write_raw(w, b->start, strlen(b->start));
		return;
	}
	if ((s = block_json(b, &len)) == NULL) {
		w->failed = 1;
		return;
	}
	json_write_raw(w, s, len);
	free(s);
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

/*
 * To the end: 1 and the error event's data kept, 0, or -1 when the stream
 * breaks before message_stop (past it, a bound only ends the reading).
 */
static int
stream_read(struct stream *st, struct sse *s, struct stream_result *res)
{
	struct sse_event	 ev;
	const char		*swhy;
	int			 r;

	while ((r = sse_next(s, &ev, &swhy)) == 1) {
		if ((r = stream_event(st, &ev)) == -1)
			return -1;
		if (r == 0)
			continue;
		if ((res->error = strndup(ev.data, ev.datalen)) == NULL)
			return broken(st, "out of memory");
		res->errorlen = ev.datalen;
		return 1;
	}
	if (r == -1 && !st->stopped)
		return broken(st, "%s", swhy);
	if (!st->stopped)
		return broken(st, "the stream ends before message_stop");
	return 0;
}

enum stream_verdict
stream_message(const char *body, size_t len, struct stream_result *res)
{
	struct stream		 st;
	struct sse		 s;
	int			 r;

	memset(res, 0, sizeof(*res));
	memset(&st, 0, sizeof(st));
	st.why = res->why;
	st.whysz = sizeof(res->why);
	sse_init(&s, body, len, STREAM_DATA_MAX);
	r = stream_read(&st, &s, res);
	sse_free(&s);
	if (st.started && (res->message = stream_write(&st,
	    &res->messagelen)) == NULL && r != -1)
		r = broken(&st, "out of memory");
	stream_free(&st);
	if (r == -1) {
		free(res->error);
		res->error = NULL;
	}
	return r == 1 ? STREAM_ERROR : r == -1 ? STREAM_BROKEN :
	    STREAM_MESSAGE;
}

void
stream_result_free(struct stream_result *res)
{
	free(res->message);
	free(res->error);
	res->message = res->error = NULL;
}
