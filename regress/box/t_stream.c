/*
 * box/stream.c, the Messages API's events made into its Message as the
 * official SDKs make it (the Python SDK's MessageStream and
 * accumulate_event, the TypeScript SDK's MessageStream), each case
 * written from what their code and their own test streams show.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>

#include "../../box/stream.h"

/*
 * The stream's verdict and its text: the Message, the error's data then
 * "|" and the Message as far as it came, or why.
 */
static enum stream_verdict
stream_len(const char *text, size_t textlen, char *out, size_t outsz)
{
	struct stream_result	 sr;
	enum stream_verdict	 v;

	v = stream_message(text, textlen, &sr);
	if (v == STREAM_BROKEN) {
		ATF_CHECK(sr.error == NULL);
		(void)strlcpy(out, sr.why, outsz);
	} else if (v == STREAM_ERROR) {
		ATF_REQUIRE(sr.error != NULL && strlen(sr.error) == sr.errorlen);
		(void)snprintf(out, outsz, "%s|%s", sr.error,
		    sr.message != NULL ? sr.message : "");
	} else {
		ATF_REQUIRE(sr.message != NULL &&
		    strlen(sr.message) == sr.messagelen && sr.error == NULL);
		(void)strlcpy(out, sr.message, outsz);
	}
	stream_result_free(&sr);
	return v;
}

static enum stream_verdict
stream(const char *text, char *out, size_t outsz)
{
	return stream_len(text, strlen(text), out, outsz);
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
	    "\"id\":\"t\",\"name\":\"n\",\"input\":{\"a\":1}}],"
	    "\"stop_reason\":\"tool_use\"") != NULL);
	/* Nothing after message_stop is read. */
	ATF_CHECK_EQ(stream(START MSTOP "event: ping\ndata: x\n\n", out,
	    sizeof(out)), STREAM_MESSAGE);
}

#define MSG_HEAD "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":" \
	"\"assistant\",\"model\":\"claude-test-1\",\"content\":"
#define MSG_TAIL(stop, out) ",\"stop_reason\":" stop ",\"stop_sequence\":" \
	"null,\"usage\":{\"input_tokens\":25,\"output_tokens\":" #out "}}"
#define OVERLOADED "{\"type\": \"error\", \"error\": {\"type\": " \
	"\"overloaded_error\", \"message\": \"Overloaded\"}}"

/*
 * An error event ends the stream as that error, the Message kept as far
 * as it came: message_start's usage is the record's (on main the error
 * alone was given, and the record's usage was null).
 */
