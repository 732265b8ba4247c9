/*
 * msg.c over real socketpair(AF_UNIX, SOCK_STREAM): whole messages out
 * of partial reads, the size limit decided on the header, descriptors
 * with and without their flag, a peer that closes mid-message, and the
 * receiver's rules.  What a well-behaved sender never writes is crafted
 * by hand with write(2) and sendmsg(2).
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "log.h"
#include "msg.h"

#define T_PING		1
#define T_STATUS	2
#define T_FILE		3
#define T_MAYBE		4

static void
pair(int sv[2], int nonblock)
{
	int	 type = SOCK_STREAM | (nonblock ? SOCK_NONBLOCK : 0);

	ATF_REQUIRE(socketpair(AF_UNIX, type, 0, sv) == 0);
}

/* A stream pair, out on sv[0] and in on sv[1], payloads to 1024 bytes. */
static void
chans(struct msgchan *out, struct msgchan *in, int sv[2])
{
	pair(sv, 0);
	msgchan_init(out, sv[0], 1024);
	msgchan_init(in, sv[1], 1024);
}

/* A header and its payload as on the wire, for a peer written by hand. */
static size_t
frame(unsigned char *out, uint32_t type, uint32_t flags, uint32_t len,
    const void *payload, size_t plen)
{
	struct msg_hdr	 hdr;

	memset(&hdr, 0, sizeof(hdr));
	hdr.type = type;
	hdr.id = 77;
	hdr.flags = flags;
	hdr.len = len;
	memcpy(out, &hdr, sizeof(hdr));
	if (plen > 0)
		memcpy(out + sizeof(hdr), payload, plen);
	return sizeof(hdr) + plen;
}

/* s framed by hand, written to fd and read by in: msg_read_one's answer. */
static int
hand_frame(int fd, struct msgchan *in, uint32_t type, uint32_t flags,
    const char *s)
{
	unsigned char	 wire[64];
	struct msg	 m;
	size_t		 n;
	int		 r;

	n = frame(wire, type, flags, strlen(s), s, strlen(s));
	ATF_REQUIRE_EQ(write(fd, wire, n), (ssize_t)n);
	errno = 0;
	if ((r = msg_read_one(in, &m)) == 1)
		msg_free(&m);
	return r;
}

static void
send_fds(int s, const void *buf, size_t len, const int *fds, size_t nfds)
{
	union {
		struct cmsghdr	hdr;
		unsigned char	buf[CMSG_SPACE(sizeof(int) * 4)];
	}		 cbuf;
	struct msghdr	 mh;
	struct iovec	 iov;
	struct cmsghdr	*cm;

	ATF_REQUIRE(nfds > 0 && nfds <= 4);
	memset(&mh, 0, sizeof(mh));
	memset(&cbuf, 0, sizeof(cbuf));
	iov.iov_base = (void *)buf;
	iov.iov_len = len;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf.buf;
	mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
	memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
	ATF_REQUIRE_EQ(sendmsg(s, &mh, MSG_NOSIGNAL), (ssize_t)len);
}

