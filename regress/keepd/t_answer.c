/*
 * The small parsers of keepd: the gate's answer to CONNECT and where it
 * ends, the Retry-After header, and the checks keepd makes on what a request's
 * child sends back before it passes it on, by the rows of fetchtab.c.
 */
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <atf-c.h>

#include "keep.h"
#include "../../keepd/answer.h"
#include "../../keepd/fetchmsg.h"
#include "../../keepd/fetchtab.h"
#include "../../keepd/tunnel.h"
#include "../../keepd/what.h"
#include "keepbody.h"

static int
gate(const char *head, char *why, size_t whysz)
{
	return tunnel_answer(head, strlen(head), why, whysz);
}

ATF_TC_WITHOUT_HEAD(gate_answers);
ATF_TC_BODY(gate_answers, tc)
{
	char	 why[256];

	ATF_CHECK(gate("HTTP/1.1 200 Connection established\r\n\r\n", why,
	    sizeof(why)) == 0);
	ATF_CHECK(gate("HTTP/1.1 403 Forbidden\r\nSandcastle-Refusal: "
	    "10.0.0.1 is internal\r\n\r\n", why, sizeof(why)) ==
	    KEEP_R_REFUSED);
	ATF_CHECK_STREQ(why, "the gate refused it: 10.0.0.1 is internal");
	ATF_CHECK(gate("HTTP/1.1 502 Bad Gateway\r\nSandcastle-Error: "
	    "connect: refused\r\n\r\n", why, sizeof(why)) == KEEP_R_GATE);
	ATF_CHECK_STREQ(why, "the gate cannot reach it: connect: refused");
	ATF_CHECK(gate("HTTP/1.1 403 Forbidden\r\n\r\n", why,
	    sizeof(why)) == KEEP_R_REFUSED);
	ATF_CHECK_STREQ(why, "the gate refused it: no reason given");
	/* A reason cannot carry a control character into the log. */
	ATF_CHECK(gate("HTTP/1.1 403 Forbidden\r\nSandcastle-Refusal: a\x1b"
	    "[2Jb\r\n\r\n", why, sizeof(why)) == KEEP_R_REFUSED);
	ATF_CHECK_STREQ(why, "the gate refused it: a");
	ATF_CHECK(gate("HTTP/1.1 2000 x\r\n\r\n", why, sizeof(why)) ==
	    KEEP_R_GATE);
	ATF_CHECK(gate("SSH-2.0-x\r\n\r\n", why, sizeof(why)) == KEEP_R_GATE);
	ATF_CHECK_STREQ(why, "the gate's answer is not HTTP");
	ATF_CHECK(gate("HTTP/1.1 407 Proxy\r\n\r\n", why, sizeof(why)) ==
	    KEEP_R_GATE);
	ATF_CHECK_STREQ(why, "the gate answered 407");
}

/* Each piece written apart, 20 ms after the last, by a child. */
static pid_t
gate_writes(int fd, const char *const *pieces)
{
	pid_t	 pid;

	if ((pid = fork()) != 0)
		return pid;
	for (; *pieces != NULL; pieces++) {
		usleep(20000);
		if (write(fd, *pieces, strlen(*pieces)) == -1)
			_exit(1);
	}
	_exit(0);
}

/*
 * tunnel_await() on a head in pieces, read as they come: 0 and all that
 * came after it once the writer is done, or -1.
 */
static int
gate_head(const char *const *pieces, char *after, size_t aftersz)
{
	uint32_t	 code;
	char		 why[256];
	size_t		 len = 0;
	ssize_t		 n;
	pid_t		 pid;
	int		 sp[2], r;

	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sp) == 0);
	ATF_REQUIRE((pid = gate_writes(sp[1], pieces)) != -1);
	close(sp[1]);
	r = tunnel_await(sp[0], why, sizeof(why), &code);
	ATF_REQUIRE(waitpid(pid, NULL, 0) == pid);
	if (r == 0) {
		while (len + 1 < aftersz &&
		    (n = read(sp[0], after + len, aftersz - 1 - len)) > 0)
			len += n;
		close(sp[0]);
	}
	after[len] = '\0';
	return r;
}

