/*
 * N1: the gate's CONNECT parser: only a name on the list can be asked
 * for, never an address, and the parser takes no byte of the tunnel.
 */
#include <atf-c.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../gated/connect.h"

#define GOOD	"CONNECT notes.example.org:443 HTTP/1.1\r\n" \
		"Host: 10.0.0.1\r\nUser-Agent: keepd\r\n\r\n"

static enum connect_state
feed_whole(struct connect_req *req, const char *s, size_t len, size_t *used)
{
	connect_init(req);
	return connect_feed(req, s, len, used);
}

/* One byte at a time; *used is the total taken. */
static enum connect_state
feed_bytes(struct connect_req *req, const char *s, size_t len, size_t *used)
{
	enum connect_state	st = CONNECT_MORE;
	size_t			i, n;

	connect_init(req);
	*used = 0;
	for (i = 0; i < len; i++) {
		st = connect_feed(req, s + i, 1, &n);
		*used += n;
		if (st != CONNECT_MORE)
			break;
	}
	return st;
}

/* The request line with target, and an empty header section. */
static void
request_of(const char *target, char *buf, size_t bufsz)
{
	snprintf(buf, bufsz, "CONNECT %s HTTP/1.1\r\n\r\n", target);
}

static void
expect_refused(const char *req_text, const char *why)
{
	struct connect_req	req;
	size_t			used;

	ATF_CHECK_EQ_MSG(feed_whole(&req, req_text, strlen(req_text), &used),
	    CONNECT_ERROR, "accepted: %s", req_text);
	if (req.state == CONNECT_ERROR)
		ATF_CHECK_STREQ_MSG(req.why, why, "for: %s", req_text);
}

static void
expect_done(const char *req_text)
{
	struct connect_req	req;
	size_t			used;

	ATF_CHECK_EQ_MSG(feed_whole(&req, req_text, strlen(req_text), &used),
	    CONNECT_DONE, "refused (%s): %s", req.why ? req.why : "",
	    req_text);
	ATF_CHECK_EQ(used, strlen(req_text));
}

static void
expect_target_refused(const char *target, const char *why, int literal)
{
	char			buf[1024];
	struct connect_req	req;
	size_t			used;

	request_of(target, buf, sizeof(buf));
	ATF_CHECK_EQ_MSG(feed_whole(&req, buf, strlen(buf), &used),
	    CONNECT_ERROR, "accepted: %s", target);
	if (req.state != CONNECT_ERROR)
		return;
	ATF_CHECK_STREQ_MSG(req.why, why, "for %s", target);
	ATF_CHECK_EQ_MSG(req.literal, literal, "literal flag for %s", target);
}

static void
expect_target_ok(const char *target, const char *host, uint16_t port)
{
	char			buf[1024];
	struct connect_req	req;
	size_t			used;

	request_of(target, buf, sizeof(buf));
	ATF_CHECK_EQ_MSG(feed_whole(&req, buf, strlen(buf), &used),
	    CONNECT_DONE, "refused %s: %s", target,
	    req.why ? req.why : "");
	if (req.state != CONNECT_DONE)
		return;
	ATF_CHECK_STREQ(req.host, host);
	ATF_CHECK_EQ(req.port, port);
	ATF_CHECK_EQ(used, strlen(buf));
}

ATF_TC_WITHOUT_HEAD(good_whole);
ATF_TC_BODY(good_whole, tc)
{
	struct connect_req	req;
	size_t			used;

	ATF_REQUIRE_EQ(feed_whole(&req, GOOD, strlen(GOOD), &used),
	    CONNECT_DONE);
	ATF_CHECK_STREQ(req.host, "notes.example.org");
	ATF_CHECK_EQ(req.port, 443);
	ATF_CHECK_EQ(used, strlen(GOOD));
	ATF_CHECK_EQ(req.why, NULL);
}

ATF_TC_WITHOUT_HEAD(good_bytewise);
ATF_TC_BODY(good_bytewise, tc)
{
	struct connect_req	req;
	size_t			i, n;

	connect_init(&req);
	for (i = 0; i + 1 < strlen(GOOD); i++)
		ATF_REQUIRE_EQ_MSG(connect_feed(&req, GOOD + i, 1, &n),
		    CONNECT_MORE, "at byte %zu", i);
	ATF_REQUIRE_EQ(connect_feed(&req, GOOD + i, 1, &n), CONNECT_DONE);
	ATF_CHECK_EQ(n, 1);
	ATF_CHECK_STREQ(req.host, "notes.example.org");
	ATF_CHECK_EQ(req.port, 443);
}

