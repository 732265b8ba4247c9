/*
 * The wiring between sandcastled's processes: which destination each
 * caller of the keep-frontend may name (destrule.c), a keep's answer and
 * a job's outcome as they cross between the processes (keepcli.c,
 * outcome.c), whose lengths must add up, what the messages' table
 * (proctab.c) cannot say of itself, and a child's take by it; a job's
 * input by the claim's memfd.  Each refusal has its control.
 */
#include <sys/types.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "cap_claude.h"
#include "config.h"
#include "keepbody.h"
#include "keepcli.h"
#include "log.h"
#include "msg.h"
#include "contract.h"
#include "../../sandcastled/ask.h"
#include "../../sandcastled/child.h"
#include "../../sandcastled/destrule.h"
#include "../../sandcastled/job.h"
#include "../../sandcastled/jobread.h"
#include "../../sandcastled/keepfe.h"
#include "../../sandcastled/launcher.h"
#include "../../sandcastled/parent.h"
#include "../../sandcastled/proc.h"
#include "../../sandcastled/proctab.h"
#include "../../sandcastled/proto.h"
#include "../../sandcastled/stop.h"
#include "../lib/hop.h"

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
	claude_conf(conf)->model = strdup("claude-test-1");
	free(claude_conf(conf)->system_prompt);
	claude_conf(conf)->system_prompt = strdup("");
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
	"\"stream\":true,\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]," \
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

/* The message that crossed from out to in. */
static void
crossed(struct msgchan *out, struct msgchan *in, struct msg *m)
{
	ATF_REQUIRE(msgchan_flush_all(out) == 0);
	ATF_REQUIRE(msg_read_one(in, m) == 1);
}

/* A sealed memfd of len bytes of body, as keepd hands one over. */
static int
sealed(const char *body, size_t len)
{
	int	 fd;

	ATF_REQUIRE((fd = keepbody_make(body, len)) != -1);
	return fd;
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
	a.seconds = 1189;
	a.ctype = strdup("application/json");
	a.body_fd = sealed("{\"x\":1}", 7);
	a.body_len = 7;
	ATF_REQUIRE(keepcli_answer_send(&out, PROC_KEEP_ANSWER, 42, &a) == 0);
	crossed(&out, &in, &m);
	ATF_CHECK_EQ(m.type, PROC_KEEP_ANSWER);
	ATF_CHECK_EQ(m.id, 42);
	/* The body is the memfd's: the payload is the header and texts. */
	ATF_CHECK(m.fd != -1 && m.len == KEEPCLI_WIRE_MIN + 16);
	ATF_REQUIRE(keepcli_answer_take(&m, &b) == 0);
	ATF_CHECK(!b.refused && b.status == 409 && b.retry_after == 7);
	ATF_CHECK_EQ(b.seconds, 1189);
	ATF_CHECK_STREQ(b.ctype, "application/json");
	ATF_REQUIRE(keepcli_answer_map(&b) == 0);
	ATF_CHECK(b.body_len == 7 && memcmp(b.body, "{\"x\":1}", 7) == 0);
	/* Payload and memfd are the answer's now: nothing was copied. */
	ATF_CHECK(m.data == NULL && m.fd == -1 && b.held != NULL);
	/* The sender keeps its own memfd. */
	ATF_CHECK(fcntl(a.body_fd, F_GETFD) != -1);
	msg_free(&m);
	keepcli_answer_free(&b);
	keepcli_answer_free(&a);
	/* A refusal crosses with its code and reason, and no body. */
	a.refused = 1;
	a.code = KEEP_R_ENVELOPE;
	(void)strlcpy(a.reason, "no", sizeof(a.reason));
	ATF_REQUIRE(keepcli_answer_send(&out, PROC_KEEP_ANSWER, 43, &a) == 0);
	crossed(&out, &in, &m);
	ATF_CHECK(m.fd == -1);
	ATF_REQUIRE(keepcli_answer_take(&m, &b) == 0);
	ATF_CHECK(b.refused && b.code == KEEP_R_ENVELOPE);
	ATF_CHECK_STREQ(b.reason, "no");
	ATF_REQUIRE(keepcli_answer_map(&b) == 0);
	ATF_CHECK(b.body_len == 0 && b.body_fd == -1 &&
	    strcmp(b.body, "") == 0 && strcmp(b.ctype, "") == 0);
	msg_free(&m);
	keepcli_answer_free(&b);
}