static int
count_fds(void)
{
	DIR		*d;
	struct dirent	*de;
	int		 n = 0;

	ATF_REQUIRE((d = opendir("/proc/self/fd")) != NULL);
	while ((de = readdir(d)) != NULL)
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

/* Writes into p[1] and reads it back from fd: fd is the pipe's read end. */
static void
check_pipe(int fd, int wfd)
{
	char	 buf[8];

	ATF_REQUIRE_EQ(write(wfd, "through", 7), 7);
	ATF_REQUIRE_EQ(read(fd, buf, sizeof(buf)), 7);
	ATF_REQUIRE(memcmp(buf, "through", 7) == 0);
}

ATF_TC_WITHOUT_HEAD(round_trip);
ATF_TC_BODY(round_trip, tc)
{
	struct msgchan	 out, in;
	struct msg	 m;
	int		 sv[2];

	chans(&out, &in, sv);
	ATF_REQUIRE(msg_compose(&out, T_STATUS, 42, -1, "hello", 5) == 0);
	ATF_REQUIRE_EQ(out.outqlen, 1);
	ATF_REQUIRE(msgchan_flush_all(&out) == 0);
	ATF_REQUIRE_EQ(out.outqlen, 0);
	ATF_REQUIRE_EQ(msg_read_one(&in, &m), 1);
	ATF_CHECK_EQ(m.type, T_STATUS);
	ATF_CHECK_EQ(m.id, 42);
	ATF_CHECK_EQ(m.len, 5);
	ATF_CHECK_EQ(m.fd, -1);
	ATF_REQUIRE(m.data != NULL && memcmp(m.data, "hello", 5) == 0);
	msg_free(&m);
	ATF_CHECK_EQ(msg_get(&in, &m), 0);
	msgchan_clear(&out);
	msgchan_clear(&in);
}

ATF_TC_WITHOUT_HEAD(empty_payload);
ATF_TC_BODY(empty_payload, tc)
{
	struct msgchan	 out, in;
	struct msg	 m;
	int		 sv[2];

	chans(&out, &in, sv);
	ATF_REQUIRE(msg_compose(&out, T_PING, 1, -1, NULL, 0) == 0);
	ATF_REQUIRE(msgchan_flush_all(&out) == 0);
	ATF_REQUIRE_EQ(msg_read_one(&in, &m), 1);
	ATF_CHECK_EQ(m.type, T_PING);
	ATF_CHECK_EQ(m.len, 0);
	ATF_CHECK(m.data == NULL);
	ATF_CHECK_EQ(m.fd, -1);
	msg_free(&m);
	msgchan_clear(&out);
	msgchan_clear(&in);
}

ATF_TC_WITHOUT_HEAD(several_in_one_read);
ATF_TC_BODY(several_in_one_read, tc)
{
	struct msgchan	 out, in;
	struct msg	 m;
	struct iovec	 iov[2];
	int		 sv[2];

	chans(&out, &in, sv);
	iov[0].iov_base = "ab";
	iov[0].iov_len = 2;
	iov[1].iov_base = "cde";
	iov[1].iov_len = 3;
	ATF_REQUIRE(msg_compose(&out, T_PING, 1, -1, NULL, 0) == 0);
	ATF_REQUIRE(msg_composev(&out, T_STATUS, 2, -1, iov, 2) == 0);
	ATF_REQUIRE(msg_compose(&out, T_STATUS, 3, -1, "xyz", 3) == 0);
	ATF_REQUIRE(msgchan_flush_all(&out) == 0);

	ATF_REQUIRE_EQ(msgchan_read(&in), 3 * sizeof(struct msg_hdr) + 5 + 3);
	ATF_REQUIRE_EQ(msg_get(&in, &m), 1);
	ATF_CHECK(m.id == 1 && m.len == 0);
	msg_free(&m);
	ATF_REQUIRE_EQ(msg_get(&in, &m), 1);
	ATF_CHECK(m.id == 2 && m.len == 5 && memcmp(m.data, "abcde", 5) == 0);
	msg_free(&m);
	ATF_REQUIRE_EQ(msg_get(&in, &m), 1);
	ATF_CHECK(m.id == 3 && m.len == 3 && memcmp(m.data, "xyz", 3) == 0);
	msg_free(&m);
	ATF_CHECK_EQ(msg_get(&in, &m), 0);
	msgchan_clear(&out);
	msgchan_clear(&in);
}

ATF_TC_WITHOUT_HEAD(one_byte_writes);
ATF_TC_BODY(one_byte_writes, tc)
{
	struct msgchan	 in;
	struct msg	 m;
	unsigned char	 wire[sizeof(struct msg_hdr) + 100], payload[100];
	size_t		 i, n;
	int		 sv[2];

	pair(sv, 0);
	msgchan_init(&in, sv[1], 1024);
	for (i = 0; i < sizeof(payload); i++)
		payload[i] = (unsigned char)i;
	n = frame(wire, T_STATUS, 0, sizeof(payload), payload, sizeof(payload));
	for (i = 0; i < n; i++) {
		ATF_REQUIRE_EQ(write(sv[0], wire + i, 1), 1);
		ATF_REQUIRE_EQ(msgchan_read(&in), 1);
		if (i + 1 < n)
			ATF_REQUIRE_EQ_MSG(msg_get(&in, &m), 0, "byte %zu", i);
	}
	ATF_REQUIRE_EQ(msg_get(&in, &m), 1);
	ATF_CHECK_EQ(m.id, 77);
	ATF_REQUIRE_EQ(m.len, sizeof(payload));
	ATF_CHECK(memcmp(m.data, payload, sizeof(payload)) == 0);
	msg_free(&m);
	msgchan_clear(&in);
}

/*
 * 8 MiB with a pipe's end, both sockets non-blocking in one process:
 * flush and read by turns.  The descriptor is closed as soon as the
 * first partial write took the header's first byte.
 */
ATF_TC_WITHOUT_HEAD(large_payload);
ATF_TC_BODY(large_payload, tc)
{
	struct msgchan	 out, in;
	struct msg	 m;
	unsigned char	*buf;
	size_t		 i, len = 8 * 1024 * 1024;
	int		 sv[2], p[2], r, got = 0, partial = 0;

	pair(sv, 1);
	ATF_REQUIRE(pipe(p) == 0);
	msgchan_init(&out, sv[0], MSG_MAXPAYLOAD);
	msgchan_init(&in, sv[1], MSG_MAXPAYLOAD);
	ATF_REQUIRE((buf = malloc(len)) != NULL);
	for (i = 0; i < len; i++)
		buf[i] = (unsigned char)(i * 31 + 7);
	ATF_REQUIRE(msg_compose(&out, T_FILE, 5, p[0], buf, len) == 0);
	ATF_REQUIRE_EQ(msgchan_flush(&out), 1);
	ATF_CHECK(fcntl(p[0], F_GETFD) == -1 && errno == EBADF);
	for (r = 1; got == 0; ) {
		if (r == 1 && (r = msgchan_flush(&out)) == 1)
			partial++;
		ATF_REQUIRE(r != -1);
		if (msgchan_read(&in) == -1)
			ATF_REQUIRE_EQ(errno, EAGAIN);
		ATF_REQUIRE((got = msg_get(&in, &m)) != -1);
	}
	ATF_CHECK(partial > 0);
	ATF_REQUIRE_EQ(m.len, len);
	ATF_CHECK(memcmp(m.data, buf, len) == 0);
	ATF_REQUIRE(m.fd != -1);
	check_pipe(m.fd, p[1]);
	msg_free(&m);
	free(buf);
	msgchan_clear(&out);
	msgchan_clear(&in);
}

ATF_TC_WITHOUT_HEAD(fd_kept_until_sent);
ATF_TC_BODY(fd_kept_until_sent, tc)
{
	struct msgchan	 out, in;
	struct msg	 m;
	void		*big;
	size_t		 len = 1024 * 1024;
	int		 sv[2], p[2], r, got = 0;

	pair(sv, 1);
	ATF_REQUIRE(pipe(p) == 0);
	msgchan_init(&out, sv[0], len);
	msgchan_init(&in, sv[1], len);
	ATF_REQUIRE((big = calloc(1, len)) != NULL);
	ATF_REQUIRE(msg_compose(&out, T_STATUS, 1, -1, big, len) == 0);
	ATF_REQUIRE(msg_compose(&out, T_FILE, 2, p[0], "f", 1) == 0);
	ATF_REQUIRE_EQ(msgchan_flush(&out), 1);
	ATF_REQUIRE_EQ(msgchan_flush(&out), 1);
	/* Nothing of its message went out: the descriptor is still ours. */
	ATF_REQUIRE_EQ(out.outqlen, 2);
	ATF_CHECK(fcntl(p[0], F_GETFD) != -1);
	for (r = 1; got < 2; ) {
		if (r == 1)
			ATF_REQUIRE((r = msgchan_flush(&out)) != -1);
		if (msgchan_read(&in) == -1)
			ATF_REQUIRE_EQ(errno, EAGAIN);
		while (msg_get(&in, &m) == 1) {
			got++;
			ATF_REQUIRE_EQ(m.id, (uint32_t)got);
			if (m.id == 2)
				check_pipe(m.fd, p[1]);
			else
				ATF_CHECK_EQ(m.fd, -1);
			msg_free(&m);
		}
	}
	free(big);
	msgchan_clear(&out);
	msgchan_clear(&in);
}

ATF_TC_WITHOUT_HEAD(fd_passing);
ATF_TC_BODY(fd_passing, tc)
{
	struct msgchan	 out, in;
	struct msg	 m;
	int		 sv[2], p[2];

	ATF_REQUIRE(pipe(p) == 0);
	chans(&out, &in, sv);
	ATF_REQUIRE(msg_compose(&out, T_PING, 1, -1, NULL, 0) == 0);
	ATF_REQUIRE(msg_compose(&out, T_FILE, 2, p[0], "x", 1) == 0);
	ATF_REQUIRE(msg_compose(&out, T_PING, 3, -1, NULL, 0) == 0);
	ATF_REQUIRE(msgchan_flush_all(&out) == 0);
	/* Sent: the sender's copy is closed before anyone reads. */
	ATF_CHECK(fcntl(p[0], F_GETFD) == -1 && errno == EBADF);

	ATF_REQUIRE_EQ(msg_read_one(&in, &m), 1);
	ATF_CHECK(m.id == 1 && m.fd == -1);
	msg_free(&m);
	ATF_REQUIRE_EQ(msg_read_one(&in, &m), 1);
	ATF_REQUIRE(m.id == 2 && m.fd != -1);
	ATF_CHECK(fcntl(m.fd, F_GETFD) & FD_CLOEXEC);
	check_pipe(m.fd, p[1]);
	msg_free(&m);
	ATF_REQUIRE_EQ(msg_read_one(&in, &m), 1);
	ATF_CHECK(m.id == 3 && m.fd == -1);
	msg_free(&m);
	msgchan_clear(&out);
	msgchan_clear(&in);
}

/*
 * The plain message before it comes in the same read as the descriptor:
 * it must not claim it, nor be refused for it.
 */
ATF_TC_WITHOUT_HEAD(fd_after_plain_in_one_read);
ATF_TC_BODY(fd_after_plain_in_one_read, tc)
{
	struct msgchan	 out, in;
	struct msg	 m;
	int		 sv[2], p[2];

	ATF_REQUIRE(pipe(p) == 0);
	chans(&out, &in, sv);
	ATF_REQUIRE(msg_compose(&out, T_STATUS, 1, -1, "abcd", 4) == 0);
	ATF_REQUIRE(msg_compose(&out, T_FILE, 2, p[0], "x", 1) == 0);
	ATF_REQUIRE(msgchan_flush_all(&out) == 0);
	ATF_REQUIRE_EQ(msgchan_read(&in), 2 * sizeof(struct msg_hdr) + 5);
	ATF_REQUIRE(in.rfd != -1);
	ATF_REQUIRE_EQ(msg_get(&in, &m), 1);
	ATF_CHECK(m.id == 1 && m.fd == -1);
	msg_free(&m);
	ATF_REQUIRE_EQ(msg_get(&in, &m), 1);
	ATF_REQUIRE(m.id == 2 && m.fd != -1);
	check_pipe(m.fd, p[1]);
	msg_free(&m);
	msgchan_clear(&out);
	msgchan_clear(&in);
}

ATF_TC_WITHOUT_HEAD(fd_without_flag);
ATF_TC_BODY(fd_without_flag, tc)
{
	struct msgchan	 in;
	struct msg	 m;
	unsigned char	 wire[64];
	size_t		 n;
	int		 sv[2], p[2];

	pair(sv, 0);
	ATF_REQUIRE(pipe(p) == 0);
	msgchan_init(&in, sv[1], 1024);

	/* The control: the same message with its flag is taken. */
	n = frame(wire, T_FILE, MSGF_FD, 1, "x", 1);
	send_fds(sv[0], wire, n, &p[0], 1);
	ATF_REQUIRE_EQ(msg_read_one(&in, &m), 1);
	ATF_REQUIRE(m.fd != -1);
	check_pipe(m.fd, p[1]);
	msg_free(&m);

	n = frame(wire, T_FILE, 0, 1, "x", 1);
	send_fds(sv[0], wire, n, &p[0], 1);
	errno = 0;
	ATF_CHECK_EQ(msg_read_one(&in, &m), -1);
	ATF_CHECK_EQ(errno, EPROTO);
	msgchan_clear(&in);
}

ATF_TC_WITHOUT_HEAD(flag_without_fd);
ATF_TC_BODY(flag_without_fd, tc)
{
	struct msgchan	 in;
	int		 sv[2];

	pair(sv, 0);
	msgchan_init(&in, sv[1], 1024);
	/* The control: without the flag, a plain write is a message. */
	ATF_REQUIRE_EQ(hand_frame(sv[0], &in, T_FILE, 0, "x"), 1);
	ATF_CHECK_EQ(hand_frame(sv[0], &in, T_FILE, MSGF_FD, "x"), -1);
	ATF_CHECK_EQ(errno, EPROTO);
	msgchan_clear(&in);
}

ATF_TC_WITHOUT_HEAD(two_fds_in_one_message);
ATF_TC_BODY(two_fds_in_one_message, tc)
{
	struct msgchan	 in;
	unsigned char	 wire[64];
	size_t		 n;
	int		 sv[2], p[2], before;

	pair(sv, 0);
	ATF_REQUIRE(pipe(p) == 0);
	msgchan_init(&in, sv[1], 1024);
	n = frame(wire, T_FILE, MSGF_FD, 1, "x", 1);

	/* The control: one descriptor is held for its message. */
	before = count_fds();
	send_fds(sv[0], wire, n, p, 1);
	ATF_REQUIRE_EQ(msgchan_read(&in), (ssize_t)n);
	ATF_REQUIRE(in.rfd != -1);
	ATF_REQUIRE_EQ(count_fds(), before + 1);
	msgchan_clear(&in);
	ATF_REQUIRE_EQ(count_fds(), before);

	msgchan_init(&in, sv[1], 1024);
	send_fds(sv[0], wire, n, p, 2);
	errno = 0;
	ATF_CHECK_EQ(msgchan_read(&in), -1);
	ATF_CHECK_EQ(errno, EPROTO);
	ATF_CHECK_EQ(in.rfd, -1);
	/* Both received descriptors were closed. */
	ATF_CHECK_EQ(count_fds(), before);
	msgchan_clear(&in);
}

ATF_TC_WITHOUT_HEAD(second_fd_before_first_taken);
ATF_TC_BODY(second_fd_before_first_taken, tc)
{
	struct msgchan	 in;
	struct msg	 m;
	unsigned char	 wire[64];
	size_t		 n;
	int		 sv[2], p[2], before;

	pair(sv, 0);
	ATF_REQUIRE(pipe(p) == 0);
	msgchan_init(&in, sv[1], 1024);
	n = frame(wire, T_FILE, MSGF_FD, 1, "x", 1);

	/* The control: taking each before the next read is fine. */
	send_fds(sv[0], wire, n, &p[0], 1);
	send_fds(sv[0], wire, n, &p[0], 1);
	ATF_REQUIRE_EQ(msgchan_read(&in), (ssize_t)n);
	ATF_REQUIRE_EQ(msg_get(&in, &m), 1);
	msg_free(&m);
	ATF_REQUIRE_EQ(msgchan_read(&in), (ssize_t)n);
	ATF_REQUIRE_EQ(msg_get(&in, &m), 1);
	msg_free(&m);

	before = count_fds();
	send_fds(sv[0], wire, n, &p[0], 1);
	send_fds(sv[0], wire, n, &p[0], 1);
	ATF_REQUIRE_EQ(msgchan_read(&in), (ssize_t)n);
	errno = 0;
	ATF_CHECK_EQ(msgchan_read(&in), -1);
	ATF_CHECK_EQ(errno, EPROTO);
	msgchan_clear(&in);
	ATF_CHECK_EQ(count_fds(), before);
}

ATF_TC_WITHOUT_HEAD(oversize);
ATF_TC_BODY(oversize, tc)
{
	struct msgchan	 out, in;
	struct msg	 m;
	unsigned char	*wire, *payload;
	size_t		 n, max = 1024;
	int		 sv[2];

	pair(sv, 0);
	msgchan_init(&out, sv[0], max);
	msgchan_init(&in, sv[1], max);
	ATF_REQUIRE((payload = calloc(1, max + 1)) != NULL);
	ATF_REQUIRE((wire = malloc(sizeof(struct msg_hdr) + max)) != NULL);

	/* The control: exactly maxpayload passes both ways. */
	ATF_REQUIRE(msg_compose(&out, T_STATUS, 1, -1, payload, max) == 0);
	ATF_REQUIRE(msgchan_flush_all(&out) == 0);
	ATF_REQUIRE_EQ(msg_read_one(&in, &m), 1);
	ATF_CHECK_EQ(m.len, max);
	msg_free(&m);
	errno = 0;
	ATF_CHECK_EQ(msg_compose(&out, T_STATUS, 1, -1, payload, max + 1), -1);
	ATF_CHECK_EQ(errno, EMSGSIZE);

	/* Only the header is sent: the refusal cannot wait for the payload. */
	n = frame(wire, T_STATUS, 0, (uint32_t)max + 1, NULL, 0);
	ATF_REQUIRE_EQ(write(sv[0], wire, n), (ssize_t)n);
	ATF_REQUIRE_EQ(msgchan_read(&in), (ssize_t)n);
	errno = 0;
	ATF_CHECK_EQ(msg_get(&in, &m), -1);
	ATF_CHECK_EQ(errno, EMSGSIZE);
	free(wire);
	free(payload);
	msgchan_clear(&out);
	msgchan_clear(&in);
}

ATF_TC_WITHOUT_HEAD(unknown_flags);
ATF_TC_BODY(unknown_flags, tc)
{
	struct msgchan	 in;
	int		 sv[2];

	pair(sv, 0);
	msgchan_init(&in, sv[1], 1024);
	ATF_REQUIRE_EQ(hand_frame(sv[0], &in, T_STATUS, 0, "ok"), 1);
	ATF_CHECK_EQ(hand_frame(sv[0], &in, T_STATUS, 0x80, "ok"), -1);
	ATF_CHECK_EQ(errno, EPROTO);
	msgchan_clear(&in);
}

static void
close_after(const unsigned char *wire, size_t n)
{
	struct msgchan	 in;
	struct msg	 m;
	int		 sv[2];

	pair(sv, 0);
	msgchan_init(&in, sv[1], 1024);
	if (n > 0)
		ATF_REQUIRE_EQ(write(sv[0], wire, n), (ssize_t)n);
	close(sv[0]);
	errno = 0;
	ATF_CHECK_EQ_MSG(msg_read_one(&in, &m), -1, "closed after %zu bytes",
	    n);
	ATF_CHECK_EQ_MSG(errno, EPROTO, "closed after %zu bytes", n);
	msgchan_clear(&in);
	close(sv[1]);
}

ATF_TC_WITHOUT_HEAD(closed_mid_message);
ATF_TC_BODY(closed_mid_message, tc)
{
	unsigned char	 wire[sizeof(struct msg_hdr) + 100], payload[100];
	size_t		 n;

	memset(payload, 'p', sizeof(payload));
	n = frame(wire, T_STATUS, 0, sizeof(payload), payload, sizeof(payload));
	close_after(wire, sizeof(struct msg_hdr) / 2);
	close_after(wire, sizeof(struct msg_hdr));
	close_after(wire, sizeof(struct msg_hdr) + sizeof(payload) / 2);
	close_after(wire, n - 1);
}

ATF_TC_WITHOUT_HEAD(clean_close);
ATF_TC_BODY(clean_close, tc)
{
	struct msgchan	 out, in;
	struct msg	 m;
	int		 sv[2];

	chans(&out, &in, sv);
	ATF_REQUIRE(msg_compose(&out, T_STATUS, 1, -1, "last", 4) == 0);
	ATF_REQUIRE(msgchan_flush_all(&out) == 0);
	close(sv[0]);
	ATF_REQUIRE_EQ(msg_read_one(&in, &m), 1);
	msg_free(&m);
	ATF_CHECK_EQ(msg_read_one(&in, &m), 0);
	ATF_CHECK_EQ(msgchan_read(&in), 0);
	msgchan_clear(&out);
	msgchan_clear(&in);
}

#define SIDE_A	0x1
#define SIDE_B	0x2
static const struct msg_rule rules[] = {
	{ T_PING, "PING", 0, 0, 0, SIDE_A, 0, NULL },
	{ T_STATUS, "STATUS", 4, 16, 0, SIDE_B, MSG_BIT(T_PING), NULL },
	{ T_FILE, "FILE", 0, 8, 1, SIDE_A, 0, NULL },
	{ T_MAYBE, NULL, 0, 8, 2, SIDE_A | SIDE_B, 0, NULL },
};
#define NRULES	(sizeof(rules) / sizeof(rules[0]))

static int
check(uint32_t type, size_t len, int fd, char *why, size_t whysz)
{
	struct msg	 m;

	memset(&m, 0, sizeof(m));
	m.type = type;
	m.len = len;
	m.fd = fd;
	why[0] = '\0';
	return msg_check(rules, NRULES, &m, why, whysz);
}

ATF_TC_WITHOUT_HEAD(check_rules);
ATF_TC_BODY(check_rules, tc)
{
	char	 why[128];

	/* The controls: each rule at its edges, an optional fd either way. */
	ATF_CHECK_EQ(check(T_PING, 0, -1, why, sizeof(why)), 0);
	ATF_CHECK_EQ(check(T_STATUS, 4, -1, why, sizeof(why)), 0);
	ATF_CHECK_EQ(check(T_STATUS, 16, -1, why, sizeof(why)), 0);
	ATF_CHECK_EQ(check(T_FILE, 1, 9, why, sizeof(why)), 0);
	ATF_CHECK_EQ(check(T_MAYBE, 1, 9, why, sizeof(why)), 0);
	ATF_CHECK_EQ(check(T_MAYBE, 1, -1, why, sizeof(why)), 0);

	ATF_CHECK_EQ(check(99, 4, -1, why, sizeof(why)), -1);
	ATF_CHECK_STREQ(why, "unknown type");
	ATF_CHECK_EQ(check(T_STATUS, 3, -1, why, sizeof(why)), -1);
	ATF_CHECK_STREQ(why, "shorter than the 4 bytes expected");
	ATF_CHECK_EQ(check(T_STATUS, 17, -1, why, sizeof(why)), -1);
	ATF_CHECK_STREQ(why, "longer than the 16 bytes allowed");
	ATF_CHECK_EQ(check(T_FILE, 1, -1, why, sizeof(why)), -1);
	ATF_CHECK_STREQ(why, "a descriptor was expected, none came");
	ATF_CHECK_EQ(check(T_STATUS, 4, 9, why, sizeof(why)), -1);
	ATF_CHECK_STREQ(why, "a descriptor came, none was expected");
	ATF_CHECK_EQ(check(T_PING, 0, 9, why, sizeof(why)), -1);
	ATF_CHECK_STREQ(why, "a descriptor came, none was expected");
}

/* A receiver's set: a type of the table it does not take is refused. */
ATF_TC_WITHOUT_HEAD(check_set);
ATF_TC_BODY(check_set, tc)
{
	struct msg	 m;
	char		 why[128];
	uint32_t	 set = MSG_BIT(T_PING) | MSG_BIT(T_STATUS);

	memset(&m, 0, sizeof(m));
	m.fd = -1;
	/* The controls: a type of the set, and every type with MSG_ANY. */
	m.type = T_STATUS;
	m.len = 4;
	ATF_CHECK_EQ(msg_check_set(rules, NRULES, set, &m, why, sizeof(why)),
	    0);
	m.type = T_MAYBE;
	m.len = 1;
	ATF_CHECK_EQ(msg_check_set(rules, NRULES, MSG_ANY, &m, why,
	    sizeof(why)), 0);
	ATF_CHECK_EQ(msg_check_set(rules, NRULES, set, &m, why, sizeof(why)),
	    -1);
	ATF_CHECK_STREQ(why, "not a message this process takes");
	/* Its size is still the table's. */
	m.type = T_STATUS;
	m.len = 17;
	ATF_CHECK_EQ(msg_check_set(rules, NRULES, set, &m, why, sizeof(why)),
	    -1);
	ATF_CHECK_STREQ(why, "longer than the 16 bytes allowed");
	m.type = 99;
	ATF_CHECK_EQ(msg_check_set(rules, NRULES, set, &m, why, sizeof(why)),
	    -1);
	ATF_CHECK_STREQ(why, "unknown type");
}

/*
 * A side takes what another side sends, a row sent by both included;
 * an answer is one to the question its row pays.  Controls: the other
 * side's set, and a question it does not pay.
 */
ATF_TC_WITHOUT_HEAD(sides);
ATF_TC_BODY(sides, tc)
{
	struct msg	 m;

	ATF_CHECK_EQ(msg_takes(rules, NRULES, SIDE_A), MSG_BIT(T_STATUS) |
	    MSG_BIT(T_MAYBE));
	ATF_CHECK_EQ(msg_takes(rules, NRULES, SIDE_B), MSG_BIT(T_PING) |
	    MSG_BIT(T_FILE) | MSG_BIT(T_MAYBE));
	memset(&m, 0, sizeof(m));
	m.type = T_STATUS;
	ATF_CHECK_EQ(msg_answers(rules, NRULES, T_PING, &m), 1);
	ATF_CHECK_EQ(msg_answers(rules, NRULES, T_FILE, &m), 0);
	m.type = T_MAYBE;
	ATF_CHECK_EQ(msg_answers(rules, NRULES, T_PING, &m), 0);
	m.type = 99;
	ATF_CHECK_EQ(msg_answers(rules, NRULES, T_PING, &m), 0);
}

static void
verify_in_child(uint32_t type, size_t len, int exitcode, const char *err)
{
	struct msg	 m;
	pid_t		 pid;

	if ((pid = atf_utils_fork()) == 0) {
		log_init("t_msg", 1, 0);
		memset(&m, 0, sizeof(m));
		m.type = type;
		m.len = len;
		m.fd = -1;
		msg_verify(rules, NRULES, &m, "core");
		exit(0);
	}
	atf_utils_wait(pid, exitcode, "", err);
}

ATF_TC_WITHOUT_HEAD(verify_is_fatal);
ATF_TC_BODY(verify_is_fatal, tc)
{
	/* The control: an accepted message returns and logs nothing. */
	verify_in_child(T_STATUS, 4, 0, "");
	verify_in_child(99, 4, 1,
	    "t_msg: core sent type 99 of 4 bytes: unknown type\n");
	verify_in_child(T_STATUS, 2, 1,
	    "t_msg: core sent STATUS of 2 bytes: "
	    "shorter than the 4 bytes expected\n");
	verify_in_child(T_MAYBE, 9, 1,
	    "t_msg: core sent type 4 of 9 bytes: "
	    "longer than the 8 bytes allowed\n");
}

/*
 * A channel with wipe keeps no byte of a message once it is taken, even
 * with the next one still in its buffer; the control, without wipe, does.
 */
ATF_TC_WITHOUT_HEAD(wipe_taken);
ATF_TC_BODY(wipe_taken, tc)
{
	const char	*secret = "s3cret-0123456789";
	struct msgchan	 out, in;
	struct msg	 m;
	int		 sv[2], wipe;

	for (wipe = 0; wipe <= 1; wipe++) {
		pair(sv, 0);
		msgchan_init(&out, sv[0], 1024);
		msgchan_init(&in, sv[1], 1024);
		out.wipe = in.wipe = wipe;
		ATF_REQUIRE(msg_compose(&out, T_STATUS, 1, -1, secret,
		    strlen(secret)) == 0);
		ATF_REQUIRE(msg_compose(&out, T_PING, 2, -1, NULL, 0) == 0);
		ATF_REQUIRE(msgchan_flush_all(&out) == 0);
		ATF_REQUIRE(msgchan_read(&in) > 0);
		ATF_REQUIRE_EQ(msg_get(&in, &m), 1);
		ATF_CHECK(m.len == strlen(secret) &&
		    memcmp(m.data, secret, m.len) == 0);
		explicit_bzero(m.data, m.len);
		msg_free(&m);
		ATF_CHECK_EQ_MSG(memmem(in.rbuf, in.rlen, secret,
		    strlen(secret)) == NULL, wipe, "wipe %d", wipe);
		ATF_REQUIRE_EQ(msg_get(&in, &m), 1);
		ATF_CHECK_EQ(m.id, 2);
		msg_free(&m);
		msgchan_clear(&out);
		msgchan_clear(&in);
		close(sv[0]);
		close(sv[1]);
	}
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, round_trip);
	ATF_TP_ADD_TC(tp, empty_payload);
	ATF_TP_ADD_TC(tp, several_in_one_read);
	ATF_TP_ADD_TC(tp, one_byte_writes);
	ATF_TP_ADD_TC(tp, large_payload);
	ATF_TP_ADD_TC(tp, fd_kept_until_sent);
	ATF_TP_ADD_TC(tp, fd_passing);
	ATF_TP_ADD_TC(tp, fd_after_plain_in_one_read);
	ATF_TP_ADD_TC(tp, fd_without_flag);
	ATF_TP_ADD_TC(tp, flag_without_fd);
	ATF_TP_ADD_TC(tp, two_fds_in_one_message);
	ATF_TP_ADD_TC(tp, second_fd_before_first_taken);
	ATF_TP_ADD_TC(tp, oversize);
	ATF_TP_ADD_TC(tp, unknown_flags);
	ATF_TP_ADD_TC(tp, closed_mid_message);
	ATF_TP_ADD_TC(tp, clean_close);
	ATF_TP_ADD_TC(tp, check_rules);
	ATF_TP_ADD_TC(tp, check_set);
	ATF_TP_ADD_TC(tp, sides);
	ATF_TP_ADD_TC(tp, verify_is_fatal);
	ATF_TP_ADD_TC(tp, wipe_taken);
	return atf_no_error();
}
