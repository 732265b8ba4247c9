/*
 * S2 S7: the keep's HTTP/1.1 (keepd/http.c).  Good answers parse the
 * same fed whole or a byte at a time; each malformed answer fails for
 * its own reason; the request never carries a line break it was handed;
 * a connection is kept only after an answer that leaves it fit.
 */
#include <sys/mman.h>
#include <sys/stat.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "cap.h"
#include "secrets.h"
#include "../../keepd/http.h"

#define MIB32	(32U * 1024 * 1024)

/* Feeds len bytes in steps of step; *used gets what the parser took. */
static int
feed(struct http_response *r, const char *s, size_t len, size_t step,
    size_t *used)
{
	size_t	 off = 0, n, took;
	int	 rv = HTTP_MORE;

	while (off < len && rv == HTTP_MORE) {
		n = len - off < step ? len - off : step;
		rv = http_response_feed(r, s + off, n, &took);
		ATF_REQUIRE(took <= n);
		off += took;
		if (rv == HTTP_MORE)
			ATF_REQUIRE(took == n);
	}
	*used = off;
	return rv;
}

static void
bad(const char *s, size_t len, const char *reason)
{
	struct http_response	*r;
	size_t			 used, step;

	ATF_REQUIRE((r = malloc(sizeof(*r))) != NULL);
	for (step = 1; step <= len; step = step == 1 ? len : len + 1) {
		http_response_init(r, 0);
		ATF_CHECK_EQ_MSG(feed(r, s, len, step, &used), HTTP_ERROR,
		    "%.40s: not refused", s);
		ATF_CHECK_MSG(r->why != NULL && strcmp(r->why, reason) == 0,
		    "%.60s: wanted \"%s\", got \"%s\"", s, reason,
		    r->why ? r->why : "(none)");
		http_response_free(r);
	}
	free(r);
}

static void
bad_str(const char *s, const char *reason)
{
	bad(s, strlen(s), reason);
}

static struct http_response *
good(const char *s, size_t len, size_t step, size_t *used)
{
	struct http_response	*r;
	int			 rv;

	ATF_REQUIRE((r = malloc(sizeof(*r))) != NULL);
	http_response_init(r, 0);
	rv = feed(r, s, len, step, used);
	ATF_REQUIRE_MSG(rv == HTTP_DONE, "%.40s: %d %s", s, rv,
	    r->why ? r->why : "");
	return r;
}

static void
done(struct http_response *r)
{
	http_response_free(r);
	free(r);
}

ATF_TC_WITHOUT_HEAD(content_length);
ATF_TC_BODY(content_length, tc)
{
	const char		*s = "HTTP/1.1 200 OK\r\n"
				    "Content-Type: application/json\r\n"
				    "content-length:  5 \r\n"
				    "Retry-After: 10\r\n"
				    "X-Other: ignored\r\n"
				    "\r\n"
				    "helloHTTP/1.1 500 Next\r\n";
	struct http_response	*r;
	size_t			 used, step;

	for (step = 1; step <= strlen(s); step += strlen(s) - 1) {
		r = good(s, strlen(s), step, &used);
		ATF_CHECK_EQ(r->status, 200);
		ATF_CHECK_STREQ(r->content_type, "application/json");
		ATF_CHECK_STREQ(r->retry_after, "10");
		ATF_CHECK(r->location == NULL);
		ATF_CHECK_EQ(r->content_length, 5);
		ATF_CHECK_EQ(r->bodylen, 5);
		ATF_CHECK(memcmp(r->body, "hello", 5) == 0);
		/* Nothing past the answer is taken. */
		ATF_CHECK_EQ(used, strlen(s) - strlen("HTTP/1.1 500 Next\r\n"));
		done(r);
	}
}