ATF_TC_WITHOUT_HEAD(normalised);
ATF_TC_BODY(normalised, tc)
{
	expect_target_ok("Notes.EXAMPLE.org.:8443", "notes.example.org", 8443);
	expect_target_ok("a:1", "a", 1);
	expect_target_ok("x-1.b2.example:65535", "x-1.b2.example", 65535);
	/* One trailing dot only. */
	expect_target_refused("notes.example.org..:443", "not a DNS name", 0);
}

/* Nothing after the empty line is the parser's: the tunnel starts there. */
ATF_TC_WITHOUT_HEAD(trailing_not_consumed);
ATF_TC_BODY(trailing_not_consumed, tc)
{
	char			buf[512];
	struct connect_req	req;
	size_t			used;

	snprintf(buf, sizeof(buf), "%s\x16\x03\x01" "GET / HTTP/1.1\r\n\r\n",
	    GOOD);
	ATF_REQUIRE_EQ(feed_whole(&req, buf, strlen(buf), &used),
	    CONNECT_DONE);
	ATF_CHECK_EQ(used, strlen(GOOD));
	ATF_REQUIRE_EQ(feed_bytes(&req, buf, strlen(buf), &used),
	    CONNECT_DONE);
	ATF_CHECK_EQ(used, strlen(GOOD));
	/* Once done, it takes nothing more. */
	ATF_CHECK_EQ(connect_feed(&req, "xyz", 3, &used), CONNECT_DONE);
	ATF_CHECK_EQ(used, 0);
}

ATF_TC_WITHOUT_HEAD(ip_literals);
ATF_TC_BODY(ip_literals, tc)
{
	static const char *const literals[] = {
		"127.0.0.1:443", "127.1:443", "127.0.1:443", "0x7f.0.0.1:443",
		"0X7F.0.0.1:443", "0177.0.0.1:443", "2130706433:443",
		"0x7f000001:443", "017700000001:443", "127.0.0.1.:443",
		"10.0.0.1:443", "169.254.169.254:80", "0:443", "0x:443",
		"example.123:443", "notes.example.0x1f:443", "1.2.3.04:443",
		"[::1]:443", "[::ffff:127.0.0.1]:443", "::ffff:7f00:1:443",
		"[fe80::1%25eth0]:443", "::1:443", "[::1]", "127.0.0.1",
		"a:b:443", "[notes.example.org]:443",
	};
	size_t	i;

	for (i = 0; i < sizeof(literals) / sizeof(literals[0]); i++)
		expect_target_refused(literals[i], "an IP literal", 1);
	/* Control: digits inside a name are no address. */
	expect_target_ok("127-0-0-1.example.org:443", "127-0-0-1.example.org",
	    443);
	expect_target_ok("10.0.0.1.example.org:443", "10.0.0.1.example.org",
	    443);
	expect_target_ok("0x7f.example:443", "0x7f.example", 443);
}

ATF_TC_WITHOUT_HEAD(bad_names);
ATF_TC_BODY(bad_names, tc)
{
	static const char *const bad[] = {
		":443", ".:443", "-a.example:443", "a-.example:443",
		"a..example:443", ".a.example:443", "a_b.example:443",
		"ex%41mple.org:443", "caf\xc3\xa9.example:443",
		"a/b.example:443", "a*.example:443",
	};
	size_t	i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_target_refused(bad[i], "not a DNS name", 0);
	expect_target_ok("a-b.example:443", "a-b.example", 443);
}

