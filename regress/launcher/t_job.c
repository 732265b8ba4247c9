/*
 * job_run(): a job and a check end to end in real boxes of this tree's
 * images (sandcastlectl install --images, once), as the test account
 * with real rootless podman.  claude's keep is a stub here: each case
 * hands the box one answer of the Messages API; t_job_e2e.sh does it
 * through the real keepd and gated.  Each refusal has its control.
 */
#include <sys/types.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <grp.h>
#include <libgen.h>
#include <limits.h>
#include <pwd.h>
#include <sha2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "boxproto.h"
#include "cap_claude.h"
#include "cap_ocr.h"
#include "contract.h"
#include "keepbody.h"
#include "../../sandcastled/job.h"
#include "../../sandcastled/jobrun.h"
#include "../../sandcastled/lock.h"
#include "../../sandcastled/podman.h"
#include "../../sandcastled/readlock.h"
#include "../../sandcastled/word.h"
#include "../lib/account.h"

static void
unlocked(void)
{
}

/* A sanitizer's runtime makes calls the reader's filter kills. */
#ifdef __SANITIZE_ADDRESS__
#define READER_LOCK	unlocked
#else
#define READER_LOCK	reader_lock
#endif

/* What each case's job_run() gives the box's reader to put on. */
static void	(*test_lock)(void) = READER_LOCK;

#define OTHER_BUILD	"aaaaaaaaaaaa"
#define NO_BUILD	"bbbbbbbbbbbb"

static char	 prefix[PATH_MAX];
static char	 build[BUILD_ID_LEN + 1];

static void
in_account(const atf_tc_t *tc, void (*body)(void))
{
	(void)strlcpy(prefix, atf_tc_get_config_var(tc, "prefix"),
	    sizeof(prefix));
	as_account(body, NULL);
}

/* This tree's build, and its images made when missing. */
static void
images(void)
{
	char	 cmd[6 * PATH_MAX];
	FILE	*f;

	(void)snprintf(cmd, sizeof(cmd), "%s/bin/sandcastlectl version | "
	    "awk '$1 == \"build\" { print $2 }'", prefix);
	REQUIRE((f = popen(cmd, "r")) != NULL && fgets(build, sizeof(build),
	    f) != NULL && strlen(build) == BUILD_ID_LEN, "no build from %s",
	    cmd);
	pclose(f);
	(void)snprintf(cmd, sizeof(cmd), "podman image exists "
	    "sandcastle-ocr:%s && podman image exists sandcastle-claude:%s || "
	    "{ d=$(mktemp -d /tmp/sc-job-conf.XXXXXX) && "
	    "mkdir -p $d/sources && printf 'capabilities:\\n  ocr:\\n    "
	    "languages: [eng]\\n' > $d/config.yaml && "
	    "printf 'name: s\\ndestination:\\n  address: https://s.example.com\\n"
	    "  secret: s\\npoll_interval: 30s\\ncapabilities: [ocr]\\n"
	    "max_jobs_per_hour: 1\\njob_timeout: 1m\\n' > $d/sources/s.yaml && "
	    "%s/bin/sandcastlectl -c $d install --images >/dev/null; r=$?; "
	    "rm -rf $d; exit $r; }", build, build, prefix);
	REQUIRE(sh(cmd) == 0, "%s", "sandcastlectl install --images failed");
}

static struct config *
setup(const char *with_build)
{
	struct config	*conf;
	char		 why[256];

	become_account();
	images();
	/* Every case's box through its reader, locked as the launcher's is. */
	test_lock = READER_LOCK;
	REQUIRE(job_init(with_build != NULL ? with_build : build, why,
	    sizeof(why)) == 0, "%s", why);
	REQUIRE((conf = config_new("/nonexistent")) != NULL, "%s", "config");
	conf->caps[CAP_CLAUDE].enabled = conf->caps[CAP_OCR].enabled = 1;
	claude_conf(conf)->model = strdup("claude-test-1");
	return conf;
}