/* A payload whose lengths or NULs do not add up is refused. */
ATF_TC_WITHOUT_HEAD(answer_lies);
ATF_TC_BODY(answer_lies, tc)
{
	struct keepcli_wire	 h;
	struct keepcli_answer	 b;
	struct msg		 m;
	unsigned char		 buf[sizeof(h) + 6], *copy;
	const uint32_t		 ctypelen[] = { 5, 3, 4, 4, 4 };
	const uint32_t		 bodylen[] = { 0, 0, 0, 4, 0 };
	const unsigned char	 last[] = { 0, 0, 'x', 0, 0 };
	size_t			 i;

	/* "", "abcd", each and its NUL; a body with no memfd; control last. */
	for (i = 0; i < 5; i++) {
		memset(&h, 0, sizeof(h));
		h.ctype_len = ctypelen[i];
		h.body_len = bodylen[i];
		memcpy(buf, &h, sizeof(h));
		memcpy(buf + sizeof(h), "\0abcd", 6);
		buf[sizeof(buf) - 1] = last[i];
		ATF_REQUIRE((copy = malloc(sizeof(buf))) != NULL);
		memcpy(copy, buf, sizeof(buf));
		memset(&m, 0, sizeof(m));
		m.type = PROC_KEEP_ANSWER;
		m.fd = -1;
		m.data = copy;
		m.len = sizeof(buf);
		if (i < 4)
			ATF_CHECK_MSG(keepcli_answer_take(&m, &b) == -1,
			    "case %zu taken", i);
		else {
			ATF_REQUIRE(keepcli_answer_take(&m, &b) == 0);
			ATF_CHECK(b.body_len == 0 &&
			    strcmp(b.ctype, "abcd") == 0);
		}
		msg_free(&m);
		keepcli_answer_free(&b);
	}
}

/* A memfd of the body with only seals of it, len bytes written. */
static int
memfd_sealed(const char *body, size_t len, int seals)
{
	int	 fd;

	ATF_REQUIRE((fd = memfd_create("lie", MFD_CLOEXEC |
	    MFD_ALLOW_SEALING)) != -1);
	ATF_REQUIRE(write(fd, body, len) == (ssize_t)len);
	ATF_REQUIRE(seals == 0 || fcntl(fd, F_ADD_SEALS, seals) == 0);
	return fd;
}

/* An answer of body_len bytes, its memfd fd (or none), sent raw. */
static void
send_raw(struct msgchan *out, uint32_t body_len, int fd)
{
	struct keepcli_wire	 h;
	struct iovec		 iov[2];

	memset(&h, 0, sizeof(h));
	h.status = 200;
	h.body_len = body_len;
	iov[0].iov_base = &h;
	iov[0].iov_len = sizeof(h);
	iov[1].iov_base = "\0";
	iov[1].iov_len = 2;
	ATF_REQUIRE(msg_composev(out, PROC_KEEP_ANSWER, 1, fd, iov, 2) == 0);
}

/* 0 when the receiver takes what came on in, -1 when it refuses it. */
static int
take_raw(struct msgchan *out, struct msgchan *in, struct keepcli_answer *b)
{
	struct msg	 m;
	int		 r;

	crossed(out, in, &m);
	r = keepcli_answer_take(&m, b);
	msg_free(&m);
	return r;
}

/*
 * Every receiver distrusts its sender: a memfd short of a seal, or of
 * another size than body_len, a body with no memfd and a memfd with no
 * body are refused.  Control: the same body, sealed, is taken.
 */
ATF_TC_WITHOUT_HEAD(answer_memfd_lies);
ATF_TC_BODY(answer_memfd_lies, tc)
{
	struct keepcli_answer	 b;
	struct msgchan		 out, in;

	channels(&out, &in);
	send_raw(&out, 7, memfd_sealed("{\"x\":1}", 7, 0));
	ATF_CHECK_MSG(take_raw(&out, &in, &b) == -1, "no seal: taken");
	send_raw(&out, 7, memfd_sealed("{\"x\":1}", 7, F_SEAL_SHRINK |
	    F_SEAL_GROW | F_SEAL_SEAL));
	ATF_CHECK_MSG(take_raw(&out, &in, &b) == -1, "no F_SEAL_WRITE: taken");
	send_raw(&out, 7, sealed("{\"x\":12}", 8));
	ATF_CHECK_MSG(take_raw(&out, &in, &b) == -1, "8 bytes for 7: taken");
	send_raw(&out, 8, sealed("{\"x\":1}", 7));
	ATF_CHECK_MSG(take_raw(&out, &in, &b) == -1, "7 bytes for 8: taken");
	send_raw(&out, 7, -1);
	ATF_CHECK_MSG(take_raw(&out, &in, &b) == -1, "no memfd: taken");
	send_raw(&out, 0, sealed("{\"x\":1}", 7));
	ATF_CHECK_MSG(take_raw(&out, &in, &b) == -1, "no body_len: taken");
	send_raw(&out, 7, sealed("{\"x\":1}", 7));
	ATF_REQUIRE(take_raw(&out, &in, &b) == 0);
	ATF_REQUIRE(keepcli_answer_map(&b) == 0);
	ATF_CHECK(b.body_len == 7 && memcmp(b.body, "{\"x\":1}", 7) == 0);
	keepcli_answer_free(&b);
}

