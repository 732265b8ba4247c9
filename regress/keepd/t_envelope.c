/*
 * S1 S7: the keep's closed envelope (keepd/envelope.c).  A good envelope
 * is the control; each attack is the same envelope with one thing
 * changed, refused for its own reason.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>

#include "cap.h"
#include "../../keepd/envelope.h"

/* notes, a source; each capability's destination, named after it. */
static const char *const *
known(const char *name, void *arg)
{
	static const char *const none[] = { NULL };
	int	 c;

	(void)arg;
	if (strcmp(name, "notes") == 0)
		return none;
	if ((c = cap_from_name(name)) == -1)
		return NULL;
	return cap_table[c]->headers != NULL ? cap_table[c]->headers : none;
}

static const char *
parse(struct envelope *env, const char *s, size_t len)
{
	static char	 why[ENVELOPE_WHY_MAX];

	if (envelope_parse(env, s, len, known, NULL, why, sizeof(why)) == 0)
		return NULL;
	return why;
}

static void
taken(const char *s)
{
	struct envelope	 env;
	const char	*why = parse(&env, s, strlen(s));

	ATF_CHECK_MSG(why == NULL, "%s refused: %s", s, why ? why : "");
}

static void
refused_len(const char *s, size_t len, const char *reason)
{
	struct envelope	 env;
	const char	*why = parse(&env, s, len);

	ATF_CHECK_MSG(why != NULL && strcmp(why, reason) == 0,
	    "%s: wanted \"%s\", got \"%s\"", s, reason,
	    why ? why : "(taken)");
}

static void
refused(const char *s, const char *reason)
{
	refused_len(s, strlen(s), reason);
}

/* The good envelope with path p. */
static void
path_refused(const char *p, const char *reason)
{
	char	 s[4096], want[512];

	(void)snprintf(s, sizeof(s), "{\"destination\":\"notes\","
	    "\"method\":\"GET\",\"path\":\"%s\"}", p);
	(void)snprintf(want, sizeof(want), "field path: %s", reason);
	refused(s, want);
}

static void
path_taken(const char *p)
{
	const char	*why;

	ATF_CHECK_MSG(envelope_path_check(p, strlen(p), &why) == 0,
	    "%s refused: %s", p, why);
}

static void
header_refused(const char *name, const char *value, const char *reason)
{
	char	 s[4096];

	(void)snprintf(s, sizeof(s), "{\"destination\":\"notes\","
	    "\"method\":\"GET\",\"path\":\"/ping\",\"headers\":{\"%s\":%s}}",
	    name, value);
	refused(s, reason);
}

static void
header_taken(const char *name, const char *value)
{
	char	 s[4096];

	(void)snprintf(s, sizeof(s), "{\"destination\":\"notes\","
	    "\"method\":\"GET\",\"path\":\"/ping\",\"headers\":{\"%s\":%s}}",
	    name, value);
	taken(s);
}

ATF_TC_WITHOUT_HEAD(good);
ATF_TC_BODY(good, tc)
{
	const char	*s = "{\"destination\":\"notes\",\"method\":\"POST\","
			    "\"path\":\"/jobs/claim\",\"headers\":{"
			    "\"Content-Type\":\"application/json\","
			    "\"accept\":\"application/json\"},"
			    "\"body\": {\"capabilities\":[\"ocr\"], \"limit\":1} }";
	const char	*body = "{\"capabilities\":[\"ocr\"], \"limit\":1}";
	struct envelope	 env;
	const char	*why;

	ATF_REQUIRE_MSG((why = parse(&env, s, strlen(s))) == NULL, "%s", why);
	ATF_CHECK_STREQ(env.destination, "notes");
	ATF_CHECK_EQ(env.method, ENVELOPE_POST);
	ATF_CHECK_STREQ(env.path, "/jobs/claim");
	ATF_CHECK_EQ(env.nhdrs, 2);
	ATF_CHECK(envelope_header(&env, "content-type") != NULL &&
	    strcmp(envelope_header(&env, "content-type"),
	    "application/json") == 0);
	ATF_CHECK(envelope_header(&env, "accept") != NULL);
	ATF_CHECK(envelope_header(&env, "anthropic-version") == NULL);
	/* The body is the sender's bytes, spaces and all. */
	ATF_REQUIRE(env.body != NULL);
	ATF_CHECK_EQ(env.bodylen, strlen(body));
	ATF_CHECK(memcmp(env.body, body, env.bodylen) == 0);
	ATF_CHECK(env.body > s && env.body < s + strlen(s));

	taken("{\"destination\":\"claude\",\"method\":\"GET\",\"path\":\"/\"}");
	taken("{\"path\":\"/v1/messages\",\"method\":\"POST\","
	    "\"destination\":\"claude\",\"body\":\"text\","
	    "\"headers\":{\"anthropic-version\":\"2023-06-01\"}}");
	s = "{\"destination\":\"notes\",\"method\":\"POST\",\"path\":\"/a\","
	    "\"body\":\"x\\\"y\"}";
	ATF_REQUIRE(parse(&env, s, strlen(s)) == NULL);
	ATF_CHECK_EQ(env.bodylen, 6);
	ATF_CHECK(memcmp(env.body, "\"x\\\"y\"", 6) == 0);
}