ATF_TC_WITHOUT_HEAD(chunked);
ATF_TC_BODY(chunked, tc)
{
	const char		*s = "HTTP/1.1 200 Fine and dandy\r\n"
				    "Transfer-Encoding: Chunked\r\n"
				    "\r\n"
				    "5;name=value\r\nhello\r\n"
				    "6\r\n world\r\n"
				    "A\r\n, 10 bytes\r\n"
				    "0\r\n"
				    "X-Trailer: 1\r\n"
				    "\r\n"
				    "left over";
	const char		*body = "hello world, 10 bytes";
	struct http_response	*whole, *bytes;
	size_t			 used1, used2;

	whole = good(s, strlen(s), strlen(s), &used1);
	bytes = good(s, strlen(s), 1, &used2);
	ATF_CHECK_EQ(used1, strlen(s) - strlen("left over"));
	ATF_CHECK_EQ(used1, used2);
	ATF_CHECK(whole->chunked && bytes->chunked);
	ATF_CHECK_EQ(whole->bodylen, strlen(body));
	ATF_CHECK_EQ(bytes->bodylen, strlen(body));
	ATF_CHECK(memcmp(whole->body, body, strlen(body)) == 0);
	ATF_CHECK(memcmp(bytes->body, body, strlen(body)) == 0);
	ATF_CHECK_EQ(http_response_eof(whole), HTTP_DONE);
	done(whole);
	done(bytes);
}

ATF_TC_WITHOUT_HEAD(status_line);
ATF_TC_BODY(status_line, tc)
{
	struct http_response	*r;
	size_t			 used;
	const char		*s = "HTTP/1.0 599 \r\nContent-Length: 0\r\n\r\n";

	r = good(s, strlen(s), 1, &used);
	ATF_CHECK_EQ(r->status, 599);
	done(r);
	bad_str("HTTP/1.1 200OK\r\n", "bad status line");
	bad_str("HTTP/1.1 200\r\n", "bad status line");
	bad_str("HTTP/2 200 OK\r\n", "bad status line");
	bad_str("HTTP/1.2 200 OK\r\n", "bad status line");
	bad_str("http/1.1 200 OK\r\n", "bad status line");
	bad_str(" HTTP/1.1 200 OK\r\n", "bad status line");
	bad_str("HTTP/1.1  200 OK\r\n", "bad status line");
	bad_str("HTTP/1.1 099 OK\r\n", "bad status line");
	bad_str("HTTP/1.1 600 OK\r\n", "bad status line");
	bad_str("HTTP/1.1 2000 OK\r\n", "bad status line");
	bad_str("HTTP/1.1 20x OK\r\n", "bad status line");
	bad_str("HTTP/1.1 200 O\x01K\r\n", "bad status line");
	bad_str("HTTP/1.1 200 caf\xc3\xa9\r\n", "bad status line");
	bad("HTTP/1.1 200 O\0K\r\n", 18, "bad status line");
	bad_str("HTTP/1.1 100 Continue\r\n\r\n", "an informational answer");
	bad_str("HTTP/1.1 101 Switching Protocols\r\n\r\n",
	    "an informational answer");
}

ATF_TC_WITHOUT_HEAD(line_endings);
ATF_TC_BODY(line_endings, tc)
{
	bad_str("HTTP/1.1 200 OK\nContent-Length: 0\n\n", "a bare LF");
	bad_str("HTTP/1.1 200 OK\r\nA: b\n\r\n", "a bare LF");
	bad_str("HTTP/1.1 200 OK\r\nA: b\r\n\n", "a bare LF");
	bad_str("HTTP/1.1 200 OK\r\nA: b\rC: d\r\n\r\n", "a bare CR");
	bad_str("HTTP/1.1 200 OK\r\r\n", "a bare CR");
	bad_str("HTTP/1.1 200 OK\r\nA: b\r\n c\r\n\r\n",
	    "a folded header line (obs-fold)");
	bad_str("HTTP/1.1 200 OK\r\nA: b\r\n\tc\r\n\r\n",
	    "a folded header line (obs-fold)");
}

