/*
 * libFuzzer target for box/sse.c and box/stream.c: the input is a
 * streamed body.  Every event keeps its bounds, the same input with
 * every line ended by LF gives the same events, and the stream's
 * verdict is a Message or an error that parse as JSON, or a reason.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "../../box/sse.h"
#include "../../box/stream.h"

#define MAX	4096

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* CRLF and CR made LF. */
static char *
lf_only(const char *in, size_t len, size_t *outlen)
{
	char	*out;
	size_t	 i, n = 0;

	if ((out = malloc(len + 1)) == NULL)
		abort();
	for (i = 0; i < len; i++) {
		if (in[i] == '\r' && i + 1 < len && in[i + 1] == '\n')
			continue;
		out[n++] = in[i] == '\r' ? '\n' : in[i];
	}
	*outlen = n;
	return out;
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
		if (ra == 1 && (ea.datalen > MAX ||
		    strlen(ea.type) > SSE_TYPE_MAX || ea.data[ea.datalen] != '\0' ||
		    strcmp(ea.type, eb.type) != 0 || ea.datalen != eb.datalen ||
		    memcmp(ea.data, eb.data, ea.datalen) != 0))
			abort();
		if (ra == -1 && (wa == NULL || strcmp(wa, wb) != 0))
			abort();
	} while (ra == 1);
	sse_free(&sa);
	sse_free(&sb);
}

static void
verdict(const char *in, size_t len)
{
	struct json		 j;
	enum stream_verdict	 v;
	const char		*jwhy;
	char			*out, why[STREAM_WHY_MAX];
	size_t			 outlen;

	why[0] = '\0';
	v = stream_message(in, len, &out, &outlen, why, sizeof(why));
	if (v == STREAM_BROKEN) {
		if (out != NULL || why[0] == '\0')
			abort();
		return;
	}
	if (v != STREAM_MESSAGE && v != STREAM_ERROR)
		abort();
	if (json_parse(&j, out, outlen, &jwhy) == -1 ||
	    j.toks[0].type != JSON_OBJECT)
		abort();
	json_free(&j);
	free(out);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char	*in = (const char *)data;
	char		*lf;
	size_t		 lflen;

	lf = lf_only(in, size, &lflen);
	events_same(in, size, lf, lflen);
	free(lf);
	verdict(in, size);
	return 0;
}
