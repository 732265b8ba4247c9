/*
 * The wiring between sandcastled's processes: which destination each
 * caller of the keep-frontend may name (destrule.c), and a keep's answer
 * as it crosses from the keep-frontend to the core or the launcher
 * (procmsg.c), whose lengths must add up, and the routes of the process
 * table (proc.c) against the messages' table.  Each refusal has its
 * control.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "config.h"
#include "keepcli.h"
#include "log.h"
#include "msg.h"
#include "contract.h"
#include "../../sandcastled/job.h"
#include "../../sandcastled/proto.h"
#include "../../sandcastled/sandcastled.h"

#define CORE		0
#define LAUNCHER	1

static struct config *
conf_with(const char *source, int claude)
{
	struct config	*conf;
	struct source	*src;

	ATF_REQUIRE((conf = config_new("/nonexistent")) != NULL);
	ATF_REQUIRE((src = calloc(1, sizeof(*src))) != NULL);
	(void)strlcpy(src->name, source, sizeof(src->name));
	(void)strlcpy(src->dest.name, source, sizeof(src->dest.name));
	TAILQ_INSERT_TAIL(&conf->sources, src, entry);
	conf->nsources = 1;
	conf->caps[CAP_CLAUDE].enabled = claude;
	conf->caps[CAP_OCR].enabled = 1;
	conf->claude.model = strdup("claude-test-1");
	free(conf->claude.system_prompt);
	conf->claude.system_prompt = strdup("");
	return conf;
}

static int
may(const struct config *conf, const char *env, int who)
{
	char	 why[256];

	return keepfe_may(conf, env, strlen(env), who, why, sizeof(why));
}

ATF_TC_WITHOUT_HEAD(core_sources_only);
ATF_TC_BODY(core_sources_only, tc)
{
	struct config	*conf = conf_with("notes", 1);
	char		 why[256];
	char		*e;
	size_t		 len;

	/* Control: the core's own claim, as contract.c writes it. */
	e = contract_claim_envelope("notes", CAP_BIT(CAP_OCR), 1, &len);
	ATF_REQUIRE(e != NULL);
	ATF_CHECK(keepfe_may(conf, e, len, CORE, why, sizeof(why)) == 0);
	free(e);
	ATF_CHECK(may(conf, "{\"destination\":\"notes\"}", CORE) == 0);
	/* claude's key is not the core's to use, nor an unknown name. */
	ATF_CHECK(keepfe_may(conf, "{\"destination\":\"claude\"}", 24, CORE,
	    why, sizeof(why)) == -1);
	ATF_CHECK(strstr(why, "the core may use") != NULL);
	ATF_CHECK(may(conf, "{\"destination\":\"other\"}", CORE) == -1);
	ATF_CHECK(may(conf, "{\"destination\":\"NOTES\"}", CORE) == -1);
	config_free(conf);
}

/* claude's request as its box sends it, for conf_with()'s settings. */
#define CLAUDE_REQUEST(path, model) "{\"type\":\"request\",\"method\":" \
	"\"POST\",\"path\":\"" path "\",\"headers\":{\"content-type\":" \
	"\"application/json\",\"anthropic-version\":\"2023-06-01\"}," \
	"\"body\":{\"model\":\"" model "\",\"max_tokens\":1024," \
	"\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]," \
	"\"output_config\":{\"format\":{\"type\":\"json_schema\"," \
	"\"schema\":{\"type\":\"object\"}},\"effort\":\"medium\"}}}"

/* The launcher's envelope of a box's request line, as job.c makes it. */
static char *
envelope(enum cap_id cap, const char *request)
{
	const char	*why;
	char		*e;
	size_t		 len;

	e = job_envelope(cap, request, strlen(request), &len, &why);
	ATF_REQUIRE_MSG(e != NULL, "%s", why);
	return e;
}

/* The envelope e with its destination made dest. */
static char *
redirect(const char *e, const char *dest)
{
	static const char	 claude[] = "{\"destination\":\"claude\"";
	char			*s;

	ATF_REQUIRE(strncmp(e, claude, strlen(claude)) == 0);
	ATF_REQUIRE(asprintf(&s, "{\"destination\":\"%s\"%s", dest,
	    e + strlen(claude)) != -1);
	return s;
}

/*
 * R2: the launcher, which carries a box's request, may name claude
 * alone, and only with the request claude's box sends.
 */
