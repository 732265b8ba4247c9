/*
 * The box's protocol (common/boxproto.c, box/box.c): the real exchange of
 * box_run() in a child, on pipes, against a good exchange (the control)
 * and each rule a launcher's line can break.
 */
#include <sys/wait.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "../../box/box.h"
#include "../../box/claude.h"

#define BUILD	"0123456789ab"
#define LIMITS	"\"limits\":{\"max_input\":4096,\"max_output\":4096}"
#define SETTINGS "\"settings\":{\"model\":\"claude-test-1\",\"max_tokens\":" \
		"100,\"effort\":\"low\",\"system_prompt\":\"\"}"
#define INPUT	"\"input\":{\"prompt\":\"tag this\",\"schema\":" \
		"{\"type\":\"object\"}}"
#define JOB	"{\"type\":\"job\",\"mode\":\"run\",\"build\":\"" BUILD \
		"\"," LIMITS "," SETTINGS "," INPUT "}\n"
#define ANSWER	"{\"type\":\"answer\",\"status\":200,\"content_type\":" \
		"\"application/json\",\"retry_after\":0,\"body\":{\"model\":" \
		"\"claude-test-1\",\"content\":[{\"type\":\"text\",\"text\":" \
		"\"{}\"}],\"stop_reason\":\"end_turn\",\"usage\":" \
		"{\"input_tokens\":1,\"output_tokens\":2}}}\n"

struct run {
	int		 status;
	char		*out;
	size_t		 nlines;
	char		*lines[8];
};

/* box_run() in a child with in on its stdin; its lines and exit status. */
static void
run_box(const char *build, const char *in, size_t inlen, struct run *r)
{
	struct box_env	 env;
	int		 to[2], from[2], st;
	size_t		 len = 0, size = 4096;
	ssize_t		 n;
	pid_t		 pid;
	char		*p, *nl;

	(void)signal(SIGPIPE, SIG_IGN);
	ATF_REQUIRE(pipe(to) == 0 && pipe(from) == 0);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		(void)close(to[1]);
		(void)close(from[0]);
		memset(&env, 0, sizeof(env));
		env.cap = CAP_CLAUDE;
		env.run = claude_run;
		env.build = build;
		env.build_why = "/sandcastle/build: No such file or directory";
		_exit(box_run(&env, to[0], from[1]));
	}
	(void)close(to[0]);
	(void)close(from[1]);
	for (p = (char *)in; inlen > 0 && (n = write(to[1], p, inlen)) > 0;
	    p += n, inlen -= n)
		;
	(void)close(to[1]);
	memset(r, 0, sizeof(*r));
	ATF_REQUIRE((r->out = malloc(size)) != NULL);
	while ((n = read(from[0], r->out + len, size - len - 1)) > 0)
		if ((len += n) + 1 == size)
			ATF_REQUIRE((r->out = realloc(r->out, size *= 2)) != NULL);
	r->out[len] = '\0';
	(void)close(from[0]);
	ATF_REQUIRE(waitpid(pid, &st, 0) == pid && WIFEXITED(st));
	r->status = WEXITSTATUS(st);
	for (p = r->out; *p != '\0' && r->nlines < 8; p = nl + 1) {
		ATF_REQUIRE_MSG((nl = strchr(p, '\n')) != NULL, "a line "
		    "without its newline: %s", p);
		r->lines[r->nlines++] = p;
		*nl = '\0';
	}
}

/* Line i parses, and is of type t. */
static void
line_is(struct run *r, size_t i, enum proto_type t, struct proto_msg *m)
{
	char	 why[PROTO_WHY_MAX];

	ATF_REQUIRE_MSG(i < r->nlines, "no line %zu in \"%s\"", i, r->out);
	ATF_REQUIRE_MSG(proto_parse(m, r->lines[i], strlen(r->lines[i]), why,
	    sizeof(why)) == 0, "%s: %s", r->lines[i], why);
	ATF_CHECK_MSG(m->type == t, "line %zu is a %s: %s", i,
	    proto_type_name(m->type), r->lines[i]);
}

/* The exchange ended with one failure with that error, and status. */
static void
fails(const char *in, size_t len, int status, int release, const char *error)
{
	struct run		 r;
	struct proto_msg	 m;
	char			 err[PROTO_ERROR_MAX];
	size_t			 n;

	run_box(BUILD, in, len, &r);
	ATF_CHECK_EQ_MSG(r.status, status, "exit %d: %s", r.status, r.out);
	line_is(&r, r.nlines - 1, PROTO_FAILURE, &m);
	(void)json_string_copy(&m.j, m.f[PF_ERROR], err, sizeof(err), &n);
	ATF_CHECK_MSG(strcmp(err, error) == 0, "wanted \"%s\", got \"%s\"",
	    error, err);
	ATF_CHECK_EQ(m.release, release);
	ATF_CHECK(m.word[0] != '\0');
	proto_msg_free(&m);
	free(r.out);
}

