/*
 * S7: the source contract (common/contract.c): the envelopes, what an
 * answer means, and the strict reading of a claim's answer.  Each
 * refusal is checked for its reason beside a control that is taken.
 * The envelopes go through the keep's own envelope rules: that is the
 * proof that every id the contract takes is safe in the keep's path.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>

#include "contract.h"
/* The keep's rules themselves, not a copy: this test links no keepd library. */
#include "../../keepd/envelope.c"

#define CLAUDE	CAP_BIT(CAP_CLAUDE)
#define OCR	CAP_BIT(CAP_OCR)
#define BOTH	(CLAUDE | OCR)

static const char *const *
known(const char *name, void *arg)
{
	static const char *const none[] = { NULL };

	return strcmp(name, "notes") == 0 ? none : NULL;
}

/* The keep takes the envelope, and its path is path. */
static void
keep_takes(const char *e, size_t len, const char *path)
{
	struct envelope	 env;
	char		 why[ENVELOPE_WHY_MAX];

	ATF_REQUIRE(e != NULL);
	ATF_CHECK_MSG(envelope_parse(&env, e, len, known, NULL, why,
	    sizeof(why)) == 0, "the keep refused %s: %s", e, why);
	ATF_CHECK_STREQ(env.path, path);
}

ATF_TC_WITHOUT_HEAD(envelopes);
ATF_TC_BODY(envelopes, tc)
{
	char	*e;
	size_t	 len;

	e = contract_ping_envelope("notes", &len);
	ATF_CHECK_STREQ(e, "{\"destination\":\"notes\",\"method\":\"GET\","
	    "\"path\":\"/ping\",\"headers\":{\"accept\":\"application/json\"}}");
	keep_takes(e, len, "/ping");
	free(e);
	e = contract_claim_envelope("notes", OCR | CLAUDE, CONTRACT_LIMIT, &len);
	ATF_CHECK_STREQ(e, "{\"destination\":\"notes\",\"method\":\"POST\","
	    "\"path\":\"/jobs/claim\",\"headers\":{\"content-type\":"
	    "\"application/json\",\"accept\":\"application/json\"},"
	    "\"body\":{\"capabilities\":[\"claude\",\"ocr\"],\"limit\":1}}");
	keep_takes(e, len, "/jobs/claim");
	free(e);
	e = contract_claim_envelope("notes", OCR, 1, &len);
	ATF_CHECK(strstr(e, "{\"capabilities\":[\"ocr\"],\"limit\":1}") != NULL);
	free(e);
}

/* R1: a reply goes back as data, in its own source's result envelope. */
ATF_TC_WITHOUT_HEAD(results);
ATF_TC_BODY(results, tc)
{
	static const char head[] = "{\"destination\":\"notes\",\"method\":"
	    "\"POST\",\"path\":\"/jobs/42/result\",\"headers\":{"
	    "\"content-type\":\"application/json\",\"accept\":"
	    "\"application/json\"},\"body\":";
	char	*e, want[512];
	size_t	 len;

	e = contract_result_envelope("notes", "42", CONTRACT_SUCCEEDED,
	    "{\"tag\": \"x\"}", 12, NULL, &len);
	ATF_REQUIRE(e != NULL);
	(void)snprintf(want, sizeof(want), "%s%s", head,
	    "{\"status\":\"succeeded\",\"output\":{\"tag\": \"x\"}}}");
	ATF_CHECK_STREQ(e, want);
	keep_takes(e, len, "/jobs/42/result");
	free(e);
	e = contract_result_envelope("notes", "42", CONTRACT_FAILED_JOB, NULL, 0,
	    "the \"reply\"\n", &len);
	(void)snprintf(want, sizeof(want), "%s%s", head,
	    "{\"status\":\"failed\",\"error\":\"the \\\"reply\\\"\\n\"}}");
	ATF_CHECK_STREQ(e, want);
	free(e);
	e = contract_result_envelope("notes", "42", CONTRACT_RELEASED, NULL, 0,
	    NULL, &len);
	(void)snprintf(want, sizeof(want), "%s%s", head,
	    "{\"status\":\"released\"}}");
	ATF_CHECK_STREQ(e, want);
	free(e);
	/* An output that is not JSON, or an id the contract refuses: no envelope. */
	errno = 0;
	ATF_CHECK(contract_result_envelope("notes", "42", CONTRACT_SUCCEEDED,
	    "{\"tag\":", 7, NULL, &len) == NULL && errno == EINVAL);
	ATF_CHECK(contract_result_envelope("notes", "../x", CONTRACT_RELEASED,
	    NULL, 0, NULL, &len) == NULL && errno == EINVAL);
}

