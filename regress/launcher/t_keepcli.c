/*
 * keepcli against a fake keep on a socketpair, in a thread: the hello
 * and its version, an answer with its body's sealed memfd, a refusal,
 * and each way an answer can be wrong or missing (a body in the
 * message, a memfd without its seals), every one with a bounded wait;
 * and a body mapped whatever its memfd's shared offset.
 * The real keepd is in t_job_e2e.sh.
 */
#include <sys/mman.h>
#include <sys/socket.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <atf-c.h>

#include "keepbody.h"
#include "keepcli.h"
#include "msg.h"

enum fake {
	FAKE_ANSWER,
	FAKE_REFUSED,
	FAKE_SILENT,
	FAKE_CLOSE,
	FAKE_WRONG_ID,
	FAKE_BAD_LENGTHS,
	FAKE_INLINE_BODY,
	FAKE_UNSEALED,
	FAKE_VERSION,
	FAKE_NO_HELLO
};

struct fake_keep {
	int		 fd;
	enum fake	 what;
	char		 envelope[256];
	uint32_t	 seconds;	/* what the request gave its call */
};

/* A memfd of the body, sealed or not. */
static int
fake_body(const char *body, int sealed)
{
	int	 fd;

	if (sealed)
		return keepbody_make(body, strlen(body));
	ATF_REQUIRE((fd = memfd_create("fake", MFD_ALLOW_SEALING)) != -1);
	ATF_REQUIRE(write(fd, body, strlen(body)) == (ssize_t)strlen(body));
	return fd;
}

static void
fake_answer(struct msgchan *c, const struct msg *req, enum fake what)
{
	struct keep_answer	 a = { 200, 7, 16, 11 };
	struct keep_refused	 r = { KEEP_R_SECRET, 23 };
	struct iovec		 iov[3];
	int			 fd, n = 2;

	if (what == FAKE_REFUSED) {
		iov[0].iov_base = &r;
		iov[0].iov_len = sizeof(r);
		iov[1].iov_base = "unusable secret: claude";
		iov[1].iov_len = 23;
		(void)msg_composev(c, KEEP_REFUSED, req->id, -1, iov, 2);
		return;
	}
	if (what == FAKE_BAD_LENGTHS)
		a.body_len = 100;
	iov[0].iov_base = &a;
	iov[0].iov_len = sizeof(a);
	iov[1].iov_base = "application/json";
	iov[1].iov_len = 16;
	/* Version 2's answer: the body in the message, no memfd. */
	if (what == FAKE_INLINE_BODY) {
		iov[2].iov_base = "{\"ok\":true}";
		iov[2].iov_len = 11;
		n = 3;
		fd = -1;
	} else
		fd = fake_body("{\"ok\":true}", what != FAKE_UNSEALED);
	(void)msg_composev(c, KEEP_ANSWER, what == FAKE_WRONG_ID ? req->id + 1 :
	    req->id, fd, iov, n);
}

static void *
fake_keep(void *arg)
{
	struct fake_keep	*f = arg;
	struct keep_hello	 h = { KEEP_VERSION, 3 };
	struct keep_request	 req;
	struct msgchan		 c;
	struct msg		 m;

	msgchan_init(&c, f->fd, MSG_MAXPAYLOAD);
	if (msg_read_one(&c, &m) != 1)
		goto out;
	msg_free(&m);
	if (f->what == FAKE_VERSION)
		h.version = KEEP_VERSION + 1;
	if (f->what != FAKE_NO_HELLO) {
		(void)msg_compose(&c, KEEP_HELLO, 0, -1, &h, sizeof(h));
		(void)msgchan_flush_all(&c);
	}
	if (f->what == FAKE_VERSION || f->what == FAKE_NO_HELLO ||
	    msg_read_one(&c, &m) != 1)
		goto out;
	memcpy(&req, m.data, sizeof(req));
	f->seconds = req.seconds;
	(void)strlcpy(f->envelope, (char *)m.data + sizeof(req),
	    m.len - sizeof(req) < sizeof(f->envelope) ?
	    m.len - sizeof(req) + 1 : sizeof(f->envelope));
	/* Past the call's second and the client's margin. */
	if (f->what == FAKE_SILENT)
		sleep(1 + KEEPCLI_MARGIN + 2);
	else if (f->what != FAKE_CLOSE) {
		fake_answer(&c, &m, f->what);
		(void)msgchan_flush_all(&c);
	}
	msg_free(&m);
out:
	msgchan_clear(&c);
	close(f->fd);
	return NULL;
}