/* {"image":"<base64>"} of the bytes. */
static char *
ocr_input(const unsigned char *p, size_t len, size_t *outlen)
{
	static const char b64[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	char	*s, *o;
	size_t	 i;
	uint32_t v;

	REQUIRE((s = malloc(len * 4 / 3 + 32)) != NULL, "%s", "malloc");
	o = s + sprintf(s, "{\"image\": \"");
	for (i = 0; i < len; i += 3) {
		v = p[i] << 16 | (i + 1 < len ? p[i + 1] << 8 : 0) |
		    (i + 2 < len ? p[i + 2] : 0);
		*o++ = b64[v >> 18 & 63];
		*o++ = b64[v >> 12 & 63];
		*o++ = i + 1 < len ? b64[v >> 6 & 63] : '=';
		*o++ = i + 2 < len ? b64[v & 63] : '=';
	}
	o += sprintf(o, "\"}");
	*outlen = o - s;
	return s;
}

/* The image of text, in format, from regress/lib/render_image.c. */
static unsigned char *
render(const char *format, const char *text, size_t *len)
{
	char		 cmd[2 * PATH_MAX];
	unsigned char	*p;
	FILE		*f;

	(void)snprintf(cmd, sizeof(cmd), "%s/libexec/render_image %s '%s'",
	    prefix, format, text);
	REQUIRE((f = popen(cmd, "r")) != NULL, "%s", cmd);
	REQUIRE((p = malloc(4 << 20)) != NULL, "%s", "malloc");
	*len = fread(p, 1, 4 << 20, f);
	REQUIRE(pclose(f) == 0 && *len > 0, "%s", cmd);
	return p;
}

static void
run_ocr(struct config *conf, const unsigned char *img, size_t len,
    struct job_outcome *o)
{
	char	*in;
	size_t	 inlen;

	in = ocr_input(img, len, &inlen);
	job_run(conf, CAP_OCR, JOB_RUN, in, inlen, 0, test_lock, NULL, NULL, o);
	free(in);
}

/* succeeded, the text read, and the record of the image's size and hash. */
static void
ocr_reads(const char *format)
{
	struct job_outcome	 o;
	struct config		*conf = setup(NULL);
	unsigned char		*img;
	char			 hex[SHA256_DIGEST_STRING_LENGTH], want[128];
	size_t			 len;

	img = render(format, "HELLO WORLD", &len);
	run_ocr(conf, img, len, &o);
	REQUIRE(o.status == JOB_SUCCEEDED, "%s: %s: %s (stderr %.*s)", format,
	    job_status_name(o.status), o.error, (int)o.stderr_len,
	    o.stderr_head);
	CHECK(o.output != NULL && strstr(o.output, "HELLO WORLD") != NULL,
	    "output %s", o.output);
	(void)SHA256Data(img, len, hex);
	(void)snprintf(want, sizeof(want), "\"bytes\":%zu,\"sha256\":\"%s\"",
	    len, hex);
	CHECK(o.record != NULL && strstr(o.record, want) != NULL,
	    "record %s, want %s", o.record, want);
	CHECK(o.box_started && !o.box_removed && o.seconds > 0, "%s",
	    "the box's end");
	job_outcome_free(&o);
	free(img);
}

static void
body_png(void)
{
	ocr_reads("png");
}

static void
body_jpeg(void)
{
	ocr_reads("jpeg");
}

/* A GIF fails; the control, a PNG of the same run, succeeds. */
static void
body_gif(void)
{
	static const unsigned char gif[] = "GIF89a\001\000\001\000\200\000"
	    "\000\377\377\377\000\000\000!\371\004\001\000\000\000\000,\000"
	    "\000\000\000\001\000\001\000\000\002\002D\001\000;";
	struct job_outcome	 o;
	struct config		*conf = setup(NULL);
	unsigned char		*img;
	size_t			 len;

	run_ocr(conf, gif, sizeof(gif) - 1, &o);
	CHECK(o.status == JOB_FAILED && o.output == NULL, "gif: %s: %s",
	    job_status_name(o.status), o.error);
	CHECK(o.record != NULL && strstr(o.record, "\"sha256\"") != NULL,
	    "no record for the gif: %s", o.record);
	job_outcome_free(&o);
	img = render("png", "HELLO", &len);
	run_ocr(conf, img, len, &o);
	CHECK(o.status == JOB_SUCCEEDED, "the control: %s", o.error);
	job_outcome_free(&o);
	free(img);
}

static int
boxes_of_ours(void)
{
	FILE	*f;
	int	 n = 0, c;

	REQUIRE((f = popen("podman ps -a -q --filter "
	    "label=sandcastle.box=sandcastle", "r")) != NULL, "%s", "podman ps");
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	pclose(f);
	return n;
}

/* Over max_input: failed before any box; the control at max_input starts one. */
static void
body_max_input(void)
{
	struct job_outcome	 o;
	struct config		*conf = setup(NULL);
	char			 in[] = "{\"image\": \"aGVsbG8=\"}";

	conf->caps[CAP_OCR].max_input = sizeof(in) - 2;
	CHECK(boxes_of_ours() == 0, "%s", "a box was there before");
	job_run(conf, CAP_OCR, JOB_RUN, in, sizeof(in) - 1, 0,
	    test_lock, NULL, NULL, &o);
	CHECK(o.status == JOB_FAILED && !o.box_started &&
	    strstr(o.error, "max_input") != NULL, "%s: %s",
	    job_status_name(o.status), o.error);
	CHECK(o.seconds < 0.5, "took %.2f s", o.seconds);
	job_outcome_free(&o);
	conf->caps[CAP_OCR].max_input = sizeof(in) - 1;
	job_run(conf, CAP_OCR, JOB_RUN, in, sizeof(in) - 1, 0,
	    test_lock, NULL, NULL, &o);
	CHECK(o.box_started && o.status == JOB_FAILED &&
	    strstr(o.error, "max_input") == NULL, "the control: %s: %s",
	    job_status_name(o.status), o.error);
	job_outcome_free(&o);
	CHECK(boxes_of_ours() == 0, "%s", "a box is left");
}

/* A box of another build: released, with both builds named. */
static void
body_other_build(void)
{
	struct job_outcome	 o;
	struct config		*conf = setup(OTHER_BUILD);
	char			 cmd[256], want[128];

	(void)snprintf(cmd, sizeof(cmd), "podman tag sandcastle-ocr:%s "
	    "sandcastle-ocr:" OTHER_BUILD, build);
	REQUIRE(sh(cmd) == 0, "%s", cmd);
	job_run(conf, CAP_OCR, JOB_CHECK, NULL, 0, 0,
	    test_lock, NULL, NULL, &o);
	(void)sh("podman rmi sandcastle-ocr:" OTHER_BUILD " >/dev/null 2>&1");
	(void)snprintf(want, sizeof(want), "box of build %s, this build "
	    OTHER_BUILD ": run sandcastlectl install", build);
	CHECK(o.status == JOB_RELEASED && strcmp(o.error, want) == 0,
	    "%s: %s", job_status_name(o.status), o.error);
	job_outcome_free(&o);
	/* The control: the same check from this build. */
	REQUIRE(job_init(build, cmd, sizeof(cmd)) == 0, "%s", cmd);
	job_run(conf, CAP_OCR, JOB_CHECK, NULL, 0, 0,
	    test_lock, NULL, NULL, &o);
	CHECK(o.status == JOB_SUCCEEDED && o.output != NULL &&
	    strstr(o.output, "\"eng\"") != NULL, "the control: %s: %s",
	    job_status_name(o.status), o.error);
	job_outcome_free(&o);
}

/* No image of the build: released, the image named. */
static void
body_missing_image(void)
{
	struct job_outcome	 o;
	struct config		*conf = setup(NO_BUILD);
	const char		*p;

	(void)sh("podman rmi sandcastle-ocr:" NO_BUILD " >/dev/null 2>&1");
	job_run(conf, CAP_OCR, JOB_CHECK, NULL, 0, 0,
	    test_lock, NULL, NULL, &o);
	/* The step is install, which restarts the units: the line ends there. */
	CHECK(o.status == JOB_RELEASED && strstr(o.error,
	    "sandcastle-ocr:" NO_BUILD) != NULL && (p = strstr(o.error,
	    "podman says the image is missing: run sandcastlectl "
	    "install")) != NULL && p[59] == '\0', "%s: %s",
	    job_status_name(o.status), o.error);
	CHECK(o.stderr_len > 0, "%s", "podman's stderr is not kept");
	job_outcome_free(&o);
}

/*
 * podman run through a podman of PATH that swaps the OCI runtime for
 * rt (none: podman's own), then the check of ocr.
 */
static void
runtime_check(struct config *conf, const char *dir, const char *rt,
    struct job_outcome *o)
{
	static char	 real[PATH_MAX];
	char		 cmd[4 * PATH_MAX], path[2 * PATH_MAX], why[256];
	FILE		*f;

	/* The real podman, found before any of ours is first in PATH. */
	if (real[0] == '\0')
		(void)strlcpy(real, podman_path(), sizeof(real));
	(void)snprintf(cmd, sizeof(cmd), "%s/podman", dir);
	REQUIRE((f = fopen(cmd, "w")) != NULL, "%s", cmd);
	fprintf(f, "#!/bin/sh\n[ \"$1\" = run ] && [ -n '%s' ] && "
	    "exec %s --runtime='%s' \"$@\"\nexec %s \"$@\"\n", rt, real,
	    rt, real);
	REQUIRE(fclose(f) == 0 && chmod(cmd, 0755) == 0, "%s", cmd);
	(void)snprintf(path, sizeof(path), "%s:/usr/bin:/bin", dir);
	REQUIRE(setenv("PATH", path, 1) == 0, "%s", "setenv");
	REQUIRE(job_init(build, why, sizeof(why)) == 0, "%s", why);
	REQUIRE(strcmp(podman_path(), cmd) == 0, "podman is %s",
	    podman_path());
	job_run(conf, CAP_OCR, JOB_CHECK, NULL, 0, 0, test_lock, NULL, NULL, o);
}

/*
 * Podman's own words name the cause: an OCI runtime that is not there,
 * or one that fails, is said as such, never as a missing image; the
 * control, the same podman of PATH with its own runtime, succeeds.
 */
static void
body_runtime(void)
{
	struct job_outcome	 o;
	struct config		*conf = setup(NULL);
	char			 dir[] = "/tmp/sc-job-runtime.XXXXXX";
	char			 cmd[PATH_MAX + 32];

	REQUIRE(mkdtemp(dir) != NULL, "%s", "mkdtemp");
	runtime_check(conf, dir, "/nonexistent/sc-runtime", &o);
	CHECK(o.status == JOB_RELEASED && strstr(o.error, "podman says its "
	    "OCI runtime is not found: install runc or crun") != NULL &&
	    strstr(o.error, "--images") == NULL, "not found: %s: %s: %.*s",
	    job_status_name(o.status), o.error, (int)o.stderr_len,
	    o.stderr_head);
	job_outcome_free(&o);
	runtime_check(conf, dir, "/bin/false", &o);
	CHECK(o.status == JOB_RELEASED && strstr(o.error, "podman says its "
	    "OCI runtime failed") != NULL && strstr(o.error, "--images") ==
	    NULL, "failing: %s: %s: %.*s", job_status_name(o.status),
	    o.error, (int)o.stderr_len, o.stderr_head);
	job_outcome_free(&o);
	runtime_check(conf, dir, "", &o);
	CHECK(o.status == JOB_SUCCEEDED, "the control: %s: %s",
	    job_status_name(o.status), o.error);
	job_outcome_free(&o);
	(void)snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	(void)sh(cmd);
}

/* claude's keep, a stub: one canned answer, and what the box asked kept. */
struct stub {
	int		 refuse;	/* 1: KEEP_REFUSED, 2: no answer */
	uint32_t	 status;
	uint32_t	 retry_after;
	const char	*body;
	char		*envelope;
	int		 calls;
};

/* The body as keepd hands it over: a sealed memfd. */
static void
stub_body(struct keepcli_answer *a, const char *body)
{
	a->body_len = strlen(body);
	if (a->body_len > 0)
		ATF_REQUIRE((a->body_fd = keepbody_make(body,
		    a->body_len)) != -1);
}

static int
stub_keep(const char *env, size_t len, unsigned int seconds,
    struct keepcli_answer *a, void *arg, const char **why)
{
	struct stub	*s = arg;

	s->calls++;
	free(s->envelope);
	s->envelope = strndup(env, len);
	if (s->refuse == 2) {
		*why = "the stub does not answer";
		return -1;
	}
	if (s->refuse == 1) {
		a->refused = 1;
		a->code = KEEP_R_GATE;
		(void)strlcpy(a->reason, "the gate refused", sizeof(a->reason));
		return 0;
	}
	a->status = s->status;
	a->retry_after = s->retry_after;
	a->ctype = strdup("application/json");
	stub_body(a, s->body);
	return 0;
}

#define CLAUDE_INPUT	"{\"prompt\": \"Tag this note.\",\n \"schema\": " \
	"{\"type\": \"object\", \"properties\": {\"tag\": {\"type\": " \
	"\"string\"}}, \"required\": [\"tag\"], \"additionalProperties\": " \
	"false}}"
#define REPLY(stop, text) "{\"type\":\"message\",\"model\":\"claude-test-1\"," \
	"\"content\":[{\"type\":\"text\",\"text\":\"" text "\"}],\n" \
	"\"stop_reason\":\"" stop "\",\"usage\":{\"input_tokens\":12," \
	"\"output_tokens\":5}}"

static const struct claude_case {
	const char	*name;
	struct stub	 stub;
	enum job_status	 status;
	const char	*error;		/* in the error, or NULL */
	enum job_word	 word;		/* the log's word */
	const char	*reply;		/* the reply kept, or NULL */
	uint32_t	 rest;		/* the rest the outcome asks */
} claude_cases[] = {
	{ "good", { 0, 200, 0, REPLY("end_turn", "{\\\"tag\\\":\\\"recipes\\\"}"),
	    NULL, 0 }, JOB_SUCCEEDED, NULL, JW_NONE, NULL, 0 },
	{ "refusal", { 0, 200, 0, REPLY("refusal", ""), NULL, 0 },
	    JOB_FAILED, "declined", JW_DECLINED, "\"\"", 0 },
	{ "max_tokens", { 0, 200, 0, REPLY("max_tokens", "{\\\"ta"), NULL, 0 },
	    JOB_FAILED, "max_tokens", JW_MAX_TOKENS, "\"{\\\"ta\"", 0 },
	{ "schema", { 0, 200, 0, REPLY("end_turn", "{\\\"tag\\\":5}"), NULL, 0 },
	    JOB_FAILED, NULL, JW_SCHEMA, "{\"tag\":5}", 0 },
	{ "401", { 0, 401, 0, "{\"type\":\"error\",\"error\":{\"type\":"
	    "\"authentication_error\",\"message\":\"invalid x-api-key\"}}",
	    NULL, 0 }, JOB_RELEASED, "rejected", JW_KEY, NULL, 0 },
	{ "429", { 0, 429, 30, "{\"type\":\"error\",\"error\":{\"type\":"
	    "\"rate_limit_error\",\"message\":\"slow down\"}}", NULL, 0 },
	    JOB_RELEASED, "retry after 30", JW_RATE, NULL, 30 },
	/* A wait of a week asked for is a day's; a success asks none. */
	{ "529", { 0, 529, 7 * 86400, "{\"type\":\"error\",\"error\":"
	    "{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}",
	    NULL, 0 }, JOB_RELEASED, "overloaded", JW_API_DOWN, NULL, 86400 },
	{ "good_retry_after", { 0, 200, 30, REPLY("end_turn",
	    "{\\\"tag\\\":\\\"recipes\\\"}"), NULL, 0 }, JOB_SUCCEEDED, NULL,
	    JW_NONE, NULL, 0 },
	{ "context_window", { 0, 200, 0, REPLY("model_context_window_exceeded",
	    "{\\\"ta"), NULL, 0 }, JOB_FAILED, "context window", JW_CONTEXT,
	    "\"{\\\"ta\"", 0 },
	{ "tool_use", { 0, 200, 0, REPLY("tool_use", "Let me look."), NULL, 0 },
	    JOB_FAILED, "tool_use", JW_STOP_REASON,
	    "\"Let me look.\"", 0 },
	{ "billing", { 0, 400, 0, "{\"type\":\"error\",\"error\":{\"type\":"
	    "\"billing_error\",\"message\":\"Your credit balance is too low\"}}",
	    NULL, 0 }, JOB_RELEASED, "credit", JW_CREDIT, NULL, 0 },
	{ "500", { 0, 500, 0, "<html>oops</html>", NULL, 0 }, JOB_RELEASED,
	    "500", JW_API_DOWN, NULL, 0 },
	{ "refused", { 1, 0, 0, NULL, NULL, 0 }, JOB_RELEASED,
	    "the gate refused", JW_UNREACHABLE, NULL, 0 },
	{ "unreachable", { 2, 0, 0, NULL, NULL, 0 }, JOB_RELEASED,
	    "does not answer", JW_UNREACHABLE, NULL, 0 },
};

static void
claude_one(struct config *conf, const struct claude_case *cc)
{
	struct job_outcome	 o;
	struct stub		 s = cc->stub;

	job_run(conf, CAP_CLAUDE, JOB_RUN, CLAUDE_INPUT, strlen(CLAUDE_INPUT),
	    0, test_lock, stub_keep, &s, &o);
	CHECK(o.status == cc->status && (cc->error == NULL ||
	    strstr(o.error, cc->error) != NULL), "%s: %s: %s (stderr %.*s)",
	    cc->name, job_status_name(o.status), o.error, (int)o.stderr_len,
	    o.stderr_head);
	CHECK(s.calls == 1, "%s: %d requests", cc->name, s.calls);
	CHECK(s.envelope != NULL && strncmp(s.envelope,
	    "{\"destination\":\"claude\",\"method\":\"POST\",\"path\":"
	    "\"/v1/messages\"", 56) == 0 && strstr(s.envelope, "\"tools\"") ==
	    NULL, "%s: envelope %s", cc->name, s.envelope);
	if (strcmp(cc->name, "good") == 0)
		CHECK(o.output != NULL && strcmp(o.output,
		    "{\"tag\":\"recipes\"}") == 0 && o.usage.has &&
		    o.usage.input_tokens == 12 && o.usage.output_tokens == 5 &&
		    strcmp(o.usage.model, "claude-test-1") == 0,
		    "good: output %s usage %llu", o.output,
		    (unsigned long long)o.usage.input_tokens);
	CHECK(o.word == cc->word, "%s: the word %s, not %s", cc->name,
	    job_word_name(o.word), job_word_name(cc->word));
	CHECK(o.rest == cc->rest, "%s: a rest of %u s, not %u", cc->name,
	    o.rest, cc->rest);
	/* A reply refused, declined or cut short is kept for the record. */
	if (cc->reply != NULL)
		CHECK(o.reply != NULL && strcmp(o.reply, cc->reply) == 0,
		    "%s: the reply kept is %s, not %s", cc->name, o.reply,
		    cc->reply);
	free(s.envelope);
	job_outcome_free(&o);
}

static void
body_claude(void)
{
	struct config	*conf = setup(NULL);
	size_t		 i;

	for (i = 0; i < sizeof(claude_cases) / sizeof(claude_cases[0]); i++)
		claude_one(conf, &claude_cases[i]);
}

/* The keep on keep.sock, one connection per request, as the core's will be. */
static char	 keep_sock[PATH_MAX];

static int
real_keep(const char *env, size_t len, unsigned int seconds,
    struct keepcli_answer *a, void *arg, const char **why)
{
	struct keepcli	*k;
	int		 r;

	if ((k = keepcli_open(keep_sock, why)) == NULL)
		return -1;
	r = keepcli_request(k, env, len, seconds, a, why);
	keepcli_close(k);
	return r;
}

static char	 expect[64];
static char	 confdir[PATH_MAX];

static void
body_real_keep(void)
{
	struct job_outcome	 o;
	struct conferrs		 errs;
	struct config		*conf;

	config_free(setup(NULL));
	TAILQ_INIT(&errs);
	/* The operator's configuration, as the e2e test wrote it. */
	REQUIRE((conf = config_load(confdir, &errs)) != NULL, "%s: %s", confdir,
	    TAILQ_EMPTY(&errs) ? "unreadable" : TAILQ_FIRST(&errs)->line);

	job_run(conf, CAP_CLAUDE, JOB_RUN, CLAUDE_INPUT, strlen(CLAUDE_INPUT),
	    0, test_lock, real_keep, NULL, &o);
	CHECK(strcmp(job_status_name(o.status), expect) == 0, "%s: %s "
	    "(stderr %.*s)", job_status_name(o.status), o.error,
	    (int)o.stderr_len, o.stderr_head);
	if (o.status == JOB_SUCCEEDED)
		CHECK(o.output != NULL && strstr(o.output, "\"recipes\"") !=
		    NULL && o.usage.has && o.usage.input_tokens == 12,
		    "output %s", o.output);
	job_outcome_free(&o);
}

ATF_TC(real_keep);
ATF_TC_HEAD(real_keep, tc)
{
	atf_tc_set_md_var(tc, "descr", "claude through the real keepd and "
	    "gated: driven by t_job_e2e.sh, which starts them and says what "
	    "to expect");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "timeout", "300");
}
ATF_TC_BODY(real_keep, tc)
{
	if (!atf_tc_has_config_var(tc, "keep_sock"))
		atf_tc_skip("only t_job_e2e.sh runs it, with keep_sock set");
	(void)strlcpy(keep_sock, atf_tc_get_config_var(tc, "keep_sock"),
	    sizeof(keep_sock));
	(void)strlcpy(expect, atf_tc_get_config_var(tc, "expect"),
	    sizeof(expect));
	(void)strlcpy(confdir, atf_tc_get_config_var(tc, "config"),
	    sizeof(confdir));
	in_account(tc, body_real_keep);
}