/* Every character a text id may hold passes the keep's path rules. */
ATF_TC_WITHOUT_HEAD(ids_in_paths);
ATF_TC_BODY(ids_in_paths, tc)
{
	char	 id[2], path[64], *e;
	size_t	 len;
	int	 c, taken = 0;

	for (c = 1; c < 256; c++) {
		id[0] = (char)c;
		id[1] = '\0';
		if (!contract_id_valid(id))
			continue;
		taken++;
		e = contract_result_envelope("notes", id, CONTRACT_RELEASED,
		    NULL, 0, NULL, &len);
		(void)snprintf(path, sizeof(path), "/jobs/%s/result", id);
		keep_takes(e, len, path);
		free(e);
	}
	/* 94 printable characters less / \ . ? # : % */
	ATF_CHECK_EQ(taken, 94 - 7);
}

static struct keepcli_answer
answer(uint32_t status, const char *body)
{
	struct keepcli_answer	 a;

	memset(&a, 0, sizeof(a));
	a.status = status;
	a.body = (char *)body;
	a.body_len = strlen(body);
	return a;
}

static void
verdict(uint32_t status, const char *body, int result,
    enum contract_verdict want, const char *wantwhy)
{
	struct keepcli_answer	 a = answer(status, body);
	char			 why[CONTRACT_WHY_MAX] = "";

	ATF_CHECK_EQ_MSG(contract_answer(&a, result, why, sizeof(why)), want,
	    "status %u", status);
	if (wantwhy != NULL)
		ATF_CHECK_STREQ(why, wantwhy);
}

ATF_TC_WITHOUT_HEAD(answers);
ATF_TC_BODY(answers, tc)
{
	char	 big[400], want[300];

	verdict(200, "{}", 0, CONTRACT_OK, NULL);
	verdict(204, "", 1, CONTRACT_OK, NULL);
	verdict(401, "", 0, CONTRACT_TOKEN, "status 401: the token was rejected");
	verdict(403, "", 1, CONTRACT_TOKEN, "status 403: the token was rejected");
	verdict(302, "", 0, CONTRACT_REDIRECT,
	    "status 302: a redirect is never followed");
	verdict(307, "", 1, CONTRACT_REDIRECT, NULL);
	/* 409 means gone on a result only; on a claim it is a failure. */
	verdict(409, "", 1, CONTRACT_GONE,
	    "status 409: the source no longer holds the job");
	verdict(409, "busy", 0, CONTRACT_FAILED, "status 409: busy");
	verdict(500, "first\nsecond", 0, CONTRACT_FAILED, "status 500: first");
	verdict(502, "", 0, CONTRACT_FAILED, "status 502: (the body is empty)");
	verdict(400, "bad\x1b[31m\xc2\x9b", 0, CONTRACT_FAILED,
	    "status 400: bad\\x1b[31m\\xc2\\x9b");
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	(void)snprintf(want, sizeof(want), "status 500: %.200s...", big);
	verdict(500, big, 0, CONTRACT_FAILED, want);
	ATF_CHECK(contract_backs_off(CONTRACT_FAILED));
	ATF_CHECK(contract_backs_off(CONTRACT_REDIRECT));
	ATF_CHECK(contract_backs_off(CONTRACT_TOKEN));
	ATF_CHECK(contract_backs_off(CONTRACT_UNREACHABLE));
	ATF_CHECK(!contract_backs_off(CONTRACT_OK));
	ATF_CHECK(!contract_backs_off(CONTRACT_GONE));
	ATF_CHECK(!contract_backs_off(CONTRACT_KEEP));
	/* sandcastle(7): a source the gate refused is asked at its poll_interval. */
	ATF_CHECK(!contract_backs_off(CONTRACT_REFUSED));
}