/* A client on a fresh fake keep; NULL when the hello failed (*why). */
static struct keepcli *
start(struct fake_keep *f, pthread_t *t, enum fake what, const char **why)
{
	int	 sv[2];

	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	memset(f, 0, sizeof(*f));
	f->fd = sv[1];
	f->what = what;
	ATF_REQUIRE(pthread_create(t, NULL, fake_keep, f) == 0);
	return keepcli_fdopen(sv[0], why);
}

static const char env[] = "{\"destination\":\"claude\",\"method\":\"GET\","
    "\"path\":\"/v1/models/m\"}";

/* The request's answer: -1 (and why) or 0; *given, what the keep read. */
static int
ask_given(enum fake what, struct keepcli_answer *a, const char **why,
    unsigned int timeout, uint32_t *given)
{
	struct fake_keep	 f;
	struct keepcli		*k;
	pthread_t		 t;
	int			 r;

	ATF_REQUIRE((k = start(&f, &t, what, why)) != NULL);
	ATF_CHECK_EQ(keepcli_ndestinations(k), 3);
	r = keepcli_request(k, env, strlen(env), timeout, a, why);
	keepcli_close(k);
	pthread_join(t, NULL);
	ATF_CHECK_STREQ(f.envelope, env);
	if (given != NULL)
		*given = f.seconds;
	return r;
}


static int
ask(enum fake what, struct keepcli_answer *a, const char **why,
    unsigned int timeout)
{
	return ask_given(what, a, why, timeout, NULL);
}

ATF_TC_WITHOUT_HEAD(answer);
ATF_TC_BODY(answer, tc)
{
	struct keepcli_answer	 a;
	const char		*why;
	uint32_t		 given;

	ATF_REQUIRE(ask_given(FAKE_ANSWER, &a, &why, 5, &given) == 0);
	ATF_CHECK(!a.refused && a.status == 200 && a.retry_after == 7);
	/* The call's seconds go with it, and the answer names them. */
	ATF_CHECK_EQ(given, 5);
	ATF_CHECK_EQ(a.seconds, given);
	ATF_CHECK_STREQ(a.ctype, "application/json");
	/* The body stays keepd's memfd, checked, until it is mapped. */
	ATF_CHECK(a.body == NULL && a.body_fd != -1);
	ATF_CHECK(keepbody_check(a.body_fd, 11, &why) == 0);
	ATF_REQUIRE(keepcli_answer_map(&a) == 0);
	ATF_CHECK(a.body_len == 11 && memcmp(a.body, "{\"ok\":true}", 11) == 0);
	keepcli_answer_free(&a);
	ATF_CHECK(a.body == NULL && a.map == NULL && a.body_fd == -1);
	ATF_REQUIRE(ask_given(FAKE_REFUSED, &a, &why, 0, &given) == 0);
	/* None given is a source's 30. */
	ATF_CHECK_EQ(given, KEEP_CALL_SECONDS);
	ATF_CHECK_EQ(a.seconds, given);
	ATF_CHECK(a.refused && a.code == KEEP_R_SECRET);
	ATF_CHECK_STREQ(a.reason, "unusable secret: claude");
	keepcli_answer_free(&a);
}

ATF_TC_WITHOUT_HEAD(no_answer);
ATF_TC_BODY(no_answer, tc)
{
	struct keepcli_answer	 a;
	const char		*why;
	time_t			 t0 = time(NULL);

	/* Silent past the call's time: a bounded failure, not a hang. */
	ATF_REQUIRE(ask(FAKE_SILENT, &a, &why, 1) == -1);
	ATF_CHECK_STREQ(why, "the keep did not answer in time");
	ATF_CHECK(time(NULL) - t0 <= 1 + KEEPCLI_MARGIN + 3);
	ATF_REQUIRE(ask(FAKE_CLOSE, &a, &why, 5) == -1);
	ATF_CHECK_STREQ(why, "the keep closed the connection");
	ATF_REQUIRE(ask(FAKE_WRONG_ID, &a, &why, 5) == -1);
	ATF_CHECK_STREQ(why, "the keep's answer breaks its protocol");
	ATF_REQUIRE(ask(FAKE_BAD_LENGTHS, &a, &why, 5) == -1);
	ATF_CHECK_STREQ(why, "the keep's answer breaks its protocol");
	/* A body in the message, or in a memfd that can still change. */
	ATF_REQUIRE(ask(FAKE_INLINE_BODY, &a, &why, 5) == -1);
	ATF_CHECK_STREQ(why, "the keep's answer breaks its protocol");
	ATF_REQUIRE(ask(FAKE_UNSEALED, &a, &why, 5) == -1);
	ATF_CHECK_STREQ(why, "the keep's answer breaks its protocol");
	/* The control: the same fake keep answering. */
	ATF_REQUIRE(ask(FAKE_ANSWER, &a, &why, 5) == 0);
	keepcli_answer_free(&a);
}