static void
fails_str(const char *in, int status, const char *error)
{
	fails(in, strlen(in), status, 0, error);
}

ATF_TC_WITHOUT_HEAD(good);
ATF_TC_BODY(good, tc)
{
	struct run		 r;
	struct proto_msg	 m;

	run_box(BUILD, JOB ANSWER, strlen(JOB ANSWER), &r);
	ATF_CHECK_EQ_MSG(r.status, 0, "%s", r.out);
	ATF_REQUIRE_EQ_MSG(r.nlines, 3, "%s", r.out);
	ATF_CHECK_STREQ(r.lines[0], "{\"type\":\"hello\",\"build\":\"" BUILD
	    "\",\"capability\":\"claude\"}");
	line_is(&r, 1, PROTO_REQUEST, &m);
	proto_msg_free(&m);
	ATF_CHECK_STREQ(r.lines[2], "{\"type\":\"result\",\"output\":{},"
	    "\"usage\":{\"model\":\"claude-test-1\",\"input_tokens\":1,"
	    "\"output_tokens\":2}}");
	free(r.out);
}

ATF_TC_WITHOUT_HEAD(unknown_type);
ATF_TC_BODY(unknown_type, tc)
{
	fails_str("{\"type\":\"jobs\",\"mode\":\"run\"}\n", 1,
	    "protocol: type: not a type of the protocol");
	fails_str(ANSWER, 1, "protocol: the answer line: a job line must "
	    "follow the hello");
}

ATF_TC_WITHOUT_HEAD(fields);
ATF_TC_BODY(fields, tc)
{
	fails_str("{\"type\":\"job\",\"mode\":\"run\"," LIMITS "," SETTINGS
	    "," INPUT "}\n", 1, "protocol: a job line needs build");
	fails_str("{\"type\":\"job\",\"mode\":\"run\",\"build\":\"" BUILD
	    "\",\"limits\":\"big\"," SETTINGS "," INPUT "}\n", 1,
	    "protocol: limits: the wrong type");
	fails_str("{\"type\":\"job\",\"mode\":\"run\",\"build\":12," LIMITS
	    "," SETTINGS "," INPUT "}\n", 1, "protocol: build: the wrong type");
	fails_str("{\"type\":\"job\",\"mode\":\"run\",\"build\":\"" BUILD
	    "\",\"url\":\"http://x\"," LIMITS "," SETTINGS "," INPUT "}\n", 1,
	    "protocol: a job line has no such field: url");
	fails_str("{\"type\":\"job\",\"mode\":\"run\",\"build\":\"" BUILD
	    "\"," LIMITS "," SETTINGS "}\n", 1,
	    "protocol: a job line of mode run needs input");
	fails_str("{\"type\":\"job\",\"mode\":\"run\",\"build\":\"" BUILD
	    "\"," LIMITS ",\"settings\":{\"model\":\"m\"}," INPUT "}\n", 1,
	    "protocol: settings: model, max_tokens, effort and system_prompt, "
	    "and nothing else");
	fails_str(JOB "{\"type\":\"answer\",\"status\":\"200\"}\n", 1,
	    "protocol: status: the wrong type");
}

/* R2: the box makes one request; a second job where the answer is ends it. */
ATF_TC_WITHOUT_HEAD(order);
ATF_TC_BODY(order, tc)
{
	struct proto_seq	 s;
	const char		*why;

	fails_str(JOB JOB, 1, "protocol: the job line: an answer or "
	    "unreachable must follow a request");
	fails_str(JOB, 1, "protocol: the input ended before the answer");
	/* The launcher's side of the same rule: a second request. */
	proto_seq_init(&s, CAP_CLAUDE);
	ATF_CHECK(proto_seq_next(&s, PROTO_HELLO, &why) == 0);
	ATF_CHECK(proto_seq_next(&s, PROTO_JOB, &why) == 0);
	ATF_CHECK(proto_seq_next(&s, PROTO_REQUEST, &why) == 0);
	ATF_CHECK(proto_seq_next(&s, PROTO_ANSWER, &why) == 0);
	ATF_CHECK(proto_seq_next(&s, PROTO_REQUEST, &why) == -1 &&
	    strcmp(why, "a second request: a job makes one at most") == 0);
	ATF_CHECK(proto_seq_next(&s, PROTO_RESULT, &why) == 0);
	ATF_CHECK(proto_seq_next(&s, PROTO_RESULT, &why) == -1 &&
	    strcmp(why, "a line after the box's last") == 0);
	proto_seq_init(&s, CAP_OCR);
	ATF_CHECK(proto_seq_next(&s, PROTO_HELLO, &why) == 0);
	ATF_CHECK(proto_seq_next(&s, PROTO_JOB, &why) == 0);
	ATF_CHECK(proto_seq_next(&s, PROTO_REQUEST, &why) == -1);
}