static void
refused(uint32_t code, const char *reason, enum contract_verdict want)
{
	struct keepcli_answer	 a;
	char			 why[CONTRACT_WHY_MAX], w[300];

	memset(&a, 0, sizeof(a));
	a.refused = 1;
	a.code = code;
	(void)strlcpy(a.reason, reason, sizeof(a.reason));
	ATF_CHECK_EQ(contract_answer(&a, 0, why, sizeof(why)), want);
	(void)snprintf(w, sizeof(w), "the keep refused the call: %s", reason);
	ATF_CHECK_STREQ(why, w);
}

ATF_TC_WITHOUT_HEAD(keep_refusals);
ATF_TC_BODY(keep_refusals, tc)
{
	refused(KEEP_R_SECRET, "unusable secret: notes", CONTRACT_KEEP);
	refused(KEEP_R_INTERNAL, "out of memory", CONTRACT_KEEP);
	refused(KEEP_R_TIMEOUT, "30 s passed", CONTRACT_UNREACHABLE);
	refused(KEEP_R_GATE, "the gate cannot reach it: connect "
	    "198.20.5.10:443: Connection refused", CONTRACT_UNREACHABLE);
	refused(KEEP_R_REFUSED, "the gate refused it: the name resolves to "
	    "the internal network", CONTRACT_REFUSED);
	refused(KEEP_R_TLS, "certificate refused", CONTRACT_UNREACHABLE);
}

static void
ping(const char *body, int64_t want, const char *wantwhy)
{
	uint64_t	 n = 12345;
	char		 why[CONTRACT_WHY_MAX] = "";
	int		 rv;

	rv = contract_ping_parse(body, strlen(body), &n, why, sizeof(why));
	if (want >= 0) {
		ATF_CHECK_EQ_MSG(rv, 0, "%s refused: %s", body, why);
		ATF_CHECK_EQ_MSG(n, (uint64_t)want, "%s", body);
	} else {
		ATF_CHECK_EQ_MSG(rv, -1, "%s taken", body);
		if (wantwhy != NULL)
			ATF_CHECK_STREQ(why, wantwhy);
	}
}

ATF_TC_WITHOUT_HEAD(pings);
ATF_TC_BODY(pings, tc)
{
	ping("{\"waiting\":3}", 3, NULL);
	ping("{\"waiting\":0,\"version\":\"x\",\"url\":\"http://a\"}", 0, NULL);
	ping("{\"waiting\":9223372036854775807}", INT64_MAX, NULL);
	ping("{\"waiting\":-1}", -1, "waiting is not a non-negative integer");
	ping("{\"waiting\":1.5}", -1, "waiting is not a non-negative integer");
	ping("{\"waiting\":\"3\"}", -1, "waiting is not a non-negative integer");
	ping("{\"waiting\":99999999999999999999}", -1, NULL);
	ping("{}", -1, "the answer has no waiting");
	ping("[3]", -1, "the answer is not a JSON object");
	ping("{\"waiting\":3,\"waiting\":4}", -1, NULL);
	ping("{\"waiting\":3} x", -1, NULL);
}

/* The claim's answer taken: njobs jobs, and why it failed when it did. */
static int
claim(const char *body, unsigned int caps, unsigned int limit,
    struct contract_claim *c, char *why, size_t whysz)
{
	return contract_claim_parse(body, strlen(body), caps, limit, c, why,
	    whysz);
}

static void
unreadable(const char *body, unsigned int limit, const char *wantwhy)
{
	struct contract_claim	 c;
	char			 why[CONTRACT_WHY_MAX] = "";

	ATF_CHECK_EQ_MSG(claim(body, BOTH, limit, &c, why, sizeof(why)), -1,
	    "taken: %s", body);
	ATF_CHECK_EQ(c.njobs, 0);
	ATF_CHECK(c.jobs == NULL);
	if (wantwhy != NULL)
		ATF_CHECK_MSG(strstr(why, wantwhy) != NULL,
		    "%s: wanted \"%s\", got \"%s\"", body, wantwhy, why);
}