ATF_TC_WITHOUT_HEAD(header_lines);
ATF_TC_BODY(header_lines, tc)
{
	bad_str("HTTP/1.1 200 OK\r\nNoColon\r\n\r\n", "bad header line");
	bad_str("HTTP/1.1 200 OK\r\n: v\r\n\r\n", "bad header line");
	bad_str("HTTP/1.1 200 OK\r\nBad Name: v\r\n\r\n", "bad header line");
	bad_str("HTTP/1.1 200 OK\r\nName : v\r\n\r\n", "bad header line");
	bad_str("HTTP/1.1 200 OK\r\nA: \x01\r\n\r\n", "bad header value");
	bad_str("HTTP/1.1 200 OK\r\nA: caf\xc3\xa9\r\n\r\n",
	    "bad header value");
	bad_str("HTTP/1.1 200 OK\r\nContent-Type: a\r\nContent-Type: b\r\n"
	    "\r\n", "two Content-Type headers");
}

/* A head of exactly size bytes, or of nlines header lines. */
static char *
head_of(size_t size, int nlines, size_t *len)
{
	const char	*status = "HTTP/1.1 204 No Content\r\n";
	char		*s;
	size_t		 n;
	int		 i;

	ATF_REQUIRE((s = malloc(size + 64 + nlines * 16)) != NULL);
	n = strlen(status);
	memcpy(s, status, n);
	for (i = 0; i < nlines; i++)
		n += sprintf(s + n, "X-%d: v\r\n", i);
	if (size > 0) {
		/* One header long enough that the whole head is size bytes. */
		n += sprintf(s + n, "X-Pad: ");
		memset(s + n, 'a', size - n - 4);
		n = size - 4;
		memcpy(s + n, "\r\n", 2);
		n += 2;
	}
	memcpy(s + n, "\r\n", 2);
	*len = n + 2;
	return s;
}

ATF_TC_WITHOUT_HEAD(header_caps);
ATF_TC_BODY(header_caps, tc)
{
	struct http_response	*r;
	char			*s;
	size_t			 len, used;

	s = head_of(HTTP_HEAD_MAX, 0, &len);
	ATF_REQUIRE_EQ(len, HTTP_HEAD_MAX);
	r = good(s, len, len, &used);
	ATF_CHECK_EQ(used, len);
	done(r);
	free(s);
	s = head_of(HTTP_HEAD_MAX + 1, 0, &len);
	ATF_REQUIRE_EQ(len, HTTP_HEAD_MAX + 1);
	bad(s, len, "header section over 32 KiB");
	free(s);

	s = head_of(0, 100, &len);
	r = good(s, len, 1, &used);
	done(r);
	free(s);
	s = head_of(0, 101, &len);
	bad(s, len, "too many header lines");
	free(s);
}

ATF_TC_WITHOUT_HEAD(framing);
ATF_TC_BODY(framing, tc)
{
	bad_str("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 5\r\n"
	    "\r\nhello", "two Content-Length headers");
	bad_str("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: "
	    "chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
	    "Content-Length and Transfer-Encoding both");
	bad_str("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
	    "Content-Length: 5\r\n\r\n", "Content-Length and "
	    "Transfer-Encoding both");
	bad_str("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
	    "a Transfer-Encoding other than chunked");
	bad_str("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
	    "a Transfer-Encoding other than chunked");
	bad_str("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n",
	    "two Transfer-Encoding headers");
	bad_str("HTTP/1.1 200 OK\r\nContent-Length: +5\r\n\r\n",
	    "bad Content-Length");
	bad_str("HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\n",
	    "bad Content-Length");
	bad_str("HTTP/1.1 200 OK\r\nContent-Length: 0x5\r\n\r\n",
	    "bad Content-Length");
	bad_str("HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\n",
	    "bad Content-Length");
	bad_str("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n",
	    "bad Content-Length");
}