ATF_TC_WITHOUT_HEAD(oversize);
ATF_TC_BODY(oversize, tc)
{
	char	*big;
	size_t	 n, pad = 4096 + PROTO_SLACK;

	/* Over max_input + 64 KiB once the limits are known. */
	ATF_REQUIRE((big = malloc(PROTO_JOB_MAX + 64)) != NULL);
	n = snprintf(big, PROTO_JOB_MAX, "{\"type\":\"job\",\"mode\":\"run\","
	    "\"build\":\"" BUILD "\"," LIMITS "," SETTINGS ",\"input\":"
	    "{\"prompt\":\"");
	memset(big + n, 'a', pad);
	n += pad;
	n += sprintf(big + n, "\",\"schema\":{}}}\n");
	fails(big, n, 1, 0, "protocol: the job line is 69851 bytes, more than "
	    "max_input + 64 KiB");
	/* Over the bound of any job line, which is never read whole. */
	n = snprintf(big, 64, "{\"type\":\"job\",\"x\":\"");
	memset(big + n, 'a', PROTO_JOB_MAX + 1 - n);
	fails(big, PROTO_JOB_MAX + 1, 1, 0,
	    "protocol: a line longer than its bound");
	free(big);
}

ATF_TC_WITHOUT_HEAD(text);
ATF_TC_BODY(text, tc)
{
	fails_str("{\"type\":\"job\",\"mode\":\"r\xc3\x28n\"}\n", 1,
	    "protocol: not JSON: a string that is not UTF-8 at byte 23");
	fails_str("{\"type\":\"job\"} {}\n", 1,
	    "protocol: not JSON: more after the value at byte 15");
	fails_str("[\"job\"]\n", 1, "protocol: not a JSON object");
	fails_str("{\"type\":\"job\"", 1,
	    "protocol: the input ends inside a line");
}

ATF_TC_WITHOUT_HEAD(build);
ATF_TC_BODY(build, tc)
{
	struct run		 r;
	struct proto_msg	 m;

	/* Another build: released, exit 0, and no request. */
	run_box("ba9876543210", JOB ANSWER, strlen(JOB ANSWER), &r);
	ATF_CHECK_EQ(r.status, 0);
	ATF_CHECK_EQ_MSG(r.nlines, 2, "%s", r.out);
	ATF_CHECK_STREQ(r.lines[1], "{\"type\":\"failure\",\"release\":true,"
	    "\"word\":\"build\",\"error\":\"box of build ba9876543210, launcher of build " BUILD
	    "\"}");
	free(r.out);
	/* No build file: the failure comes in place of the hello. */
	run_box(NULL, JOB, strlen(JOB), &r);
	ATF_CHECK_EQ(r.status, 0);
	ATF_REQUIRE_EQ(r.nlines, 1);
	line_is(&r, 0, PROTO_FAILURE, &m);
	ATF_CHECK_EQ(m.release, 1);
	ATF_CHECK_STREQ(m.word, "build");
	proto_msg_free(&m);
	free(r.out);
	/* The input ends after the hello: nothing to answer. */
	run_box(BUILD, "", 0, &r);
	ATF_CHECK_EQ(r.status, 1);
	ATF_CHECK_EQ(r.nlines, 1);
	free(r.out);
}

/* A last line over max_output becomes a failure that fits. */
ATF_TC_WITHOUT_HEAD(max_output);
ATF_TC_BODY(max_output, tc)
{
	const char	*job = "{\"type\":\"job\",\"mode\":\"run\",\"build\":\""
			    BUILD "\",\"limits\":{\"max_input\":4096,"
			    "\"max_output\":120}," SETTINGS "," INPUT "}\n";
	char		 in[2048];
	const char	*ans = "{\"type\":\"answer\",\"status\":200,"
			    "\"content_type\":\"a\",\"retry_after\":0,\"body\":"
			    "{\"content\":[{\"type\":\"text\",\"text\":\"{\\\"a\\\":"
			    "\\\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
			    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\\\"}\"}],"
			    "\"stop_reason\":\"end_turn\"}}\n";

	(void)snprintf(in, sizeof(in), "%s%s", job, ans);
	fails(in, strlen(in), 0, 0,
	    "the output is 131 bytes, more than max_output 120");
}