ATF_TC_WITHOUT_HEAD(hello);
ATF_TC_BODY(hello, tc)
{
	struct fake_keep	 f;
	struct keepcli		*k;
	pthread_t		 t;
	const char		*why;

	ATF_CHECK(start(&f, &t, FAKE_VERSION, &why) == NULL);
	pthread_join(t, NULL);
	ATF_CHECK(strstr(why, "another protocol version") != NULL);
	ATF_CHECK(start(&f, &t, FAKE_NO_HELLO, &why) == NULL);
	pthread_join(t, NULL);
	ATF_CHECK_STREQ(why, "the keep closed the connection");
	ATF_CHECK(keepcli_open("/nonexistent/keep.sock", &why) == NULL);
	ATF_CHECK_STREQ(why, "No such file or directory");
	/* The control: a keep of this version. */
	ATF_REQUIRE((k = start(&f, &t, FAKE_CLOSE, &why)) != NULL);
	keepcli_close(k);
	pthread_join(t, NULL);
}

/*
 * The body's memfd shares its offset with the process that wrote it:
 * the mapping holds the body from its start wherever that offset is,
 * and leaves it where it was.  The control: read(2) starts at the offset.
 */
ATF_TC_WITHOUT_HEAD(body_offset);
ATF_TC_BODY(body_offset, tc)
{
	const char		 body[] = "{\"ok\":true,\"n\":12345}";
	struct keepcli_answer	 a;
	char			 buf[sizeof(body)];
	const char		*why;
	size_t			 len = sizeof(body) - 1;
	int			 fd;

	ATF_REQUIRE((fd = memfd_create("body", MFD_ALLOW_SEALING)) != -1);
	ATF_REQUIRE(write(fd, body, len) == (ssize_t)len);
	ATF_REQUIRE(keepbody_seal(fd, NULL, 0, len) == 0);
	ATF_REQUIRE(keepbody_check(fd, len, &why) == 0);
	ATF_REQUIRE(lseek(fd, 5, SEEK_SET) == 5);
	memset(&a, 0, sizeof(a));
	a.body_fd = fd;
	a.body_len = len;
	ATF_REQUIRE(keepcli_answer_map(&a) == 0);
	ATF_CHECK(memcmp(a.body, body, len) == 0);
	ATF_CHECK_EQ(lseek(fd, 0, SEEK_CUR), 5);
	/* Control: from the shared offset, the body's start is missed. */
	ATF_CHECK_EQ(read(fd, buf, len), (ssize_t)len - 5);
	ATF_CHECK(memcmp(buf, body + 5, len - 5) == 0);
	keepcli_answer_free(&a);
	ATF_CHECK(fcntl(fd, F_GETFD) == -1);
}

/*
 * A body of exactly a page: the mapping ends where the body does, and
 * holds it all.  Control: a body a byte longer.
 */
ATF_TC_WITHOUT_HEAD(body_page);
ATF_TC_BODY(body_page, tc)
{
	struct keepcli_answer	 a;
	size_t			 page = sysconf(_SC_PAGESIZE), len;
	char			*body;

	ATF_REQUIRE((body = malloc(page + 1)) != NULL);
	memset(body, 'p', page + 1);
	for (len = page; len <= page + 1; len++) {
		memset(&a, 0, sizeof(a));
		a.body_len = len;
		ATF_REQUIRE((a.body_fd = keepbody_make(body, len)) != -1);
		ATF_REQUIRE(keepcli_answer_map(&a) == 0);
		ATF_CHECK(memcmp(a.body, body, len) == 0);
		keepcli_answer_free(&a);
	}
	free(body);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, hello);
	ATF_TP_ADD_TC(tp, answer);
	ATF_TP_ADD_TC(tp, no_answer);
	ATF_TP_ADD_TC(tp, body_offset);
	ATF_TP_ADD_TC(tp, body_page);
	return 0;
}