/* One job taken: its id, its capability (or why it fails) and its input. */
static void
one_job(const char *body, unsigned int caps, const char *id, int cap,
    const char *failed, const char *input)
{
	struct contract_claim	 c;
	char			 why[CONTRACT_WHY_MAX] = "";

	ATF_REQUIRE_EQ_MSG(claim(body, caps, 1, &c, why, sizeof(why)), 0,
	    "%s refused: %s", body, why);
	ATF_REQUIRE_EQ(c.njobs, 1);
	ATF_CHECK_STREQ(c.jobs[0].id, id);
	ATF_CHECK_EQ_MSG(c.jobs[0].cap, cap, "%s", body);
	ATF_CHECK_STREQ(c.jobs[0].failed, failed);
	if (input == NULL)
		ATF_CHECK(c.jobs[0].input == NULL);
	else {
		ATF_REQUIRE(c.jobs[0].input != NULL);
		ATF_CHECK_EQ(c.jobs[0].inputlen, strlen(input));
		ATF_CHECK_STREQ(c.jobs[0].input, input);
		/* The same bytes in the body, which the launcher maps. */
		ATF_CHECK(c.jobs[0].inputoff + c.jobs[0].inputlen <=
		    strlen(body) && memcmp(body + c.jobs[0].inputoff, input,
		    c.jobs[0].inputlen) == 0);
	}
	contract_claim_free(&c);
}

ATF_TC_WITHOUT_HEAD(claim_taken);
ATF_TC_BODY(claim_taken, tc)
{
	struct contract_claim	 c;
	char			 why[CONTRACT_WHY_MAX];

	ATF_CHECK_EQ(claim("{\"jobs\":[]}", BOTH, 1, &c, why, sizeof(why)), 0);
	ATF_CHECK_EQ(c.njobs, 0);
	contract_claim_free(&c);
	one_job("{\"jobs\":[{\"id\":1,\"capability\":\"claude\",\"input\":"
	    "{\"prompt\": \"hi\",\n \"n\":[1,2]}}]}", CLAUDE, "1", CAP_CLAUDE,
	    "", "{\"prompt\": \"hi\",\n \"n\":[1,2]}");
	/* Fields outside the contract have no effect, in a job or around it. */
	one_job("{\"next\":\"http://evil\",\"jobs\":[{\"url\":\"file:///etc/"
	    "passwd\",\"destination\":\"claude\",\"id\":\"a-B_9~\",\"input\":"
	    "\"x\",\"capability\":\"ocr\",\"program\":\"/bin/sh\"}]}", BOTH,
	    "a-B_9~", CAP_OCR, "", "\"x\"");
	one_job("{\"jobs\":[{\"id\":\"\\u0041b\",\"capability\":\"claude\","
	    "\"input\":null}]}", CLAUDE, "Ab", CAP_CLAUDE, "", "null");
	one_job("{\"jobs\":[{\"id\":0,\"capability\":\"claude\",\"input\":1}]}",
	    CLAUDE, "0", CAP_CLAUDE, "", "1");
	one_job("{\"jobs\":[{\"id\":12345678901234567890,\"capability\":"
	    "\"claude\",\"input\":1}]}", CLAUDE, "12345678901234567890",
	    CAP_CLAUDE, "", "1");
}

/* A capability not offered fails that job only; the control is offered. */
ATF_TC_WITHOUT_HEAD(claim_capability);
ATF_TC_BODY(claim_capability, tc)
{
	static const char ocr[] = "{\"jobs\":[{\"id\":7,\"capability\":"
	    "\"ocr\",\"input\":{}}]}";

	one_job(ocr, CLAUDE, "7", -1, "capability ocr was not offered", "{}");
	one_job(ocr, BOTH, "7", CAP_OCR, "", "{}");
	one_job("{\"jobs\":[{\"id\":7,\"capability\":\"bash\",\"input\":{}}]}",
	    BOTH, "7", -1, "capability bash was not offered", "{}");
	one_job("{\"jobs\":[{\"id\":7,\"capability\":\"\\u001b[2J\",\"input\""
	    ":{}}]}", BOTH, "7", -1, "capability \\x1b[2J was not offered",
	    "{}");
	one_job("{\"jobs\":[{\"id\":7,\"input\":{}}]}", BOTH, "7", -1,
	    "the job names no capability", "{}");
	one_job("{\"jobs\":[{\"id\":7,\"capability\":[\"ocr\"],\"input\":{}}]}",
	    BOTH, "7", -1, "the job's capability is not a text", "{}");
	one_job("{\"jobs\":[{\"id\":7,\"capability\":\"claude\"}]}", BOTH, "7",
	    -1, "the job has no input", NULL);
}

