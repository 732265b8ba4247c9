/*
 * N5: keepd's two seccomp filters, the real ones from libkeepd.a, each put
 * on in a forked child: a call the filter forbids must kill the child
 * with SIGSYS, and its control, the same call without the filter (or a
 * call the filter allows), must succeed.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "../../keepd/lock.h"
#include "../lib/filtered.h"

static int	secretsfd = -1;
static int	keepsock = -1;	/* a socket made before the filter, as keep.sock's */

/* A secrets folder with one secret in it, as the keep opens it. */
static void
make_secrets(void)
{
	int	 fd;

	ATF_REQUIRE(mkdir("secrets", 0700) == 0);
	ATF_REQUIRE((secretsfd = open("secrets", O_RDONLY | O_DIRECTORY)) !=
	    -1);
	ATF_REQUIRE((fd = openat(secretsfd, "other", O_WRONLY | O_CREAT,
	    0600)) != -1);
	ATF_REQUIRE(write(fd, "canary-value\n", 13) == 13);
	close(fd);
}

static void
filter_keepd(void)
{
	sandbox_keepd(secretsfd);
}

/* As in keepd: the request's filter stacked on the keep's. */
static void
filter_fetch_stacked(void)
{
	sandbox_keepd(secretsfd);
	sandbox_fetch();
}

