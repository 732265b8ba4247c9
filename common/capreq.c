/*
 * The request a box may make, held to the one box/claude.c sends.
 * Anything else (a tool, another model, more tokens, a reply not streamed,
 * a header the keep would pass on) is a taken box's choice, and refused
 * here.
 */
#include <stdio.h>
#include <string.h>

#include "capreq.h"
#include "config.h"
#include "json.h"
#include "log.h"

#define QUOTE_MAX	64	/* bytes of the box's words a reason quotes */

static const char *quote(const struct json *, size_t, char *, size_t);
static int	 keys_exact(const struct json *, size_t, const char *const *,
		    const char *, char *, size_t);
static int	 string_is(const struct json *, long, const char *);
static int	 claude_headers(const struct capreq *, int, char *, size_t);
static int	 claude_body(const struct config *, const struct capreq *,
		    char *, size_t);
static int	 claude_messages(const struct json *, size_t, char *, size_t);
static int	 claude_output(const struct config *, const struct json *,
		    size_t, char *, size_t);
static int	 claude_post(const struct config *, const struct capreq *,
		    char *, size_t);
static int	 claude_get(const struct config *, const struct capreq *,
		    char *, size_t);

/* The box's value as a reason may quote it: a string unescaped, printable. */
static const char *
quote(const struct json *j, size_t tok, char *buf, size_t bufsz)
{
	const char	*raw;
	size_t		 n, i;

	if (j->toks[tok].type == JSON_STRING)
		(void)json_string_copy(j, tok, buf, bufsz, &n);
	else {
		raw = json_raw(j, tok, &n);
		if (n >= bufsz)
			n = bufsz - 1;
		memcpy(buf, raw, n);
		buf[n] = '\0';
	}
	if (n >= bufsz)
		n = bufsz - 1;
	for (i = 0; i < n; i++)
		if ((unsigned char)buf[i] < 0x20 || (unsigned char)buf[i] > 0x7e)
			buf[i] = '?';
	buf[n] = '\0';
	return buf;
}

static int
string_is(const struct json *j, long tok, const char *s)
{
	return tok > 0 && j->toks[tok].type == JSON_STRING &&
	    json_streq(j, tok, s);
}

/* obj an object of exactly keys (NULL-ended): the first other, or missing. */
static int
keys_exact(const struct json *j, size_t obj, const char *const *keys,
    const char *what, char *why, size_t whysz)
{
	char	 q[QUOTE_MAX + 1];
	size_t	 m, k, i;

	if (obj == 0 || j->toks[obj].type != JSON_OBJECT)
		return failwhy(why, whysz, "%s is not an object", what);
	for (m = 0, k = obj + 1; m < j->toks[obj].size;
	    m++, k = json_next(j, k + 1)) {
		for (i = 0; keys[i] != NULL; i++)
			if (json_streq(j, k, keys[i]))
				break;
		if (keys[i] == NULL)
			return failwhy(why, whysz, "%s: %s is a key the box "
			    "never sends", what, quote(j, k, q, sizeof(q)));
	}
	for (i = 0; keys[i] != NULL; i++)
		if (json_find(j, obj, keys[i]) == -1)
			return failwhy(why, whysz, "%s: no %s", what, keys[i]);
	return 0;
}

void
capreq_of(struct capreq *r, const struct json *j, size_t obj)
{
	long	 t;

	memset(r, 0, sizeof(*r));
	r->j = j;
	if ((t = json_find(j, obj, "method")) != -1)
		r->method = t;
	if ((t = json_find(j, obj, "path")) != -1)
		r->path = t;
	if ((t = json_find(j, obj, "headers")) != -1)
		r->headers = t;
	if ((t = json_find(j, obj, "body")) != -1)
		r->body = t;
}

int
capreq_claude(const struct config *conf, unsigned int roles,
    const struct capreq *r, char *why, size_t whysz)
{
	char	 q[QUOTE_MAX + 1];

	if (r->method == 0 || r->j->toks[r->method].type != JSON_STRING)
		return failwhy(why, whysz, "the request has no method");
	if ((roles & CAPREQ_RUN) && json_streq(r->j, r->method, "POST"))
		return claude_post(conf, r, why, whysz);
	if ((roles & CAPREQ_CHECK) && json_streq(r->j, r->method, "GET"))
		return claude_get(conf, r, why, whysz);
	return failwhy(why, whysz, "method %s: %s", quote(r->j, r->method, q,
	    sizeof(q)), roles == CAPREQ_CHECK ? "a check asks with a GET" :
	    roles == CAPREQ_RUN ? "a job asks with a POST" :
	    "a job asks with a POST, a check with a GET");
}

/* A job's: the Messages API, the operator's settings, the job's prompt. */
static int
claude_post(const struct config *conf, const struct capreq *r, char *why,
    size_t whysz)
{
	char	 q[QUOTE_MAX + 1];

	if (!string_is(r->j, r->path, "/v1/messages"))
		return failwhy(why, whysz, "path %s is not the Messages API "
		    "(/v1/messages)", r->path == 0 ? "(none)" :
		    quote(r->j, r->path, q, sizeof(q)));
	if (claude_headers(r, 1, why, whysz) == -1)
		return -1;
	return claude_body(conf, r, why, whysz);
}