/* Only the header and its texts crossed: the 32 MiB went by memfd. */
static void
hop_small(struct msgchan *out, struct msgchan *in, struct msg *m,
    const char *where)
{
	size_t	 n = hop(out, in, m);

	ATF_CHECK_MSG(n == sizeof(struct msg_hdr) + m->len &&
	    m->len <= KEEPCLI_WIRE_MAX, "%s: %zu bytes on the socket", where,
	    n);
	ATF_CHECK_MSG(m->fd != -1, "%s: no memfd", where);
}

/* keep-frontend to the parent, which passes it to asker's channel. */
static void
relay(struct msgchan *kf, struct msgchan *pk, uint32_t id,
    const struct keepcli_answer *a, enum proc_id asker)
{
	struct proc	*t = proc_table();
	struct msg	 m;

	stop_owe(PROC_KEEP_CALL, asker, id);
	ATF_REQUIRE(keepcli_answer_send(kf, PROC_KEEP_ANSWER, id, a) == 0);
	hop_small(kf, pk, &m, "keep-frontend to parent");
	parent_dispatch(&t[PROC_KEEPFE], &m);
	ATF_CHECK_MSG(m.fd == -1, "the parent kept the memfd");
	msg_free(&m);
}

/* The message's row takes it as the child's check would. */
static void
row_takes(const struct msg_rule *rule, const struct msg *m)
{
	char	 why[256];

	ATF_CHECK_MSG(msg_check(rule, 1, m, why, sizeof(why)) == 0, "%s", why);
}

/*
 * A 32 MiB body from the keep-frontend through the parent to the core,
 * and through the parent and the launcher to the box's reader: on each
 * socket the header alone, the same bytes mapped at the end.  A memfd
 * short of its seals goes the same way and the core refuses it.
 */
ATF_TC_WITHOUT_HEAD(body_by_memfd);
ATF_TC_BODY(body_by_memfd, tc)
{
	struct proc		*t = proc_table();
	struct keepcli_answer	 a, b, r;
	struct msgchan		 kf, pk, core, launcher, lr, reader;
	struct msg		 m;
	char			*body;
	size_t			 i;
	int			 sv[2];

	ATF_REQUIRE((body = malloc(KEEP_MAXBODY)) != NULL);
	for (i = 0; i < KEEP_MAXBODY; i++)
		body[i] = 'a' + i % 26;
	memset(&a, 0, sizeof(a));
	a.status = 200;
	a.ctype = strdup("application/json");
	a.body_fd = sealed(body, KEEP_MAXBODY);
	a.body_len = KEEP_MAXBODY;
	channels(&kf, &pk);
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	msgchan_init(&t[PROC_CORE].chan, sv[0], PROC_MAXPAYLOAD);
	msgchan_init(&core, sv[1], PROC_MAXPAYLOAD);
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	msgchan_init(&t[PROC_LAUNCHER].chan, sv[0], PROC_MAXPAYLOAD);
	msgchan_init(&launcher, sv[1], PROC_MAXPAYLOAD);
	channels(&lr, &reader);

	relay(&kf, &pk, 5, &a, PROC_CORE);
	hop_small(&t[PROC_CORE].chan, &core, &m, "parent to core");
	row_takes(&proc_msg(PROC_KEEP_ANSWER)->rule, &m);
	ATF_REQUIRE(keepcli_answer_take(&m, &b) == 0);
	msg_free(&m);
	ATF_REQUIRE(keepcli_answer_map(&b) == 0);
	ATF_CHECK(b.body_len == KEEP_MAXBODY &&
	    memcmp(b.body, body, KEEP_MAXBODY) == 0);
	keepcli_answer_free(&b);

	relay(&kf, &pk, PROC_ID_LAUNCHER | 6, &a, PROC_LAUNCHER);
	hop_small(&t[PROC_LAUNCHER].chan, &launcher, &m, "parent to launcher");
	ATF_REQUIRE(keepcli_answer_take(&m, &b) == 0);
	msg_free(&m);
	/* The launcher reads no byte of it: it passes the memfd on. */
	ATF_CHECK(b.body == NULL);
	ATF_REQUIRE(keepcli_answer_send(&lr, JR_ANSWER, 0, &b) == 0);
	keepcli_answer_free(&b);
	hop_small(&lr, &reader, &m, "launcher to reader");
	row_takes(msg_rule_find(jobread_rules, jobread_nrules, JR_ANSWER), &m);
	ATF_REQUIRE(keepcli_answer_take(&m, &r) == 0);
	msg_free(&m);
	ATF_REQUIRE(keepcli_answer_map(&r) == 0);
	ATF_CHECK(r.body_len == KEEP_MAXBODY &&
	    memcmp(r.body, body, KEEP_MAXBODY) == 0);
	keepcli_answer_free(&r);
	keepcli_answer_free(&a);

	/* Relayed as well, a memfd that can still change is refused. */
	a.body_fd = memfd_sealed("{\"x\":1}", 7, F_SEAL_SHRINK | F_SEAL_GROW);
	a.body_len = 7;
	relay(&kf, &pk, 7, &a, PROC_CORE);
	(void)hop(&t[PROC_CORE].chan, &core, &m);
	ATF_CHECK(keepcli_answer_take(&m, &b) == -1);
	msg_free(&m);
	keepcli_answer_free(&a);
	free(body);
}

