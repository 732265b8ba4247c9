/*
 * For the tests of sandcastle(7)'s table of what a taken process can do
 * (T4): the attempts of its columns, made in a forked child under a
 * process's locks (or none, for the control) against a layout made
 * before them, and each cell's check.  The table and the locks are the
 * test program's.
 *
 * Included by one test program each; every function is static.
 */
#ifndef REGRESS_TAKEN_H
#define REGRESS_TAKEN_H

#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "filtered.h"
#include "landlocked.h"

/* A cell: the attempt done, SIGSYS, or the errno it met. */
#define ALLOWED		0
#define KILLED		(-1)
/* EPERM from Landlock ABI 6, its signal scope; done before it. */
#define SCOPED		(-2)

enum taken_try { SECRET, CONFIG, NEWFILE, DATADIR, NETWORK, KEEPSOCK,
	EXEC, KILL, PTRACE, WX, NTRIES };

static const char *const try_names[NTRIES] = {
	"read a secret", "write the configuration", "create a file",
	"open data_dir's record", "TCP connect", "connect to keep.sock",
	"execve", "kill a sibling", "PTRACE_ATTACH a sibling", "mmap W|X",
};

static int			 datafd = -1, secretsfd = -1;
static int			 tcpfd = -1, unixfd = -1;
static struct sockaddr_un	 keep_sun;
static pid_t			 sibling = -1;

/* Each lock must go on at the ABI expected, or the child says so. */
static void
landlock_on(int abi)
{
	if (abi != landlocked_abi())
		_exit(LANDLOCKED_NOT_ON);
}

/* The account's files, a listener of each kind, made before the locks. */
static void
layout(void)
{
	int	 fd;

	ATF_REQUIRE(mkdir("secrets", 0700) == 0);
	ATF_REQUIRE((fd = open("secrets/claude", O_WRONLY | O_CREAT, 0600)) !=
	    -1);
	ATF_REQUIRE(write(fd, "sk-canary\n", 10) == 10);
	close(fd);
	ATF_REQUIRE((secretsfd = open("secrets", O_RDONLY | O_DIRECTORY)) !=
	    -1);
	ATF_REQUIRE(mkdir("config", 0700) == 0);
	ATF_REQUIRE((fd = open("config/config.yaml", O_WRONLY | O_CREAT,
	    0600)) != -1);
	close(fd);
	ATF_REQUIRE(mkdir("data", 0700) == 0);
	ATF_REQUIRE((fd = open("data/record", O_WRONLY | O_CREAT, 0600)) != -1);
	close(fd);
	ATF_REQUIRE((datafd = open("data", O_RDONLY | O_DIRECTORY)) != -1);
	ATF_REQUIRE(mkdir("run", 0700) == 0);
	landlocked_port = landlocked_listener(&tcpfd);
	memset(&keep_sun, 0, sizeof(keep_sun));
	keep_sun.sun_family = AF_UNIX;
	(void)strlcpy(keep_sun.sun_path, "keep.sock", sizeof(keep_sun.sun_path));
	ATF_REQUIRE((unixfd = socket(AF_UNIX, SOCK_STREAM, 0)) != -1);
	ATF_REQUIRE(bind(unixfd, (struct sockaddr *)&keep_sun,
	    sizeof(keep_sun)) == 0);
	ATF_REQUIRE(listen(unixfd, 64) == 0);
}

/* By the secrets folder's descriptor, which keepd holds. */
static int
try_secret(void)
{
	char	 buf[16];
	int	 fd;

	if ((fd = openat(secretsfd, "claude", O_RDONLY)) == -1)
		return landlocked_result(fd);
	return read(fd, buf, sizeof(buf)) == 10 ? 0 : 1;
}

static int
try_config(void)
{
	return landlocked_result(openat(AT_FDCWD, "config/config.yaml",
	    O_WRONLY));
}

static int
try_newfile(void)
{
	char	 name[32];

	(void)snprintf(name, sizeof(name), "new.%ld", (long)getpid());
	return landlocked_result(openat(AT_FDCWD, name, O_WRONLY | O_CREAT |
	    O_EXCL, 0600));
}

/* By the descriptor the core holds, as its records are opened. */
static int
try_datadir(void)
{
	return landlocked_result(openat(datafd, "record", O_RDONLY));
}

static int
try_network(void)
{
	struct sockaddr_in	 sin;
	int			 s;

	if ((s = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return landlocked_result(s);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(landlocked_port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return landlocked_result(connect(s, (struct sockaddr *)&sin,
	    sizeof(sin)));
}

static int
try_keepsock(void)
{
	int	 s;

	if ((s = socket(AF_UNIX, SOCK_STREAM, 0)) == -1)
		return landlocked_result(s);
	return landlocked_result(connect(s, (struct sockaddr *)&keep_sun,
	    sizeof(keep_sun)));
}

static int
try_exec(void)
{
	char	*argv[] = { "true", NULL }, *envp[] = { NULL };

	return landlocked_result(execve("/bin/true", argv, envp));
}

static int
try_kill(void)
{
	return landlocked_result(kill(sibling, SIGCONT));
}

/* The tracee is let go when this child ends. */
static int
try_ptrace(void)
{
	return landlocked_result(ptrace(PTRACE_ATTACH, sibling, NULL, NULL));
}

static int
try_wx(void)
{
	return landlocked_result(mmap(NULL, 4096, PROT_READ | PROT_WRITE |
	    PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED ?
	    -1 : 0);
}

static int (*const tries[NTRIES])(void) = {
	try_secret, try_config, try_newfile, try_datadir, try_network,
	try_keepsock, try_exec, try_kill, try_ptrace, try_wx,
};

/* A sibling of the taken process, forked before it, waiting. */
static void
sibling_start(void)
{
	pid_t	 self = getpid();

	ATF_REQUIRE((sibling = fork()) != -1);
	if (sibling == 0) {
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != self)
			_exit(0);
		for (;;)
			pause();
	}
}

static void
sibling_end(void)
{
	(void)kill(sibling, SIGKILL);
	ATF_REQUIRE(waitpid(sibling, NULL, 0) == sibling);
	sibling = -1;
}

/* One attempt under lock() (none when NULL); its wait status. */
static int
attempt(void (*lock)(void), enum taken_try t)
{
	int	 status;

	sibling_start();
	status = filtered_run(lock, tries[t]);
	sibling_end();
	return status;
}

static void
require_cell(int status, int want, const char *proc, const char *what)
{
	char	 msg[128];

	(void)snprintf(msg, sizeof(msg), "%s: %s", proc, what);
	if (want == KILLED)
		require_killed(status, msg);
	else if (want == ALLOWED || (want == SCOPED && landlocked_abi() < 6))
		require_done(status, msg);
	else if (want == SCOPED)
		require_refused(status, EPERM, msg);
	else
		require_refused(status, want, msg);
}

/* A process's row: each attempt under lock(), held to its cell of cells. */
static void __attribute__((unused))
taken_row(void (*lock)(void), const int *cells, const char *proc)
{
	int	 t;

	layout();
	for (t = 0; t < NTRIES; t++)
		require_cell(attempt(lock, t), cells[t], proc, try_names[t]);
}

/*
 * Each cell's control: the attempt under lock() (none when NULL)
 * succeeds; attempt bare, when not -1, with no lock at all.
 */
static void __attribute__((unused))
taken_controls(void (*lock)(void), int bare)
{
	int	 t;

	layout();
	for (t = 0; t < NTRIES; t++)
		require_cell(attempt(t == bare ? NULL : lock, t), ALLOWED,
		    "control", try_names[t]);
}

#endif