ATF_TC_WITHOUT_HEAD(launcher_claude_only);
ATF_TC_BODY(launcher_claude_only, tc)
{
	struct config	*conf = conf_with("notes", 1);
	char		*e, *s;

	e = envelope(CAP_CLAUDE, CLAUDE_REQUEST("/v1/messages",
	    "claude-test-1"));
	ATF_CHECK(may(conf, e, LAUNCHER) == 0);
	/* A source's token is not the launcher's to use, nor the core's claude. */
	s = redirect(e, "notes");
	ATF_CHECK(may(conf, s, LAUNCHER) == -1);
	ATF_CHECK(may(conf, s, CORE) == 0);
	ATF_CHECK(may(conf, e, CORE) == -1);
	free(s);
	config_free(conf);
	/* claude not enabled: not even claude. */
	conf = conf_with("notes", 0);
	ATF_CHECK(may(conf, e, LAUNCHER) == -1);
	free(e);
	config_free(conf);
}

/*
 * B11: the launcher's claude request is the one its box sends: a
 * taken launcher can ask for no other model, path or tool.  The control
 * is the box's request, and the core's calls are not held to it.
 */
ATF_TC_WITHOUT_HEAD(launcher_request);
ATF_TC_BODY(launcher_request, tc)
{
	struct config	*conf = conf_with("notes", 1);
	char		 why[256], *e, *s;

	e = envelope(CAP_CLAUDE, CLAUDE_REQUEST("/v1/messages",
	    "claude-test-1"));
	ATF_CHECK(keepfe_may(conf, e, strlen(e), LAUNCHER, why,
	    sizeof(why)) == 0);
	free(e);
	e = envelope(CAP_CLAUDE, CLAUDE_REQUEST("/v1/messages",
	    "claude-opus-9"));
	ATF_CHECK(keepfe_may(conf, e, strlen(e), LAUNCHER, why,
	    sizeof(why)) == -1);
	ATF_CHECK_MSG(strstr(why, "the box asked for model claude-opus-9, "
	    "the configuration says claude-test-1") != NULL, "%s", why);
	free(e);
	e = envelope(CAP_CLAUDE, CLAUDE_REQUEST("/v1/messages/batches",
	    "claude-test-1"));
	ATF_CHECK(keepfe_may(conf, e, strlen(e), LAUNCHER, why,
	    sizeof(why)) == -1);
	ATF_CHECK_MSG(strstr(why, "path /v1/messages/batches is not the "
	    "Messages API") != NULL, "%s", why);
	/* The core's call to its source is its own: no request check. */
	s = redirect(e, "notes");
	ATF_CHECK(may(conf, s, CORE) == 0);
	free(s);
	free(e);
	/* An envelope with nothing but a destination asks nothing. */
	ATF_CHECK(may(conf, "{\"destination\":\"claude\"}", LAUNCHER) == -1);
	config_free(conf);
}

ATF_TC_WITHOUT_HEAD(malformed);
ATF_TC_BODY(malformed, tc)
{
	struct config	*conf = conf_with("notes", 1);
	char		 why[256];

	ATF_CHECK(keepfe_may(conf, "{\"destination\":", 15, CORE, why,
	    sizeof(why)) == -1);
	ATF_CHECK(strstr(why, "not JSON") != NULL);
	ATF_CHECK(may(conf, "[\"notes\"]", CORE) == -1);
	ATF_CHECK(may(conf, "{\"dest\":\"notes\"}", CORE) == -1);
	ATF_CHECK(may(conf, "{\"destination\":7}", CORE) == -1);
	ATF_CHECK(may(conf, "{\"destination\":\"notes\\u0000x\"}", CORE) == -1);
	ATF_CHECK(may(conf, "{\"destination\":\"notes\"} x", CORE) == -1);
	/* Control: the same, well formed. */
	ATF_CHECK(may(conf, "{\"destination\":\"notes\",\"x\":[1]}", CORE) == 0);
	config_free(conf);
}

static void
channels(struct msgchan *a, struct msgchan *b)
{
	int	 sv[2];

	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	msgchan_init(a, sv[0], PROC_MAXPAYLOAD);
	msgchan_init(b, sv[1], PROC_MAXPAYLOAD);
}

ATF_TC_WITHOUT_HEAD(answer_crosses);
ATF_TC_BODY(answer_crosses, tc)
{
	struct keepcli_answer	 a, b;
	struct msgchan		 out, in;
	struct msg		 m;

	channels(&out, &in);
	memset(&a, 0, sizeof(a));
	a.status = 409;
	a.retry_after = 7;
	a.ctype = strdup("application/json");
	a.body = strdup("{\"x\":1}");
	a.body_len = 7;
	ATF_REQUIRE(proc_keep_answer_send(&out, 42, &a) == 0);
	ATF_REQUIRE(msgchan_flush_all(&out) == 0);
	ATF_REQUIRE(msg_read_one(&in, &m) == 1);
	ATF_CHECK_EQ(m.type, PROC_KEEP_ANSWER);
	ATF_CHECK_EQ(m.id, 42);
	proc_keep_answer_read(&m, &b, "test");
	ATF_CHECK(!b.refused && b.status == 409 && b.retry_after == 7);
	ATF_CHECK_STREQ(b.ctype, "application/json");
	ATF_CHECK(b.body_len == 7 && memcmp(b.body, "{\"x\":1}", 7) == 0);
	msg_free(&m);
	keepcli_answer_free(&b);
	/* A refusal crosses with its code and reason. */
	ATF_REQUIRE(proc_keep_refuse(&out, 43, KEEP_R_ENVELOPE, "no") == 0);
	ATF_REQUIRE(msgchan_flush_all(&out) == 0);
	ATF_REQUIRE(msg_read_one(&in, &m) == 1);
	proc_keep_answer_read(&m, &b, "test");
	ATF_CHECK(b.refused && b.code == KEEP_R_ENVELOPE);
	ATF_CHECK_STREQ(b.reason, "no");
	msg_free(&m);
	keepcli_answer_free(&b);
	keepcli_answer_free(&a);
}