/* The head is read to its blank line and not a byte of TLS past it. */
ATF_TC_WITHOUT_HEAD(gate_head_end);
ATF_TC_BODY(gate_head_end, tc)
{
	static const char *const whole[] = {
	    "HTTP/1.1 200 Connection established\r\n\r\n\x16\x03\x01tls",
	    NULL };
	static const char *const split[] = { "HTTP/1.1 200 Conn",
	    "ection established\r\n\r", "\n\x16\x03", "\x01tls", NULL };
	static const char *const crlf[] = { "HTTP/1.1 200 OK\r", "\n",
	    "\r", "\ntls", NULL };
	static const char *const unended[] = { "HTTP/1.1 200 OK\r\n", NULL };
	static char	 big[4200];
	const char	*large[] = { big, NULL };
	char		 after[64];

	ATF_CHECK(gate_head(whole, after, sizeof(after)) == 0);
	ATF_CHECK_STREQ(after, "\x16\x03\x01tls");
	ATF_CHECK(gate_head(split, after, sizeof(after)) == 0);
	ATF_CHECK_STREQ(after, "\x16\x03\x01tls");
	ATF_CHECK(gate_head(crlf, after, sizeof(after)) == 0);
	ATF_CHECK_STREQ(after, "tls");
	/* The gate closed before the blank line; an answer over 4 KiB. */
	ATF_CHECK(gate_head(unended, after, sizeof(after)) == -1);
	memset(big, 'a', sizeof(big) - 1);
	memcpy(big, "HTTP/1.1 200 OK\r\nX: ", 21);
	memcpy(big + sizeof(big) - 5, "\r\n\r\n", 4);
	ATF_CHECK(gate_head(large, after, sizeof(after)) == -1);
}

ATF_TC_WITHOUT_HEAD(retry_after);
ATF_TC_BODY(retry_after, tc)
{
	time_t	 now = 1700000000;	/* Tue, 14 Nov 2023 22:13:20 GMT */

	ATF_CHECK_EQ(answer_retry_after(NULL, now), 0);
	ATF_CHECK_EQ(answer_retry_after("", now), 0);
	ATF_CHECK_EQ(answer_retry_after("120", now), 120);
	ATF_CHECK_EQ(answer_retry_after("99999999999999999999", now),
	    7 * 24 * 3600);
	ATF_CHECK_EQ(answer_retry_after("-5", now), 0);
	ATF_CHECK_EQ(answer_retry_after("12s", now), 0);
	ATF_CHECK_EQ(answer_retry_after("Tue, 14 Nov 2023 22:14:20 GMT",
	    now), 60);
	ATF_CHECK_EQ(answer_retry_after("Tue, 14 Nov 2023 22:00:00 GMT",
	    now), 0);
	ATF_CHECK_EQ(answer_retry_after("Tue, 14 Nov 2023 22:14:20 GMT x",
	    now), 0);
}

ATF_TC_WITHOUT_HEAD(child_payloads);
ATF_TC_BODY(child_payloads, tc)
{
	unsigned char		 buf[64];
	struct keep_answer	 a = { 200, 0, 4, 3 };
	struct keep_refused	 r = { KEEP_R_TLS, 5 };
	uint32_t		 status = 0;
	int			 body, open_body, fd;

	ATF_REQUIRE((body = keepbody_make("abc", 3)) != -1);
	memcpy(buf, &a, sizeof(a));
	memcpy(buf + sizeof(a), "text", 4);
	ATF_CHECK(answer_check(buf, sizeof(a) + 4, body, &status) == 0);
	ATF_CHECK_EQ(status, 200);
	/* Lengths that do not add up, and a status that is no answer. */
	ATF_CHECK(answer_check(buf, sizeof(a) + 3, body, &status) == -1);
	ATF_CHECK(answer_check(buf, sizeof(a) - 1, body, &status) == -1);
	a.status = 101;
	memcpy(buf, &a, sizeof(a));
	ATF_CHECK(answer_check(buf, sizeof(a) + 4, body, &status) == -1);
	a.status = 200;
	a.body_len = 0xfffffffd;
	memcpy(buf, &a, sizeof(a));
	ATF_CHECK(answer_check(buf, sizeof(a) + 4, body, &status) == -1);
	/* The body: in no memfd, one of another size, one not sealed. */
	a.body_len = 3;
	memcpy(buf, &a, sizeof(a));
	ATF_CHECK(answer_check(buf, sizeof(a) + 4, -1, &status) == -1);
	a.body_len = 4;
	memcpy(buf, &a, sizeof(a));
	ATF_CHECK(answer_check(buf, sizeof(a) + 4, body, &status) == -1);
	a.body_len = 3;
	memcpy(buf, &a, sizeof(a));
	ATF_REQUIRE((open_body = memfd_create("t", MFD_ALLOW_SEALING)) != -1);
	ATF_REQUIRE(write(open_body, "abc", 3) == 3);
	ATF_CHECK(answer_check(buf, sizeof(a) + 4, open_body, &status) == -1);
	/* Sealed but for writes: the child could still change it. */
	ATF_REQUIRE(fcntl(open_body, F_ADD_SEALS, F_SEAL_SHRINK |
	    F_SEAL_GROW) == 0);
	ATF_CHECK(answer_check(buf, sizeof(a) + 4, open_body, &status) == -1);
	ATF_REQUIRE((fd = open("/dev/null", O_RDONLY)) != -1);
	ATF_CHECK(answer_check(buf, sizeof(a) + 4, fd, &status) == -1);
	/* No body with a memfd all the same. */
	a.body_len = 0;
	memcpy(buf, &a, sizeof(a));
	ATF_CHECK(answer_check(buf, sizeof(a) + 4, body, &status) == -1);
	ATF_CHECK(answer_check(buf, sizeof(a) + 4, -1, &status) == 0);
	close(body);
	close(open_body);
	close(fd);

	memcpy(buf, &r, sizeof(r));
	memcpy(buf + sizeof(r), "nope!", 5);
	ATF_CHECK(refused_check(buf, sizeof(r) + 5) == 0);
	ATF_CHECK(refused_check(buf, sizeof(r) + 4) == -1);
	r.code = 0;
	memcpy(buf, &r, sizeof(r));
	ATF_CHECK(refused_check(buf, sizeof(r) + 5) == -1);
}