/*
 * The image of a test build of the box (make: box/sandcastle-box-test,
 * -nofilter and -landlock, installed under libexec/), made by
 * regress/box/testbox/image.sh; its build into tbuild.
 */
static void
test_image(const char *box, const char *cap, char tbuild[BUILD_ID_LEN + 1])
{
	char	 cmd[4 * PATH_MAX], exe[PATH_MAX], dir[PATH_MAX];
	FILE	*f;
	ssize_t	 n;

	REQUIRE((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) > 0,
	    "%s", "readlink");
	exe[n] = '\0';
	(void)strlcpy(dir, dirname(exe), sizeof(dir));
	(void)snprintf(cmd, sizeof(cmd), "sh %s/../box/testbox/image.sh "
	    "%s/libexec/%s %s", dir, prefix, box, cap);
	REQUIRE((f = popen(cmd, "r")) != NULL && fgets(tbuild, BUILD_ID_LEN + 1,
	    f) != NULL && strlen(tbuild) == BUILD_ID_LEN, "%s", cmd);
	pclose(f);
}

static const char *const filter_calls[] = { "open", "socket", "execve", NULL };

/* A job of cap whose input carries the test build's marker for call. */
static void
marked_job(struct config *conf, enum cap_id cap, const char *call,
    struct job_outcome *o)
{
	char	 in[256];