/*
 * A PROC_JOB_RUN as the core sends it, inputlen bytes at input_off of
 * fd (or none), taken by its row and the launcher's check: NULL and the
 * input mapped in span, or why the launcher refuses it.
 */
static const char *
job_taken(struct msgchan *out, struct msgchan *in, uint32_t off,
    uint32_t len, int fd, struct keepbody_span *span)
{
	struct proc_job	 j;
	struct msg	 m;
	const char	*why = NULL;

	memset(&j, 0, sizeof(j));
	j.cap = CAP_CLAUDE;
	j.input_off = off;
	j.inputlen = len;
	ATF_REQUIRE(msg_compose(out, PROC_JOB_RUN, 1, fd, &j, sizeof(j)) == 0);
	crossed(out, in, &m);
	row_takes(&proc_msg(PROC_JOB_RUN)->rule, &m);
	memcpy(&j, m.data, sizeof(j));
	if (launcher_input(&j, m.fd, &why) == 0) {
		why = NULL;
		ATF_REQUIRE(keepbody_span_map(m.fd, j.input_off, j.inputlen,
		    span) == 0);
	}
	msg_free(&m);
	return why;
}

/* Refused for the reason want. */
static void
job_refused(struct msgchan *out, struct msgchan *in, uint32_t off,
    uint32_t len, int fd, const char *want, const char *what)
{
	struct keepbody_span	 span;
	const char		*why;

	why = job_taken(out, in, off, len, fd, &span);
	ATF_CHECK_MSG(why != NULL && strstr(why, want) != NULL, "%s: %s", what,
	    why == NULL ? "taken" : why);
	if (why == NULL)
		keepbody_span_unmap(&span);
}

/* The span taken, its bytes those of body at off. */
static void
job_maps(struct msgchan *out, struct msgchan *in, const char *body,
    size_t n, uint32_t off, uint32_t len)
{
	struct keepbody_span	 span;
	const char		*why;

	why = job_taken(out, in, off, len, sealed(body, n), &span);
	ATF_REQUIRE_MSG(why == NULL, "%u bytes at %u of %zu refused: %s", len,
	    off, n, why);
	ATF_CHECK_MSG(memcmp(span.bytes, body + off, len) == 0, "%u bytes at "
	    "%u: other bytes mapped", len, off);
	keepbody_span_unmap(&span);
}

/*
 * The launcher distrusts the core as the core distrusts the keep: an
 * input with no memfd, a memfd short of a seal, a span past its end or
 * one whose offset wraps, a memfd with no input, and a payload that
 * carries the input itself are refused, each for its reason.  Each
 * control, well formed, is taken and maps the input's bytes, on a page
 * boundary or across one.
 */