/* A check's: the look-up of the configured model, no body. */
static int
claude_get(const struct config *conf, const struct capreq *r, char *why,
    size_t whysz)
{
	char	 q[QUOTE_MAX + 1], path[256];

	(void)snprintf(path, sizeof(path), "/v1/models/%s",
	    conf->claude.model != NULL ? conf->claude.model : "");
	if (!string_is(r->j, r->path, path))
		return failwhy(why, whysz, "path %s is not the look-up of the "
		    "model configured (%s)", r->path == 0 ? "(none)" :
		    quote(r->j, r->path, q, sizeof(q)), path);
	if (r->body != 0)
		return failwhy(why, whysz, "a GET with a body");
	return claude_headers(r, 0, why, whysz);
}

/* The box's two headers, a GET's one; the keep adds the key itself. */
static int
claude_headers(const struct capreq *r, int post, char *why, size_t whysz)
{
	static const char *const get[] = { "anthropic-version", NULL };
	static const char *const both[] = { "content-type",
	    "anthropic-version", NULL };
	long	 t;

	if (keys_exact(r->j, r->headers, post ? both : get, "the headers",
	    why, whysz) == -1)
		return -1;
	t = json_find(r->j, r->headers, "anthropic-version");
	if (!string_is(r->j, t, CAPREQ_ANTHROPIC_VERSION))
		return failwhy(why, whysz, "header anthropic-version is not "
		    CAPREQ_ANTHROPIC_VERSION);
	t = json_find(r->j, r->headers, "content-type");
	if (post && !string_is(r->j, t, "application/json"))
		return failwhy(why, whysz, "header content-type is not "
		    "application/json");
	return 0;
}

static int
claude_body(const struct config *conf, const struct capreq *r, char *why,
    size_t whysz)
{
	const struct claude_conf *cl = &conf->claude;
	const struct json *j = r->j;
	static const char *const with[] = { "model", "max_tokens", "stream",
	    "system", "messages", "output_config", NULL };
	static const char *const without[] = { "model", "max_tokens",
	    "stream", "messages", "output_config", NULL };
	char		 q[QUOTE_MAX + 1];
	int64_t		 n;
	long		 t;

	if (keys_exact(j, r->body, cl->system_prompt != NULL &&
	    cl->system_prompt[0] != '\0' ? with : without, "the body", why,
	    whysz) == -1)
		return -1;
	t = json_find(j, r->body, "model");
	if (!string_is(j, t, cl->model != NULL ? cl->model : ""))
		return failwhy(why, whysz, "the box asked for model %s, the "
		    "configuration says %s", quote(j, t, q, sizeof(q)),
		    cl->model != NULL ? cl->model : "none");
	t = json_find(j, r->body, "max_tokens");
	if (json_int(j, t, 1, INT64_MAX, &n) == -1 || n != cl->max_tokens)
		return failwhy(why, whysz, "the box asked for max_tokens %s, "
		    "the configuration says %u", quote(j, t, q, sizeof(q)),
		    cl->max_tokens);
	if (j->toks[json_find(j, r->body, "stream")].type != JSON_TRUE)
		return failwhy(why, whysz, "the box asked for stream %s: its "
		    "reply is streamed", quote(j, json_find(j, r->body,
		    "stream"), q, sizeof(q)));
	if ((t = json_find(j, r->body, "system")) != -1 &&
	    !string_is(j, t, cl->system_prompt))
		return failwhy(why, whysz, "the box's system prompt is not the "
		    "configuration's");
	if (claude_messages(j, json_find(j, r->body, "messages"), why,
	    whysz) == -1)
		return -1;
	return claude_output(conf, j, json_find(j, r->body, "output_config"),
	    why, whysz);
}

/* One message, the user's, its content the job's prompt: a string. */
static int
claude_messages(const struct json *j, size_t msgs, char *why, size_t whysz)
{
	static const char *const keys[] = { "role", "content", NULL };
	size_t	 m = msgs + 1;

	if (j->toks[msgs].type != JSON_ARRAY || j->toks[msgs].size != 1)
		return failwhy(why, whysz, "messages is not one message");
	if (keys_exact(j, m, keys, "the message", why, whysz) == -1)
		return -1;
	if (!string_is(j, json_find(j, m, "role"), "user"))
		return failwhy(why, whysz, "the message is not the user's");
	if (j->toks[json_find(j, m, "content")].type != JSON_STRING)
		return failwhy(why, whysz, "the message's content is not a "
		    "string: the box sends the prompt as text");
	return 0;
}

/* The job's schema as the output format, and the configured effort. */
static int
claude_output(const struct config *conf, const struct json *j, size_t oc,
    char *why, size_t whysz)
{
	static const char *const keys[] = { "format", "effort", NULL };
	static const char *const fkeys[] = { "type", "schema", NULL };
	const char	*effort = conf->claude.effort;
	char		 q[QUOTE_MAX + 1];
	long		 t, f;

	if (keys_exact(j, oc, keys, "output_config", why, whysz) == -1)
		return -1;
	t = json_find(j, oc, "effort");
	if (!string_is(j, t, effort != NULL ? effort : ""))
		return failwhy(why, whysz, "the box asked for effort %s, the "
		    "configuration says %s", quote(j, t, q, sizeof(q)),
		    effort != NULL ? effort : "none");
	f = json_find(j, oc, "format");
	if (keys_exact(j, f, fkeys, "output_config's format", why,
	    whysz) == -1)
		return -1;
	if (!string_is(j, json_find(j, f, "type"), "json_schema"))
		return failwhy(why, whysz, "output_config's format is not "
		    "json_schema");
	if (j->toks[json_find(j, f, "schema")].type != JSON_OBJECT)
		return failwhy(why, whysz, "output_config's schema is not an "
		    "object");
	return 0;
}