ATF_TC_WITHOUT_HEAD(name_lengths);
ATF_TC_BODY(name_lengths, tc)
{
	char	label[80], host[512], target[600];

	memset(label, 'a', 64);
	label[64] = '\0';
	snprintf(target, sizeof(target), "%s.example:443", label);
	expect_target_refused(target, "not a DNS name", 0);
	label[63] = '\0';
	snprintf(host, sizeof(host), "%s.example", label);
	snprintf(target, sizeof(target), "%s:443", host);
	expect_target_ok(target, host, 443);

	/* 253 bytes is the longest name (control), 254 too long. */
	snprintf(host, sizeof(host), "%s.%s.%s.%.61s", label, label, label,
	    label);
	ATF_REQUIRE_EQ(strlen(host), 253);
	snprintf(target, sizeof(target), "%s:443", host);
	expect_target_ok(target, host, 443);
	snprintf(target, sizeof(target), "%s.:443", host);
	expect_target_ok(target, host, 443);
	snprintf(target, sizeof(target), "%sa:443", host);
	expect_target_refused(target, "not a DNS name", 0);
}

ATF_TC_WITHOUT_HEAD(bad_ports);
ATF_TC_BODY(bad_ports, tc)
{
	static const char *const bad[] = {
		"a.example:0", "a.example:65536", "a.example:080",
		"a.example:+80", "a.example:", "a.example", "a.example:-1",
		"a.example:8o", "a.example:99999", "a.example:443a",
		"a.example:0x50", "a.example:100000",
	};
	size_t	i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_target_refused(bad[i], "bad port", 0);
	expect_target_ok("a.example:1", "a.example", 1);
	expect_target_ok("a.example:80", "a.example", 80);
	expect_target_ok("a.example:65535", "a.example", 65535);
}

ATF_TC_WITHOUT_HEAD(method_version);
ATF_TC_BODY(method_version, tc)
{
	expect_refused("GET / HTTP/1.1\r\n\r\n", "not CONNECT");
	expect_refused("connect a.example:443 HTTP/1.1\r\n\r\n", "not CONNECT");
	expect_refused("CONNECTX a.example:443 HTTP/1.1\r\n\r\n",
	    "not CONNECT");
	expect_refused("CONNECT a.example:443 HTTP/1.0\r\n\r\n",
	    "not HTTP/1.1");
	expect_refused("CONNECT a.example:443 http/1.1\r\n\r\n",
	    "not HTTP/1.1");
	expect_refused("CONNECT a.example:443 HTTP/1.1 x\r\n\r\n",
	    "not HTTP/1.1");
	expect_refused("CONNECT a.example:443 \r\n\r\n", "not HTTP/1.1");
	expect_refused("CONNECT a.example:443\r\n\r\n",
	    "malformed request line");
	expect_refused("CONNECT  a.example:443 HTTP/1.1\r\n\r\n",
	    "malformed request line");
	expect_refused("CONNECT a.example:443  HTTP/1.1\r\n\r\n",
	    "not HTTP/1.1");
	expect_refused("CONNECT\r\n\r\n", "malformed request line");
	expect_refused("\r\n", "malformed request line");
	expect_refused("CONNECT\ta.example:443 HTTP/1.1\r\n\r\n",
	    "control character");
	/* Control: the same line, well spelled. */
	expect_target_ok("a.example:443", "a.example", 443);
}

ATF_TC_WITHOUT_HEAD(line_endings);
ATF_TC_BODY(line_endings, tc)
{
	expect_refused("CONNECT a.example:443 HTTP/1.1\n\r\n", "bare LF");
	expect_refused("CONNECT a.example:443 HTTP/1.1\r\nHost: a\n\r\n",
	    "bare LF");
	expect_refused("CONNECT a.example:443 HTTP/1.1\r\n\n", "bare LF");
	expect_refused("CONNECT a.example:443 HTTP/1.1\rHost: a\r\n\r\n",
	    "bare CR");
	expect_refused("CONNECT a.example:443 HTTP/1.1\r\n\r\r\n", "bare CR");
	expect_refused("CONNECT a.example:443 HTTP/1.1\r\nA: b\r\r\n\r\n",
	    "bare CR");
}

