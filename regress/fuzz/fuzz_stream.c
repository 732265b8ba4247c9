/*
 * libFuzzer target for box/stream.c's assembly: the input makes a reply
 * (a thinking block and a text block of any characters) and a way to
 * stream it: where the text is split into deltas (at any UTF-16 unit, a
 * surrogate pair's halves apart too), which characters are escaped, the
 * lines' ends (LF, CRLF, CR, mixed), pings between, the last blank line
 * left out.  The Message is the same as the reply streamed whole, one
 * delta a block, and its text is the reply's.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "../../box/stream.h"

#define UNITS	512		/* UTF-16 units of a block at most */

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* The fuzzer's choices, a bit at a time. */
struct bits {
	const uint8_t	*p;
	size_t		 n, i;
};

struct out {
	char		*s;
	size_t		 len, size;
	struct bits	*b;		/* NULL: whole, LF; else its choices */
};

static int
bit(struct bits *b)
{
	size_t	 i;

	if (b == NULL || b->n == 0)
		return 0;
	i = b->i++ % (8 * b->n);
	return b->p[i / 8] >> (i % 8) & 1;
}

static void
put(struct out *o, const char *s, size_t n)
{
	if (o->len + n + 1 > o->size) {
		o->size = 2 * (o->len + n + 1);
		if ((o->s = realloc(o->s, o->size)) == NULL)
			abort();
	}
	memcpy(o->s + o->len, s, n);
	o->len += n;
	o->s[o->len] = '\0';
}

static void
puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

/*
 * A line's end: LF whole; else LF, CRLF or CR as the bits say, but never
 * LF after a CR, with which it would be one end.
 */
static void
eol(struct out *o)
{
	struct bits	*b = o->b;
	int		 cr = o->len > 0 && o->s[o->len - 1] == '\r';

	if (!bit(b))
		puts_(o, cr ? "\r" : "\n");
	else
		puts_(o, bit(b) ? "\r\n" : "\r");
}

/* The last line's end taken away. */
static void
unend(struct out *o)
{
	if (o->len >= 2 && memcmp(o->s + o->len - 2, "\r\n", 2) == 0)
		o->len -= 2;
	else
		o->len--;
	o->s[o->len] = '\0';
}

/* The characters of the input: ASCII, then some of two, three and four bytes. */
static size_t
units_of(const uint8_t *p, size_t n, uint16_t *u)
{
	static const uint32_t	 wide[] = { 0xe9, 0x20ac, 0xfffd, 0x1f600,
	    0x1d11e, 0x10ffff, 0x10000, 0xd7ff, 0xe000, 0x2028 };
	uint32_t		 cp;
	size_t			 i, k = 0;

	for (i = 0; i < n && k + 2 <= UNITS; i++) {
		cp = p[i] < 0x80 ? p[i] : wide[p[i] % 10];
		if (cp < 0x10000) {
			u[k++] = cp;
			continue;
		}
		cp -= 0x10000;
		u[k++] = 0xd800 | cp >> 10;
		u[k++] = 0xdc00 | (cp & 0x3ff);
	}
	return k;
}

static void
utf8(struct out *o, uint32_t cp)
{
	char	 b[4];
	size_t	 n;

	if (cp < 0x80) {
		b[0] = cp;
		n = 1;
	} else if (cp < 0x800) {
		b[0] = 0xc0 | cp >> 6;
		b[1] = 0x80 | (cp & 0x3f);
		n = 2;
	} else if (cp < 0x10000) {
		b[0] = 0xe0 | cp >> 12;
		b[1] = 0x80 | (cp >> 6 & 0x3f);
		b[2] = 0x80 | (cp & 0x3f);
		n = 3;
	} else {
		b[0] = 0xf0 | cp >> 18;
		b[1] = 0x80 | (cp >> 12 & 0x3f);
		b[2] = 0x80 | (cp >> 6 & 0x3f);
		b[3] = 0x80 | (cp & 0x3f);
		n = 4;
	}
	put(o, b, n);
}

static int
is_hi(uint16_t u)
{
	return u >= 0xd800 && u <= 0xdbff;
}

/* Units [from, to) as a JSON string's inside: a half alone escaped. */
static void
jstring(struct out *o, const uint16_t *u, size_t from, size_t to)
{
	char	 esc[16];
	size_t	 i;

	for (i = from; i < to; i++) {
		if (is_hi(u[i]) && i + 1 < to && !bit(o->b)) {
			utf8(o, 0x10000 + ((u[i] - 0xd800) << 10) +
			    (u[i + 1] - 0xdc00));
			i++;
		} else if (u[i] == '"' || u[i] == '\\') {
			(void)snprintf(esc, sizeof(esc), "\\%c", u[i]);
			puts_(o, esc);
		} else if (u[i] < 0x20 || (u[i] >= 0xd800 && u[i] <= 0xdfff) ||
		    (u[i] >= 0x80 && bit(o->b))) {
			(void)snprintf(esc, sizeof(esc), "\\u%04x", u[i]);
			puts_(o, esc);
		} else
			utf8(o, u[i]);
	}
}

static void
event(struct out *o, const char *name, const char *data1,
    const uint16_t *u, size_t from, size_t to, const char *data2)
{
	puts_(o, "event: ");
	puts_(o, name);
	eol(o);
	puts_(o, "data: ");
	puts_(o, data1);
	if (u != NULL)
		jstring(o, u, from, to);
	puts_(o, data2);
	eol(o);
	if (o->b == NULL || strcmp(name, "ping") != 0 || !bit(o->b)) {
		eol(o);
		return;
	}
	/* A comment, then the blank line. */
	puts_(o, ": keep");
	eol(o);
	eol(o);
}