ATF_TC_WITHOUT_HEAD(paths_written);
ATF_TC_BODY(paths_written, tc)
{
	char	 long_path[2100];

	path_taken("/");
	path_taken("/jobs/claim");
	path_taken("/a.b/c-d_e~f/%41%7e/x.");
	path_taken("/.well-known/x");
	path_refused("jobs", "the path does not start with /");
	path_refused("", "the path does not start with /");
	path_refused("/a/../b", "the path holds ..");
	path_refused("/a/..", "the path holds ..");
	path_refused("/a/./b", "the path holds . as a segment");
	path_refused("/a/.", "the path holds . as a segment");
	path_refused("/a//b", "the path holds //");
	path_refused("//evil.example/x", "the path holds //");
	path_refused("/a\\\\b", "the path holds \\");
	path_refused("/a?b=1", "the path holds a query");
	path_refused("/a#top", "the path holds a fragment");
	path_refused("/http://evil", "the path holds : (a scheme; "
	    "refused anywhere)");
	path_refused("/a:b", "the path holds : (a scheme; refused anywhere)");
	path_refused("/a b", "the path holds a space");
	path_refused("/a\\tb", "the path holds a control character");
	path_refused("/a\\u0000b", "the path holds a control character");
	path_refused("/a\\r\\nHost: x", "the path holds a control character");
	path_refused("/a\x7f", "the path holds a control character");
	path_refused("/caf\xc3\xa9", "the path holds a byte outside printable "
	    "ASCII");
	path_refused("/\\u00e9", "the path holds a byte outside printable "
	    "ASCII");
	memset(long_path, 'a', sizeof(long_path));
	long_path[0] = '/';
	long_path[2048] = '\0';
	path_taken(long_path);
	long_path[2048] = 'a';
	long_path[2049] = '\0';
	path_refused(long_path, "the path is longer than 2048 bytes");
}

ATF_TC_WITHOUT_HEAD(paths_encoded);
ATF_TC_BODY(paths_encoded, tc)
{
	path_refused("/a/%2e%2e/b", "the path holds an encoded ..");
	path_refused("/a/%2E%2e/b", "the path holds an encoded ..");
	path_refused("/a/.%2e", "the path holds an encoded ..");
	path_refused("/a/%2e/b", "the path holds an encoded . as a segment");
	path_refused("/a/%2f%2fb", "the path holds an encoded //");
	path_refused("/a%2F/b", "the path holds an encoded //");
	path_refused("/a%2fb", "the path holds an encoded /");
	path_refused("/a%2Fb", "the path holds an encoded /");
	path_refused("/jobs/1%2Fother/result", "the path holds an encoded /");
	path_refused("/a%5cb", "the path holds an encoded \\");
	path_refused("/a%3fb", "the path holds an encoded query");
	path_refused("/a%23b", "the path holds an encoded fragment");
	path_refused("/a%3ab", "the path holds an encoded : (a scheme; "
	    "refused anywhere)");
	path_refused("/a%20b", "the path holds an encoded space");
	path_refused("/a%25b", "the path holds an encoded %");
	path_refused("/a%252e%252e", "the path holds an encoded %");
	path_refused("/a%00", "the path holds an encoded control character");
	path_refused("/a%0a", "the path holds an encoded control character");
	path_refused("/a%0D%0A", "the path holds an encoded control "
	    "character");
	path_refused("/a%7f", "the path holds an encoded control character");
	path_refused("/caf%c3%a9", "the path holds an encoded byte outside "
	    "printable ASCII");
	path_refused("/a%", "the path holds a % not followed by two hex "
	    "digits");
	path_refused("/a%2", "the path holds a % not followed by two hex "
	    "digits");
	path_refused("/a%zz", "the path holds a % not followed by two hex "
	    "digits");
	path_refused("/a%g0", "the path holds a % not followed by two hex "
	    "digits");
	/* The control: encoded bytes the rules allow. */
	path_taken("/a%41b%2dc");
}

