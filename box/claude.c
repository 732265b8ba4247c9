/*
 * claude's box side: one request per job, no tools, the job's schema as
 * the output format; the reply checked against that schema here, since
 * the box is the only place the reply may be opened.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "claude.h"
#include "httpjson.h"
#include "schema.h"
#include "stream.h"

static char	*request_run(const struct box_job *,
		    const struct claude_settings *, size_t *,
		    struct box_outcome *);
static char	*request_check(const struct claude_settings *, size_t *);
static void	 answer_reply(const struct box_job *,
		    const struct claude_settings *, const struct json *, size_t,
		    struct box_outcome *);
static void	 answer_stream(const struct box_job *,
		    const struct claude_settings *, const struct proto_msg *,
		    struct box_outcome *);
static void	 answer_error(const struct claude_settings *, int64_t,
		    int64_t, const struct json *, size_t, struct box_outcome *);
static int	 is_event_stream(const struct proto_msg *);
static void	 answer_check(const struct claude_settings *,
		    const struct proto_msg *, struct box_outcome *);
static void	 reply_text(const struct box_job *, const struct json *,
		    size_t, struct box_outcome *);
static void	 reply_usage(const struct claude_settings *,
		    const struct json *, size_t, struct box_outcome *);
static void	 reply_keep(const struct json *, size_t, struct box_outcome *);
static char	*oneline(const char *, size_t);

/* As the configuration takes them (common/cap.c): the API's own list. */
static const char *const claude_efforts[] = {
	"low", "medium", "high", "xhigh", "max", NULL
};

