/* Server-sent events from a whole body (sse.h). */
#include <stdlib.h>
#include <string.h>

#include "sse.h"

void
sse_init(struct sse *s, const char *buf, size_t len, size_t max)
{
	memset(s, 0, sizeof(*s));
	s->buf = buf;
	s->len = len;
	s->max = max;
	/* One byte order mark is dropped, as the UTF-8 decoding does. */
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		s->off = 3;
}

void
sse_free(struct sse *s)
{
	free(s->data);
	s->data = NULL;
}

/* The next line, its end passed, the body's end ending the last; 0 after. */
static int
sse_line(struct sse *s, const char **line, size_t *n)
{
	const char	*p = s->buf + s->off, *end = s->buf + s->len, *q;

	if (p == end)
		return 0;
	for (q = p; q < end && *q != '\r' && *q != '\n'; q++)
		;
	*line = p;
	*n = q - p;
	if (q < end && *q == '\r' && q + 1 < end && q[1] == '\n')
		q++;
	s->off = q < end ? (size_t)(q + 1 - s->buf) : s->len;
	return 1;
}

static int
sse_append(struct sse *s, const char *v, size_t n, const char **why)
{
	size_t	 need;
	char	*p;

	/* The LF counts, when a line follows: the last one is dropped. */
	if (s->datalen > s->max || n > s->max - s->datalen) {
		*why = "an event's data is longer than its bound";
		return -1;
	}
	need = s->datalen + n + 2;
	if (need > s->datasz) {
		if ((p = realloc(s->data, need * 2)) == NULL) {
			*why = "out of memory";
			return -1;
		}
		s->data = p;
		s->datasz = need * 2;
	}
	memcpy(s->data + s->datalen, v, n);
	s->datalen += n;
	s->data[s->datalen++] = '\n';
	s->data[s->datalen] = '\0';
	return 0;
}

/* A field's line: "event" and "data" are kept, every other ignored. */
static int
sse_field(struct sse *s, const char *line, size_t n, const char **why)
{
	const char	*colon, *v;
	size_t		 flen, vlen;

	if ((colon = memchr(line, ':', n)) == NULL)
		colon = line + n;
	flen = colon - line;
	v = colon < line + n ? colon + 1 : colon;
	vlen = line + n - v;
	if (vlen > 0 && *v == ' ') {
		v++;
		vlen--;
	}
	if (flen == 4 && memcmp(line, "data", 4) == 0)
		return sse_append(s, v, vlen, why);
	if (flen == 5 && memcmp(line, "event", 5) == 0) {
		if (vlen > SSE_TYPE_MAX) {
			*why = "an event's type is longer than its bound";
			return -1;
		}
		memcpy(s->type, v, vlen);
		s->type[vlen] = '\0';
		s->typelen = vlen;
	}
	return 0;
}

static int
sse_give(struct sse *s, struct sse_event *ev, int cut)
{
	s->data[--s->datalen] = '\0';
	ev->type = s->typelen > 0 ? s->type : "message";
	ev->typelen = s->typelen > 0 ? s->typelen : strlen("message");
	ev->named = s->typelen > 0;
	ev->cut = cut;
	ev->data = s->data;
	ev->datalen = s->datalen;
	s->given = 1;
	return 1;
}

int
sse_next(struct sse *s, struct sse_event *ev, const char **why)
{
	const char	*line;
	size_t		 n;

	/* What the last event handed out ends now. */
	if (s->given) {
		s->datalen = s->typelen = 0;
		s->type[0] = '\0';
		s->given = 0;
	}
	while (sse_line(s, &line, &n)) {
		if (n > 0 && line[0] == ':')
			continue;
		if (n > 0) {
			if (sse_field(s, line, n, why) == -1)
				return -1;
			continue;
		}
		if (s->datalen == 0) {
			s->typelen = 0;
			s->type[0] = '\0';
			continue;
		}
		return sse_give(s, ev, 0);
	}
	return s->datalen > 0 ? sse_give(s, ev, 1) : 0;
}