ATF_TC_WITHOUT_HEAD(chunks);
ATF_TC_BODY(chunks, tc)
{
	const char	*h = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
			    "\r\n";
	char		 s[256];

#define CHUNKED(tail)	(snprintf(s, sizeof(s), "%s%s", h, tail), s)
	bad_str(CHUNKED("zz\r\n"), "bad chunk size");
	bad_str(CHUNKED("000000005\r\nhello\r\n0\r\n\r\n"), "bad chunk size");
	bad_str(CHUNKED("\r\n"), "bad chunk size");
	bad_str(CHUNKED("5 \r\nhello\r\n0\r\n\r\n"), "bad chunk size");
	bad_str(CHUNKED("-5\r\n"), "bad chunk size");
	bad_str(CHUNKED("5\r\nhelloX\r\n0\r\n\r\n"),
	    "missing CRLF after a chunk");
	bad_str(CHUNKED("5\r\nhello\r0\r\n\r\n"),
	    "missing CRLF after a chunk");
	bad_str(CHUNKED("5\r\nhello\n0\r\n\r\n"),
	    "missing CRLF after a chunk");
	bad_str(CHUNKED("ffffffff\r\n"), "body over 32 MiB");
	bad_str(CHUNKED("0\r\nBad Trailer\r\n\r\n"), "bad header line");
	bad_str(CHUNKED("0\r\nX: 1\n\r\n"), "a bare LF");
#undef CHUNKED
}

/* An answer with a body of n bytes, framed by Content-Length or chunks. */
static char *
answer_of(size_t n, int chunked, size_t *len)
{
	char	*s;
	size_t	 h;

	ATF_REQUIRE((s = malloc(n + 256)) != NULL);
	if (chunked)
		h = sprintf(s, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked"
		    "\r\n\r\n%zx\r\n", n);
	else
		h = sprintf(s, "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n\r\n",
		    n);
	memset(s + h, 'b', n);
	*len = h + n;
	if (chunked) {
		memcpy(s + *len, "\r\n0\r\n\r\n", 7);
		*len += 7;
	}
	return s;
}

ATF_TC_WITHOUT_HEAD(body_cap);
ATF_TC_BODY(body_cap, tc)
{
	struct http_response	*r;
	char			*s;
	size_t			 len, used;
	int			 chunked;

	for (chunked = 0; chunked <= 1; chunked++) {
		s = answer_of(MIB32, chunked, &len);
		r = good(s, len, 65536, &used);
		ATF_CHECK_EQ(r->bodylen, MIB32);
		ATF_CHECK_EQ(used, len);
		done(r);
		free(s);
		s = answer_of(MIB32 + 1, chunked, &len);
		bad(s, len, "body over 32 MiB");
		free(s);
	}
	/* Two chunks that reach the cap only together. */
	s = answer_of(MIB32, 1, &len);
	memcpy(s + len - 5, "1\r\nb\r\n0\r\n\r\n", 11);
	bad(s, len + 6, "body over 32 MiB");
	free(s);
}

/*
 * The body in the caller's buffer (the keep's memfd): the same answers
 * and the same cap as with the parser's own, in that buffer, never
 * freed by the parser (the .san build would catch a free of it).
 */
ATF_TC_WITHOUT_HEAD(body_in);
ATF_TC_BODY(body_in, tc)
{
	static unsigned char	 buf[MIB32];
	struct http_response	 r;
	char			*s;
	size_t			 len, used;
	int			 chunked;

	for (chunked = 0; chunked <= 1; chunked++) {
		s = answer_of(MIB32, chunked, &len);
		http_response_init(&r, 0);
		http_response_body_in(&r, buf, sizeof(buf));
		ATF_CHECK_EQ(feed(&r, s, len, 65536, &used), HTTP_DONE);
		ATF_CHECK(r.body == buf && r.bodylen == MIB32 && used == len);
		ATF_CHECK(buf[0] == 'b' && buf[MIB32 - 1] == 'b');
		http_response_free(&r);
		free(s);
		s = answer_of(MIB32 + 1, chunked, &len);
		http_response_init(&r, 0);
		http_response_body_in(&r, buf, sizeof(buf));
		ATF_CHECK_EQ(feed(&r, s, len, 65536, &used), HTTP_ERROR);
		ATF_CHECK_STREQ(r.why, "body over 32 MiB");
		http_response_free(&r);
		free(s);
	}
}

