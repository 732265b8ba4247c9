/*
 * The children's seccomp filters, the real ones from libsandcastled.a:
 * each forbidden call is made in a forked process under the filter and
 * must kill it with SIGSYS (or be refused with the errno chosen); its
 * control is the same call in a process without the filter, which
 * succeeds.  Not built with the sanitizers: their runtimes make calls
 * a filter kills.  The parent's filter is tested the same way, with
 * what it keeps of the running daemon made before it goes on: a child
 * of its own and its pidfd, a listening socket and a client waiting.
 */
#include <sys/types.h>
#include <sys/fanotify.h>
#include <sys/pidfd.h>
#include <sys/poll.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <atf-c.h>

#include "sandbox.h"
#include "../../sandcastled/job.h"
#include "../../sandcastled/lock.h"
#include "../../sandcastled/proc.h"
#include "../../sandcastled/proctab.h"
#include "../../sandcastled/proto.h"
#include "../../sandcastled/readlock.h"
#include "../lib/filtered.h"

#define REFUSED_EPERM	2	/* a child's exit: the call failed with EPERM */
#define REFUSED_EACCES	3	/* with EACCES */

static int	probe_pipe[2];

static int
call_socket_unix(void)
{
	return socket(AF_UNIX, SOCK_STREAM, 0) == -1;
}

static int
call_socket_inet(void)
{
	return socket(AF_INET, SOCK_STREAM, 0) == -1;
}

static int
call_execve(void)
{
	char	*argv[] = { "true", NULL }, *envp[] = { NULL };

	execve("/bin/true", argv, envp);
	return 1;
}

static int
call_ptrace(void)
{
	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0)
		return 0;
	return errno == EPERM ? REFUSED_EPERM : 1;
}

static int
call_no_new_privs(void)
{
	return prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1 ? 0 : 1;
}

/* What the core will do with its records: open a file, write to a descriptor. */
static int
call_open_write(void)
{
	char	 buf[8];
	int	 fd;

	if ((fd = openat(AT_FDCWD, "probe", O_RDONLY)) == -1)
		return 1;
	if (read(fd, buf, sizeof(buf)) != 5 || close(fd) == -1)
		return 2;
	if (write(probe_pipe[1], buf, 5) != 5)
		return 3;
	return 0;
}

/* What the parent holds when its filter goes on (parent_prepare()). */
static pid_t		 kid = -1;
static int		 kidfd = -1;
static int		 listenfd = -1;	/* control.sock's, a client waiting */
static int		 peerfd = -1;	/* a socket made before, to connect */
static struct sockaddr_un listen_sun;

/* A listening Unix socket with a client in its queue, and a spare socket. */
static void
sockets(void)
{
	int	 c;

	memset(&listen_sun, 0, sizeof(listen_sun));
	listen_sun.sun_family = AF_UNIX;
	(void)strlcpy(listen_sun.sun_path, "control.sock",
	    sizeof(listen_sun.sun_path));
	ATF_REQUIRE((listenfd = socket(AF_UNIX, SOCK_STREAM, 0)) != -1);
	ATF_REQUIRE(bind(listenfd, (struct sockaddr *)&listen_sun,
	    sizeof(listen_sun)) == 0);
	ATF_REQUIRE(listen(listenfd, 8) == 0);
	ATF_REQUIRE((c = socket(AF_UNIX, SOCK_STREAM, 0)) != -1);
	ATF_REQUIRE(connect(c, (struct sockaddr *)&listen_sun,
	    sizeof(listen_sun)) == 0);
	ATF_REQUIRE((peerfd = socket(AF_UNIX, SOCK_STREAM, 0)) != -1);
}

/* The parent's state at proc_start_all(): a child and its pidfd; then the filter. */
static void
parent_prepare(void)
{
	pid_t	 self = getpid();

	switch ((kid = fork())) {
	case -1:
		_exit(90);
	case 0:
		/* Ends with its parent, even one that ended before this. */
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != self)
			_exit(0);
		for (;;)
			pause();
	}
	if ((kidfd = pidfd_open(kid, 0)) == -1)
		_exit(91);
	/* As the daemon: its log opened, the time zone read by its ruleset's start. */
	openlog("t_sandbox", LOG_PID | LOG_NDELAY, LOG_DAEMON);
	tzset();
	sandbox_parent();
}