	if (cap == CAP_CLAUDE)
		(void)snprintf(in, sizeof(in), "{\"prompt\": \"x\", \"schema\": "
		    "{\"type\": \"object\"}, \"sandcastle_test\": \"%s\"}", call);
	else
		(void)snprintf(in, sizeof(in), "{\"image\": \"aGk=\", "
		    "\"sandcastle_test\": \"%s\"}", call);
	job_run(conf, cap, JOB_RUN, in, strlen(in), 0,
	    test_lock, NULL, NULL, o);
}

/* Each call of filter_calls, by each capability's box of the filtered build. */
static void
filter_kills(struct config *conf, enum cap_id cap)
{
	struct job_outcome	 o;
	char			 tbuild[BUILD_ID_LEN + 1], why[256];
	size_t			 i;

	test_image("sandcastle-box-test", cap_name(cap), tbuild);
	REQUIRE(job_init(tbuild, why, sizeof(why)) == 0, "%s", why);
	for (i = 0; filter_calls[i] != NULL; i++) {
		marked_job(conf, cap, filter_calls[i], &o);
		CHECK(o.status == JOB_FAILED && strncmp(o.error, "the box broke "
		    "its filter: killed by SIGSYS", 36) == 0, "%s %s: %s: %s "
		    "(stderr %.*s)", cap_name(cap), filter_calls[i],
		    job_status_name(o.status), o.error, (int)o.stderr_len,
		    o.stderr_head);
		job_outcome_free(&o);
	}
}

/* The control: the same build without the filter, where each call works. */
static void
filter_control(struct config *conf, enum cap_id cap)
{
	struct job_outcome	 o;
	char			 tbuild[BUILD_ID_LEN + 1], why[256];
	size_t			 i;

	test_image("sandcastle-box-test-nofilter", cap_name(cap), tbuild);
	REQUIRE(job_init(tbuild, why, sizeof(why)) == 0, "%s", why);
	for (i = 0; filter_calls[i] != NULL; i++) {
		marked_job(conf, cap, filter_calls[i], &o);
		/* execve(2) ran the box again, with no argument: its usage. */
		if (strcmp(filter_calls[i], "execve") == 0)
			CHECK(o.status == JOB_FAILED && strstr(o.error,
			    "exited with 1") != NULL && memmem(o.stderr_head,
			    o.stderr_len, "usage: sandcastle-box", 21) != NULL,
			    "%s execve: %s (stderr %.*s)", cap_name(cap),
			    o.error, (int)o.stderr_len, o.stderr_head);
		else
			CHECK(o.status == JOB_FAILED && strstr(o.error,
			    "test: the call succeeded") != NULL, "%s %s: %s",
			    cap_name(cap), filter_calls[i], o.error);
		job_outcome_free(&o);
	}
}

/*
 * The ruleset alone, in the build without the filter: open(2) and
 * execve(2) refused with EACCES by Landlock, socket(2), which no
 * ruleset of this kernel governs, made: the filter is what holds it.
 */
static void
filter_landlock(struct config *conf, enum cap_id cap)
{
	struct job_outcome	 o;
	char			 tbuild[BUILD_ID_LEN + 1], why[256];
	const char		*want;
	size_t			 i;

	test_image("sandcastle-box-test-landlock", cap_name(cap), tbuild);
	REQUIRE(job_init(tbuild, why, sizeof(why)) == 0, "%s", why);
	for (i = 0; filter_calls[i] != NULL; i++) {
		marked_job(conf, cap, filter_calls[i], &o);
		want = strcmp(filter_calls[i], "socket") == 0 ?
		    "test: the call succeeded" :
		    "test: the call failed: Permission denied";
		CHECK(o.status == JOB_FAILED && strstr(o.error, want) != NULL,
		    "%s %s under the ruleset alone: %s: %s (stderr %.*s)",
		    cap_name(cap), filter_calls[i], job_status_name(o.status),
		    o.error, (int)o.stderr_len, o.stderr_head);
		job_outcome_free(&o);
	}
}