/* Written to a file: the same answers and the same cap as body_in. */
static void
body_to_one(size_t n, int chunked, int want)
{
	struct http_response	 r;
	struct stat		 st;
	char			*s, c[2];
	size_t			 len, used;
	int			 fd;

	ATF_REQUIRE((fd = memfd_create("t_http", MFD_CLOEXEC)) != -1);
	s = answer_of(n, chunked, &len);
	http_response_init(&r, 0);
	http_response_body_to(&r, fd);
	ATF_CHECK_EQ(feed(&r, s, len, 16384, &used), want);
	ATF_REQUIRE(fstat(fd, &st) == 0);
	if (want == HTTP_DONE) {
		ATF_CHECK(r.body == NULL && r.bodylen == n && used == len);
		ATF_CHECK_EQ((size_t)st.st_size, n);
		ATF_CHECK(pread(fd, c, 1, 0) == 1 && pread(fd, c + 1, 1,
		    n - 1) == 1 && c[0] == 'b' && c[1] == 'b');
	} else {
		ATF_CHECK_STREQ(r.why, "body over 32 MiB");
		ATF_CHECK((size_t)st.st_size <= MIB32);
	}
	http_response_free(&r);
	free(s);
	close(fd);
}

ATF_TC_WITHOUT_HEAD(body_to);
ATF_TC_BODY(body_to, tc)
{
	int	 chunked;

	for (chunked = 0; chunked <= 1; chunked++) {
		body_to_one(MIB32, chunked, HTTP_DONE);
		body_to_one(5, chunked, HTTP_DONE);
		body_to_one(MIB32 + 1, chunked, HTTP_ERROR);
	}
}

ATF_TC_WITHOUT_HEAD(until_eof);
ATF_TC_BODY(until_eof, tc)
{
	const char		*s = "HTTP/1.0 200 OK\r\nContent-Type: text/plain"
				    "\r\n\r\nall of it";
	struct http_response	*r;
	char			*big;
	size_t			 used;

	ATF_REQUIRE((r = malloc(sizeof(*r))) != NULL);
	http_response_init(r, 0);
	ATF_CHECK_EQ(feed(r, s, strlen(s), 1, &used), HTTP_MORE);
	ATF_CHECK_EQ(used, strlen(s));
	ATF_CHECK_EQ(http_response_eof(r), HTTP_DONE);
	ATF_CHECK_EQ(r->bodylen, 9);
	ATF_CHECK(memcmp(r->body, "all of it", 9) == 0);
	http_response_free(r);

	/* Cut short: a length or a chunk not complete is no answer. */
	http_response_init(r, 0);
	s = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort";
	ATF_CHECK_EQ(feed(r, s, strlen(s), 1, &used), HTTP_MORE);
	ATF_CHECK_EQ(http_response_eof(r), HTTP_ERROR);
	ATF_CHECK_STREQ(r->why, "the answer ended early");
	http_response_free(r);
	http_response_init(r, 0);
	s = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello"
	    "\r\n";
	ATF_CHECK_EQ(feed(r, s, strlen(s), 1, &used), HTTP_MORE);
	ATF_CHECK_EQ(http_response_eof(r), HTTP_ERROR);
	http_response_free(r);
	http_response_init(r, 0);
	ATF_CHECK_EQ(http_response_eof(r), HTTP_ERROR);
	http_response_free(r);

	/* Past 32 MiB before the end is no answer either. */
	ATF_REQUIRE((big = malloc(MIB32 + 1)) != NULL);
	memset(big, 'c', MIB32 + 1);
	http_response_init(r, 0);
	s = "HTTP/1.1 200 OK\r\n\r\n";
	ATF_CHECK_EQ(feed(r, s, strlen(s), 1, &used), HTTP_MORE);
	ATF_CHECK_EQ(feed(r, big, MIB32, 1 << 20, &used), HTTP_MORE);
	ATF_CHECK_EQ(http_response_eof(r), HTTP_DONE);
	ATF_CHECK_EQ(r->bodylen, MIB32);
	http_response_free(r);
	http_response_init(r, 0);
	ATF_CHECK_EQ(feed(r, s, strlen(s), 1, &used), HTTP_MORE);
	ATF_CHECK_EQ(feed(r, big, MIB32 + 1, 1 << 20, &used), HTTP_ERROR);
	ATF_CHECK_STREQ(r->why, "body over 32 MiB");
	http_response_free(r);
	free(big);
	free(r);
}

