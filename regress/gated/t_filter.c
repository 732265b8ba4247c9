/*
 * N5: the gate's sandbox, the real function gated calls (filter_gate(),
 * then filter_tunnel() in a tunnel's child), in a forked child that
 * then tries what a taken gate would: exec, netlink (to remove a
 * route), open a file, fork from a tunnel.  Each has its control: the
 * same call succeeds without the filter, or with the parent's filter
 * where only the tunnel's forbids it.
 *
 * The child first makes a user namespace, as gated does, so that it
 * holds the capabilities the sandbox drops whoever runs the test.
 */
#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/capability.h>
#include <linux/netlink.h>

#include <atf-c.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../gated/gate.h"

enum sandbox { NONE, GATE, TUNNEL };

static void
sandbox_on(enum sandbox s)
{
	if (unshare(CLONE_NEWUSER) == -1)
		_exit(90);
	if (s >= GATE)
		filter_gate();
	if (s == TUNNEL)
		filter_tunnel();
}

/* Runs fn in a child under s; returns its wait status. */
static int
in_child(enum sandbox s, int (*fn)(void))
{
	pid_t	pid;
	int	status;

	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		sandbox_on(s);
		_exit(fn());
	}
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	return status;
}

static void
require_exit(int status, int code)
{
	ATF_REQUIRE_MSG(WIFEXITED(status), "the child was killed by signal %d",
	    WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	ATF_REQUIRE_EQ_MSG(WEXITSTATUS(status), code, "exit %d, not %d",
	    WEXITSTATUS(status), code);
}

static void
require_sigsys(int status)
{
	ATF_REQUIRE_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
	    "the child was not killed by SIGSYS (status %#x)", status);
}

static int
do_exec(void)
{
	char	*argv[] = { "true", NULL }, *envp[] = { NULL };

	execve("/bin/true", argv, envp);
	return 99;
}

ATF_TC_WITHOUT_HEAD(exec_killed);
ATF_TC_BODY(exec_killed, tc)
{
	require_exit(in_child(NONE, do_exec), 0);
	require_sigsys(in_child(GATE, do_exec));
}

/* 0 when a netlink socket opens, 1 when refused with EACCES. */
static int
do_netlink(void)
{
	int	fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd != -1)
		return 0;
	return errno == EACCES ? 1 : 2;
}

static int
do_tcp(void)
{
	return socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0) == -1 ? 1 : 0;
}

static int
do_inet6(void)
{
	return socket(AF_INET6, SOCK_STREAM, 0) == -1 && errno == EACCES;
}

static int
do_raw(void)
{
	socket(AF_INET, SOCK_RAW, IPPROTO_ICMP);
	return 0;
}

ATF_TC_WITHOUT_HEAD(sockets);
ATF_TC_BODY(sockets, tc)
{
	require_exit(in_child(NONE, do_netlink), 0);
	require_exit(in_child(GATE, do_netlink), 1);
	require_exit(in_child(GATE, do_tcp), 0);
	require_exit(in_child(GATE, do_inet6), 1);
	require_sigsys(in_child(GATE, do_raw));
}

static int
do_open(void)
{
	int	fd;

	if ((fd = open("/etc/passwd", O_RDONLY)) != -1)
		return 0;
	return errno == EACCES ? 1 : 2;
}

ATF_TC_WITHOUT_HEAD(open_refused);
ATF_TC_BODY(open_refused, tc)
{
	require_exit(in_child(NONE, do_open), 0);
	require_exit(in_child(GATE, do_open), 1);
}

static int
do_fork(void)
{
	pid_t	pid;
	int	status;

	if ((pid = fork()) == -1)
		return 1;
	if (pid == 0)
		_exit(0);
	return waitpid(pid, &status, 0) == pid ? 0 : 2;
}

static int
do_unshare(void)
{
	unshare(CLONE_NEWNET);
	return 0;
}

ATF_TC_WITHOUT_HEAD(fork_and_namespaces);
ATF_TC_BODY(fork_and_namespaces, tc)
{
	require_exit(in_child(GATE, do_fork), 0);
	require_sigsys(in_child(TUNNEL, do_fork));
	require_exit(in_child(NONE, do_unshare), 0);
	require_sigsys(in_child(GATE, do_unshare));
}

/* 0 when no capability is left, bounding set included. */
static int
do_caps(void)
{
	struct __user_cap_header_struct	hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct	data[2];

	if (syscall(SYS_capget, &hdr, data) == -1)
		return 2;
	if (data[0].effective || data[0].permitted || data[1].effective ||
	    data[1].permitted)
		return 1;
	return prctl(PR_CAPBSET_READ, CAP_NET_ADMIN, 0, 0, 0) == 0 ? 0 : 1;
}

ATF_TC_WITHOUT_HEAD(capabilities);
ATF_TC_BODY(capabilities, tc)
{
	require_exit(in_child(NONE, do_caps), 1);
	require_exit(in_child(GATE, do_caps), 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, exec_killed);
	ATF_TP_ADD_TC(tp, sockets);
	ATF_TP_ADD_TC(tp, open_refused);
	ATF_TP_ADD_TC(tp, fork_and_namespaces);
	ATF_TP_ADD_TC(tp, capabilities);
	return atf_no_error();
}