/*
 * B8: open(2), socket(2) and execve(2) after the filter: SIGSYS, each;
 * under the ruleset alone open and execve EACCES; with neither lock each
 * call made (the control).
 */
static void
body_filter(void)
{
	struct config	*conf = setup(NULL);

	filter_kills(conf, CAP_CLAUDE);
	filter_kills(conf, CAP_OCR);
	filter_landlock(conf, CAP_CLAUDE);
	filter_landlock(conf, CAP_OCR);
	filter_control(conf, CAP_CLAUDE);
	filter_control(conf, CAP_OCR);
}

/* A job of the test build whose box fails with the word said. */
static void
word_job(struct config *conf, enum cap_id cap, const char *word,
    struct job_outcome *o)
{
	char	 in[256];

	(void)snprintf(in, sizeof(in), cap == CAP_OCR ? "{\"image\": "
	    "\"aGk=\", \"sandcastle_test\": \"word\", \"sandcastle_word\": "
	    "\"%s\"}" : "{\"prompt\": \"x\", \"schema\": {\"type\": "
	    "\"object\"}, \"sandcastle_test\": \"word\", "
	    "\"sandcastle_word\": \"%s\"}", word);
	job_run(conf, cap, JOB_RUN, in, strlen(in), 0, test_lock, NULL, NULL,
	    o);
}

/*
 * B9: the box sends its failure's word; the reader takes a word of its
 * row (the control) and refuses another row's as the box's own fault.
 */
static void
body_word_row(void)
{
	static const struct {
		enum cap_id	 cap;
		const char	*word;
		enum job_word	 want;
	} cases[] = {
		{ CAP_CLAUDE, "declined", JW_DECLINED },
		{ CAP_CLAUDE, "languages", JW_BOX },
		{ CAP_OCR, "languages", JW_LANGUAGES },
		{ CAP_OCR, "declined", JW_BOX },
	};
	struct config		*conf = setup(NULL);
	struct job_outcome	 o;
	char			 tbuild[BUILD_ID_LEN + 1], why[256], want[128];
	size_t			 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		test_image("sandcastle-box-test", cap_name(cases[i].cap),
		    tbuild);
		REQUIRE(job_init(tbuild, why, sizeof(why)) == 0, "%s", why);
		word_job(conf, cases[i].cap, cases[i].word, &o);
		if (cases[i].want == JW_BOX)
			(void)snprintf(want, sizeof(want), "the box's word %s "
			    "is not one %s's box may send: test: the word %s",
			    cases[i].word, cap_name(cases[i].cap),
			    cases[i].word);
		else
			(void)snprintf(want, sizeof(want), "test: the word %s",
			    cases[i].word);
		CHECK(o.status == JOB_FAILED && o.word == cases[i].want &&
		    strcmp(o.error, want) == 0, "%s %s: %s (%s): %s (stderr "
		    "%.*s)", cap_name(cases[i].cap), cases[i].word,
		    job_status_name(o.status), job_word_name(o.word), o.error,
		    (int)o.stderr_len, o.stderr_head);
		job_outcome_free(&o);
	}
}

/* The keep of filters: the box waits for it; its status is read meanwhile. */
static char	 filters_image[64];

static int
filters_keep(const char *env, size_t len, unsigned int seconds,
    struct keepcli_answer *a, void *arg, const char **why)
{
	char	 cmd[512], line[128];
	FILE	*f;
	int	*n = arg;

	*n = -1;
	(void)snprintf(cmd, sizeof(cmd), "grep '^Seccomp_filters:' /proc/$("
	    "podman inspect --format '{{.State.Pid}}' $(podman ps -q --filter "
	    "ancestor=localhost/%s))/status", filters_image);
	if ((f = popen(cmd, "r")) != NULL) {
		if (fgets(line, sizeof(line), f) != NULL)
			(void)sscanf(line, "Seccomp_filters: %d", n);
		pclose(f);
	}
	a->status = 200;
	a->ctype = strdup("application/json");
	stub_body(a, REPLY("end_turn", "{\\\"tag\\\":\\\"x\\\"}"));
	return 0;
}

static int
filters_of(struct config *conf, const char *box)
{
	struct job_outcome	 o;
	char			 tbuild[BUILD_ID_LEN + 1], why[256];
	int			 n = -1;

	test_image(box, "claude", tbuild);
	REQUIRE(job_init(tbuild, why, sizeof(why)) == 0, "%s", why);
	(void)snprintf(filters_image, sizeof(filters_image),
	    "sandcastle-claude:%s", tbuild);
	job_run(conf, CAP_CLAUDE, JOB_RUN, CLAUDE_INPUT, strlen(CLAUDE_INPUT),
	    0, test_lock, filters_keep, &n, &o);
	CHECK(o.status == JOB_SUCCEEDED, "%s: %s: %s", box,
	    job_status_name(o.status), o.error);
	job_outcome_free(&o);
	return n;
}

/*
 * B8: a running box has two filters, podman's profile and its own; the
 * control, without its own, has one.  Under the launcher's filter, as
 * sandcastled runs it, three.
 */
static void
body_filters(void)
{
	struct config	*conf = setup(NULL);
	int		 with, without, launcher;

	with = filters_of(conf, "sandcastle-box-test");
	without = filters_of(conf, "sandcastle-box-test-nofilter");
	CHECK(with == 2 && without == 1, "Seccomp_filters: %d with the box's "
	    "own filter, %d without", with, without);
	sandbox_launcher();
	launcher = filters_of(conf, "sandcastle-box-test");
	CHECK(launcher == 3, "Seccomp_filters: %d under the launcher's filter",
	    launcher);
}

/*
 * B11: a taken box's request of its own choosing, sent by the test
 * build's marker "request": another model, more tokens, a tool, another
 * path, a batch.  Each ends the job as a protocol failure naming what
 * differed, before the keep is asked.
 */
#define PIN_BODY(model, tokens, extra) "{\"model\":\"" model "\"," \
	"\"max_tokens\":" tokens ",\"stream\":true," \
	"\"system\":\"Be brief.\"," extra \
	"\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]," \
	"\"output_config\":{\"format\":{\"type\":\"json_schema\",\"schema\":" \
	"{\"type\":\"object\"}},\"effort\":\"medium\"}}"
#define PIN_REQ(path, body) "{\"method\":\"POST\",\"path\":\"" path "\"," \
	"\"headers\":{\"content-type\":\"application/json\"," \
	"\"anthropic-version\":\"2023-06-01\"},\"body\":" body "}"

static const struct pin_case {
	const char	*name;
	const char	*request;
	const char	*error;		/* in the error; NULL: the keep is asked */
} pin_cases[] = {
	{ "the box's own", PIN_REQ("/v1/messages", PIN_BODY("claude-test-1",
	    "1024", "")), NULL },
	{ "another model", PIN_REQ("/v1/messages", PIN_BODY("claude-opus-9",
	    "1024", "")), "the box asked for model claude-opus-9, the "
	    "configuration says claude-test-1" },
	{ "more tokens", PIN_REQ("/v1/messages", PIN_BODY("claude-test-1",
	    "64000", "")), "the box asked for max_tokens 64000, the "
	    "configuration says 1024" },
	{ "a tool", PIN_REQ("/v1/messages", PIN_BODY("claude-test-1", "1024",
	    "\"tools\":[{\"type\":\"web_fetch_20250910\",\"name\":"
	    "\"web_fetch\"}],")), "the body: tools is a key the box never "
	    "sends" },
	{ "another path", PIN_REQ("/v1/complete", PIN_BODY("claude-test-1",
	    "1024", "")), "path /v1/complete is not the Messages API" },
	{ "a batch", PIN_REQ("/v1/messages/batches", "{\"requests\":[{"
	    "\"custom_id\":\"a\",\"params\":" PIN_BODY("claude-test-1",
	    "64000", "") "}]}"), "path /v1/messages/batches is not the "
	    "Messages API" },
};