ATF_TC_WITHOUT_HEAD(error);
ATF_TC_BODY(error, tc)
{
	char	 out[1024];

	ATF_CHECK_EQ(stream(START BSTART(0, "{\"type\":\"text\",\"text\":\"\"}")
	    TEXT(0, "half") EV("error", OVERLOADED) BSTOP(0) MSTOP, out,
	    sizeof(out)), STREAM_ERROR);
	ATF_CHECK_STREQ(out, OVERLOADED "|" MSG_HEAD "[{\"type\":\"text\","
	    "\"text\":\"half\"}]" MSG_TAIL("null", 1));
	/* Before any other event too: no Message begun. */
	ATF_CHECK_EQ(stream(EV("error", "{\"type\":\"error\",\"error\":{}}"),
	    out, sizeof(out)), STREAM_ERROR);
	ATF_CHECK_STREQ(out, "{\"type\":\"error\",\"error\":{}}|");
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
		{ START EV("message_delta", "{\"type\":\"message_delta\""),
		    "message_delta: its data is not JSON" },
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

#define TBLOCK	BSTART(0, "{\"type\":\"text\",\"text\":\"\"}")
#define WHOLE	START TBLOCK TEXT(0, "hi") BSTOP(0) MDELTA("\"end_turn\"")
#define HI_MSG	MSG_HEAD "[{\"type\":\"text\",\"text\":\"hi\"}]" \
	MSG_TAIL("\"end_turn\"", 15)

/*
 * message_stop whole at the end, its blank line or its line's end
 * missing: the Message.  The Python SDK's MessageStream keeps the
 * Message it made whatever ends the stream; the TypeScript SDK's wants
 * message_stop, which neither SDK's decoder hands out without its blank
 * line; the box reads a last event whose data is whole (sse.c hands it
 * out cut).  On main: "the stream ends before message_stop".
 */
ATF_TC_WITHOUT_HEAD(last_blank);
ATF_TC_BODY(last_blank, tc)
{
	static const char *const ends[] = {
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n",
		"event: message_stop\r\ndata: {\"type\":\"message_stop\"}\r\n",
		"event: message_stop\rdata: {\"type\":\"message_stop\"}\r",
		"event: message_stop\ndata: {\"type\":\"message_stop\"}",
	};
	char	 text[2048], out[1024];
	size_t	 i;

	for (i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		(void)snprintf(text, sizeof(text), "%s%s", WHOLE, ends[i]);
		ATF_CHECK_EQ_MSG(stream(text, out, sizeof(out)),
		    STREAM_MESSAGE, "%zu: %s", i, out);
		ATF_CHECK_STREQ_MSG(out, HI_MSG, "%zu", i);
	}
	/* The controls: message_stop cut inside its data, or not sent. */
	ATF_CHECK_EQ(stream(WHOLE "event: message_stop\ndata: {\"type\":"
	    "\"message_st", out, sizeof(out)), STREAM_BROKEN);
	ATF_CHECK_STREQ(out, "the stream ends before message_stop");
	ATF_CHECK_EQ(stream(WHOLE "event: message_stop\n", out, sizeof(out)),
	    STREAM_BROKEN);
	ATF_CHECK_STREQ(out, "the stream ends before message_stop");
	ATF_CHECK_EQ(stream(WHOLE, out, sizeof(out)), STREAM_BROKEN);
	/* A delta whole at the end is read, and judged as any other. */
	ATF_CHECK_EQ(stream(START TBLOCK "event: content_block_delta\ndata: "
	    "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{}}", out,
	    sizeof(out)), STREAM_BROKEN);
	ATF_CHECK_STREQ(out, "a block's event for no open block");
}

#define TEXTS(a, b)	START TBLOCK TEXT(0, a) TEXT(0, b) BSTOP(0) \
	MDELTA("\"end_turn\"") MSTOP
#define TEXT_MSG(t)	MSG_HEAD "[{\"type\":\"text\",\"text\":\"" t "\"}]" \
	MSG_TAIL("\"end_turn\"", 15)
#define EMOJI	"\xf0\x9f\x98\x80"
#define FFFD	"\xef\xbf\xbd"

/*
 * An escaped surrogate pair split over two deltas: one character.  Both
 * SDKs parse each event's JSON (JSON.parse, json.loads) into a string
 * holding the lone half and join the strings; the box holds a high half
 * left at a delta's end as WTF-8 until the next delta of its block, and
 * a half that meets no other is U+FFFD, as a UTF-8 encoder (the
 * TypeScript SDK's TextEncoder) writes a lone one.  On main: "its data
 * is not JSON: a lone surrogate escape in a string".
 */
ATF_TC_WITHOUT_HEAD(surrogates);
ATF_TC_BODY(surrogates, tc)
{
	static const struct {
		const char	*text, *message;
	} cases[] = {
		{ TEXTS("a\\ud83d", "\\ude00b"), TEXT_MSG("a" EMOJI "b") },
		{ TEXTS("\\ud83d", "\\ude00"), TEXT_MSG(EMOJI) },
		{ START TBLOCK TEXT(0, "a\\ud83d") TEXT(0, "") TEXT(0, "\\ude00")
		    BSTOP(0) MDELTA("\"end_turn\"") MSTOP, TEXT_MSG("a" EMOJI) },
		/* No other half: U+FFFD for each. */
		{ TEXTS("a\\ud83d", "b"), TEXT_MSG("a" FFFD "b") },
		{ TEXTS("a", "\\ude00b"), TEXT_MSG("a" FFFD "b") },
		{ TEXTS("a\\ud83d", "\\ud83d"), TEXT_MSG("a" FFFD FFFD) },
		{ TEXTS("\\ude00", "\\ud83d"), TEXT_MSG(FFFD FFFD) },
		/* A NUL beside a half no other met (fuzz_stream's find). */
		{ TEXTS("a\\u0000\\ud83d", "b"),
		    TEXT_MSG("a\\u0000" FFFD "b") },
		/* The control: a pair within one delta, as main read it. */
		{ TEXTS("a\\ud83d\\ude00", "b"), TEXT_MSG("a" EMOJI "b") },
		/* In thinking too, and never across two blocks. */
		{ START BSTART(0, "{\"type\":\"thinking\",\"thinking\":\"\"}")
		    DELTA(0, "{\"type\":\"thinking_delta\",\"thinking\":"
		    "\"\\ud83d\"}") DELTA(0, "{\"type\":\"thinking_delta\","
		    "\"thinking\":\"\\ude00\"}") BSTOP(0)
		    BSTART(1, "{\"type\":\"text\",\"text\":\"\\ud83d\"}")
		    BSTOP(1) BSTART(2, "{\"type\":\"text\",\"text\":\"\"}")
		    TEXT(2, "\\ude00") BSTOP(2) MDELTA("\"end_turn\"") MSTOP,
		    MSG_HEAD "[{\"type\":\"thinking\",\"thinking\":\"" EMOJI
		    "\"},{\"type\":\"text\",\"text\":\"" FFFD "\"},{\"type\":"
		    "\"text\",\"text\":\"" FFFD "\"}]"
		    MSG_TAIL("\"end_turn\"", 15) },
	};
	char	 out[1024];
	size_t	 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ATF_CHECK_EQ_MSG(stream(cases[i].text, out, sizeof(out)),
		    STREAM_MESSAGE, "%zu: %s", i, out);
		ATF_CHECK_STREQ_MSG(out, cases[i].message, "%zu", i);
	}
}

