/*
 * box/sse.c, server-sent events as the WHATWG standard reads them and the
 * Anthropic SDKs' decoders split them (t_stream.c: the Message made of
 * them).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>

#include "../../box/sse.h"

/*
 * The events of text as "type=data|" each, "~type=data|" for one the end
 * cut, or "!why" at a refusal.
 */
static void
events(const char *text, size_t len, size_t max, char *out, size_t outsz)
{
	struct sse		 s;
	struct sse_event	 ev;
	const char		*why;
	int			 r;

	out[0] = '\0';
	sse_init(&s, text, len, max);
	while ((r = sse_next(&s, &ev, &why)) == 1) {
		ATF_REQUIRE(strlen(ev.data) <= ev.datalen);
		ATF_REQUIRE(strlen(ev.type) <= ev.typelen);
		(void)snprintf(out + strlen(out), outsz - strlen(out),
		    "%s%s=%s|", ev.cut ? "~" : "", ev.type, ev.data);
	}
	if (r == -1)
		(void)snprintf(out + strlen(out), outsz - strlen(out), "!%s",
		    why);
	sse_free(&s);
}

static void
expect(const char *text, const char *want)
{
	char	 got[1024];

	events(text, strlen(text), 64, got, sizeof(got));
	ATF_CHECK_MSG(strcmp(got, want) == 0, "\"%s\": \"%s\", not \"%s\"",
	    text, got, want);
}

ATF_TC_WITHOUT_HEAD(lines);
ATF_TC_BODY(lines, tc)
{
	/* LF, CR and CRLF end a line alike, and may be mixed. */
	expect("event: a\ndata: 1\n\n", "a=1|");
	expect("event: a\rdata: 1\r\r", "a=1|");
	expect("event: a\r\ndata: 1\r\n\r\n", "a=1|");
	expect("event: a\r\ndata: 1\rdata: 2\n\r\n", "a=1\n2|");
	/* CR then LF is one end, not a line and a blank one. */
	expect("data: 1\r\ndata: 2\r\n\r\n", "message=1\n2|");
	expect("", "");
	/* One byte order mark goes; a second is a field's name. */
	expect("\xef\xbb\xbf" "data: 1\n\n", "message=1|");
	expect("\xef\xbb\xbf\xef\xbb\xbf" "data: 1\n\n", "");
}

ATF_TC_WITHOUT_HEAD(fields);
ATF_TC_BODY(fields, tc)
{
	/* One space after the colon goes, no more. */
	expect("data:1\ndata:  2\ndata\n\n", "message=1\n 2\n|");
	/* An empty data line is an event, with empty data. */
	expect("event: e\ndata:\n\n", "e=|");
	/* No data, no event; its type is forgotten. */
	expect("event: a\n\ndata: 1\n\n", "message=1|");
	/* Comments, id, retry and unknown fields are nothing. */
	expect(": ping\nid: 7\nretry: 10\nfoo: bar\ndata: 1\n\n",
	    "message=1|");
	expect("Data: 1\ndata : 2\n\n", "");
	/* The last event line wins; an empty one names none. */
	expect("event: a\nevent: b\ndata: 1\n\n", "b=1|");
	expect("event: a\nevent:\ndata: 1\n\n", "message=1|");
	/* A type and data held after the event are not the next one's. */
	expect("event: a\ndata: 1\n\ndata: 2\n\n", "a=1|message=2|");
}

ATF_TC_WITHOUT_HEAD(bounds);
ATF_TC_BODY(bounds, tc)
{
	char	 text[256];

	/* 64 bytes of data, LF between lines counted: at and past. */
	(void)snprintf(text, sizeof(text), "data: %064d\n\n", 0);
	expect(text, "message=0000000000000000000000000000000000000000000000"
	    "000000000000000000|");
	(void)snprintf(text, sizeof(text), "data: %065d\n\n", 0);
	expect(text, "!an event's data is longer than its bound");
	(void)snprintf(text, sizeof(text), "data: %031d\ndata: %032d\n\n", 0,
	    0);
	expect(text, "message=0000000000000000000000000000000\n"
	    "00000000000000000000000000000000|");
	(void)snprintf(text, sizeof(text), "data: %031d\ndata: %033d\n\n", 0,
	    0);
	expect(text, "!an event's data is longer than its bound");
	(void)snprintf(text, sizeof(text), "data: %064d\ndata:\n\n", 0);
	expect(text, "!an event's data is longer than its bound");
	(void)snprintf(text, sizeof(text), "event: %065d\ndata: 1\n\n", 0);
	expect(text, "!an event's type is longer than its bound");
}