ATF_TC_WITHOUT_HEAD(what);
ATF_TC_BODY(what, tc)
{
	char		 out[128];
	const char	*e;

	e = "{\"destination\":\"notes\",\"method\":\"PUT\",\"path\":\"/a b\","
	    "\"url\":1}";
	envelope_what(e, strlen(e), out, sizeof(out));
	ATF_CHECK_STREQ(out, "notes PUT /a?b");
	e = "{\"destination\":\"no\\ntes\",\"path\":7}";
	envelope_what(e, strlen(e), out, sizeof(out));
	ATF_CHECK_STREQ(out, "no?tes - -");
	envelope_what("not json", 8, out, sizeof(out));
	ATF_CHECK_STREQ(out, "- - -");
}

/*
 * What fetchtab.c's rows cannot say of themselves: a row to each type,
 * keepd's take to each it takes and none to the child's.  A message
 * outside the side's rows is refused; the control, one inside, is not.
 */
ATF_TC_WITHOUT_HEAD(fetch_rows);
ATF_TC_BODY(fetch_rows, tc)
{
	const struct fetch_msgrow	*r;
	struct msg			 m;
	char				 why[128];
	uint32_t			 type;

	for (type = 1; type < FETCH_MSG_END; type++) {
		if ((r = fetch_msg(type)) == NULL) {
			ATF_CHECK_MSG(0, "type %u has no row", type);
			continue;
		}
		ATF_CHECK_MSG(r->rule.from != 0 && (r->rule.from &
		    ~(FETCH_CHILD | FETCH_KEEPD)) == 0, "%s: no side sends it",
		    r->rule.name);
		ATF_CHECK_MSG(((r->rule.from & FETCH_CHILD) != 0) ==
		    (r->take != NULL), "%s: keepd takes it with no take, or a "
		    "take it never gets", r->rule.name);
	}
	memset(&m, 0, sizeof(m));
	m.fd = -1;
	m.type = FETCH_KEEP;
	ATF_CHECK(fetch_check(FETCH_KEEPD, &m, why, sizeof(why)) == 0);
	ATF_CHECK(fetch_check(FETCH_CHILD, &m, why, sizeof(why)) == -1);
	ATF_CHECK_STREQ(why, "not a message this process takes");
	m.type = FETCH_MSG_END;
	ATF_CHECK(fetch_check(FETCH_KEEPD, &m, why, sizeof(why)) == -1);
	ATF_CHECK_STREQ(why, "unknown type");
}

ATF_TP_ADD_TCS(tp)
{
	/* The rows, as main() hands them down before any case runs. */
	fetch_msgs_use(fetch_msgtab);
	ATF_TP_ADD_TC(tp, fetch_rows);
	ATF_TP_ADD_TC(tp, gate_answers);
	ATF_TP_ADD_TC(tp, gate_head_end);
	ATF_TP_ADD_TC(tp, retry_after);
	ATF_TP_ADD_TC(tp, child_payloads);
	ATF_TP_ADD_TC(tp, what);
	return 0;
}