/*
 * A block given whole in content_block_start keeps what it gave: a
 * thinking block's signature, a tool_use's input, id and name; the last
 * signature_delta is the signature (both SDKs' accumulate set it, not
 * add to it), and input_json_delta's JSON, when some came, is the input.
 * On main: the signature "" or "AB", the input {} and no id or name.
 */
ATF_TC_WITHOUT_HEAD(whole_start);
ATF_TC_BODY(whole_start, tc)
{
	static const struct {
		const char	*start, *deltas, *block;
	} cases[] = {
		{ "{\"type\":\"thinking\",\"thinking\":\"th\",\"signature\":"
		    "\"S1\"}", "", "{\"type\":\"thinking\",\"thinking\":\"th\","
		    "\"signature\":\"S1\"}" },
		{ "{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":\"\"}",
		    DELTA(0, "{\"type\":\"signature_delta\",\"signature\":"
		    "\"A\"}") DELTA(0, "{\"type\":\"signature_delta\","
		    "\"signature\":\"B\"}"), "{\"type\":\"thinking\","
		    "\"thinking\":\"\",\"signature\":\"B\"}" },
		{ "{\"type\":\"thinking\",\"thinking\":\"\",\"signature\":"
		    "\"S1\"}", DELTA(0, "{\"type\":\"thinking_delta\","
		    "\"thinking\":\"x\"}"), "{\"type\":\"thinking\",\"thinking\":"
		    "\"x\",\"signature\":\"S1\"}" },
		{ "{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"n\",\"input\":"
		    "{\"a\":1}}", "", "{\"type\":\"tool_use\",\"id\":\"t\","
		    "\"name\":\"n\",\"input\":{\"a\":1}}" },
		{ "{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"n\",\"input\":"
		    "{\"a\":1}}", DELTA(0, "{\"type\":\"input_json_delta\","
		    "\"partial_json\":\"\"}"), "{\"type\":\"tool_use\",\"id\":"
		    "\"t\",\"name\":\"n\",\"input\":{\"a\":1}}" },
		{ "{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"n\",\"input\":"
		    "{\"a\":1}}", DELTA(0, "{\"type\":\"input_json_delta\","
		    "\"partial_json\":\"{\\\"b\\\":\"}") DELTA(0, "{\"type\":"
		    "\"input_json_delta\",\"partial_json\":\"2}\"}"),
		    "{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"n\","
		    "\"input\":{\"b\":2}}" },
		/* A text block's other fields are the start's too. */
		{ "{\"type\":\"text\",\"text\":\"a\",\"citations\":null}",
		    TEXT(0, "b"), "{\"type\":\"text\",\"text\":\"ab\","
		    "\"citations\":null}" },
	};
	char	 text[2048], out[1024], want[1024];
	size_t	 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		(void)snprintf(text, sizeof(text), "%s" EV("content_block_start",
		    "{\"type\":\"content_block_start\",\"index\":0,"
		    "\"content_block\":%s}") "%s%s%s%s", START, cases[i].start,
		    cases[i].deltas, BSTOP(0), MDELTA("\"end_turn\""), MSTOP);
		(void)snprintf(want, sizeof(want), "%s[%s]%s", MSG_HEAD,
		    cases[i].block, MSG_TAIL("\"end_turn\"", 15));
		ATF_CHECK_EQ_MSG(stream(text, out, sizeof(out)),
		    STREAM_MESSAGE, "%zu: %s", i, out);
		ATF_CHECK_STREQ_MSG(out, want, "%zu", i);
	}
}

#define NAMED(name)	START TBLOCK TEXT(0, "h") "event: " name "\ndata: " \
	"{\"type\":\"content_block_delta\",\"index\":0,\"delta\":" \
	"{\"type\":\"text_delta\",\"text\":\"i\"}}\n\n" BSTOP(0) \
	MDELTA("\"end_turn\"") MSTOP

