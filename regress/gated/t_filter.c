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
#include "../lib/filtered.h"

/* Each runs in the child before its call: a user namespace, as gated makes. */
static void
in_userns(void)
{
	if (unshare(CLONE_NEWUSER) == -1)
		_exit(90);
}

static void
gate_filter(void)
{
	in_userns();
	filter_gate();
}

static void
tunnel_filter(void)
{
	gate_filter();
	filter_tunnel();
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
	require_exit(filtered_run(in_userns, do_exec), 0, "do_exec without a filter");
	require_killed(filtered_run(gate_filter, do_exec), "do_exec under the gate's filter");
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
	require_exit(filtered_run(in_userns, do_netlink), 0, "do_netlink without a filter");
	require_exit(filtered_run(gate_filter, do_netlink), 1, "do_netlink under the gate's filter");
	require_exit(filtered_run(gate_filter, do_tcp), 0, "do_tcp under the gate's filter");
	require_exit(filtered_run(gate_filter, do_inet6), 1, "do_inet6 under the gate's filter");
	require_killed(filtered_run(gate_filter, do_raw), "do_raw under the gate's filter");
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
	require_exit(filtered_run(in_userns, do_open), 0, "do_open without a filter");
	require_exit(filtered_run(gate_filter, do_open), 1, "do_open under the gate's filter");
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
	require_exit(filtered_run(gate_filter, do_fork), 0, "do_fork under the gate's filter");
	require_killed(filtered_run(tunnel_filter, do_fork), "do_fork under the tunnel's filter");
	require_exit(filtered_run(in_userns, do_unshare), 0, "do_unshare without a filter");
	require_killed(filtered_run(gate_filter, do_unshare), "do_unshare under the gate's filter");
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
	require_exit(filtered_run(in_userns, do_caps), 1, "do_caps without a filter");
	require_exit(filtered_run(gate_filter, do_caps), 0, "do_caps under the gate's filter");
}

/*
 * T2: neither the gate nor a tunnel's child (whose filter
 * stacks on the gate's) maps a page both writable and executable, nor
 * executable at all, nor makes one so; the control, read and write, is
 * allowed, and W|X in the same user namespace without a filter.
 */
ATF_TC_WITHOUT_HEAD(wx_killed);
ATF_TC_BODY(wx_killed, tc)
{
	require_ok(filtered_run(in_userns, call_mmap_wx), "control: mmap W|X");
	require_killed(filtered_run(gate_filter, call_mmap_wx), "gate: mmap W|X");
	require_killed(filtered_run(gate_filter, call_mmap_x), "gate: mmap X");
	require_killed(filtered_run(gate_filter, call_mprotect_wx), "gate: mprotect W|X");
	require_ok(filtered_run(gate_filter, call_mmap_rw), "gate: mmap R|W");
	require_killed(filtered_run(tunnel_filter, call_mmap_wx), "tunnel: mmap W|X");
	require_killed(filtered_run(tunnel_filter, call_mprotect_wx),
	    "tunnel: mprotect W|X");
	require_ok(filtered_run(tunnel_filter, call_mmap_rw), "tunnel: mmap R|W");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, exec_killed);
	ATF_TP_ADD_TC(tp, sockets);
	ATF_TP_ADD_TC(tp, open_refused);
	ATF_TP_ADD_TC(tp, fork_and_namespaces);
	ATF_TP_ADD_TC(tp, capabilities);
	ATF_TP_ADD_TC(tp, wx_killed);
	return atf_no_error();
}