ATF_TC_WITHOUT_HEAD(control_characters);
ATF_TC_BODY(control_characters, tc)
{
	static const char nul_line[] = "CONNECT a.ex\0ample:443 HTTP/1.1\r\n\r\n";
	static const char nul_hdr[] = "CONNECT a.example:443 HTTP/1.1\r\n"
	    "A: b\0c\r\n\r\n";
	struct connect_req	req;
	size_t			used;

	ATF_CHECK_EQ(feed_whole(&req, nul_line, sizeof(nul_line) - 1, &used),
	    CONNECT_ERROR);
	ATF_CHECK_STREQ(req.why, "control character");
	ATF_CHECK_EQ(used, 13);
	ATF_CHECK_EQ(feed_whole(&req, nul_hdr, sizeof(nul_hdr) - 1, &used),
	    CONNECT_ERROR);
	ATF_CHECK_STREQ(req.why, "control character");
	expect_refused("CONNECT a.example:443 HTTP/1.1\r\nA: b\x1b\r\n\r\n",
	    "control character");
	expect_refused("CONNECT a.example:443 HTTP/1.1\r\nA: b\x7f\r\n\r\n",
	    "control character");
	/* Control: a tab and high bytes in a header value are allowed. */
	expect_done("CONNECT a.example:443 HTTP/1.1\r\nA:\tb \xc3\xa9\r\n\r\n");
	/* Once failed, it takes nothing more. */
	ATF_CHECK_EQ(feed_whole(&req, "GET", 3, &used), CONNECT_MORE);
	ATF_CHECK_EQ(connect_feed(&req, " x\r\n", 4, &used), CONNECT_ERROR);
	ATF_CHECK_EQ(connect_feed(&req, "\r\n", 2, &used), CONNECT_ERROR);
	ATF_CHECK_EQ(used, 0);
}

ATF_TC_WITHOUT_HEAD(headers);
ATF_TC_BODY(headers, tc)
{
	static const char *const bad[] = {
		"NoColon", ": value", "Bad Name: v", " folded: v", "\tA: v",
		"Name : v", "N(ame): v", "N\xc3\xa9: v",
	};
	char	buf[256];
	size_t	i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(buf, sizeof(buf),
		    "CONNECT a.example:443 HTTP/1.1\r\n%s\r\n\r\n", bad[i]);
		expect_refused(buf, "malformed header line");
	}
	/* Controls: what a token allows, an empty value, no space. */
	expect_done("CONNECT a.example:443 HTTP/1.1\r\n"
	    "!#$%&'*+-.^_`|~09AZaz: v\r\nA:\r\nB:v\r\n\r\n");
}

/* A request line of len bytes with its CRLF, then an empty line. */
static char *
long_line(size_t len)
{
	char	*buf;
	size_t	 pre = strlen("CONNECT ");

	ATF_REQUIRE((buf = malloc(len + 3)) != NULL);
	memcpy(buf, "CONNECT ", pre);
	memset(buf + pre, 'a', len - pre - 2);
	memcpy(buf + len - 2, "\r\n\r\n", 5);
	return buf;
}

ATF_TC_WITHOUT_HEAD(request_line_cap);
ATF_TC_BODY(request_line_cap, tc)
{
	struct connect_req	 req;
	size_t			 used;
	char			*buf;

	buf = long_line(513);
	ATF_CHECK_EQ(feed_whole(&req, buf, strlen(buf), &used),
	    CONNECT_ERROR);
	ATF_CHECK_STREQ(req.why, "request line over 512 bytes");
	ATF_CHECK_EQ(used, 513);
	ATF_CHECK_EQ(feed_bytes(&req, buf, strlen(buf), &used),
	    CONNECT_ERROR);
	ATF_CHECK_STREQ(req.why, "request line over 512 bytes");
	free(buf);

	/* Control: at 512 bytes the line is read whole, and judged. */
	buf = long_line(512);
	ATF_CHECK_EQ(feed_whole(&req, buf, strlen(buf), &used),
	    CONNECT_ERROR);
	ATF_CHECK_STREQ(req.why, "malformed request line");
	ATF_CHECK_EQ(used, 512);
	free(buf);
}

/*
 * GOOD's request line, then nlines header lines and the empty line,
 * the header section total bytes long.
 */
static char *
with_headers(size_t total, int nlines)
{
	const char	*line = "CONNECT a.example:443 HTTP/1.1\r\n";
	size_t		 body = total - 2, each = body / nlines, len, off;
	char		*buf;
	int		 i;

	ATF_REQUIRE(each >= 8);
	ATF_REQUIRE((buf = malloc(strlen(line) + total + 1)) != NULL);
	off = strlen(line);
	memcpy(buf, line, off);
	for (i = 0; i < nlines; i++) {
		len = i == nlines - 1 ? body - each * (nlines - 1) : each;
		memcpy(buf + off, "X-Pad: ", 7);
		memset(buf + off + 7, 'v', len - 9);
		memcpy(buf + off + len - 2, "\r\n", 2);
		off += len;
	}
	memcpy(buf + off, "\r\n", 3);
	return buf;
}