ATF_TC_WITHOUT_HEAD(job_memfd_lies);
ATF_TC_BODY(job_memfd_lies, tc)
{
	static const char	 body[] =
	    "{\"jobs\":[{\"id\":1,\"input\":{\"text\":\"hi\"}}]}";
	const size_t		 n = sizeof(body) - 1;
	const uint32_t		 off = strstr(body, "{\"text\"") - body;
	const uint32_t		 len = strlen("{\"text\":\"hi\"}");
	struct keepbody_span	 span;
	struct msgchan		 out, in;
	struct proc_job		 j;
	struct msg		 m;
	const char		*why;
	char			*big;
	size_t			 page = sysconf(_SC_PAGESIZE), i;
	int			 fd;

	channels(&out, &in);
	job_refused(&out, &in, off, len, -1, "without the claim's memfd",
	    "no memfd");
	job_refused(&out, &in, off, len, memfd_sealed(body, n, 0),
	    "not sealed", "no seal");
	job_refused(&out, &in, off, len, memfd_sealed(body, n, F_SEAL_SHRINK |
	    F_SEAL_GROW | F_SEAL_SEAL), "not sealed", "no F_SEAL_WRITE");
	job_refused(&out, &in, n - len + 1, len, sealed(body, n), "past the end",
	    "a byte past the end");
	/* UINT32_MAX - 1 + len wraps to a span inside the body. */
	job_refused(&out, &in, UINT32_MAX - 1, len, sealed(body, n),
	    "past the end", "an offset that wraps");
	job_refused(&out, &in, 0, 0, sealed(body, n), "no input",
	    "a memfd with no input");
	/* And where the offset wraps a size_t. */
	fd = sealed(body, n);
	ATF_CHECK_MSG(keepbody_span_check(fd, SIZE_MAX - 1, len, &why) == -1,
	    "a size_t offset that wraps: taken");
	ATF_CHECK(keepbody_span_check(fd, off, len, &why) == 0);
	close(fd);
	job_maps(&out, &in, body, n, off, len);
	job_maps(&out, &in, body, n, n - len, len);
	ATF_CHECK(job_taken(&out, &in, 0, 0, -1, &span) == NULL &&
	    span.map == NULL);
	ATF_REQUIRE((big = malloc(3 * page)) != NULL);
	for (i = 0; i < 3 * page; i++)
		big[i] = 'a' + i % 26;
	job_maps(&out, &in, big, 3 * page, page + 5, page);
	job_maps(&out, &in, big, 3 * page, 2 * page, page);
	free(big);
	/* The input in the payload, as before issue 36: the row refuses it. */
	memset(&j, 0, sizeof(j));
	j.inputlen = len;
	ATF_REQUIRE((m.data = malloc(sizeof(j) + len)) != NULL);
	memcpy(m.data, &j, sizeof(j));
	memcpy((char *)m.data + sizeof(j), body + off, len);
	m.type = PROC_JOB_RUN;
	m.fd = -1;
	m.len = sizeof(j) + len;
	ATF_CHECK(msg_check(&proc_msg(PROC_JOB_RUN)->rule, 1, &m, NULL,
	    0) == -1);
	m.len = sizeof(j);
	ATF_CHECK(msg_check(&proc_msg(PROC_JOB_RUN)->rule, 1, &m, NULL,
	    0) == 0);
	free(m.data);
}

/*
 * The launcher's take of a job that does not add up ends it, its log
 * saying why.  (The control: job_memfd_lies's.)
 */
ATF_TC_WITHOUT_HEAD(job_lie_ends);
ATF_TC_BODY(job_lie_ends, tc)
{
	struct proc_job	 j;
	struct msg	 m;
	pid_t		 pid;
	int		 st, fd;

	memset(&j, 0, sizeof(j));
	j.inputlen = 5;
	memset(&m, 0, sizeof(m));
	m.type = PROC_JOB_RUN;
	m.id = 7;
	m.fd = -1;
	m.data = &j;
	m.len = sizeof(j);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		if ((fd = open("err", O_WRONLY | O_CREAT | O_TRUNC, 0600)) ==
		    -1 || dup2(fd, 2) == -1)
			_exit(2);
		child_take(&proc_table()[PROC_LAUNCHER], &m);
		_exit(0);
	}
	ATF_REQUIRE(waitpid(pid, &st, 0) == pid);
	ATF_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 1, "the launcher "
	    "took a job with no memfd for its input");
	ATF_CHECK_MSG(atf_utils_grep_file("a job that does not add up: its "
	    "input came without the claim's memfd", "err"), "the fatal line is "
	    "not in its log");
}

/* An outcome crosses whole; its texts and extra in their places. */
ATF_TC_WITHOUT_HEAD(outcome_crosses);
ATF_TC_BODY(outcome_crosses, tc)
{
	struct job_outcome	 o, r;
	struct msgchan		 out, in;
	struct msg		 m;
	uint32_t		 extra = 77, back = 0;

	channels(&out, &in);
	memset(&o, 0, sizeof(o));
	o.status = JOB_RELEASED;
	o.word = JW_RATE;
	(void)strlcpy(o.error, "rate limited", sizeof(o.error));
	o.output = strdup("{\"a\":1}");
	o.record = strdup("[2]");
	o.stderr_len = 3;
	memcpy(o.stderr_head, "err", 3);
	o.usage.has = 1;
	(void)strlcpy(o.usage.model, "m", sizeof(o.usage.model));
	o.rest = 60;
	o.seconds = 2.5;
	o.box_started = 1;
	ATF_REQUIRE(outcome_send(&out, PROC_JOB_DONE, 9, &o, &extra,
	    sizeof(extra)) == 0);
	crossed(&out, &in, &m);
	ATF_REQUIRE(outcome_take(&m, &r, &back, sizeof(back)) == 0);
	ATF_CHECK_EQ(back, 77);
	ATF_CHECK(r.status == JOB_RELEASED && r.word == JW_RATE &&
	    r.rest == 60 && r.box_started && !r.box_removed);
	ATF_CHECK_STREQ(r.error, "rate limited");
	ATF_CHECK_STREQ(r.output, "{\"a\":1}");
	ATF_CHECK(r.reply == NULL);
	ATF_CHECK_STREQ(r.record, "[2]");
	ATF_CHECK(r.stderr_len == 3 && strcmp(r.stderr_head, "err") == 0);
	ATF_CHECK(r.usage.has && strcmp(r.usage.model, "m") == 0);
	ATF_CHECK(r.seconds > 2.49 && r.seconds < 2.51);
	msg_free(&m);
	job_outcome_free(&r);
	/* A rest past JOB_REST_MAX does not add up; the control above did. */
	o.rest = JOB_REST_MAX + 1;
	ATF_REQUIRE(outcome_send(&out, PROC_JOB_DONE, 9, &o, NULL, 0) == 0);
	crossed(&out, &in, &m);
	ATF_CHECK(outcome_take(&m, &r, NULL, 0) == -1);
	msg_free(&m);
	/* Nor an extra longer than the message holds. */
	o.rest = 0;
	ATF_REQUIRE(outcome_send(&out, PROC_JOB_DONE, 9, &o, NULL, 0) == 0);
	crossed(&out, &in, &m);
	ATF_CHECK(outcome_take(&m, &r, &back, sizeof(back)) == -1);
	msg_free(&m);
	job_outcome_free(&o);
}