/* A message whose lengths do not add up ends the receiver. */
ATF_TC_WITHOUT_HEAD(answer_lies);
ATF_TC_BODY(answer_lies, tc)
{
	struct proc_keep_answer	 h;
	struct keepcli_answer	 b;
	struct msg		 m;
	unsigned char		 buf[sizeof(h) + 4];
	pid_t			 pid;
	int			 st;

	memset(&h, 0, sizeof(h));
	h.body_len = 5;		/* 4 bytes follow */
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + sizeof(h), "abcd", 4);
	memset(&m, 0, sizeof(m));
	m.type = PROC_KEEP_ANSWER;
	m.fd = -1;
	m.data = buf;
	m.len = sizeof(buf);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		(void)close(2);
		(void)open("/dev/null", O_WRONLY);
		proc_keep_answer_read(&m, &b, "test");
		_exit(0);
	}
	ATF_REQUIRE(waitpid(pid, &st, 0) == pid);
	ATF_CHECK(WIFEXITED(st) && WEXITSTATUS(st) != 0);
	/* Control: 4, as many as follow, is read. */
	((struct proc_keep_answer *)(void *)buf)->body_len = 4;
	proc_keep_answer_read(&m, &b, "test");
	ATF_CHECK(b.body_len == 4 && memcmp(b.body, "abcd", 4) == 0);
	keepcli_answer_free(&b);
}

/* How many rows of the process table have type in their takes (or sends). */
static int
rows_with(uint32_t type, int sends)
{
	const struct proc	*t = proc_table();
	int			 i, n = 0;

	for (i = 0; i < PROC_COUNT; i++)
		if ((sends ? t[i].sends : t[i].takes) & MSG_BIT(type))
			n++;
	return n;
}

/*
 * Every message a child sends is taken by another child, but those that
 * stop at the parent (PROC_READY, PROC_SOURCES, PROC_ROUND_DONE), which
 * no child takes; no child takes what it sends itself; every type of the
 * rows has its sizes in proc_rules, and every type there is sent.
 */
ATF_TC_WITHOUT_HEAD(routes);
ATF_TC_BODY(routes, tc)
{
	const struct proc	*t = proc_table();
	uint32_t		 type, all = 0;
	size_t			 i;
	int			 parent;

	for (i = 0; i < proc_nrules; i++) {
		type = proc_rules[i].type;
		parent = type == PROC_READY || type == PROC_SOURCES ||
		    type == PROC_ROUND_DONE;
		ATF_CHECK_MSG(rows_with(type, 1) > 0, "%s: no child sends it",
		    proc_rules[i].name);
		ATF_CHECK_MSG(parent ? rows_with(type, 0) == 0 :
		    rows_with(type, 0) > 0, "%s: %s", proc_rules[i].name,
		    parent ? "a child takes it" : "no child takes it");
		all |= MSG_BIT(type);
	}
	for (i = 0; i < PROC_COUNT; i++) {
		ATF_CHECK_MSG((t[i].takes & t[i].sends) == 0,
		    "%s takes what it sends", t[i].title);
		ATF_CHECK_MSG(((t[i].takes | t[i].sends) & ~all) == 0,
		    "%s: a type with no row in proc_rules", t[i].title);
	}
	/* Control: the launcher takes a job, the keep-frontend does not. */
	ATF_CHECK(t[PROC_LAUNCHER].takes & MSG_BIT(PROC_JOB_RUN));
	ATF_CHECK(!(t[PROC_KEEPFE].takes & MSG_BIT(PROC_JOB_RUN)));
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, core_sources_only);
	ATF_TP_ADD_TC(tp, launcher_claude_only);
	ATF_TP_ADD_TC(tp, launcher_request);
	ATF_TP_ADD_TC(tp, malformed);
	ATF_TP_ADD_TC(tp, answer_crosses);
	ATF_TP_ADD_TC(tp, answer_lies);
	ATF_TP_ADD_TC(tp, routes);
	return atf_no_error();
}