ATF_TC_WITHOUT_HEAD(headers);
ATF_TC_BODY(headers, tc)
{
	char	 v[300];

	taken("{\"destination\":\"notes\",\"method\":\"GET\",\"path\":\"/p\","
	    "\"headers\":{\"ACCEPT\":\"text/plain; q=0.5\"}}");
	taken("{\"destination\":\"notes\",\"method\":\"GET\",\"path\":\"/p\","
	    "\"headers\":{}}");
	header_refused("authorization", "\"Bearer x\"",
	    "header authorization: refused: the keep adds the secret itself");
	header_refused("Authorization", "\"Bearer x\"",
	    "header authorization: refused: the keep adds the secret itself");
	header_refused("\\u0041uthorization", "\"Bearer x\"",
	    "header authorization: refused: the keep adds the secret itself");
	header_refused("proxy-authorization", "\"x\"",
	    "header proxy-authorization: refused: the keep adds the secret "
	    "itself");
	header_refused("X-Api-Key", "\"x\"",
	    "header x-api-key: refused: the keep adds the secret itself");
	header_refused("cookie", "\"a=b\"",
	    "header cookie: refused: the keep adds the secret itself");
	header_refused("x-foo", "\"1\"", "header x-foo: not one the keep "
	    "takes for notes (content-type, accept)");
	header_refused("host", "\"evil\"", "header host: not one the keep "
	    "takes for notes (content-type, accept)");
	header_refused("content-type\\r\\nx", "\"1\"",
	    "header content-type??x: not one the keep takes for notes "
	    "(content-type, accept)");
	/* A capability's header is its destination's alone (its row's). */
	header_refused("anthropic-version", "\"2023-06-01\"",
	    "header anthropic-version: not one the keep takes for notes "
	    "(content-type, accept)");
	taken("{\"headers\":{\"anthropic-version\":\"2023-06-01\"},"
	    "\"destination\":\"claude\",\"method\":\"GET\",\"path\":\"/p\"}");
	refused("{\"headers\":{\"x-foo\":\"1\"},\"destination\":\"claude\","
	    "\"method\":\"GET\",\"path\":\"/p\"}", "header x-foo: not one the "
	    "keep takes for claude (content-type, accept, anthropic-version)");
	refused("{\"headers\":{\"accept\":\"1\"},\"method\":\"GET\","
	    "\"path\":\"/p\"}", "field destination: missing");
	header_refused("accept", "\"a\\r\\nx-api-key: k\"",
	    "header accept: the value holds a line break");
	header_refused("accept", "\"a\\nb\"",
	    "header accept: the value holds a line break");
	header_refused("accept", "\"a\\u0000b\"",
	    "header accept: the value holds a byte outside printable ASCII");
	header_refused("accept", "\"a\\tb\"",
	    "header accept: the value holds a byte outside printable ASCII");
	header_refused("accept", "\"caf\xc3\xa9\"",
	    "header accept: the value holds a byte outside printable ASCII");
	header_refused("accept", "1", "header accept: the value is not a "
	    "string");
	refused("{\"destination\":\"notes\",\"method\":\"GET\",\"path\":"
	    "\"/p\",\"headers\":{\"accept\":\"a\",\"Accept\":\"b\"}}",
	    "header accept: given twice");
	refused("{\"destination\":\"notes\",\"method\":\"GET\",\"path\":"
	    "\"/p\",\"headers\":[\"accept\"]}",
	    "field headers: not an object");
	memset(v, 'a', sizeof(v));
	v[0] = '"';
	v[257] = '"';
	v[258] = '\0';
	header_taken("accept", v);		/* 256 bytes */
	v[257] = 'a';
	v[258] = '"';
	v[259] = '\0';
	header_refused("accept", v, "header accept: the value is longer "
	    "than 256 bytes");
}

ATF_TC_WITHOUT_HEAD(fields);
ATF_TC_BODY(fields, tc)
{
	refused("{\"destination\":\"notes\",\"method\":\"GET\",\"path\":\"/p\","
	    "\"url\":\"https://evil/\"}",
	    "field url: the envelope has no such field");
	refused("{\"destination\":\"notes\",\"method\":\"GET\",\"path\":\"/p\","
	    "\"path\":\"/q\"}", "the envelope is not valid JSON: a key given "
	    "twice in one object (byte 50)");
	refused("{\"destination\":\"notes\",\"method\":\"GET\",\"path\":\"/p\","
	    "\"body\":{}}", "field body: a GET has no body");
	refused("{\"destination\":\"notes\",\"method\":\"GET\",\"path\":\"/p\","
	    "\"body\":null}", "field body: a GET has no body");
	taken("{\"destination\":\"notes\",\"method\":\"POST\",\"path\":\"/p\","
	    "\"body\":null}");
	refused("{\"destination\":\"notes\",\"method\":\"PUT\",\"path\":\"/p\"}",
	    "method PUT: only GET and POST");
	refused("{\"destination\":\"notes\",\"method\":\"get\",\"path\":\"/p\"}",
	    "method get: only GET and POST");
	refused("{\"destination\":\"notes\",\"method\":\"GET \",\"path\":\"/p\"}",
	    "method GET?: only GET and POST");
	refused("{\"destination\":\"notes\",\"path\":\"/p\"}",
	    "field method: missing");
	refused("{\"method\":\"GET\",\"path\":\"/p\"}",
	    "field destination: missing");
	refused("{\"destination\":\"notes\",\"method\":\"GET\"}",
	    "field path: missing");
}