/* Its stop: SIGTERM by the pidfd, and the child reaped. */
static int
call_signal_child(void)
{
	int	 status;

	if (pidfd_send_signal(kidfd, SIGTERM, NULL, 0) == -1)
		return 1;
	if (waitpid(kid, &status, 0) != kid)
		return 2;
	return WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM ? 0 : 3;
}

/* kill(2) of the same child, by its pid. */
static int
call_kill_child(void)
{
	if (kid == -1) {
		/* The control: a child of its own, made now. */
		if ((kid = fork()) == 0)
			for (;;)
				pause();
		if (kid == -1)
			return 1;
	}
	if (kill(kid, SIGKILL) == -1)
		return 2;
	return waitpid(kid, NULL, 0) == kid ? 0 : 3;
}

/* control.sock's loop: poll, accept, the peer's uid, a refused one shut. */
static int
call_accept(void)
{
	struct pollfd	 pfd = { listenfd, POLLIN, 0 };
	struct ucred	 cred;
	socklen_t	 len = sizeof(cred);
	int		 fd;

	if (poll(&pfd, 1, 1000) != 1)
		return 1;
	if ((fd = accept4(listenfd, NULL, NULL, SOCK_NONBLOCK |
	    SOCK_CLOEXEC)) == -1)
		return 2;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == -1 ||
	    cred.uid != geteuid())
		return 3;
	if (shutdown(fd, SHUT_WR) == -1 || close(fd) == -1)
		return 4;
	return unlink("control.sock") == -1 ? 5 : 0;
}

static int
call_connect(void)
{
	return connect(peerfd, (struct sockaddr *)&listen_sun,
	    sizeof(listen_sun)) == -1;
}

static int
call_open(void)
{
	return open("probe", O_RDONLY) == -1;
}

static int
call_fork(void)
{
	pid_t	 pid;

	if ((pid = fork()) == 0)
		_exit(0);
	return pid == -1 || waitpid(pid, NULL, 0) != pid;
}

/* What syslog(3) does to reconnect: a Unix socket, refused and not killed. */
static int
call_socket_unix_refused(void)
{
	if (socket(AF_UNIX, SOCK_DGRAM, 0) != -1)
		return 0;
	return errno == EACCES ? REFUSED_EACCES : 1;
}

/* A line of the log, whether syslogd is there or its socket must be made again. */
static int
call_syslog(void)
{
	syslog(LOG_INFO, "a line under the parent's filter");
	return 0;
}

/* R2: the core, which carries a reply, cannot open a socket. */
ATF_TC_WITHOUT_HEAD(core_socket_killed);
ATF_TC_BODY(core_socket_killed, tc)
{
	require_exit(filtered_run(NULL, call_socket_unix), 0, "control: socket(AF_UNIX)");
	require_killed(filtered_run(sandbox_core, call_socket_unix), "core: socket(AF_UNIX)");
}

/* R2: nor run a program. */
ATF_TC_WITHOUT_HEAD(core_execve_killed);
ATF_TC_BODY(core_execve_killed, tc)
{
	require_exit(filtered_run(NULL, call_execve), 0, "control: execve(/bin/true)");
	require_killed(filtered_run(sandbox_core, call_execve), "core: execve(/bin/true)");
}

ATF_TC_WITHOUT_HEAD(core_allows_records);
ATF_TC_BODY(core_allows_records, tc)
{
	char	 buf[8];
	FILE	*f;

	ATF_REQUIRE((f = fopen("probe", "w")) != NULL);
	ATF_REQUIRE(fputs("hello", f) >= 0 && fclose(f) == 0);
	ATF_REQUIRE(pipe(probe_pipe) == 0);
	require_exit(filtered_run(sandbox_core, call_open_write), 0,
	    "core: openat, read, write");
	ATF_REQUIRE(read(probe_pipe[0], buf, 5) == 5);
	ATF_REQUIRE(memcmp(buf, "hello", 5) == 0);
}

ATF_TC_WITHOUT_HEAD(keepfe_socket_inet_killed);
ATF_TC_BODY(keepfe_socket_inet_killed, tc)
{
	require_exit(filtered_run(NULL, call_socket_inet), 0, "control: socket(AF_INET)");
	require_killed(filtered_run(sandbox_keepfe, call_socket_inet),
	    "keep-frontend: socket(AF_INET)");
}