static int
model_valid(const char *s)
{
	size_t	 i;

	for (i = 0; s[i] != '\0'; i++)
		if (strchr("abcdefghijklmnopqrstuvwxyz"
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_:@", s[i]) == NULL)
			return 0;
	return i > 0;
}

int
claude_settings(const struct json *j, size_t tok, struct claude_settings *cs,
    char *why, size_t whysz)
{
	long	 m, t, e, s;
	size_t	 len, i;

	memset(cs, 0, sizeof(*cs));
	if ((m = json_find(j, tok, "model")) == -1 ||
	    (t = json_find(j, tok, "max_tokens")) == -1 ||
	    (e = json_find(j, tok, "effort")) == -1 ||
	    (s = json_find(j, tok, "system_prompt")) == -1 ||
	    j->toks[tok].size != 4) {
		(void)snprintf(why, whysz, "settings: model, max_tokens, "
		    "effort and system_prompt, and nothing else");
		return -1;
	}
	if (json_string_copy(j, m, cs->model, sizeof(cs->model), &len) == -1 ||
	    !model_valid(cs->model)) {
		(void)snprintf(why, whysz, "settings: model: not a model's name");
		return -1;
	}
	if (json_int(j, t, 1, 128000, &cs->max_tokens) == -1) {
		(void)snprintf(why, whysz, "settings: max_tokens: not a whole "
		    "number from 1 to 128000");
		return -1;
	}
	for (i = 0; claude_efforts[i] != NULL; i++)
		if (json_streq(j, e, claude_efforts[i]))
			break;
	if (claude_efforts[i] == NULL) {
		(void)snprintf(why, whysz, "settings: effort: not low, medium, "
		    "high, xhigh or max");
		return -1;
	}
	(void)json_string_copy(j, e, cs->effort, sizeof(cs->effort), &len);
	if (j->toks[s].type != JSON_STRING) {
		(void)snprintf(why, whysz, "settings: system_prompt: not a "
		    "string");
		return -1;
	}
	cs->system = s;
	return 0;
}

char *
claude_request(const struct box_job *job, const struct claude_settings *cs,
    size_t *len, struct box_outcome *o)
{
	struct json	 check;
	const char	*why;
	char		*s;

	s = job->check ? request_check(cs, len) : request_run(job, cs, len, o);
	if (s == NULL) {
		if (!o->failed)
			box_fail(o, JW_BOX, 0, "out of memory for the request");
		return NULL;
	}
	/* What the launcher and the keep parse must hold together. */
	if (json_parse(&check, s, *len, &why) == -1) {
		box_fail(o, JW_BOX, 0,
		    "the schema cannot be sent: the request %s",
		    why);
		free(s);
		return NULL;
	}
	json_free(&check);
	return s;
}

static void
write_raw(struct json_writer *w, const struct json *j, size_t tok)
{
	const char	*raw;
	size_t		 n;

	raw = json_raw(j, tok, &n);
	json_write_raw(w, raw, n);
}

/* The job's prompt and schema, or -1 and the job failed. */
static int
request_input(const struct box_job *job, long *prompt, long *schema,
    struct box_outcome *o)
{
	const struct json	*j = job->j;

	*prompt = json_find(j, job->input, "prompt");
	*schema = json_find(j, job->input, "schema");
	if (*prompt == -1 || j->toks[*prompt].type != JSON_STRING) {
		box_fail(o, JW_BOX, 0,
		    "input: prompt is missing or not a string");
		return -1;
	}
	if (*schema == -1 || j->toks[*schema].type != JSON_OBJECT) {
		box_fail(o, JW_BOX, 0,
		    "input: schema is missing or not an object");
		return -1;
	}
	if (j->toks[*prompt].end - j->toks[*prompt].start > job->max_input) {
		box_fail(o, JW_BOX, 0,
		    "input: prompt is more than max_input %llu "
		    "bytes", (unsigned long long)job->max_input);
		return -1;
	}
	return 0;
}

static void
request_format(struct json_writer *w, const struct json *j, long schema)
{
	json_write_key(w, "output_config");
	json_write_object(w);
	json_write_key(w, "format");
	json_write_object(w);
	json_write_key(w, "type");
	json_write_string(w, "json_schema");
	json_write_key(w, "schema");
	write_raw(w, j, schema);
	json_write_close(w);
}

static char *
request_run(const struct box_job *job, const struct claude_settings *cs,
    size_t *len, struct box_outcome *o)
{
	struct json_writer	 w;
	const struct json	*j = job->j;
	long			 prompt, schema;

	if (request_input(job, &prompt, &schema, o) == -1)
		return NULL;
	json_writer_init(&w);
	http_json_head(&w, "type", "request", "POST", "/v1/messages",
	    "anthropic-version", CLAUDE_API_VERSION);
	json_write_key(&w, "body");
	json_write_object(&w);
	json_write_key(&w, "model");
	json_write_string(&w, cs->model);
	json_write_key(&w, "max_tokens");
	json_write_int(&w, cs->max_tokens);
	/* Bytes cross while the reply is made: a router keeps the flow. */
	json_write_key(&w, "stream");
	json_write_bool(&w, 1);
	if (j->toks[cs->system].end > j->toks[cs->system].start) {
		json_write_key(&w, "system");
		write_raw(&w, j, cs->system);
	}
	json_write_key(&w, "messages");
	json_write_array(&w);
	json_write_object(&w);
	json_write_key(&w, "role");
	json_write_string(&w, "user");
	json_write_key(&w, "content");
	write_raw(&w, j, prompt);
	json_write_close(&w);
	json_write_close(&w);
	request_format(&w, j, schema);
	json_write_key(&w, "effort");
	json_write_string(&w, cs->effort);
	json_write_close(&w);
	json_write_close(&w);
	json_write_close(&w);
	return json_writer_finish(&w, len);
}

static char *
request_check(const struct claude_settings *cs, size_t *len)
{
	struct json_writer	 w;
	char			 path[sizeof(cs->model) + 16];

	(void)snprintf(path, sizeof(path), "/v1/models/%s", cs->model);
	json_writer_init(&w);
	http_json_head(&w, "type", "request", "GET", path,
	    "anthropic-version", CLAUDE_API_VERSION);
	json_write_close(&w);
	return json_writer_finish(&w, len);
}

void
claude_answer(const struct box_job *job, const struct claude_settings *cs,
    const struct proto_msg *a, struct box_outcome *o)
{
	char	 err[CLAUDE_MESSAGE_MAX + 1];
	size_t	 len;

	if (a->type == PROTO_UNREACHABLE) {
		(void)json_string_copy(&a->j, a->f[PF_ERROR], err, sizeof(err),
		    &len);
		box_fail(o, JW_UNREACHABLE, 1,
		    "the keep or the API could not be reached: %s",
		    err);
	} else if (job->check)
		answer_check(cs, a, o);
	else if (a->status == 200 && is_event_stream(a))
		answer_stream(job, cs, a, o);
	else if (a->status == 200)
		answer_reply(job, cs, &a->j, a->f[PF_BODY], o);
	else
		answer_error(cs, a->status, a->retry_after, &a->j,
		    a->f[PF_BODY], o);
}

static int
is_event_stream(const struct proto_msg *a)
{
	char	 ct[64];
	size_t	 len, n = strlen("text/event-stream");

	if (json_string_copy(&a->j, a->f[PF_CONTENT_TYPE], ct, sizeof(ct),
	    &len) == -1)
		return 0;
	return strncasecmp(ct, "text/event-stream", n) == 0 &&
	    (ct[n] == '\0' || ct[n] == ';' || ct[n] == ' ');
}

/* An error event's type, as the status its answer would have had. */
static int64_t
stream_status(const struct json *j)
{
	static const struct {
		const char	*type;
		int64_t		 status;
	} types[] = {
		{ "invalid_request_error", 400 },
		{ "authentication_error", 401 },
		{ "billing_error", 402 },
		{ "permission_error", 403 },
		{ "not_found_error", 404 },
		{ "conflict_error", 409 },
		{ "request_too_large", 413 },
		{ "rate_limit_error", 429 },
		{ "api_error", 500 },
		{ "timeout_error", 504 },
		{ "overloaded_error", 529 },
	};
	size_t	 i;
	long	 e, t;

	if ((e = json_find(j, 0, "error")) == -1 ||
	    j->toks[e].type != JSON_OBJECT ||
	    (t = json_find(j, e, "type")) == -1)
		return 500;
	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (json_streq(j, t, types[i].type))
			return types[i].status;
	return 500;
}

/* A reply the model began keeps its usage, whatever ends the stream. */
static void
stream_usage(const struct claude_settings *cs, const struct stream_result *sr,
    struct box_outcome *o)
{
	struct json	 m;
	const char	*why;

	if (o->usage != NULL || sr->message == NULL ||
	    json_parse_lone(&m, sr->message, sr->messagelen, &why) == -1)
		return;
	reply_usage(cs, &m, 0, o);
	json_free(&m);
}

/* The events made into the Message, or the error they ended with. */
static void
stream_verdict(const struct box_job *job, const struct claude_settings *cs,
    int64_t retry_after, enum stream_verdict v, const struct stream_result *sr,
    struct box_outcome *o)
{
	struct json	 j;
	const char	*jwhy = "";

	if (v == STREAM_BROKEN)
		box_fail(o, JW_API_DOWN, 1,
		    "the API's stream is not a Messages stream: %s",
		    sr->why);
	else if (v == STREAM_ERROR && json_parse_lone(&j, sr->error,
	    sr->errorlen, &jwhy) == 0) {
		answer_error(cs, stream_status(&j), retry_after, &j, 0, o);
		json_free(&j);
	} else if (v == STREAM_MESSAGE && json_parse_lone(&j, sr->message,
	    sr->messagelen, &jwhy) == 0) {
		answer_reply(job, cs, &j, 0, o);
		json_free(&j);
	} else
		box_fail(o, JW_API_DOWN, 1,
		    "the API's stream is not a Messages stream: %s",
		    jwhy);
	stream_usage(cs, sr, o);
}

static void
answer_stream(const struct box_job *job, const struct claude_settings *cs,
    const struct proto_msg *a, struct box_outcome *o)
{
	struct stream_result	 sr;
	enum stream_verdict	 v;
	char			*body;
	size_t			 raw, len;
	size_t			 tok = a->f[PF_BODY];

	if (a->j.toks[tok].type != JSON_STRING) {
		box_fail(o, JW_API_DOWN, 1,
		    "the API's answer is not an event stream");
		return;
	}
	raw = a->j.toks[tok].end - a->j.toks[tok].start;
	if ((body = malloc(raw + 1)) == NULL) {
		box_fail(o, JW_BOX, 0, "out of memory for the API's answer");
		return;
	}
	(void)json_string_copy(&a->j, tok, body, raw + 1, &len);
	v = stream_message(body, len, &sr);
	free(body);
	stream_verdict(job, cs, a->retry_after, v, &sr, o);
	stream_result_free(&sr);
}

static void
answer_check(const struct claude_settings *cs, const struct proto_msg *a,
    struct box_outcome *o)
{
	struct json_writer	 w;
	size_t			 len;

	if (a->status == 401 || a->status == 403) {
		box_fail(o, JW_KEY, 1, "the key was rejected (%lld)",
		    (long long)a->status);
		return;
	}
	if (a->status == 404) {
		box_fail(o, JW_MODEL, 0,
		    "the model %s is not available to this key",
		    cs->model);
		return;
	}
	if (a->status != 200) {
		box_fail(o, JW_API, 0,
		    "the API answered %lld to the look-up of the "
		    "model %s", (long long)a->status, cs->model);
		return;
	}
	json_writer_init(&w);
	json_write_object(&w);
	json_write_key(&w, "model");
	json_write_string(&w, cs->model);
	json_write_close(&w);
	o->output = json_writer_finish(&w, &len);
}

/* The API's error.type and error.message, the message cut short. */
static void
error_of(const struct json *j, size_t body, char *type, size_t typesz,
    char *msg, size_t msgsz)
{
	long	 e, t, m;
	size_t	 len, i;

	type[0] = msg[0] = '\0';
	if (j->toks[body].type != JSON_OBJECT ||
	    (e = json_find(j, body, "error")) == -1)
		return;
	if ((t = json_find(j, e, "type")) != -1)
		(void)json_string_copy(j, t, type, typesz, &len);
	if ((m = json_find(j, e, "message")) != -1)
		(void)json_string_copy(j, m, msg, msgsz, &len);
	for (i = 0; msg[i] != '\0'; i++)
		if ((unsigned char)msg[i] < 0x20 || msg[i] == 0x7f)
			msg[i] = ' ';
}

static void
answer_error(const struct claude_settings *cs, int64_t status,
    int64_t retry_after, const struct json *j, size_t body,
    struct box_outcome *o)
{
	char		 type[64], msg[CLAUDE_MESSAGE_MAX + 1];
	long long	 st = status;

	error_of(j, body, type, sizeof(type), msg, sizeof(msg));
	if (st == 401 || st == 403)
		box_fail(o, JW_KEY, 1, "the key was rejected (%lld)", st);
	else if (st == 402 || strcmp(type, "billing_error") == 0 ||
	    (st == 400 && strcasestr(msg, "credit balance") != NULL))
		box_fail(o, JW_CREDIT, 1,
		    "credit exhausted (%lld): %s", st, msg);
	else if (st == 429 && retry_after > 0)
		box_fail(o, JW_RATE, 1,
		    "rate limited (429), retry after %lld s",
		    (long long)retry_after);
	else if (st == 429)
		box_fail(o, JW_RATE, 1, "rate limited (429)");
	else if (st == 404)
		box_fail(o, JW_MODEL, 1,
		    "the model %s is not available to this key "
		    "(404)", cs->model);
	else if (st >= 400 && st < 500)
		box_fail(o, JW_API, 0,
		    "the API refused the request (%lld%s%s)%s%s",
		    st, type[0] != '\0' ? " " : "", type,
		    msg[0] != '\0' ? ": " : "", msg);
	else if (st == 529)
		box_fail(o, JW_API_DOWN, 1, "the API is overloaded (529)");
	else if (st >= 500)
		box_fail(o, JW_API_DOWN, 1, "the API failed (%lld%s%s)", st,
		    type[0] != '\0' ? " " : "", type);
	else
		box_fail(o, JW_API_DOWN, 1, "the API answered %lld", st);
}

/*
 * The reply's stop_reason: "" when it has none (null or missing), "?" when
 * it is not a plain word short enough to be one the API documents.
 */
static void
reply_stop(const struct json *j, size_t body, char *stop, size_t stopsz)
{
	size_t	 len;
	long	 sr;

	stop[0] = '\0';
	if ((sr = json_find(j, body, "stop_reason")) == -1 ||
	    j->toks[sr].type == JSON_NULL)
		return;
	if (json_string_copy(j, sr, stop, stopsz, &len) == -1 ||
	    len == 0 || strspn(stop, "abcdefghijklmnopqrstuvwxyz_") != len)
		(void)strlcpy(stop, "?", stopsz);
}

/* How a reply that stopped other than whole fails, by its stop_reason. */
static const struct {
	const char	*stop;
	enum job_word	 word;
	const char	*why;
} stops[] = {
	{ "refusal", JW_DECLINED, "the model declined" },
	{ "model_context_window_exceeded", JW_CONTEXT, "the reply was cut at "
	    "the model's context window (model_context_window_exceeded)" },
	{ "pause_turn", JW_STOP_REASON, "the model stopped with stop_reason "
	    "pause_turn: its turn would go on only in a second request, and "
	    "a job makes one" },
	{ "tool_use", JW_STOP_REASON, "the model stopped with stop_reason "
	    "tool_use: the request offers no tool" },
	{ "", JW_STOP_REASON, "the model stopped without a stop_reason: the "
	    "reply cannot be known whole" },
	{ "?", JW_STOP_REASON, "the model stopped with a stop_reason that is "
	    "not a word" },
};

static void
answer_reply(const struct box_job *job, const struct claude_settings *cs,
    const struct json *j, size_t body, struct box_outcome *o)
{
	char	 stop[40];
	size_t	 i;

	if (j->toks[body].type != JSON_OBJECT ||
	    json_find(j, body, "content") == -1) {
		box_fail(o, JW_API_DOWN, 1,
		    "the API's answer is not a Messages reply");
		return;
	}
	reply_usage(cs, j, body, o);
	reply_stop(j, body, stop, sizeof(stop));
	if (strcmp(stop, "end_turn") == 0 ||
	    strcmp(stop, "stop_sequence") == 0) {
		reply_text(job, j, body, o);
		return;
	}
	/* Billed: failed with what the model wrote; asked again, it would stop so. */
	for (i = 0; i < sizeof(stops) / sizeof(stops[0]); i++)
		if (strcmp(stop, stops[i].stop) == 0)
			break;
	if (i < sizeof(stops) / sizeof(stops[0]))
		box_fail(o, stops[i].word, 0, "%s", stops[i].why);
	else if (strcmp(stop, "max_tokens") == 0)
		box_fail(o, JW_MAX_TOKENS, 0,
		    "the reply was cut at max_tokens (%lld)",
		    (long long)cs->max_tokens);
	else
		box_fail(o, JW_STOP_REASON, 0,
		    "the model stopped with stop_reason %s", stop);
	reply_keep(j, body, o);
}

static void
reply_usage(const struct claude_settings *cs, const struct json *j,
    size_t body, struct box_outcome *o)
{
	struct json_writer	 w;
	char			 model[CLAUDE_MODEL_MAX + 1];
	int64_t			 in, out;
	size_t			 len;
	long			 u, m;

	if ((u = json_find(j, body, "usage")) == -1 ||
	    json_int(j, json_find(j, u, "input_tokens"), 0, INT64_MAX,
	    &in) == -1 ||
	    json_int(j, json_find(j, u, "output_tokens"), 0, INT64_MAX,
	    &out) == -1)
		return;
	if ((m = json_find(j, body, "model")) == -1 ||
	    json_string_copy(j, m, model, sizeof(model), &len) == -1 ||
	    !model_valid(model))
		(void)strlcpy(model, cs->model, sizeof(model));
	json_writer_init(&w);
	json_write_object(&w);
	json_write_key(&w, "model");
	json_write_string(&w, model);
	json_write_key(&w, "input_tokens");
	json_write_int(&w, in);
	json_write_key(&w, "output_tokens");
	json_write_int(&w, out);
	json_write_close(&w);
	o->usage = json_writer_finish(&w, &len);
}

/* The text blocks of the reply, one after the other. */
static char *
reply_concat(const struct json *j, size_t content, size_t *len)
{
	size_t	 n, b, raw, got, total = 0;
	long	 type, text;
	char	*s = NULL, *p;

	if (j->toks[content].type != JSON_ARRAY)
		return NULL;
	for (n = 0, b = content + 1; n < j->toks[content].size;
	    n++, b = json_next(j, b)) {
		if ((type = json_find(j, b, "type")) == -1 ||
		    !json_streq(j, type, "text") ||
		    (text = json_find(j, b, "text")) == -1 ||
		    j->toks[text].type != JSON_STRING)
			continue;
		raw = j->toks[text].end - j->toks[text].start;
		if ((p = realloc(s, total + raw + 1)) == NULL) {
			free(s);
			return NULL;
		}
		s = p;
		(void)json_string_copy(j, text, s + total, raw + 1, &got);
		total += got;
	}
	*len = total;
	return s;
}

/* The text the model wrote, for the record of a job it failed: "" for none. */
static void
reply_keep(const struct json *j, size_t body, struct box_outcome *o)
{
	char	*text;
	size_t	 len = 0;

	text = reply_concat(j, json_find(j, body, "content"), &len);
	free(o->reply);
	o->reply = oneline(text != NULL ? text : "", len);
	free(text);
}

static void
reply_text(const struct box_job *job, const struct json *j, size_t body,
    struct box_outcome *o)
{
	char	 why[SCHEMA_WHY_MAX], *text;
	size_t	 len = 0;
	int	 r;

	if ((text = reply_concat(j, json_find(j, body, "content"),
	    &len)) == NULL) {
		box_fail(o, JW_SCHEMA, 0, "the reply holds no text");
		return;
	}
	r = schema_reply(job->j, json_find(job->j, job->input, "schema"), text,
	    len, why, sizeof(why));
	if (r == SCHEMA_OK)
		o->output = oneline(text, len);
	else {
		box_fail(o, JW_SCHEMA, 0,
		    r == SCHEMA_NOTJSON ? "the reply is not JSON: %s" :
		    "the reply does not satisfy the schema: %s", why);
		free(o->reply);
		o->reply = oneline(text, len);
	}
	free(text);
}

/* A JSON document holds a raw newline only as white space. */
static char *
oneline(const char *text, size_t len)
{
	struct json_writer	 w;
	struct json		 j;
	const char		*why;
	char			*s;
	size_t			 i, n;

	if (json_parse(&j, text, len, &why) == 0) {
		json_free(&j);
		if ((s = strndup(text, len)) != NULL)
			for (i = 0; i < len; i++)
				if (s[i] == '\n' || s[i] == '\r')
					s[i] = ' ';
		return s;
	}
	json_writer_init(&w);
	json_write_string_len(&w, text, len);
	return json_writer_finish(&w, &n);
}

int
claude_run(struct box_job *job, struct box_outcome *o)
{
	struct claude_settings	 cs;
	struct proto_msg	 answer;
	char			 why[PROTO_WHY_MAX], *req;
	size_t			 len;

	if (claude_settings(job->j, job->settings, &cs, why,
	    sizeof(why)) == -1) {
		box_fail(o, JW_PROTOCOL, 0, "protocol: %s", why);
		if (job->io != NULL)
			job->io->broken = 1;
		return -1;
	}
	if ((req = claude_request(job, &cs, &len, o)) == NULL)
		return -1;
	if (box_exchange(job, req, len, &answer, o) == -1) {
		free(req);
		return -1;
	}
	free(req);
	claude_answer(job, &cs, &answer, o);
	proto_msg_free(&answer);
	return o->failed ? -1 : 0;
}

const struct box_cap box_claude = { CAP_CLAUDE, claude_run, NULL, NULL, 0 };