static void
pin_one(struct config *conf, const struct pin_case *pc)
{
	struct job_outcome	 o;
	struct stub		 s = { 0, 200, 0, REPLY("end_turn",
				    "{\\\"tag\\\":\\\"x\\\"}"), NULL, 0 };
	char			*in;

	REQUIRE(asprintf(&in, "{\"prompt\": \"x\", \"schema\": {\"type\": "
	    "\"object\"}, \"sandcastle_test\": \"request\", "
	    "\"sandcastle_request\": %s}", pc->request) != -1, "%s",
	    "asprintf");
	job_run(conf, CAP_CLAUDE, JOB_RUN, in, strlen(in), 0,
	    test_lock, stub_keep, &s, &o);
	if (pc->error == NULL)
		CHECK(s.calls == 1 && o.status == JOB_FAILED && strstr(o.error,
		    "test: the request was answered") != NULL, "%s: %d calls, "
		    "%s: %s (stderr %.*s)", pc->name, s.calls,
		    job_status_name(o.status), o.error, (int)o.stderr_len,
		    o.stderr_head);
	else
		CHECK(s.calls == 0 && o.status == JOB_FAILED &&
		    o.word == JW_PROTOCOL && strstr(o.error, "the box's "
		    "request is not the one its box sends") != NULL &&
		    strstr(o.error, pc->error) != NULL, "%s: %d calls, %s "
		    "(%s): %s", pc->name, s.calls, job_status_name(o.status),
		    job_word_name(o.word), o.error);
	free(s.envelope);
	free(in);
	job_outcome_free(&o);
}

static void
body_pinned(void)
{
	struct config		*conf = setup(NULL);
	struct job_outcome	 o;
	struct stub		 s = { 0, 200, 0, REPLY("end_turn",
				    "{\\\"tag\\\":\\\"x\\\"}"), NULL, 0 };
	char			 tbuild[BUILD_ID_LEN + 1], why[256];
	size_t			 i;

	free(claude_conf(conf)->system_prompt);
	claude_conf(conf)->system_prompt = strdup("Be brief.");
	test_image("sandcastle-box-test", "claude", tbuild);
	REQUIRE(job_init(tbuild, why, sizeof(why)) == 0, "%s", why);
	/* The control: the same build's own request, unmarked, succeeds. */
	job_run(conf, CAP_CLAUDE, JOB_RUN, CLAUDE_INPUT, strlen(CLAUDE_INPUT),
	    0, test_lock, stub_keep, &s, &o);
	CHECK(o.status == JOB_SUCCEEDED && s.calls == 1, "the control: %s: %s",
	    job_status_name(o.status), o.error);
	free(s.envelope);
	job_outcome_free(&o);
	for (i = 0; i < sizeof(pin_cases) / sizeof(pin_cases[0]); i++)
		pin_one(conf, &pin_cases[i]);
}

#ifndef __SANITIZE_ADDRESS__
/*
 * The keep of reader: called in the launcher while the box and its
 * reader wait for the answer; the reader, the child of this process
 * that runs this program (not podman, not popen's shell), has its
 * Seccomp: and Seccomp_filters: read.
 */
static int
reader_keep(const char *env, size_t len, unsigned int seconds,
    struct keepcli_answer *a, void *arg, const char **why)
{
	char	 cmd[512], line[128];
	FILE	*f;
	int	*seen = arg;

	seen[0] = seen[1] = -1;
	(void)snprintf(cmd, sizeof(cmd), "for p in $(cat /proc/%d/task/%d/"
	    "children); do [ \"$(cat /proc/$p/comm)\" = \"$(cat /proc/%d/"
	    "comm)\" ] && grep '^Seccomp' /proc/$p/status; done", (int)getpid(),
	    (int)getpid(), (int)getpid());
	if ((f = popen(cmd, "r")) != NULL) {
		while (fgets(line, sizeof(line), f) != NULL)
			if (sscanf(line, "Seccomp: %d", &seen[0]) != 1)
				(void)sscanf(line, "Seccomp_filters: %d",
				    &seen[1]);
		pclose(f);
	}
	a->status = 200;
	a->ctype = strdup("application/json");
	stub_body(a, REPLY("end_turn", "{\\\"tag\\\":\\\"x\\\"}"));
	return 0;
}

/* A claude job, its reader's seccomp mode and filters into seen. */
static void
reader_job(struct config *conf, int seen[2], struct job_outcome *o)
{
	job_run(conf, CAP_CLAUDE, JOB_RUN, CLAUDE_INPUT, strlen(CLAUDE_INPUT),
	    0, test_lock, reader_keep, seen, o);
}

/*
 * T3: the box's reader reads the box under its filter (Seccomp: 2, one
 * filter of its own); the control, a reader with no lock, has none.
 */
static void
body_reader(void)
{
	struct config		*conf = setup(NULL);
	struct job_outcome	 o;
	int			 seen[2];

	test_lock = reader_lock;
	reader_job(conf, seen, &o);
	CHECK(o.status == JOB_SUCCEEDED && seen[0] == 2 && seen[1] == 1,
	    "locked reader: %s: %s; Seccomp: %d, Seccomp_filters: %d",
	    job_status_name(o.status), o.error, seen[0], seen[1]);
	job_outcome_free(&o);
	test_lock = unlocked;
	reader_job(conf, seen, &o);
	CHECK(o.status == JOB_SUCCEEDED && seen[0] == 0,
	    "control: %s: %s; Seccomp: %d", job_status_name(o.status), o.error,
	    seen[0]);
	job_outcome_free(&o);
}

/* A taken reader: what it tries after its lock is on, before the box. */
static void
taken_socket(void)
{
	reader_lock();
	(void)socket(AF_INET, SOCK_STREAM, 0);
}

/* Its control: the same call without the lock. */
static void
taken_control(void)
{
	(void)socket(AF_INET, SOCK_STREAM, 0);
}

/*
 * T3: a taken reader that opens a socket is killed by its filter; the job
 * fails as the box's break of the protocol and the box is removed.
 * The control makes the socket and the job succeeds.
 */
static void
body_reader_taken(void)
{
	struct config		*conf = setup(NULL);
	struct job_outcome	 o;
	int			 seen[2];

	test_lock = taken_socket;
	reader_job(conf, seen, &o);
	CHECK(o.status == JOB_FAILED && o.word == JW_PROTOCOL &&
	    strstr(o.error, "reader failed") != NULL &&
	    strstr(o.error, "signal 31") != NULL && o.box_removed,
	    "taken reader: %s (%s): %s; removed %d", job_status_name(o.status),
	    job_word_name(o.word), o.error, o.box_removed);
	job_outcome_free(&o);
	test_lock = taken_control;
	reader_job(conf, seen, &o);
	CHECK(o.status == JOB_SUCCEEDED, "control: %s: %s",
	    job_status_name(o.status), o.error);
	job_outcome_free(&o);
}

#endif