ATF_TC_WITHOUT_HEAD(keepfe_socket_unix_allowed);
ATF_TC_BODY(keepfe_socket_unix_allowed, tc)
{
	require_exit(filtered_run(sandbox_keepfe, call_socket_unix), 0,
	    "keep-frontend: socket(AF_UNIX)");
}

ATF_TC_WITHOUT_HEAD(keepfe_execve_killed);
ATF_TC_BODY(keepfe_execve_killed, tc)
{
	require_exit(filtered_run(NULL, call_execve), 0, "control: execve(/bin/true)");
	require_killed(filtered_run(sandbox_keepfe, call_execve),
	    "keep-frontend: execve(/bin/true)");
}

/* What a reader does: a pipe read and written, memory taken. */
static int
call_pipe_io(void)
{
	char	 buf[5], *p;

	if (write(probe_pipe[1], "hello", 5) != 5 ||
	    read(probe_pipe[0], buf, 5) != 5 || memcmp(buf, "hello", 5) != 0)
		return 1;
	if ((p = malloc(1 << 20)) == NULL)
		return 2;
	free(p);
	return 0;
}

/* T3: a taken box reader makes no socket, of any family. */
ATF_TC_WITHOUT_HEAD(reader_socket_killed);
ATF_TC_BODY(reader_socket_killed, tc)
{
	require_exit(filtered_run(NULL, call_socket_unix), 0,
	    "control: socket(AF_UNIX)");
	require_killed(filtered_run(sandbox_reader, call_socket_unix),
	    "box reader: socket(AF_UNIX)");
	require_killed(filtered_run(sandbox_reader, call_socket_inet),
	    "box reader: socket(AF_INET)");
}

/* T3: nor opens a file, runs a program or starts a process. */
ATF_TC_WITHOUT_HEAD(reader_open_exec_fork_killed);
ATF_TC_BODY(reader_open_exec_fork_killed, tc)
{
	FILE	*f;

	ATF_REQUIRE((f = fopen("probe", "w")) != NULL);
	ATF_REQUIRE(fclose(f) == 0);
	require_exit(filtered_run(NULL, call_open), 0, "control: open");
	require_killed(filtered_run(sandbox_reader, call_open),
	    "box reader: open(probe)");
	require_exit(filtered_run(NULL, call_execve), 0,
	    "control: execve(/bin/true)");
	require_killed(filtered_run(sandbox_reader, call_execve),
	    "box reader: execve(/bin/true)");
	require_exit(filtered_run(NULL, call_fork), 0, "control: fork");
	require_killed(filtered_run(sandbox_reader, call_fork), "box reader: fork");
}

/* T3: its work, the control of the two above: pipes and memory. */
ATF_TC_WITHOUT_HEAD(reader_allows_pipes);
ATF_TC_BODY(reader_allows_pipes, tc)
{
	ATF_REQUIRE(pipe(probe_pipe) == 0);
	require_exit(filtered_run(sandbox_reader, call_pipe_io), 0,
	    "box reader: read, write, malloc");
}

/* An unprivileged fanotify group (Linux 5.13), as the launcher could make. */
static int
call_fanotify(void)
{
	int	 fd;

	if ((fd = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_FID, 0)) != -1) {
		close(fd);
		return 0;
	}
	return errno == EPERM ? REFUSED_EPERM : 1;
}

ATF_TC_WITHOUT_HEAD(launcher_fanotify_refused);
ATF_TC_BODY(launcher_fanotify_refused, tc)
{
	require_exit(filtered_run(NULL, call_fanotify), 0,
	    "control: fanotify_init");
	require_exit(filtered_run(sandbox_launcher, call_fanotify),
	    REFUSED_EPERM, "box launcher: fanotify_init refused with EPERM");
}

ATF_TC_WITHOUT_HEAD(launcher_ptrace_refused);
ATF_TC_BODY(launcher_ptrace_refused, tc)
{
	require_exit(filtered_run(NULL, call_ptrace), 0, "control: PTRACE_TRACEME");
	require_exit(filtered_run(sandbox_launcher, call_ptrace), REFUSED_EPERM,
	    "box launcher: PTRACE_TRACEME refused with EPERM");
}