ATF_TC_WITHOUT_HEAD(claim_ids);
ATF_TC_BODY(claim_ids, tc)
{
	static const char *const bad[] = {
		"null", "-1", "1.5", "1e3", "1E3", "-0", "true", "{}", "[1]",
		"123456789012345678901", "\"\"", "\"a/b\"", "\"a\\\\b\"",
		"\"a.b\"", "\"..\"", "\"a b\"", "\"a\\u0000b\"", "\"a\\nb\"",
		"\"a\\tb\"", "\"\\u00e9\"", "\"\xc3\xa9\"", "\"a?b\"",
		"\"a#b\"", "\"a:b\"", "\"a%2e%2e\"", "\"a\\u007fb\"",
	};
	char	 body[512], id[CONTRACT_ID_MAX + 2];
	size_t	 i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		(void)snprintf(body, sizeof(body), "{\"jobs\":[{\"id\":%s,"
		    "\"capability\":\"claude\",\"input\":{}}]}", bad[i]);
		unreadable(body, 1, "job 1: its id is");
	}
	unreadable("{\"jobs\":[{\"capability\":\"claude\",\"input\":{}}]}", 1,
	    "job 1 has no id");
	/* 128 characters are taken, 129 are not. */
	memset(id, 'x', sizeof(id));
	id[CONTRACT_ID_MAX] = '\0';
	(void)snprintf(body, sizeof(body), "{\"jobs\":[{\"id\":\"%s\","
	    "\"capability\":\"claude\",\"input\":{}}]}", id);
	one_job(body, CLAUDE, id, CAP_CLAUDE, "", "{}");
	id[CONTRACT_ID_MAX] = 'x';
	id[CONTRACT_ID_MAX + 1] = '\0';
	(void)snprintf(body, sizeof(body), "{\"jobs\":[{\"id\":\"%s\","
	    "\"capability\":\"claude\",\"input\":{}}]}", id);
	unreadable(body, 1, "job 1: its id is");
}

ATF_TC_WITHOUT_HEAD(claim_shape);
ATF_TC_BODY(claim_shape, tc)
{
	static const char two[] = "{\"jobs\":[{\"id\":1,\"capability\":"
	    "\"claude\",\"input\":{}},{\"id\":2,\"capability\":\"claude\","
	    "\"input\":{}}]}";
	struct contract_claim	 c;
	char			 why[CONTRACT_WHY_MAX];

	unreadable("[]", 1, "the answer is not a JSON object");
	unreadable("{}", 1, "the answer has no jobs");
	unreadable("{\"jobs\":{}}", 1, "jobs is not an array");
	unreadable("{\"jobs\":[1]}", 1, "job 1 is not an object");
	/* More jobs than asked for: none is taken.  Control: limit 2. */
	unreadable(two, 1, "the answer holds 2 jobs, more than the 1 asked for");
	ATF_CHECK_EQ(claim(two, BOTH, 2, &c, why, sizeof(why)), 0);
	ATF_CHECK_EQ(c.njobs, 2);
	contract_claim_free(&c);
	/* The same id twice, even once as a number and once as a text. */
	unreadable("{\"jobs\":[{\"id\":1,\"capability\":\"claude\",\"input\":"
	    "{}},{\"id\":\"1\",\"capability\":\"claude\",\"input\":{}}]}", 2,
	    "job 2: its id 1 is job 1's too");
	/* One bad job spoils the good one before it. */
	unreadable("{\"jobs\":[{\"id\":1,\"capability\":\"claude\",\"input\":"
	    "{}},{\"id\":\"a/b\",\"capability\":\"claude\",\"input\":{}}]}", 2,
	    "job 2: its id is");
}