/* Block i's text as its deltas, split where the bits say. */
static void
deltas(struct out *o, int i, const char *type, const char *field,
    const uint16_t *u, size_t n)
{
	char	 head[128];
	size_t	 from = 0, k;

	(void)snprintf(head, sizeof(head), "{\"type\":\"content_block_delta\","
	    "\"index\":%d,\"delta\":{\"type\":\"%s\",\"%s\":\"", i, type,
	    field);
	for (k = 1; k <= n; k++) {
		if (k < n && (o->b == NULL || !bit(o->b)))
			continue;
		event(o, "content_block_delta", head, u, from, k, "\"}}");
		if (o->b != NULL && bit(o->b))
			event(o, "ping", "{\"type\":\"ping\"}", NULL, 0, 0, "");
		from = k;
	}
}

static void
block(struct out *o, int i, const char *start, const char *type,
    const char *field, const uint16_t *u, size_t n)
{
	char	 data[192];

	(void)snprintf(data, sizeof(data), "{\"type\":\"content_block_start\","
	    "\"index\":%d,\"content_block\":%s}", i, start);
	event(o, "content_block_start", data, NULL, 0, 0, "");
	deltas(o, i, type, field, u, n);
	(void)snprintf(data, sizeof(data), "{\"type\":\"content_block_stop\","
	    "\"index\":%d}", i);
	event(o, "content_block_stop", data, NULL, 0, 0, "");
}

/* The reply streamed as the bits say, or whole. */
static void
reply(struct out *o, const uint16_t *t, size_t tn, const uint16_t *x,
    size_t xn)
{
	event(o, "message_start", "{\"type\":\"message_start\",\"message\":"
	    "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\","
	    "\"content\":[],\"model\":\"m\",\"stop_reason\":null,"
	    "\"stop_sequence\":null,\"usage\":{\"input_tokens\":3,"
	    "\"output_tokens\":1}}}", NULL, 0, 0, "");
	block(o, 0, "{\"type\":\"thinking\",\"thinking\":\"\","
	    "\"signature\":\"\"}", "thinking_delta", "thinking", t, tn);
	block(o, 1, "{\"type\":\"text\",\"text\":\"\"}", "text_delta", "text",
	    x, xn);
	event(o, "message_delta", "{\"type\":\"message_delta\",\"delta\":"
	    "{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},"
	    "\"usage\":{\"output_tokens\":9}}", NULL, 0, 0, "");
	event(o, "message_stop", "{\"type\":\"message_stop\"}", NULL, 0, 0,
	    "");
	/* The last blank line, or the last line's end too, left out. */
	if (o->b != NULL && bit(o->b)) {
		unend(o);
		if (bit(o->b))
			unend(o);
	}
}

static char *
message(const struct out *o, size_t *len)
{
	struct stream_result	 sr;
	char			*m;

	if (stream_message(o->s, o->len, &sr) != STREAM_MESSAGE)
		abort();
	m = sr.message;
	*len = sr.messagelen;
	sr.message = NULL;
	stream_result_free(&sr);
	return m;
}

/* The Message's text block holds the text's characters, in UTF-8. */
static void
text_is(const char *m, size_t mlen, const uint16_t *x, size_t xn)
{
	struct out	 want = { NULL, 0, 0, NULL };
	struct json	 j;
	const char	*why;
	char		 got[4 * UNITS + 1];
	size_t		 i, len;
	long		 c, t;

	put(&want, "", 0);
	for (i = 0; i < xn; i++)
		if (is_hi(x[i])) {
			utf8(&want, 0x10000 + ((x[i] - 0xd800) << 10) +
			    (x[i + 1] - 0xdc00));
			i++;
		} else
			utf8(&want, x[i]);
	if (json_parse(&j, m, mlen, &why) == -1 ||
	    (c = json_find(&j, 0, "content")) == -1 ||
	    (t = json_find(&j, json_next(&j, c + 1), "text")) == -1 ||
	    json_string_copy(&j, t, got, sizeof(got), &len) == -1)
		abort();
	if (len != want.len || memcmp(got, want.s, len) != 0)
		abort();
	free(want.s);
	json_free(&j);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bits	 b;
	struct out	 whole = { NULL, 0, 0, NULL }, split;
	uint16_t	 t[UNITS], x[UNITS];
	size_t		 tn, xn, cut, wlen, slen;
	char		*w, *s;

	if (size < 3)
		return 0;
	cut = size < 6 ? 1 : 1 + data[0] % (size / 3);
	tn = units_of(data + 1, cut, t);
	xn = units_of(data + 1 + cut, (size - 1 - cut) / 2, x);
	b.p = data + 1 + cut + (size - 1 - cut) / 2;
	b.n = size - 1 - cut - (size - 1 - cut) / 2;
	b.i = 0;
	split = whole;
	split.b = &b;
	reply(&whole, t, tn, x, xn);
	reply(&split, t, tn, x, xn);
	w = message(&whole, &wlen);
	s = message(&split, &slen);
	if (wlen != slen || memcmp(w, s, wlen) != 0)
		abort();
	text_is(w, wlen, x, xn);
	free(w);
	free(s);
	free(whole.s);
	free(split.s);
	return 0;
}