ATF_TC_WITHOUT_HEAD(types);
ATF_TC_BODY(types, tc)
{
	refused("[]", "the envelope is not a JSON object");
	refused("\"x\"", "the envelope is not a JSON object");
	refused("{\"destination\":1,\"method\":\"GET\",\"path\":\"/p\"}",
	    "field destination: not a string");
	refused("{\"destination\":\"notes\",\"method\":[\"GET\"],\"path\":"
	    "\"/p\"}", "field method: not a string");
	refused("{\"destination\":\"notes\",\"method\":\"GET\",\"path\":"
	    "{\"a\":1}}", "field path: not a string");
	refused("{\"destination\":\"notes\",\"method\":\"GET\",\"path\":\"/p\","
	    "\"headers\":\"accept: x\"}", "field headers: not an object");
	refused("{\"destination\":\"notes\",\"method\":\"GET\",\"path\":\"/p\"",
	    "the envelope is not valid JSON: the text ends inside a value "
	    "(byte 49)");
	refused("{\"destination\":\"notes\",\"method\":\"GET\",\"path\":\"/p\"}x",
	    "the envelope is not valid JSON: an unexpected character "
	    "(byte 50)");
}

/* Exactly 33 MiB is taken (a good envelope, then spaces); a byte more is not. */
ATF_TC_WITHOUT_HEAD(size);
ATF_TC_BODY(size, tc)
{
	const char	*s = "{\"destination\":\"notes\",\"method\":\"GET\","
			    "\"path\":\"/p\"}";
	struct envelope	 env;
	const char	*why;
	char		*big;

	ATF_REQUIRE((big = malloc(ENVELOPE_MAX + 1)) != NULL);
	memset(big, ' ', ENVELOPE_MAX + 1);
	memcpy(big, s, strlen(s));
	why = parse(&env, big, ENVELOPE_MAX);
	ATF_CHECK_MSG(why == NULL, "%s", why);
	why = parse(&env, big, ENVELOPE_MAX + 1);
	ATF_CHECK(why != NULL &&
	    strcmp(why, "the envelope is larger than 33 MiB") == 0);
	free(big);
}

ATF_TC_WITHOUT_HEAD(destination);
ATF_TC_BODY(destination, tc)
{
	refused("{\"destination\":\"other\",\"method\":\"GET\",\"path\":\"/p\"}",
	    "destination other: not a configured destination");
	refused("{\"destination\":\"Notes\",\"method\":\"GET\",\"path\":\"/p\"}",
	    "field destination: Notes is not a name: use only a-z, 0-9, - "
	    "and _, and start with a letter or a digit");
	refused("{\"destination\":\"-notes\",\"method\":\"GET\",\"path\":"
	    "\"/p\"}", "field destination: -notes is not a name: use only "
	    "a-z, 0-9, - and _, and start with a letter or a digit");
	refused("{\"destination\":\"notes\\u0000x\",\"method\":\"GET\","
	    "\"path\":\"/p\"}", "field destination: notes?x is not a name: "
	    "it holds a NUL");
	refused("{\"destination\":\"\",\"method\":\"GET\",\"path\":\"/p\"}",
	    "field destination:  is empty: a name has 1 to 64 characters");
	refused("{\"destination\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaa\",\"method\":\"GET\",\"path\":\"/p\"}",
	    "field destination: is longer than 64 characters: a name has 1 "
	    "to 64");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, good);
	ATF_TP_ADD_TC(tp, paths_written);
	ATF_TP_ADD_TC(tp, paths_encoded);
	ATF_TP_ADD_TC(tp, headers);
	ATF_TP_ADD_TC(tp, fields);
	ATF_TP_ADD_TC(tp, types);
	ATF_TP_ADD_TC(tp, size);
	ATF_TP_ADD_TC(tp, destination);
	return atf_no_error();
}