ATF_TC_WITHOUT_HEAD(launcher_execve_allowed);
ATF_TC_BODY(launcher_execve_allowed, tc)
{
	require_exit(filtered_run(sandbox_launcher, call_execve), 0,
	    "box launcher: execve(/bin/true)");
}

/* The filter is inherited across execve only because no_new_privs is on. */
ATF_TC_WITHOUT_HEAD(launcher_no_new_privs);
ATF_TC_BODY(launcher_no_new_privs, tc)
{
	require_exit(filtered_run(NULL, call_no_new_privs), 1,
	    "control: no_new_privs off without the filter");
	require_exit(filtered_run(sandbox_launcher, call_no_new_privs), 0,
	    "box launcher: no_new_privs on");
}

/*
 * T2: the core, the keep frontend, the box reader and the parent map
 * no page both writable and executable, nor executable at all, and
 * make none so; the control, read and write, is allowed, and W|X
 * without a filter.
 */
ATF_TC_WITHOUT_HEAD(children_wx_killed);
ATF_TC_BODY(children_wx_killed, tc)
{
	require_ok(filtered_run(NULL, call_mmap_wx), "control: mmap W|X");
	require_ok(filtered_run(NULL, call_mprotect_wx), "control: mprotect W|X");
	require_killed(filtered_run(sandbox_core, call_mmap_wx), "core: mmap W|X");
	require_killed(filtered_run(sandbox_core, call_mmap_x), "core: mmap X");
	require_killed(filtered_run(sandbox_core, call_mprotect_wx), "core: mprotect W|X");
	require_ok(filtered_run(sandbox_core, call_mmap_rw), "core: mmap R|W");
	require_killed(filtered_run(sandbox_keepfe, call_mmap_wx),
	    "keep-frontend: mmap W|X");
	require_killed(filtered_run(sandbox_keepfe, call_mprotect_wx),
	    "keep-frontend: mprotect W|X");
	require_ok(filtered_run(sandbox_keepfe, call_mmap_rw), "keep-frontend: mmap R|W");
	require_killed(filtered_run(sandbox_reader, call_mmap_wx), "box reader: mmap W|X");
	require_killed(filtered_run(sandbox_reader, call_mprotect_wx),
	    "box reader: mprotect W|X");
	require_ok(filtered_run(sandbox_reader, call_mmap_rw), "box reader: mmap R|W");
	require_killed(filtered_run(parent_prepare, call_mmap_wx), "parent: mmap W|X");
	require_killed(filtered_run(parent_prepare, call_mprotect_wx), "parent: mprotect W|X");
	require_ok(filtered_run(parent_prepare, call_mmap_rw), "parent: mmap R|W");
}

/*
 * T2: the launcher's deny list refuses W|X with EACCES, by mmap(2) and by
 * mprotect(2); executable alone stays (podman and the runtime load their
 * libraries under it), and so does read and write.
 */
ATF_TC_WITHOUT_HEAD(launcher_wx_refused);
ATF_TC_BODY(launcher_wx_refused, tc)
{
	require_exit(filtered_run(sandbox_launcher, call_mmap_wx), WX_EACCES,
	    "box launcher: mmap W|X refused with EACCES");
	require_exit(filtered_run(sandbox_launcher, call_mprotect_wx), WX_EACCES,
	    "box launcher: mprotect W|X refused with EACCES");
	require_ok(filtered_run(sandbox_launcher, call_mmap_x), "box launcher: mmap X");
	require_ok(filtered_run(sandbox_launcher, call_mmap_rw), "box launcher: mmap R|W");
	require_ok(filtered_run(NULL, call_mmap_wx), "control: mmap W|X");
}

/* N5: a taken parent runs no program, makes no child, traces nothing. */
ATF_TC_WITHOUT_HEAD(parent_execve_killed);
ATF_TC_BODY(parent_execve_killed, tc)
{
	require_exit(filtered_run(NULL, call_execve), 0, "control: execve(/bin/true)");
	require_killed(filtered_run(parent_prepare, call_execve),
	    "parent: execve(/bin/true)");
	require_exit(filtered_run(NULL, call_fork), 0, "control: fork");
	require_killed(filtered_run(parent_prepare, call_fork), "parent: fork");
	require_exit(filtered_run(NULL, call_ptrace), 0, "control: PTRACE_TRACEME");
	require_killed(filtered_run(parent_prepare, call_ptrace),
	    "parent: PTRACE_TRACEME");
}