/* What a row cannot say of itself, where it stops, whether it is owed. */
static void
row_holds(const struct proc_msgrow *r)
{
	const struct proc_msgrow	*q;
	const char			*name = r->rule.name;

	ATF_CHECK_MSG(r->rule.from != 0 && (r->rule.from &
	    ~((1U << PROC_COUNT) - 1)) == 0, "%s: no child sends it, or one "
	    "that is none", name);
	ATF_CHECK_MSG(r->rule.minlen <= r->rule.maxlen &&
	    r->rule.maxlen <= PROC_MAXPAYLOAD, "%s: its sizes", name);
	if (r->to == ROUTE_ASKER) {
		for (q = proc_msg_next(0); q != NULL;
		    q = proc_msg_next(q->rule.type))
			if (r->rule.pays & MSG_BIT(q->rule.type))
				ATF_CHECK_MSG(q->to >= 0 && q->standin != NULL,
				    "%s pays %s, no question owed", name,
				    q->rule.name);
		ATF_CHECK_MSG(r->rule.pays != 0, "%s pays nothing", name);
		ATF_CHECK_MSG(r->rule.take == NULL, "%s: an answer is the "
		    "asker's question's, not a take's", name);
	} else
		ATF_CHECK_MSG((r->to == ROUTE_PARENT || (r->to >= 0 &&
		    r->to < PROC_COUNT)) && r->rule.take != NULL &&
		    r->rule.pays == 0, "%s stops at a taker with no take",
		    name);
	ATF_CHECK_MSG(r->standin == NULL || r->to >= 0, "%s: a question "
	    "owed goes to a child, whose end the parent answers for", name);
	ATF_CHECK_MSG(!r->id_names_sender ||
	    (r->rule.from & PROC_BIT(PROC_LAUNCHER)),
	    "%s: its id names the launcher, which does not send it", name);
}

/* 1 when a row pays question. */
static int
paid(uint32_t question)
{
	const struct proc_msgrow	*r;

	for (r = proc_msg_next(0); r != NULL; r = proc_msg_next(r->rule.type))
		if (r->to == ROUTE_ASKER && (r->rule.pays & MSG_BIT(question)))
			return 1;
	return 0;
}

/*
 * proc_msgs against itself: a row for each type, a take where it stops,
 * a standin and an answer to each question; the rows' takes and sends
 * derived from it.
 */
ATF_TC_WITHOUT_HEAD(rows);
ATF_TC_BODY(rows, tc)
{
	const struct proc		*t = proc_table();
	const struct proc_msgrow	*r;
	uint32_t			 type;
	size_t				 i;

	for (type = 1; type < PROC_MSG_END; type++) {
		if ((r = proc_msg(type)) == NULL) {
			ATF_CHECK_MSG(0, "%s has no row", proc_msg_name(type));
			continue;
		}
		row_holds(r);
		ATF_CHECK_MSG(r->standin == NULL || paid(type), "%s is owed "
		    "and nothing pays it", r->rule.name);
	}
	for (i = 0; i < PROC_COUNT; i++)
		ATF_CHECK_MSG((t[i].takes & t[i].sends) == 0,
		    "%s takes what it sends", t[i].title);
	/* Control: the derived rows, the launcher's and the keep-frontend's. */
	ATF_CHECK_EQ(t[PROC_LAUNCHER].takes, MSG_BIT(PROC_JOB_RUN) |
	    MSG_BIT(PROC_KEEP_ANSWER) | MSG_BIT(PROC_KEEP_DOWN));
	ATF_CHECK_EQ(t[PROC_KEEPFE].sends, MSG_BIT(PROC_READY) |
	    MSG_BIT(PROC_KEEP_STATE) | MSG_BIT(PROC_KEEP_ANSWER) |
	    MSG_BIT(PROC_KEEP_DOWN));
	ATF_CHECK(proc_msg(PROC_JOB_DONE)->rule.pays == MSG_BIT(PROC_JOB_RUN));
}