ATF_TC_WITHOUT_HEAD(no_body);
ATF_TC_BODY(no_body, tc)
{
	const char		*s = "HTTP/1.1 302 Found\r\n"
				    "Location: https://internal.example/\r\n"
				    "Content-Length: 10\r\n\r\n0123456789";
	struct http_response	*r;
	size_t			 used;

	/* A redirect is returned with its location; its body is not read. */
	r = good(s, strlen(s), 1, &used);
	ATF_CHECK_EQ(r->status, 302);
	ATF_CHECK_STREQ(r->location, "https://internal.example/");
	ATF_CHECK_EQ(used, strlen(s) - 10);
	ATF_CHECK_EQ(r->bodylen, 0);
	done(r);

	s = "HTTP/1.1 204 No Content\r\n\r\nX";
	r = good(s, strlen(s), 1, &used);
	ATF_CHECK_EQ(used, strlen(s) - 1);
	done(r);

	/* The answer to a HEAD has a length and no body. */
	ATF_REQUIRE((r = malloc(sizeof(*r))) != NULL);
	http_response_init(r, 1);
	s = "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n";
	ATF_CHECK_EQ(feed(r, s, strlen(s), 1, &used), HTTP_DONE);
	ATF_CHECK_EQ(r->content_length, 100);
	ATF_CHECK_EQ(r->bodylen, 0);
	done(r);
}