/* N5: nor reaches the world, nor another socket of the account's. */
ATF_TC_WITHOUT_HEAD(parent_network_killed);
ATF_TC_BODY(parent_network_killed, tc)
{
	sockets();
	require_exit(filtered_run(NULL, call_socket_inet), 0, "control: socket(AF_INET)");
	require_killed(filtered_run(parent_prepare, call_socket_inet),
	    "parent: socket(AF_INET)");
	require_exit(filtered_run(NULL, call_connect), 0, "control: connect");
	require_killed(filtered_run(parent_prepare, call_connect),
	    "parent: connect of a socket made before");
	require_exit(filtered_run(NULL, call_socket_unix_refused), 0,
	    "control: socket(AF_UNIX)");
	require_exit(filtered_run(parent_prepare, call_socket_unix_refused),
	    REFUSED_EACCES, "parent: socket(AF_UNIX) refused with EACCES");
}

/* N5: nor opens a file (its ruleset would refuse it too: t_landlock). */
ATF_TC_WITHOUT_HEAD(parent_open_killed);
ATF_TC_BODY(parent_open_killed, tc)
{
	FILE	*f;

	ATF_REQUIRE((f = fopen("probe", "w")) != NULL);
	ATF_REQUIRE(fclose(f) == 0);
	require_exit(filtered_run(NULL, call_open), 0, "control: open");
	require_killed(filtered_run(parent_prepare, call_open), "parent: open");
}

/* N5: it signals its children by their pidfds, and no process by a pid. */
ATF_TC_WITHOUT_HEAD(parent_signals_children_only);
ATF_TC_BODY(parent_signals_children_only, tc)
{
	require_exit(filtered_run(parent_prepare, call_signal_child), 0,
	    "parent: SIGTERM to its child by its pidfd, and the child reaped");
	require_exit(filtered_run(NULL, call_kill_child), 0,
	    "control: kill(2) of a child");
	require_killed(filtered_run(parent_prepare, call_kill_child),
	    "parent: kill(2) of its child");
}

/* N5: what its loop does with control.sock still works: poll, accept, peer, unlink. */
ATF_TC_WITHOUT_HEAD(parent_allows_control);
ATF_TC_BODY(parent_allows_control, tc)
{
	sockets();
	require_exit(filtered_run(parent_prepare, call_accept), 0,
	    "parent: poll, accept4, SO_PEERCRED, shutdown, unlink");
	require_exit(filtered_run(parent_prepare, call_syslog), 0,
	    "parent: syslog(3), its socket to syslogd made before");
}

ATF_TP_ADD_TCS(tp)
{
	/* The rows, as main() hands them down before any case runs. */
	proc_use(proc_children);
	proc_msgs_use(proc_msgtab);
	ATF_TP_ADD_TC(tp, core_socket_killed);
	ATF_TP_ADD_TC(tp, core_execve_killed);
	ATF_TP_ADD_TC(tp, core_allows_records);
	ATF_TP_ADD_TC(tp, keepfe_socket_inet_killed);
	ATF_TP_ADD_TC(tp, keepfe_socket_unix_allowed);
	ATF_TP_ADD_TC(tp, keepfe_execve_killed);
	ATF_TP_ADD_TC(tp, reader_socket_killed);
	ATF_TP_ADD_TC(tp, reader_open_exec_fork_killed);
	ATF_TP_ADD_TC(tp, reader_allows_pipes);
	ATF_TP_ADD_TC(tp, launcher_fanotify_refused);
	ATF_TP_ADD_TC(tp, launcher_ptrace_refused);
	ATF_TP_ADD_TC(tp, launcher_execve_allowed);
	ATF_TP_ADD_TC(tp, launcher_no_new_privs);
	ATF_TP_ADD_TC(tp, children_wx_killed);
	ATF_TP_ADD_TC(tp, launcher_wx_refused);
	ATF_TP_ADD_TC(tp, parent_execve_killed);
	ATF_TP_ADD_TC(tp, parent_network_killed);
	ATF_TP_ADD_TC(tp, parent_open_killed);
	ATF_TP_ADD_TC(tp, parent_signals_children_only);
	ATF_TP_ADD_TC(tp, parent_allows_control);
	return atf_no_error();
}