/*
 * In a child of the test, the row who, the keep-frontend's with no keep
 * to ask, takes a message of type as child_loop() would; its stderr goes
 * to err.  The exit status, and on chan what it answered.
 */
static int
child_takes(enum proc_id who, uint32_t type, struct msgchan *chan)
{
	struct config	*conf = conf_with("notes", 1);
	struct msgchan	 out;
	struct msg	 m;
	unsigned char	 buf[sizeof(struct proc_job)];
	pid_t		 pid;
	int		 st, fd;

	channels(&out, chan);
	memset(buf, 0, sizeof(buf));
	memset(&m, 0, sizeof(m));
	m.type = type;
	m.id = 7;
	m.fd = -1;
	m.data = buf;
	m.len = type == PROC_JOB_RUN ? sizeof(buf) : 0;
	ATF_REQUIRE(setenv("XDG_RUNTIME_DIR", "/nonexistent", 1) == 0);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		if ((fd = open("err", O_WRONLY | O_CREAT | O_TRUNC, 0600)) ==
		    -1 || dup2(fd, 2) == -1)
			_exit(2);
		keepfe_init(conf, &out);
		child_take(&proc_table()[who], &m);
		_exit(msgchan_flush_all(&out) == 0 ? 0 : 3);
	}
	ATF_REQUIRE(waitpid(pid, &st, 0) == pid);
	close(out.fd);
	config_free(conf);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/*
 * A child takes by the message's row: a type not to it, or an answer
 * outside the wait that asked it, ends it, and its log names the type.
 * Called past the row's check, which would refuse the first.  Control:
 * PROC_KEEP_PROBE, the keep-frontend's by its row, is answered.
 */
ATF_TC_WITHOUT_HEAD(take_by_row);
ATF_TC_BODY(take_by_row, tc)
{
	struct msgchan	 in;
	struct msg	 m;
	uint32_t	 up;

	ATF_CHECK_EQ(child_takes(PROC_KEEPFE, PROC_JOB_RUN, &in), 1);
	ATF_CHECK_MSG(atf_utils_grep_file("PROC_JOB_RUN \\(id 7\\), which the "
	    "keep-frontend did not ask for", "err"), "the fatal line is not in "
	    "its log");
	close(in.fd);
	ATF_CHECK_EQ(child_takes(PROC_LAUNCHER, PROC_KEEP_DOWN, &in), 1);
	ATF_CHECK_MSG(atf_utils_grep_file("PROC_KEEP_DOWN \\(id 7\\), which "
	    "answers no question asked with that id", "err"), "the fatal line "
	    "is not in its log");
	close(in.fd);
	ATF_CHECK_EQ(child_takes(PROC_KEEPFE, PROC_KEEP_PROBE, &in), 0);
	ATF_REQUIRE(msg_read_one(&in, &m) == 1);
	ATF_CHECK_EQ(m.type, PROC_KEEP_STATE);
	ATF_CHECK_EQ(m.id, 7);
	ATF_REQUIRE_EQ(m.len, sizeof(up));
	memcpy(&up, m.data, sizeof(up));
	ATF_CHECK_EQ(up, 0);
	msg_free(&m);
	close(in.fd);
}

/*
 * Questions of a type are told apart by their ids: many may be owed at
 * once, of one child or of two, and each answer pays its own; a second
 * question with the id of one still owed ends the parent, naming both.
 * The control: owed, paid, and owed again.
 */