/* Whether the connection may carry another request after each answer. */
static const struct {
	const char	*answer;
	int		 eof;		/* it ends with the connection */
	int		 reusable;
} reuse_cases[] = {
	{ "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", 0, 1 },
	{ "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 0, 1 },
	{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	    "2\r\nok\r\n0\r\n\r\n", 0, 1 },
	{ "HTTP/1.1 204 No Content\r\n\r\n", 0, 1 },
	{ "HTTP/1.1 500 Oops\r\nContent-Length: 2\r\n\r\nno", 0, 1 },
	{ "HTTP/1.1 200 OK\r\nConnection: keep-alive\r\n"
	    "Content-Length: 2\r\n\r\nok", 0, 1 },
	{ "HTTP/1.1 200 OK\r\nConnection: closed\r\n"
	    "Content-Length: 2\r\n\r\nok", 0, 1 },
	/* Said to close, in any case and place of the list. */
	{ "HTTP/1.1 200 OK\r\nConnection: close\r\n"
	    "Content-Length: 2\r\n\r\nok", 0, 0 },
	{ "HTTP/1.1 200 OK\r\nconnection: Keep-Alive , CLOSE\t\r\n"
	    "Content-Length: 2\r\n\r\nok", 0, 0 },
	{ "HTTP/1.1 200 OK\r\nConnection: upgrade\r\nConnection: close\r\n"
	    "Content-Length: 2\r\n\r\nok", 0, 0 },
	/* HTTP/1.0 closes unless it says otherwise: the keep never asks. */
	{ "HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", 0, 0 },
	/* Its end was the connection's. */
	{ "HTTP/1.1 200 OK\r\n\r\nall of it", 1, 0 },
	/* A redirect's body is never read: it is still on the connection. */
	{ "HTTP/1.1 302 Found\r\nLocation: /x\r\nContent-Length: 2\r\n"
	    "\r\nok", 0, 0 },
};

ATF_TC_WITHOUT_HEAD(reusable);
ATF_TC_BODY(reusable, tc)
{
	struct http_response	*r;
	const char		*s;
	size_t			 i, used;

	ATF_REQUIRE((r = malloc(sizeof(*r))) != NULL);
	for (i = 0; i < sizeof(reuse_cases) / sizeof(reuse_cases[0]); i++) {
		s = reuse_cases[i].answer;
		http_response_init(r, 0);
		if (reuse_cases[i].eof) {
			ATF_CHECK_EQ(feed(r, s, strlen(s), 1, &used),
			    HTTP_MORE);
			ATF_CHECK_EQ(http_response_eof(r), HTTP_DONE);
		} else
			ATF_CHECK_EQ_MSG(feed(r, s, strlen(s), 1, &used),
			    HTTP_DONE, "%s", s);
		ATF_CHECK_EQ_MSG(http_response_reusable(r),
		    reuse_cases[i].reusable, "%s", s);
		http_response_free(r);
	}
	/* Not before its end, nor after an error. */
	http_response_init(r, 0);
	s = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nok";
	ATF_CHECK_EQ(feed(r, s, strlen(s), 1, &used), HTTP_MORE);
	ATF_CHECK_EQ(http_response_reusable(r), 0);
	ATF_CHECK_EQ(http_response_eof(r), HTTP_ERROR);
	ATF_CHECK_EQ(http_response_reusable(r), 0);
	http_response_free(r);
	free(r);
}

static void
dest_init(struct destination *d, const char *host, int tls, uint16_t port,
    char *path)
{
	memset(d, 0, sizeof(*d));
	(void)strlcpy(d->host, host, sizeof(d->host));
	d->tls = tls;
	d->port = port;
	d->path = path;
}

ATF_TC_WITHOUT_HEAD(request);
ATF_TC_BODY(request, tc)
{
	struct destination	 d;
	struct envelope		 env;
	char			 path[] = "/api/worker", *req;
	const char		*why, *want;
	size_t			 len;

	dest_init(&d, "notes.example.com", 1, 443, path);
	memset(&env, 0, sizeof(env));
	env.method = ENVELOPE_POST;
	(void)strlcpy(env.path, "/jobs/claim", sizeof(env.path));
	env.nhdrs = 1;
	(void)strlcpy(env.name[0], "content-type", sizeof(env.name[0]));
	(void)strlcpy(env.value[0], "application/json", sizeof(env.value[0]));
	env.body = "{\"limit\":1}";
	env.bodylen = strlen(env.body);
	ATF_REQUIRE_MSG(http_request_build(&d, &env, &http_bearer, "tok",
	    3, &req, &len, &why) == 0, "%s", why);
	want = "POST /api/worker/jobs/claim HTTP/1.1\r\n"
	    "Host: notes.example.com\r\n"
	    "User-Agent: sandcastle-keep\r\n"
	    "Authorization: Bearer tok\r\n"
	    "Content-Type: application/json\r\n"
	    "Content-Length: 11\r\n"
	    "\r\n"
	    "{\"limit\":1}";
	ATF_CHECK_EQ(len, strlen(want));
	ATF_CHECK(len == strlen(want) && memcmp(req, want, len) == 0);
	http_request_free(req, len);

	dest_init(&d, "api.anthropic.com", 1, 8443, NULL);
	memset(&env, 0, sizeof(env));
	env.method = ENVELOPE_GET;
	(void)strlcpy(env.path, "/v1/models", sizeof(env.path));
	ATF_REQUIRE(http_request_build(&d, &env, &cap_table[CAP_CLAUDE]->credential, "k-1", 3,
	    &req, &len, &why) == 0);
	want = "GET /v1/models HTTP/1.1\r\n"
	    "Host: api.anthropic.com:8443\r\n"
	    "User-Agent: sandcastle-keep\r\n"
	    "x-api-key: k-1\r\n"
	    "\r\n";
	ATF_CHECK(len == strlen(want) && memcmp(req, want, len) == 0);
	ATF_CHECK(strstr(req, "ccept-Encoding") == NULL);
	/* HTTP/1.1 keeps the connection: the request asks nothing of it. */
	ATF_CHECK(strstr(req, "onnection") == NULL);
	http_request_free(req, len);
}

ATF_TC_WITHOUT_HEAD(request_refusals);
ATF_TC_BODY(request_refusals, tc)
{
	struct destination	 d;
	struct envelope		 env;
	char			*req, *big;
	const char		*why;
	size_t			 len;

	dest_init(&d, "notes.example.com", 0, 80, NULL);
	memset(&env, 0, sizeof(env));
	env.method = ENVELOPE_GET;
	(void)strlcpy(env.path, "/ping", sizeof(env.path));
	ATF_REQUIRE(http_request_build(&d, &env, &http_bearer, "ok", 2,
	    &req, &len, &why) == 0);
	ATF_CHECK(strstr(req, "Host: notes.example.com\r\n") != NULL);
	http_request_free(req, len);

	ATF_CHECK(http_request_build(&d, &env, &http_bearer,
	    "tok\r\nHost: evil", 15, &req, &len, &why) == -1);
	ATF_CHECK_STREQ(why, "the secret holds a line break");
	ATF_CHECK(req == NULL);
	ATF_CHECK(http_request_build(&d, &env, &http_bearer, "tok\n", 4,
	    &req, &len, &why) == -1);
	ATF_CHECK_STREQ(why, "the secret holds a line break");
	ATF_CHECK(http_request_build(&d, &env, &http_bearer, "t\0k", 3,
	    &req, &len, &why) == -1);
	ATF_CHECK(http_request_build(&d, &env, &http_bearer, "", 0,
	    &req, &len, &why) == -1);
	ATF_CHECK_STREQ(why, "the secret is empty");
	ATF_REQUIRE((big = malloc(SECRET_MAX + 1)) != NULL);
	memset(big, 'k', SECRET_MAX + 1);
	ATF_CHECK(http_request_build(&d, &env, &http_bearer, big,
	    SECRET_MAX, &req, &len, &why) == 0);
	http_request_free(req, len);
	ATF_CHECK(http_request_build(&d, &env, &http_bearer, big,
	    SECRET_MAX + 1, &req, &len, &why) == -1);
	ATF_CHECK_STREQ(why, "the secret is larger than 16 KiB");
	free(big);

	env.nhdrs = 1;
	(void)strlcpy(env.name[0], "accept", sizeof(env.name[0]));
	(void)strlcpy(env.value[0], "a\r\nx-api-key: k", sizeof(env.value[0]));
	ATF_CHECK(http_request_build(&d, &env, &http_bearer, "ok", 2,
	    &req, &len, &why) == -1);
	ATF_CHECK_STREQ(why, "a header's value holds a line break");
	(void)strlcpy(env.value[0], "*/*", sizeof(env.value[0]));
	(void)strlcpy(env.path, "/a\r\nb", sizeof(env.path));
	ATF_CHECK(http_request_build(&d, &env, &http_bearer, "ok", 2,
	    &req, &len, &why) == -1);
	(void)strlcpy(env.path, "/a b", sizeof(env.path));
	ATF_CHECK(http_request_build(&d, &env, &http_bearer, "ok", 2,
	    &req, &len, &why) == -1);
	(void)strlcpy(env.path, "/p", sizeof(env.path));
	env.body = "x";
	env.bodylen = 1;
	ATF_CHECK(http_request_build(&d, &env, &http_bearer, "ok", 2,
	    &req, &len, &why) == -1);
	ATF_CHECK_STREQ(why, "a GET has no body");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, content_length);
	ATF_TP_ADD_TC(tp, chunked);
	ATF_TP_ADD_TC(tp, status_line);
	ATF_TP_ADD_TC(tp, line_endings);
	ATF_TP_ADD_TC(tp, header_lines);
	ATF_TP_ADD_TC(tp, header_caps);
	ATF_TP_ADD_TC(tp, framing);
	ATF_TP_ADD_TC(tp, chunks);
	ATF_TP_ADD_TC(tp, body_cap);
	ATF_TP_ADD_TC(tp, body_in);
	ATF_TP_ADD_TC(tp, body_to);
	ATF_TP_ADD_TC(tp, until_eof);
	ATF_TP_ADD_TC(tp, no_body);
	ATF_TP_ADD_TC(tp, reusable);
	ATF_TP_ADD_TC(tp, request);
	ATF_TP_ADD_TC(tp, request_refusals);
	return atf_no_error();
}
