/*
 * box/sse.c, server-sent events as the WHATWG standard reads them, and
 * box/stream.c, the Messages API's events made into its Message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>

#include "json.h"
#include "../../box/sse.h"
#include "../../box/stream.h"

/* The events of text as "type=data|" each, or "!why" at a refusal. */
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
		(void)snprintf(out + strlen(out), outsz - strlen(out),
		    "%s=%s|", ev.type, ev.data);
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
	/* An event not ended by a blank line is dropped at the end. */
	expect("data: 1\n\ndata: 2\n", "message=1|");
	expect("data: 1\n\ndata: 2", "message=1|");
	expect("data: 1\r", "");
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

/* The stream's verdict, and its text (the Message, the error or why). */
static enum stream_verdict
stream(const char *text, char *out, size_t outsz)
{
	enum stream_verdict	 v;
	char			*s, why[STREAM_WHY_MAX];
	size_t			 len;

	v = stream_message(text, strlen(text), &s, &len, why, sizeof(why));
	if (v == STREAM_BROKEN) {
		ATF_CHECK(s == NULL);
		(void)strlcpy(out, why, outsz);
	} else {
		ATF_REQUIRE(s != NULL && strlen(s) == len);
		(void)strlcpy(out, s, outsz);
		free(s);
	}
	return v;
}

#define EV(name, data)	"event: " name "\ndata: " data "\n\n"
#define START	EV("message_start", "{\"type\":\"message_start\",\"message\":" \
	"{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\"," \
	"\"content\":[],\"model\":\"claude-test-1\",\"stop_reason\":null," \
	"\"stop_sequence\":null,\"usage\":{\"input_tokens\":25," \
	"\"output_tokens\":1}}}")
#define PING	EV("ping", "{\"type\": \"ping\"}")
#define BSTART(i, block) EV("content_block_start", "{\"type\":" \
	"\"content_block_start\",\"index\":" #i ",\"content_block\":" block "}")
#define DELTA(i, delta)	EV("content_block_delta", "{\"type\":" \
	"\"content_block_delta\",\"index\":" #i ",\"delta\":" delta "}")
#define BSTOP(i)	EV("content_block_stop", "{\"type\":" \
	"\"content_block_stop\",\"index\":" #i "}")
#define MDELTA(stop)	EV("message_delta", "{\"type\":\"message_delta\"," \
	"\"delta\":{\"stop_reason\":" stop ",\"stop_sequence\":null}," \
	"\"usage\":{\"output_tokens\":15}}")
#define MSTOP	EV("message_stop", "{\"type\":\"message_stop\"}")
#define TEXT(i, t)	DELTA(i, "{\"type\":\"text_delta\",\"text\":\"" t "\"}")

ATF_TC_WITHOUT_HEAD(message);
ATF_TC_BODY(message, tc)
{
	char	 out[2048];

	ATF_CHECK_EQ(stream(START PING
	    BSTART(0, "{\"type\":\"thinking\",\"thinking\":\"\"}")
	    DELTA(0, "{\"type\":\"thinking_delta\",\"thinking\":\"Hm\"}")
	    DELTA(0, "{\"type\":\"signature_delta\",\"signature\":\"sig\"}")
	    BSTOP(0)
	    BSTART(1, "{\"type\":\"text\",\"text\":\"\"}") PING
	    TEXT(1, "{\\\"tag\\\":") TEXT(1, " \\\"soup\\\"}")
	    DELTA(1, "{\"type\":\"citations_delta\",\"citation\":{}}")
	    BSTOP(1)
	    EV("future_event", "{\"type\":\"future_event\"}")
	    BSTART(2, "{\"type\":\"redacted_thinking\",\"data\":\"xyz\"}")
	    BSTOP(2)
	    MDELTA("\"end_turn\"") MSTOP, out, sizeof(out)), STREAM_MESSAGE);
	ATF_CHECK_STREQ(out, "{\"id\":\"msg_1\",\"type\":\"message\","
	    "\"role\":\"assistant\",\"model\":\"claude-test-1\",\"content\":"
	    "[{\"type\":\"thinking\",\"thinking\":\"Hm\",\"signature\":"
	    "\"sig\"},{\"type\":\"text\",\"text\":\"{\\\"tag\\\": "
	    "\\\"soup\\\"}\"},{\"type\":\"redacted_thinking\",\"data\":"
	    "\"xyz\"}],\"stop_reason\":\"end_turn\",\"stop_sequence\":null,"
	    "\"usage\":{\"input_tokens\":25,\"output_tokens\":15}}");
	/* tool_use's input from its partial JSON. */
	ATF_CHECK_EQ(stream(START
	    BSTART(0, "{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"n\","
	    "\"input\":{}}")
	    DELTA(0, "{\"type\":\"input_json_delta\",\"partial_json\":"
	    "\"{\\\"a\\\"\"}")
	    DELTA(0, "{\"type\":\"input_json_delta\",\"partial_json\":"
	    "\":1}\"}") BSTOP(0)
	    MDELTA("\"tool_use\"") MSTOP, out, sizeof(out)), STREAM_MESSAGE);
	ATF_CHECK(strstr(out, "\"content\":[{\"type\":\"tool_use\","
	    "\"input\":{\"a\":1}}],\"stop_reason\":\"tool_use\"") != NULL);
	/* Nothing after message_stop is read. */
	ATF_CHECK_EQ(stream(START MSTOP "event: ping\ndata: x\n\n", out,
	    sizeof(out)), STREAM_MESSAGE);
}