#define ACCOUNT_TC(name, what, secs)					\
ATF_TC(name);								\
ATF_TC_HEAD(name, tc)							\
{									\
	atf_tc_set_md_var(tc, "descr", what);				\
	atf_tc_set_md_var(tc, "require.user", "root");			\
	atf_tc_set_md_var(tc, "require.config", "prefix");		\
	atf_tc_set_md_var(tc, "timeout", secs);				\
}									\
ATF_TC_BODY(name, tc)							\
{									\
	in_account(tc, body_##name);					\
}

ACCOUNT_TC(png, "ocr of a PNG the test drew: succeeded, its text, the "
    "record's size and SHA-256", "300")
ACCOUNT_TC(jpeg, "ocr of a JPEG the test drew: succeeded, its text", "120")
ACCOUNT_TC(gif, "ocr of a GIF fails; the control, a PNG, succeeds", "120")
ACCOUNT_TC(max_input, "an input over max_input fails before any box; the "
    "control at max_input starts one", "120")
ACCOUNT_TC(other_build, "a box of another build is released, naming both "
    "builds; the control from this build succeeds", "120")
ACCOUNT_TC(missing_image, "a missing image releases the job, naming it",
    "120")
ACCOUNT_TC(runtime, "an OCI runtime podman cannot find, or one that "
    "fails, is named with its step, not the image; the control, podman's "
    "own runtime, succeeds", "300")
ACCOUNT_TC(word_row, "a box's failure word of its capability's row is "
    "taken; another row's is refused as the box's fault, word box",
    "300")
ACCOUNT_TC(claude, "claude through a keep stub: a good reply succeeds with "
    "usage; refusal, max_tokens and a schema mismatch fail; 401, 429, "
    "billing, 500, a refusal of the keep and no answer release", "300")

/* B11: a box's request of its own fails its job; the box's own goes. */
ATF_TC(pinned);
ATF_TC_HEAD(pinned, tc)
{
	atf_tc_set_md_var(tc, "descr", "A test build's box that asks for "
	    "another model, more tokens, a tool, another path or a batch "
	    "fails as a protocol failure naming what differed, and the keep "
	    "is not asked; the control, the request the box sends, reaches "
	    "the keep");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "require.config", "prefix");
	atf_tc_set_md_var(tc, "timeout", "300");
}
ATF_TC_BODY(pinned, tc)
{
	in_account(tc, body_pinned);
}

/* B8: the box's own filter kills each call it does not allow. */
ATF_TC(filter);
ATF_TC_HEAD(filter, tc)
{
	atf_tc_set_md_var(tc, "descr", "A test build of the box that, on a "
	    "marker in the job, calls open(2), socket(2) or execve(2) after "
	    "its filter is on is killed by SIGSYS, and the job fails saying it "
	    "broke its filter, in claude's box and ocr's; under its Landlock "
	    "ruleset alone open(2) and execve(2) fail with EACCES and "
	    "socket(2) is made; the same build without either lock makes each "
	    "call");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "require.config", "prefix");
	atf_tc_set_md_var(tc, "timeout", "300");
}
ATF_TC_BODY(filter, tc)
{
	in_account(tc, body_filter);
}

/* B8: two filters on a running box, one without its own. */
ATF_TC(filters);
ATF_TC_HEAD(filters, tc)
{
	atf_tc_set_md_var(tc, "descr", "/proc/<pid>/status of a running box "
	    "shows two seccomp filters, podman's and its own; the build "
	    "without its own shows one");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "require.config", "prefix");
	atf_tc_set_md_var(tc, "timeout", "120");
}
ATF_TC_BODY(filters, tc)
{
	in_account(tc, body_filters);
}

#ifndef __SANITIZE_ADDRESS__
/* T3: the reader of a real box is under its filter. */
ATF_TC(reader);
ATF_TC_HEAD(reader, tc)
{
	atf_tc_set_md_var(tc, "descr", "the box's reader reads the box under "
	    "its seccomp filter (Seccomp: 2, one filter); the control, with no "
	    "lock, has none");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "require.config", "prefix");
	atf_tc_set_md_var(tc, "timeout", "120");
}
ATF_TC_BODY(reader, tc)
{
	in_account(tc, body_reader);
}

/* T3: a taken reader is killed, and its job fails. */
ATF_TC(reader_taken);
ATF_TC_HEAD(reader_taken, tc)
{
	atf_tc_set_md_var(tc, "descr", "a reader that makes a socket after "
	    "its lock is killed: the job fails as a break of the protocol and "
	    "its box is removed; the control, unlocked, succeeds");
	atf_tc_set_md_var(tc, "require.user", "root");
	atf_tc_set_md_var(tc, "require.config", "prefix");
	atf_tc_set_md_var(tc, "timeout", "120");
}
ATF_TC_BODY(reader_taken, tc)
{
	in_account(tc, body_reader_taken);
}
#endif

/* R2: one model request per job, none for ocr. */
ATF_TC_WITHOUT_HEAD(one_request);
ATF_TC_BODY(one_request, tc)
{
	struct proto_seq	 s;
	const char		*why;

	/* A second request is refused: the first, the control, is not. */
	proto_seq_init(&s, CAP_CLAUDE);
	ATF_REQUIRE(proto_seq_next(&s, PROTO_HELLO, &why) == 0);
	ATF_REQUIRE(proto_seq_next(&s, PROTO_JOB, &why) == 0);
	ATF_REQUIRE(proto_seq_next(&s, PROTO_REQUEST, &why) == 0);
	ATF_REQUIRE(proto_seq_next(&s, PROTO_ANSWER, &why) == 0);
	ATF_REQUIRE(proto_seq_next(&s, PROTO_REQUEST, &why) == -1);
	ATF_REQUIRE(strstr(why, "second request") != NULL);
	ATF_REQUIRE(proto_seq_next(&s, PROTO_RESULT, &why) == 0);
	/* ocr makes none. */
	proto_seq_init(&s, CAP_OCR);
	ATF_REQUIRE(proto_seq_next(&s, PROTO_HELLO, &why) == 0);
	ATF_REQUIRE(proto_seq_next(&s, PROTO_JOB, &why) == 0);
	ATF_REQUIRE(proto_seq_next(&s, PROTO_REQUEST, &why) == -1);
	ATF_REQUIRE(proto_seq_next(&s, PROTO_RESULT, &why) == 0);
	ATF_REQUIRE(proto_seq_next(&s, PROTO_RESULT, &why) == -1);
}

/*
 * B9: the word of a box's failure line is taken only from its
 * capability's row (or any box's, cap_box_words), with its release; any
 * other word, or one with the other release, is refused (-1).
 */