/* A listening socket at ./keep.sock, and one made before any filter. */
static void
make_keepsock(void)
{
	struct sockaddr_un	 sun;
	int			 fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	strlcpy(sun.sun_path, "keep.sock", sizeof(sun.sun_path));
	ATF_REQUIRE((fd = socket(AF_UNIX, SOCK_STREAM, 0)) != -1);
	ATF_REQUIRE(bind(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0);
	ATF_REQUIRE(listen(fd, 8) == 0);
	ATF_REQUIRE((keepsock = socket(AF_UNIX, SOCK_STREAM, 0)) != -1);
}

/* Exit 0 when keep.sock answered, through the socket made before. */
static int
call_connect_keepsock(void)
{
	struct sockaddr_un	 sun;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	strlcpy(sun.sun_path, "keep.sock", sizeof(sun.sun_path));
	return connect(keepsock, (struct sockaddr *)&sun, sizeof(sun)) == -1;
}

static int
call_socketpair(void)
{
	int	 sp[2];

	return socketpair(AF_UNIX, SOCK_STREAM, 0, sp) == -1;
}

static int
call_inet(void)
{
	return socket(AF_INET, SOCK_STREAM, 0) == -1;
}

static int
call_unix(void)
{
	return socket(AF_UNIX, SOCK_STREAM, 0) == -1;
}

/* Exit 0 when the secret was read. */
static int
call_read_secret(void)
{
	char	 buf[64];
	int	 fd;

	if ((fd = openat(secretsfd, "other", O_RDONLY | O_NOFOLLOW)) == -1)
		return 1;
	return read(fd, buf, sizeof(buf)) != 13;
}

static int
call_write_secret(void)
{
	return openat(secretsfd, "new", O_WRONLY | O_CREAT, 0600) == -1;
}

static int
call_open_elsewhere(void)
{
	return open("/etc/passwd", O_RDONLY) == -1;
}

static int
call_fork(void)
{
	pid_t	 pid;
	int	 st;

	if ((pid = fork()) == 0)
		_exit(0);
	return pid == -1 || waitpid(pid, &st, 0) != pid;
}

ATF_TC_WITHOUT_HEAD(keepd_no_inet);
ATF_TC_BODY(keepd_no_inet, tc)
{
	make_secrets();
	require_killed(filtered_run(filter_keepd, call_inet), "socket(AF_INET) under keepd's");
	require_ok(filtered_run(NULL, call_inet), "socket(AF_INET) without a filter");
	require_ok(filtered_run(filter_keepd, call_unix), "socket(AF_UNIX) under keepd's");
}

ATF_TC_WITHOUT_HEAD(keepd_reads_secrets_only);
ATF_TC_BODY(keepd_reads_secrets_only, tc)
{
	make_secrets();
	require_ok(filtered_run(filter_keepd, call_read_secret), "reading a secret under keepd's");
	require_killed(filtered_run(filter_keepd, call_write_secret), "creating a secret");
	require_ok(filtered_run(NULL, call_write_secret), "creating one without a filter");
	require_killed(filtered_run(filter_keepd, call_open_elsewhere), "opening /etc/passwd");
	require_ok(filtered_run(NULL, call_open_elsewhere), "/etc/passwd without a filter");
	require_ok(filtered_run(filter_keepd, call_fork), "fork under keepd's");
}

ATF_TC_WITHOUT_HEAD(fetch_no_secret);
ATF_TC_BODY(fetch_no_secret, tc)
{
	make_secrets();
	require_killed(filtered_run(sandbox_fetch, call_read_secret), "reading another "
	    "destination's secret under the request's filter");
	require_ok(filtered_run(NULL, call_read_secret), "the same read without it");
	require_ok(filtered_run(filter_keepd, call_read_secret), "the same read under keepd's");
}

ATF_TC_WITHOUT_HEAD(fetch_no_fork_no_inet);
ATF_TC_BODY(fetch_no_fork_no_inet, tc)
{
	make_secrets();
	require_killed(filtered_run(sandbox_fetch, call_fork), "fork under the request's");
	require_killed(filtered_run(sandbox_fetch, call_inet), "socket(AF_INET) under the "
	    "request's");
}

/*
 * T1: a taken request's child cannot reach keep.sock (and through
 * it every destination and its secret): no socket(2), no socketpair(2)
 * and no connect(2), not even on a socket it held before its filter.
 * The control: keepd's own filter allows each, as keepd connects to the
 * gate for the child.
 */
ATF_TC_WITHOUT_HEAD(fetch_no_keepsock);
ATF_TC_BODY(fetch_no_keepsock, tc)
{
	make_secrets();
	make_keepsock();
	require_killed(filtered_run(filter_fetch_stacked, call_unix),
	    "socket(AF_UNIX) under the request's");
	require_killed(filtered_run(filter_fetch_stacked, call_socketpair),
	    "socketpair(2) under the request's");
	require_killed(filtered_run(filter_fetch_stacked, call_connect_keepsock),
	    "connect(2) to keep.sock under the request's");
	require_ok(filtered_run(filter_keepd, call_unix), "socket(AF_UNIX) under keepd's");
	require_ok(filtered_run(filter_keepd, call_connect_keepsock),
	    "connect(2) to keep.sock under keepd's");
}

/*
 * T2: no page both writable and executable, nor executable at all
 * (code written to a memfd and mapped), under either filter; the
 * control, read and write, is allowed, and W|X without a filter is made.
 */
ATF_TC_WITHOUT_HEAD(wx_refused);
ATF_TC_BODY(wx_refused, tc)
{
	make_secrets();
	require_killed(filtered_run(filter_keepd, call_mmap_wx), "mmap W|X under keepd's");
	require_killed(filtered_run(filter_keepd, call_mmap_x), "mmap X under keepd's");
	require_killed(filtered_run(filter_fetch_stacked, call_mmap_wx),
	    "mmap W|X under the request's");
	require_ok(filtered_run(filter_keepd, call_mmap_rw), "mmap R|W under keepd's");
	require_ok(filtered_run(filter_fetch_stacked, call_mmap_rw),
	    "mmap R|W under the request's");
	require_ok(filtered_run(NULL, call_mmap_wx), "mmap W|X without a filter");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, keepd_no_inet);
	ATF_TP_ADD_TC(tp, keepd_reads_secrets_only);
	ATF_TP_ADD_TC(tp, fetch_no_secret);
	ATF_TP_ADD_TC(tp, fetch_no_fork_no_inet);
	ATF_TP_ADD_TC(tp, fetch_no_keepsock);
	ATF_TP_ADD_TC(tp, wx_refused);
	return 0;
}