/*
 * An event's name is read whole, and one the API never sends is read
 * by its data's type, as the TypeScript SDK since 0.136 reads every
 * named event but ping and error ("yield server-sent events with
 * unrecognized event names"); the Python SDK (0.121) passes over a name
 * it does not know and fails the stream on one that is not UTF-8.  No
 * name, ping, or data of no event's type is nothing, as in both.  On
 * main a name was cut at its NUL ("ping\0x" read as ping: broken), one
 * not UTF-8 ignored, the Message returned without its text, and ping's
 * data that was not JSON of its type broke the stream.
 */
ATF_TC_WITHOUT_HEAD(names);
ATF_TC_BODY(names, tc)
{
	static const struct {
		const char	*text;
		size_t		 len;
		const char	*message;
	} cases[] = {
#define C(text, t)	{ text, sizeof(text) - 1, TEXT_MSG(t) }
		C(NAMED("content_block_delta\0x"), "hi"),
		C(NAMED("ping\0x"), "hi"),
		C(NAMED("content_block_delta\xff"), "hi"),
		C(NAMED("content_block_delta" FFFD), "hi"),
		C(NAMED("message"), "hi"),
		C(NAMED("future_event"), "hi"),
		/* The controls: its own name; none; nothing of a Message. */
		C(NAMED("content_block_delta"), "hi"),
		C(START TBLOCK TEXT(0, "h") "data: {\"type\":"
		    "\"content_block_delta\",\"index\":0,\"delta\":{\"type\":"
		    "\"text_delta\",\"text\":\"i\"}}\n\n" BSTOP(0)
		    MDELTA("\"end_turn\"") MSTOP, "h"),
		/* ping is never read, as neither SDK reads it. */
		C(NAMED("ping"), "h"),
		C(START TBLOCK TEXT(0, "h") EV("ping", "not JSON") BSTOP(0)
		    MDELTA("\"end_turn\"") MSTOP, "h"),
		C(START TBLOCK TEXT(0, "h") EV("future", "not JSON")
		    EV("future", "{\"type\":\"error\",\"error\":{}}")
		    EV("future", "{\"type\":\"ping\"}") BSTOP(0)
		    MDELTA("\"end_turn\"") MSTOP, "h"),
#undef C
	};
	char	 out[1024];
	size_t	 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ATF_CHECK_EQ_MSG(stream_len(cases[i].text, cases[i].len, out,
		    sizeof(out)), STREAM_MESSAGE, "%zu: %s", i, out);
		ATF_CHECK_STREQ_MSG(out, cases[i].message, "%zu", i);
	}
	/* Read by its type, an event keeps its place in the order. */
	ATF_CHECK_EQ(stream("event: x\ndata: {\"type\":\"content_block_stop\","
	    "\"index\":0}\n\n", out, sizeof(out)), STREAM_BROKEN);
	ATF_CHECK_STREQ(out, "content_block_stop before message_start");
}

/*
 * The events after message_stop are read: an error there ends the job
 * as that error, the Message whole kept (both SDKs read the stream to
 * its end and raise an error event's error); any other is nothing, where
 * the SDKs differ (the TypeScript SDK passes over a delta for no block,
 * the Python SDK fails on it).  On main nothing after message_stop was
 * read.
 */
ATF_TC_WITHOUT_HEAD(after_stop);
ATF_TC_BODY(after_stop, tc)
{
	char	 out[1024];

	ATF_CHECK_EQ(stream(WHOLE MSTOP EV("error", OVERLOADED), out,
	    sizeof(out)), STREAM_ERROR);
	ATF_CHECK_STREQ(out, OVERLOADED "|" HI_MSG);
	ATF_CHECK_EQ(stream(WHOLE MSTOP PING EV("error", OVERLOADED) PING,
	    out, sizeof(out)), STREAM_ERROR);
	ATF_CHECK_EQ(stream(WHOLE MSTOP "event: error\ndata: {\"type\":"
	    "\"error\",\"error\":{\"type\":\"api_error\"}}", out, sizeof(out)),
	    STREAM_ERROR);
	/* The controls: nothing else after message_stop counts. */
	ATF_CHECK_EQ(stream(WHOLE MSTOP TEXT(7, "x") START MSTOP
	    EV("content_block_delta", "not JSON") "event: error\ndata: {",
	    out, sizeof(out)), STREAM_MESSAGE);
	ATF_CHECK_STREQ(out, HI_MSG);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, message);
	ATF_TP_ADD_TC(tp, error);
	ATF_TP_ADD_TC(tp, broken);
	ATF_TP_ADD_TC(tp, last_blank);
	ATF_TP_ADD_TC(tp, surrogates);
	ATF_TP_ADD_TC(tp, whole_start);
	ATF_TP_ADD_TC(tp, names);
	ATF_TP_ADD_TC(tp, after_stop);
	return atf_no_error();
}