ATF_TC_WITHOUT_HEAD(words);
ATF_TC_BODY(words, tc)
{
	static const struct {
		enum cap_id	 cap;
		const char	*word;
		int		 release;
		int		 want;		/* -1: refused */
	} cases[] = {
		{ CAP_CLAUDE, "schema", 0, JW_SCHEMA },
		{ CAP_CLAUDE, "declined", 0, JW_DECLINED },
		{ CAP_CLAUDE, "max_tokens", 0, JW_MAX_TOKENS },
		{ CAP_CLAUDE, "context_window", 0, JW_CONTEXT },
		{ CAP_CLAUDE, "stop_reason", 0, JW_STOP_REASON },
		{ CAP_CLAUDE, "api", 0, JW_API },
		{ CAP_CLAUDE, "key", 1, JW_KEY },
		{ CAP_CLAUDE, "credit", 1, JW_CREDIT },
		{ CAP_CLAUDE, "rate", 1, JW_RATE },
		{ CAP_CLAUDE, "model", 1, JW_MODEL },
		{ CAP_CLAUDE, "api_down", 1, JW_API_DOWN },
		{ CAP_CLAUDE, "unreachable", 1, JW_UNREACHABLE },
		{ CAP_OCR, "languages", 1, JW_LANGUAGES },
		{ CAP_OCR, "released", 1, JW_RELEASED },
		/* Any box's. */
		{ CAP_CLAUDE, "protocol", 0, JW_PROTOCOL },
		{ CAP_OCR, "protocol", 0, JW_PROTOCOL },
		{ CAP_OCR, "box", 0, JW_BOX },
		{ CAP_CLAUDE, "build", 1, JW_BUILD },
		/* Refused: another row's, the other release, none of ours. */
		{ CAP_OCR, "declined", 0, -1 },
		{ CAP_CLAUDE, "languages", 1, -1 },
		{ CAP_CLAUDE, "declined", 1, -1 },
		{ CAP_CLAUDE, "rate", 0, -1 },
		{ CAP_CLAUDE, "none", 0, -1 },
		{ CAP_CLAUDE, "stopped", 1, -1 },
		{ CAP_CLAUDE, "leftover", 1, -1 },
		{ CAP_OCR, "nonsense", 0, -1 },
	};
	enum job_word	 w;
	size_t		 i;
	int		 r, c;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		w = JW_COUNT;
		r = job_word_of_box(cases[i].cap, cases[i].word,
		    cases[i].release, &w);
		ATF_CHECK_MSG(cases[i].want == -1 ? r == -1 : r == 0 &&
		    (int)w == cases[i].want, "%s %s (release %d): %d, %s",
		    cap_name(cases[i].cap), cases[i].word, cases[i].release,
		    r, job_word_name(w));
	}
	for (i = 0; i < JW_COUNT; i++) {
		ATF_CHECK(strspn(job_word_name(i),
		    "abcdefghijklmnopqrstuvwxyz_") == strlen(job_word_name(i)));
		ATF_CHECK_EQ(job_word_of_name(job_word_name(i)), (int)i);
	}
	ATF_CHECK_STREQ(job_word_name(JW_COUNT), "unknown");
	/* A capability's own words: its row's names, each of one row. */
	for (c = 0; c < CAP_COUNT; c++) {
		for (i = 0; i < cap_table[c]->nnames; i++) {
			w = JW_CAP_WORD(c, (int)i);
			ATF_REQUIRE(cap_table[c]->names[i] != NULL);
			ATF_CHECK_STREQ(job_word_name(w),
			    cap_table[c]->names[i]);
			ATF_CHECK(strspn(job_word_name(w),
			    "abcdefghijklmnopqrstuvwxyz_") ==
			    strlen(job_word_name(w)));
			ATF_CHECK_EQ(job_word_of_name(job_word_name(w)),
			    (int)w);
		}
		ATF_CHECK_STREQ(job_word_name(JW_CAP_WORD(c,
		    (int)cap_table[c]->nnames)), "unknown");
	}
	ATF_CHECK_STREQ(job_word_name(JW_CAP_WORD(CAP_COUNT, 0)), "unknown");
}

/*
 * A mapped body ends where its memfd does, with no NUL after it: one
 * that fills its last page is read by its length, the page after it
 * unreadable.  JSON, a string and a failed call's first line.
 */
static void
answer_at_page_end(struct keepcli_answer *a)
{
	size_t		 page = sysconf(_SC_PAGESIZE), len;
	char		*map, *s, why[CONTRACT_WHY_MAX];

	ATF_REQUIRE((map = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)) != MAP_FAILED);
	ATF_REQUIRE(mprotect(map + page, page, PROT_NONE) == 0);
	memset(map, ' ', page);
	map[0] = '[';
	map[page - 1] = ']';
	memset(a, 0, sizeof(*a));
	a->status = 200;
	a->body = map;
	a->body_len = page;
	ATF_REQUIRE((s = job_answer_line(a, 1, NULL, &len)) != NULL);
	ATF_CHECK(strstr(s, "\"body\":[ ") != NULL && s[len - 2] == ']');
	free(s);
	map[page - 1] = 'x';
	ATF_REQUIRE((s = job_answer_line(a, 1, NULL, &len)) != NULL);
	ATF_CHECK(strstr(s, "   x\"}") != NULL);
	free(s);
	a->status = 500;
	ATF_CHECK(contract_answer(a, 0, why, sizeof(why)) == CONTRACT_FAILED);
	ATF_CHECK(strstr(why, "status 500: [") != NULL);
	ATF_REQUIRE(munmap(map, 2 * page) == 0);
}

ATF_TC_WITHOUT_HEAD(lines);
ATF_TC_BODY(lines, tc)
{
	static const char req[] = "{\"type\":\"request\",\"method\":\"GET\","
	    "\"path\":\"/v1/models/m\",\"headers\":{\"anthropic-version\":"
	    "\"2023-06-01\"}}";
	struct keepcli_answer	 a;
	struct config		*conf;
	const char		*why;
	char			*s, in[] = "{\"image\":\n\"aGk=\"}";
	size_t			 len;

	/* The input spliced as it came, its newline made a space. */
	ATF_REQUIRE((conf = config_new("/nonexistent")) != NULL);
	ATF_REQUIRE((s = job_line(conf, CAP_OCR, JOB_RUN, in, strlen(in),
	    &len)) != NULL);
	ATF_CHECK(strlen(s) == len && strchr(s, '\n') == NULL);
	ATF_CHECK(strstr(s, ",\"input\":{\"image\": \"aGk=\"}}") != NULL);
	ATF_CHECK(strstr(s, "\"languages\":[\"eng\"]") != NULL);
	free(s);
	/* The envelope: the request's fields and the destination. */
	ATF_REQUIRE((s = job_envelope(CAP_CLAUDE, req,
	    strlen(req), &len, &why)) != NULL);
	ATF_CHECK_STREQ(s, "{\"destination\":\"claude\",\"method\":\"GET\","
	    "\"path\":\"/v1/models/m\",\"headers\":{\"anthropic-version\":"
	    "\"2023-06-01\"}}");
	free(s);
	ATF_CHECK(job_envelope(CAP_CLAUDE, "{\"type\":\"hello\"}", 16, &len,
	    &why) == NULL);
	/* A JSON body as it came, newlines made spaces; any other a string. */
	memset(&a, 0, sizeof(a));
	a.status = 200;
	a.ctype = "application/json";
	a.body = "{\"a\":\n1}";
	a.body_len = strlen(a.body);
	ATF_REQUIRE((s = job_answer_line(&a, 1, NULL, &len)) != NULL);
	ATF_CHECK_STREQ(s, "{\"type\":\"answer\",\"status\":200,"
	    "\"content_type\":\"application/json\",\"retry_after\":0,"
	    "\"body\":{\"a\": 1}}");
	free(s);
	a.body = "not json\n";
	a.body_len = strlen(a.body);
	ATF_REQUIRE((s = job_answer_line(&a, 1, NULL, &len)) != NULL);
	ATF_CHECK(strstr(s, "\"body\":\"not json\\n\"}") != NULL);
	free(s);
	a.refused = 1;
	(void)strlcpy(a.reason, "unusable secret: claude", sizeof(a.reason));
	ATF_REQUIRE((s = job_answer_line(&a, 1, NULL, &len)) != NULL);
	ATF_CHECK_STREQ(s, "{\"type\":\"unreachable\",\"error\":\"the keep "
	    "refused the request: unusable secret: claude\"}");
	free(s);
	answer_at_page_end(&a);
	config_free(conf);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, one_request);
#ifndef __SANITIZE_ADDRESS__
	ATF_TP_ADD_TC(tp, reader);
	ATF_TP_ADD_TC(tp, reader_taken);
#endif
	ATF_TP_ADD_TC(tp, lines);
	ATF_TP_ADD_TC(tp, words);
	ATF_TP_ADD_TC(tp, png);
	ATF_TP_ADD_TC(tp, jpeg);
	ATF_TP_ADD_TC(tp, gif);
	ATF_TP_ADD_TC(tp, max_input);
	ATF_TP_ADD_TC(tp, other_build);
	ATF_TP_ADD_TC(tp, missing_image);
	ATF_TP_ADD_TC(tp, runtime);
	ATF_TP_ADD_TC(tp, claude);
	ATF_TP_ADD_TC(tp, word_row);
	ATF_TP_ADD_TC(tp, real_keep);
	ATF_TP_ADD_TC(tp, filter);
	ATF_TP_ADD_TC(tp, filters);
	ATF_TP_ADD_TC(tp, pinned);
	return 0;
}