/*
 * An event the end cuts is handed out marked cut, its last line read even
 * without its end, as both SDKs' decoders read that line (the Python
 * SDK's SSEDecoder splits the rest at the end into lines; the TypeScript
 * SDK's LineDecoder flushes it); neither hands the event out, the box's
 * stream.c judges it.  On main such an event was dropped.
 */
ATF_TC_WITHOUT_HEAD(cut);
ATF_TC_BODY(cut, tc)
{
	expect("data: 1\n\ndata: 2\n", "message=1|~message=2|");
	expect("data: 1\n\ndata: 2", "message=1|~message=2|");
	expect("data: 1\r", "~message=1|");
	expect("event: message_stop\ndata: {}\r\n", "~message_stop={}|");
	expect("event: message_stop\ndata: {}", "~message_stop={}|");
	expect("data: 1\ndata: 2", "~message=1\n2|");
	/* The controls: no data is no event; a blank line is not cut. */
	expect("data: 1\n\nevent: a\n", "message=1|");
	expect("data: 1\n\nevent: a", "message=1|");
	expect("data: 1\n\n", "message=1|");
	expect("data: 1\r\r", "message=1|");
}

/* The one event of text: its name's bytes and whether it named one. */
static void
one_event(const char *text, size_t len, char *type, size_t *typelen,
    int *named)
{
	struct sse		 s;
	struct sse_event	 ev;
	const char		*why;

	sse_init(&s, text, len, 64);
	ATF_REQUIRE_EQ(sse_next(&s, &ev, &why), 1);
	ATF_REQUIRE(ev.typelen <= SSE_TYPE_MAX);
	memcpy(type, ev.type, ev.typelen);
	*typelen = ev.typelen;
	*named = ev.named;
	ATF_CHECK_EQ(sse_next(&s, &ev, &why), 0);
	sse_free(&s);
}

#define NAME_IS(text, want, wnamed) do {				\
	one_event(text, sizeof(text) - 1, type, &typelen, &named);	\
	ATF_CHECK_MSG(typelen == sizeof(want) - 1 &&			\
	    memcmp(type, want, typelen) == 0 && named == (wnamed),	\
	    "%s: %zu bytes, named %d", text, typelen, named);		\
} while (0)

/*
 * Lines end at CR and LF alone: a NUL, VT, FF, FS, NEL (C2 85) or a byte
 * not UTF-8 is part of its line and of the event's name, which is given
 * whole with its length (the Python SDK splits the bytes before it
 * decodes them, so that splitlines() takes only CR and LF, and keeps a
 * NUL in the name; the TypeScript SDK's LineDecoder looks for 0x0d and
 * 0x0a alone).  On main the name was a C string, cut at its NUL.
 */
ATF_TC_WITHOUT_HEAD(names);
ATF_TC_BODY(names, tc)
{
	char	 type[SSE_TYPE_MAX];
	size_t	 typelen;
	int	 named;

	NAME_IS("event: content_block_delta\0x\ndata: 1\n\n",
	    "content_block_delta\0x", 1);
	NAME_IS("event: a\vb\fc\x1c\xc2\x85" "d\ndata: 1\n\n",
	    "a\vb\fc\x1c\xc2\x85" "d", 1);
	NAME_IS("event: content_block_delta\xff\ndata: 1\n\n",
	    "content_block_delta\xff", 1);
	/* The field's name is whole too: "ev\0ent" is no field. */
	NAME_IS("ev\0ent: a\ndata: 1\n\n", "message", 0);
	/* None named is the standard's "message", told apart. */
	NAME_IS("data: 1\n\n", "message", 0);
	NAME_IS("event: message\ndata: 1\n\n", "message", 1);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, lines);
	ATF_TP_ADD_TC(tp, fields);
	ATF_TP_ADD_TC(tp, bounds);
	ATF_TP_ADD_TC(tp, cut);
	ATF_TP_ADD_TC(tp, names);
	return atf_no_error();
}