ATF_TC_WITHOUT_HEAD(error);
ATF_TC_BODY(error, tc)
{
	char	 out[512];

	ATF_CHECK_EQ(stream(START BSTART(0, "{\"type\":\"text\",\"text\":\"\"}")
	    TEXT(0, "half") EV("error", "{\"type\": \"error\", \"error\": "
	    "{\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}}")
	    BSTOP(0) MSTOP, out, sizeof(out)), STREAM_ERROR);
	ATF_CHECK_STREQ(out, "{\"type\": \"error\", \"error\": {\"type\": "
	    "\"overloaded_error\", \"message\": \"Overloaded\"}}");
	/* Before any other event too. */
	ATF_CHECK_EQ(stream(EV("error", "{\"type\":\"error\",\"error\":{}}"),
	    out, sizeof(out)), STREAM_ERROR);
}

ATF_TC_WITHOUT_HEAD(broken);
ATF_TC_BODY(broken, tc)
{
	static const struct {
		const char	*text;
		const char	*why;
	} cases[] = {
		{ "", "the stream ends before message_stop" },
		{ START TEXT(0, "x"), "a block's event for no open block" },
		{ START BSTART(0, "{\"type\":\"text\",\"text\":\"\"}") TEXT(0,
		    "x"), "the stream ends before message_stop" },
		{ BSTART(0, "{\"type\":\"text\",\"text\":\"\"}"),
		    "content_block_start before message_start" },
		{ START START, "a second message_start" },
		{ START BSTART(1, "{\"type\":\"text\",\"text\":\"\"}"),
		    "content_block_start's index is not the next block's (0)" },
		{ START BSTART(0, "{\"type\":\"text\",\"text\":\"\"}")
		    BSTART(1, "{\"type\":\"text\",\"text\":\"\"}"),
		    "a block starts before the last stops" },
		{ START BSTART(0, "{\"type\":\"text\",\"text\":\"\"}") MSTOP,
		    "message_stop with a block open" },
		{ START BSTART(0, "{\"type\":\"text\",\"text\":\"\"}")
		    DELTA(0, "{\"type\":\"thinking_delta\",\"thinking\":\"x\"}"),
		    "a thinking_delta in a block of type \"text\"" },
		{ START BSTART(0, "{\"type\":\"text\",\"text\":\"\"}")
		    DELTA(0, "{\"type\":\"text_delta\",\"text\":5}"),
		    "a delta without its string" },
		{ START EV("message_delta", "{\"type\":\"message_stop\"}"),
		    "message_delta: its data's type is not message_delta" },
		{ START EV("ping", "{\"type\":\"ping\""),
		    "ping: its data is not JSON" },
		{ START EV("message_delta", "{\"type\":\"message_delta\","
		    "\"delta\":{},\"usage\":{\"output_tokens\":-1}}"),
		    "usage: output_tokens is not a count" },
	};
	char	 out[512];
	size_t	 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ATF_CHECK_EQ_MSG(stream(cases[i].text, out, sizeof(out)),
		    STREAM_BROKEN, "%zu", i);
		ATF_CHECK_MSG(strstr(out, cases[i].why) == out,
		    "%zu: \"%s\", not \"%s\"", i, out, cases[i].why);
	}
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, lines);
	ATF_TP_ADD_TC(tp, fields);
	ATF_TP_ADD_TC(tp, bounds);
	ATF_TP_ADD_TC(tp, message);
	ATF_TP_ADD_TC(tp, error);
	ATF_TP_ADD_TC(tp, broken);
	return atf_no_error();
}