/* A claim whose job's input is depth arrays deep; *input gets the input alone. */
static char *
nested_input(int depth, char **input)
{
	char	*s;
	size_t	 n;
	int	 i;

	ATF_REQUIRE((s = malloc(2 * depth + 128)) != NULL);
	ATF_REQUIRE((*input = malloc(2 * depth + 1)) != NULL);
	n = (size_t)sprintf(s, "{\"jobs\":[{\"id\":1,\"capability\":"
	    "\"claude\",\"input\":");
	for (i = 0; i < depth; i++) {
		(*input)[i] = '[';
		(*input)[2 * depth - 1 - i] = ']';
	}
	(*input)[2 * depth] = '\0';
	(void)sprintf(s + n, "%s}]}", *input);
	return s;
}

/* What json.h refuses makes the whole answer unreadable; each has its control. */
ATF_TC_WITHOUT_HEAD(claim_json);
ATF_TC_BODY(claim_json, tc)
{
	char	*s, *in;

	unreadable("{\"jobs\":[],\"jobs\":[]}", 1, "the answer is not JSON");
	unreadable("{\"jobs\":[{\"id\":1,\"id\":2,\"capability\":\"claude\","
	    "\"input\":{}}]}", 1, "the answer is not JSON");
	unreadable("{\"jobs\":[{\"id\":1,\"capability\":\"claude\",\"input\":"
	    "{\"a\":1,\"\\u0061\":2}}]}", 1, "the answer is not JSON");
	/* The answer's own two levels and the input's: 32 in all is the most. */
	s = nested_input(JSON_MAXDEPTH - 3, &in);
	one_job(s, CLAUDE, "1", CAP_CLAUDE, "", in);
	free(s);
	free(in);
	s = nested_input(JSON_MAXDEPTH - 2, &in);
	unreadable(s, 1, "the answer is not JSON");
	free(s);
	free(in);
	one_job("{\"jobs\":[{\"id\":1,\"capability\":\"claude\",\"input\":1e1000}]}",
	    CLAUDE, "1", CAP_CLAUDE, "", "1e1000");
	unreadable("{\"jobs\":[{\"id\":1,\"capability\":\"claude\",\"input\":"
	    "1e1001}]}", 1, "the answer is not JSON");
	one_job("{\"jobs\":[{\"id\":1,\"capability\":\"claude\",\"input\":"
	    "\"\xc3\xa9\"}]}", CLAUDE, "1", CAP_CLAUDE, "", "\"\xc3\xa9\"");
	unreadable("{\"jobs\":[{\"id\":1,\"capability\":\"claude\",\"input\":"
	    "\"\xc3\"}]}", 1, "the answer is not JSON");
	unreadable("{\"jobs\":[{\"id\":1,\"capability\":\"claude\",\"input\":"
	    "\"\xc0\xaf\"}]}", 1, "the answer is not JSON");
	unreadable("{\"jobs\":[{\"id\":1,\"capability\":\"claude\",\"input\":"
	    "\"\\ud800\"}]}", 1, "the answer is not JSON");
	one_job("{\"jobs\":[{\"id\":1,\"capability\":\"claude\",\"input\":2}]}"
	    " \n", CLAUDE, "1", CAP_CLAUDE, "", "2");
	unreadable("{\"jobs\":[]} {}", 1, "the answer is not JSON");
	unreadable("", 1, "the answer is not JSON");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, envelopes);
	ATF_TP_ADD_TC(tp, results);
	ATF_TP_ADD_TC(tp, ids_in_paths);
	ATF_TP_ADD_TC(tp, answers);
	ATF_TP_ADD_TC(tp, keep_refusals);
	ATF_TP_ADD_TC(tp, pings);
	ATF_TP_ADD_TC(tp, claim_taken);
	ATF_TP_ADD_TC(tp, claim_capability);
	ATF_TP_ADD_TC(tp, claim_ids);
	ATF_TP_ADD_TC(tp, claim_shape);
	ATF_TP_ADD_TC(tp, claim_json);
	return atf_no_error();
}