/* Each type's bound, from the one table, as boxproto.h says them. */
ATF_TC_WITHOUT_HEAD(line_bounds);
ATF_TC_BODY(line_bounds, tc)
{
	struct proto_msg	 job;

	memset(&job, 0, sizeof(job));
	job.max_input = 4096;
	job.max_output = 2048;
	ATF_CHECK_EQ(proto_line_max(PROTO_HELLO, NULL), PROTO_SLACK);
	ATF_CHECK_EQ(proto_line_max(PROTO_JOB, NULL), PROTO_JOB_MAX);
	ATF_CHECK_EQ(proto_line_max(PROTO_JOB, &job), 4096 + PROTO_SLACK);
	ATF_CHECK_EQ(proto_line_max(PROTO_REQUEST, NULL), PROTO_REQUEST_MAX);
	ATF_CHECK_EQ(proto_line_max(PROTO_ANSWER, NULL), PROTO_ANSWER_MAX);
	ATF_CHECK_EQ(proto_line_max(PROTO_UNREACHABLE, NULL),
	    PROTO_ANSWER_MAX);
	/* A result or failure: max_output, PROTO_SLACK before the job. */
	ATF_CHECK_EQ(proto_line_max(PROTO_RESULT, &job), 2048);
	ATF_CHECK_EQ(proto_line_max(PROTO_FAILURE, &job), 2048);
	ATF_CHECK_EQ(proto_line_max(PROTO_FAILURE, NULL), PROTO_SLACK);
	/* No type, no line. */
	ATF_CHECK_EQ(proto_line_max(PROTO_NTYPES, NULL), 0);
}

/* A failure's word: 1 to 32 of a-z and _, never left out. */
ATF_TC_WITHOUT_HEAD(failure_word);
ATF_TC_BODY(failure_word, tc)
{
	static const struct {
		const char	*line;
		const char	*why;		/* NULL: taken */
	} cases[] = {
		{ "{\"type\":\"failure\",\"release\":false,\"word\":"
		    "\"max_tokens\",\"error\":\"e\"}", NULL },
		{ "{\"type\":\"failure\",\"release\":false,\"error\":"
		    "\"e\"}", "a failure line needs word" },
		{ "{\"type\":\"failure\",\"release\":false,\"word\":"
		    "\"Declined\",\"error\":\"e\"}",
		    "word: not 1 to 32 of a-z and _" },
		{ "{\"type\":\"failure\",\"release\":false,\"word\":"
		    "\"\",\"error\":\"e\"}", "word: not 1 to 32 of a-z and _" },
		{ "{\"type\":\"failure\",\"release\":false,\"word\":"
		    "\"a\\u0000b\",\"error\":\"e\"}",
		    "word: not 1 to 32 of a-z and _" },
		{ "{\"type\":\"failure\",\"release\":false,\"word\":"
		    "\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\",\"error\":\"e\"}",
		    "word: not 1 to 32 of a-z and _" },
		{ "{\"type\":\"failure\",\"release\":false,\"word\":1,"
		    "\"error\":\"e\"}", "word: the wrong type" },
	};
	struct proto_msg	 m;
	char			 why[PROTO_WHY_MAX];
	size_t			 i;
	int			 r;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		r = proto_parse(&m, cases[i].line, strlen(cases[i].line), why,
		    sizeof(why));
		if (cases[i].why == NULL) {
			ATF_CHECK_MSG(r == 0, "%s: %s", cases[i].line, why);
			if (r == 0) {
				ATF_CHECK_STREQ(m.word, "max_tokens");
				proto_msg_free(&m);
			}
		} else
			ATF_CHECK_MSG(r == -1 && strcmp(why, cases[i].why) == 0,
			    "%s: %d, %s", cases[i].line, r, r == -1 ? why : "");
	}
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, failure_word);
	ATF_TP_ADD_TC(tp, good);
	ATF_TP_ADD_TC(tp, unknown_type);
	ATF_TP_ADD_TC(tp, fields);
	ATF_TP_ADD_TC(tp, order);
	ATF_TP_ADD_TC(tp, oversize);
	ATF_TP_ADD_TC(tp, text);
	ATF_TP_ADD_TC(tp, build);
	ATF_TP_ADD_TC(tp, max_output);
	ATF_TP_ADD_TC(tp, line_bounds);
	return atf_no_error();
}
