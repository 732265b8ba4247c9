/*
 * libFuzzer target for box/sse.c and box/stream.c: the input is a
 * streamed body.  Every event keeps its bounds, the same input with its
 * lines ended by LF, CRLF or CR alone gives the same events, and the
 * stream's verdict is a Message or an error that parse as JSON, or a
 * reason; a Message begun comes with any verdict.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "../../box/sse.h"
#include "../../box/stream.h"

#define MAX	4096

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Each line's end (CR, LF or CRLF) made end, of one or two bytes. */
static char *
ends(const char *in, size_t len, const char *end, size_t *outlen)
{
	char	*out;
	size_t	 i, n = 0, e = strlen(end);

	if ((out = malloc(2 * len + 1)) == NULL)
		abort();
	for (i = 0; i < len; i++) {
		if (in[i] != '\r' && in[i] != '\n') {
			out[n++] = in[i];
			continue;
		}
		if (in[i] == '\r' && i + 1 < len && in[i + 1] == '\n')
			i++;
		memcpy(out + n, end, e);
		n += e;
	}
	*outlen = n;
	return out;
}

static int
event_same(const struct sse_event *a, const struct sse_event *b)
{
	return a->typelen == b->typelen &&
	    memcmp(a->type, b->type, a->typelen) == 0 &&
	    a->named == b->named && a->cut == b->cut &&
	    a->datalen == b->datalen &&
	    memcmp(a->data, b->data, a->datalen) == 0;
}

static void
events_same(const char *a, size_t alen, const char *b, size_t blen)
{
	struct sse		 sa, sb;
	struct sse_event	 ea, eb;
	const char		*wa, *wb;
	int			 ra, rb;

	sse_init(&sa, a, alen, MAX);
	sse_init(&sb, b, blen, MAX);
	do {
		ra = sse_next(&sa, &ea, &wa);
		rb = sse_next(&sb, &eb, &wb);
		if (ra != rb)
			abort();
		if (ra == 1 && (ea.datalen > MAX || ea.typelen > SSE_TYPE_MAX ||
		    strlen(ea.type) > ea.typelen ||
		    ea.data[ea.datalen] != '\0' || !event_same(&ea, &eb)))
			abort();
		if (ra == -1 && (wa == NULL || strcmp(wa, wb) != 0))
			abort();
	} while (ra == 1);
	sse_free(&sa);
	sse_free(&sb);
}

static void
parses(const char *s, size_t len)
{
	struct json	 j;
	const char	*why;

	if (s == NULL || json_parse_lone(&j, s, len, &why) == -1 ||
	    j.toks[0].type != JSON_OBJECT)
		abort();
	json_free(&j);
}

static void
verdict(const char *in, size_t len)
{
	struct stream_result	 sr;
	enum stream_verdict	 v;

	v = stream_message(in, len, &sr);
	if (v == STREAM_BROKEN && (sr.error != NULL || sr.why[0] == '\0'))
		abort();
	if (v == STREAM_MESSAGE)
		parses(sr.message, sr.messagelen);
	else if (v == STREAM_ERROR)
		parses(sr.error, sr.errorlen);
	else if (v != STREAM_BROKEN)
		abort();
	if (sr.message != NULL)
		parses(sr.message, sr.messagelen);
	stream_result_free(&sr);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const endings[] = { "\n", "\r\n", "\r" };
	const char	*in = (const char *)data;
	char		*lf, *other;
	size_t		 lflen, otherlen, i;

	lf = ends(in, size, "\n", &lflen);
	events_same(in, size, lf, lflen);
	for (i = 1; i < sizeof(endings) / sizeof(endings[0]); i++) {
		other = ends(lf, lflen, endings[i], &otherlen);
		events_same(lf, lflen, other, otherlen);
		free(other);
	}
	free(lf);
	verdict(in, size);
	return 0;
}