ATF_TC_WITHOUT_HEAD(header_section_cap);
ATF_TC_BODY(header_section_cap, tc)
{
	struct connect_req	 req;
	size_t			 used;
	char			*buf;

	buf = with_headers(4096, 20);
	ATF_CHECK_EQ(feed_whole(&req, buf, strlen(buf), &used),
	    CONNECT_DONE);
	ATF_CHECK_EQ(used, strlen(buf));
	free(buf);

	buf = with_headers(4097, 20);
	ATF_CHECK_EQ(feed_whole(&req, buf, strlen(buf), &used),
	    CONNECT_ERROR);
	ATF_CHECK_STREQ(req.why, "header section over 4096 bytes");
	ATF_CHECK_EQ(feed_bytes(&req, buf, strlen(buf), &used),
	    CONNECT_ERROR);
	ATF_CHECK_STREQ(req.why, "header section over 4096 bytes");
	free(buf);

	/* One header line alone can fill the section, not overflow it. */
	buf = with_headers(4096, 1);
	ATF_CHECK_EQ(feed_whole(&req, buf, strlen(buf), &used),
	    CONNECT_DONE);
	free(buf);
	buf = with_headers(4097, 1);
	ATF_CHECK_EQ(feed_whole(&req, buf, strlen(buf), &used),
	    CONNECT_ERROR);
	ATF_CHECK_STREQ(req.why, "header section over 4096 bytes");
	free(buf);
}

ATF_TC_WITHOUT_HEAD(header_count_cap);
ATF_TC_BODY(header_count_cap, tc)
{
	struct connect_req	 req;
	size_t			 used;
	char			*buf;

	buf = with_headers(32 * 12 + 2, 32);
	ATF_CHECK_EQ(feed_whole(&req, buf, strlen(buf), &used),
	    CONNECT_DONE);
	free(buf);

	buf = with_headers(33 * 12 + 2, 33);
	ATF_CHECK_EQ(feed_whole(&req, buf, strlen(buf), &used),
	    CONNECT_ERROR);
	ATF_CHECK_STREQ(req.why, "over 32 header lines");
	free(buf);
}

/* connect_target() alone gives the same answers as a whole request. */
ATF_TC_WITHOUT_HEAD(target_alone);
ATF_TC_BODY(target_alone, tc)
{
	char		 host[HOST_LEN + 1];
	const char	*why = NULL;
	uint16_t	 port = 0;
	int		 literal;

	ATF_CHECK_EQ(connect_target("A.Example.:80", host, sizeof(host),
	    &port, &why, &literal), 0);
	ATF_CHECK_STREQ(host, "a.example");
	ATF_CHECK_EQ(port, 80);
	ATF_CHECK_EQ(connect_target("0x7f.1:80", host, sizeof(host), &port,
	    &why, &literal), -1);
	ATF_CHECK_STREQ(why, "an IP literal");
	ATF_CHECK_EQ(literal, 1);
	/* A host buffer too small is refused, never cut. */
	ATF_CHECK_EQ(connect_target("abcdef.example:80", host, 8, &port,
	    &why, &literal), -1);
	ATF_CHECK_EQ(literal, 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, good_whole);
	ATF_TP_ADD_TC(tp, good_bytewise);
	ATF_TP_ADD_TC(tp, normalised);
	ATF_TP_ADD_TC(tp, trailing_not_consumed);
	ATF_TP_ADD_TC(tp, ip_literals);
	ATF_TP_ADD_TC(tp, bad_names);
	ATF_TP_ADD_TC(tp, name_lengths);
	ATF_TP_ADD_TC(tp, bad_ports);
	ATF_TP_ADD_TC(tp, method_version);
	ATF_TP_ADD_TC(tp, line_endings);
	ATF_TP_ADD_TC(tp, control_characters);
	ATF_TP_ADD_TC(tp, headers);
	ATF_TP_ADD_TC(tp, request_line_cap);
	ATF_TP_ADD_TC(tp, header_section_cap);
	ATF_TP_ADD_TC(tp, header_count_cap);
	ATF_TP_ADD_TC(tp, target_alone);
	return atf_no_error();
}