ATF_TC_WITHOUT_HEAD(owed_once);
ATF_TC_BODY(owed_once, tc)
{
	enum proc_id	 asker;
	pid_t		 pid;
	int		 st, fd;

	stop_owe(PROC_KEEP_CALL, PROC_CORE, 5);
	stop_owe(PROC_KEEP_CALL, PROC_CORE, 6);
	stop_owe(PROC_KEEP_CALL, PROC_LAUNCHER, 7 | PROC_ID_LAUNCHER);
	ATF_CHECK_EQ(stop_owed(PROC_CORE), 2);
	ATF_CHECK(stop_paid(MSG_BIT(PROC_KEEP_PROBE), 6, &asker) == -1);
	ATF_CHECK(stop_paid(MSG_BIT(PROC_KEEP_CALL), 6, &asker) == 0);
	ATF_CHECK_EQ(asker, PROC_CORE);
	ATF_CHECK(stop_paid(MSG_BIT(PROC_KEEP_CALL), 7 | PROC_ID_LAUNCHER,
	    &asker) == 0);
	ATF_CHECK_EQ(asker, PROC_LAUNCHER);
	stop_owe(PROC_KEEP_CALL, PROC_CORE, 6);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		if ((fd = open("err", O_WRONLY | O_CREAT | O_TRUNC, 0600)) ==
		    -1 || dup2(fd, 2) == -1)
			_exit(2);
		stop_owe(PROC_KEEP_CALL, PROC_LAUNCHER, 5);
		_exit(0);
	}
	ATF_REQUIRE(waitpid(pid, &st, 0) == pid);
	ATF_CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	ATF_CHECK_MSG(atf_utils_grep_file("box launcher asked PROC_KEEP_CALL "
	    "\\(id 5\\) while core's PROC_KEEP_CALL of that id was still "
	    "unanswered", "err"), "the second question's line is not in its "
	    "log");
	ATF_CHECK(stop_paid(MSG_BIT(PROC_KEEP_CALL), 5, &asker) == 0);
	ATF_CHECK(stop_paid(MSG_BIT(PROC_KEEP_CALL), 6, &asker) == 0);
	ATF_CHECK_EQ(stop_owed(PROC_CORE), 0);
}

/*
 * A child's last message, sent as it ends and read in the wake-up that
 * reaps it, comes to the reap's last before its channel closes (the
 * parent's drain: a stop in a claude call lost the launcher's answer).
 * The control: a last that takes nothing, and the message is gone.
 */
static int	reap_seen;

static void
reap_take(struct proc *p)
{
	struct msg	 m;

	while (p->chan.fd != -1 && msgchan_read(&p->chan) > 0)
		while (msg_get(&p->chan, &m) == 1) {
			reap_seen += m.type == PROC_KEEP_STATE && m.id == 7;
			msg_free(&m);
		}
}

static void
reap_none(struct proc *p)
{
}

static void
reap_one(void (*last)(struct proc *))
{
	struct proc	*p = &proc_table()[PROC_KEEPFE];
	struct msgchan	 c;
	siginfo_t	 si;
	uint32_t	 up = 1;
	pid_t		 pid;
	int		 sv[2];

	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		msgchan_init(&c, sv[1], MSG_MAXPAYLOAD);
		_exit(msg_compose(&c, PROC_KEEP_STATE, 7, -1, &up,
		    sizeof(up)) == 0 && msgchan_flush_all(&c) == 0 ? 0 : 2);
	}
	close(sv[1]);
	msgchan_init(&p->chan, sv[0], MSG_MAXPAYLOAD);
	p->pid = pid;
	p->pidfd = -1;
	/* Ended, not reaped, its message unread: one wake-up for both. */
	ATF_REQUIRE(waitid(P_PID, pid, &si, WEXITED | WNOWAIT) == 0);
	reap_seen = 0;
	ATF_REQUIRE_EQ(proc_reap(1, last), 1);
	ATF_CHECK_EQ(p->chan.fd, -1);
	ATF_CHECK_EQ(p->pid, -1);
}

ATF_TC_WITHOUT_HEAD(reap_drains);
ATF_TC_BODY(reap_drains, tc)
{
	reap_one(reap_take);
	ATF_CHECK_EQ_MSG(reap_seen, 1, "the child's last message was lost");
	reap_one(reap_none);
	ATF_CHECK_EQ(reap_seen, 0);
}

ATF_TP_ADD_TCS(tp)
{
	/* The rows, as main() hands them down before any case runs. */
	proc_use(proc_children);
	proc_msgs_use(proc_msgtab);
	ATF_TP_ADD_TC(tp, core_sources_only);
	ATF_TP_ADD_TC(tp, launcher_claude_only);
	ATF_TP_ADD_TC(tp, launcher_request);
	ATF_TP_ADD_TC(tp, malformed);
	ATF_TP_ADD_TC(tp, answer_crosses);
	ATF_TP_ADD_TC(tp, answer_lies);
	ATF_TP_ADD_TC(tp, answer_memfd_lies);
	ATF_TP_ADD_TC(tp, body_by_memfd);
	ATF_TP_ADD_TC(tp, job_memfd_lies);
	ATF_TP_ADD_TC(tp, job_lie_ends);
	ATF_TP_ADD_TC(tp, outcome_crosses);
	ATF_TP_ADD_TC(tp, rows);
	ATF_TP_ADD_TC(tp, take_by_row);
	ATF_TP_ADD_TC(tp, owed_once);
	ATF_TP_ADD_TC(tp, reap_drains);
	return atf_no_error();
}
