/*
 * For the atf-c tests of a Landlock ruleset: each case of a table of
 * struct landlocked_case runs in a forked child under the process's own
 * ruleset (or none, its control) and no seccomp filter, so an EACCES can
 * only be Landlock's.  Included by one test program each.
 */
#ifndef REGRESS_LANDLOCKED_H
#define REGRESS_LANDLOCKED_H

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "landlock.h"

#define LANDLOCKED_NOT_ON	2
#define LANDLOCKED_ERRNO	100

/* The ABI every ruleset of this build must use on this kernel. */
static int __attribute__((unused))
landlocked_abi(void)
{
	const char	*why;
	int		 abi, max;

#ifdef LANDLOCK_ABI_MAX
	max = LANDLOCK_ABI_MAX;
#else
	max = LANDLOCK_ABI_KNOWN;
#endif
	abi = landlock_kernel_abi(&why);
	ATF_REQUIRE_MSG(abi >= 1, "%s: no process of sandcastle can be held "
	    "to its own files here", why);
	return abi < max ? abi : max;
}

/* Runs call() in a child, under ruleset() unless it is NULL; its wait status. */
static int __attribute__((unused))
landlocked_run(int (*ruleset)(void), int (*call)(void))
{
	pid_t	 pid;
	int	 abi, status;

	abi = landlocked_abi();
	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		if (ruleset != NULL && ruleset() != abi)
			_exit(LANDLOCKED_NOT_ON);
		_exit(call());
	}
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	return status;
}

/* What a call returns: 0 when it worked, else the errno it met. */
static int __attribute__((unused))
landlocked_result(int r)
{
	return r == -1 ? LANDLOCKED_ERRNO + errno : 0;
}

static void __attribute__((unused))
require_done(int status, const char *what)
{
	ATF_REQUIRE_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "%s: did not succeed (status %#x%s)", what, status,
	    WIFEXITED(status) && WEXITSTATUS(status) > LANDLOCKED_ERRNO ?
	    strerror(WEXITSTATUS(status) - LANDLOCKED_ERRNO) : "");
}

static void __attribute__((unused))
require_refused(int status, int err, const char *what)
{
	ATF_REQUIRE_MSG(WIFEXITED(status) &&
	    WEXITSTATUS(status) == LANDLOCKED_ERRNO + err,
	    "%s: not refused with %s (status %#x)", what, strerror(err),
	    status);
}

/*
 * What an ABI holds: refused with err from that ABI on, done before it.
 * Both sides are tested, the newest ABI by t_landlock, the oldest by
 * t_landlock.abi1: before it, the same call is the control.
 */
static void __attribute__((unused))
require_from_abi(int status, int from, int err, const char *what)
{
	if (landlocked_abi() >= from)
		require_refused(status, err, what);
	else
		require_done(status, what);
}

static int	landlocked_port;

/* 127.0.0.1, at port (0: one the kernel picks), on a new TCP socket. */
static int __attribute__((unused))
landlocked_loopback(struct sockaddr_in *sin, int port)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return socket(AF_INET, SOCK_STREAM, 0);
}

/* A TCP listener on 127.0.0.1, for a connect(2) to try; its port. */
static int __attribute__((unused))
landlocked_listener(int *fd)
{
	struct sockaddr_in	 sin;
	socklen_t		 sl = sizeof(sin);

	ATF_REQUIRE((*fd = landlocked_loopback(&sin, 0)) != -1);
	ATF_REQUIRE(bind(*fd, (struct sockaddr *)&sin, sizeof(sin)) == 0);
	ATF_REQUIRE(listen(*fd, 8) == 0);
	ATF_REQUIRE(getsockname(*fd, (struct sockaddr *)&sin, &sl) == 0);
	return ntohs(sin.sin_port);
}

/* connect(2) to the listener, or bind(2) to a port of our own (ABI 4). */
static int __attribute__((unused))
landlocked_tcp(int connecting)
{
	struct sockaddr_in	 sin;
	int			 s;

	if ((s = landlocked_loopback(&sin, connecting ? landlocked_port :
	    0)) == -1)
		return 1;
	return landlocked_result(connecting ? connect(s,
	    (struct sockaddr *)&sin, sizeof(sin)) : bind(s,
	    (struct sockaddr *)&sin, sizeof(sin)));
}

static int __attribute__((unused))
landlocked_tcp_connect(void)
{
	return landlocked_tcp(1);
}

static int __attribute__((unused))
landlocked_tcp_bind(void)
{
	return landlocked_tcp(0);
}

/* A signal (0: none, the check alone) to the test itself, outside the ruleset. */
static int __attribute__((unused))
landlocked_signal(void)
{
	return landlocked_result(kill(getppid(), 0));
}

static struct sockaddr_un	landlocked_abstract;

/* An abstract Unix socket of the test's, made outside the ruleset. */
static int __attribute__((unused))
landlocked_abstract_listener(int *fd)
{
	memset(&landlocked_abstract, 0, sizeof(landlocked_abstract));
	landlocked_abstract.sun_family = AF_UNIX;
	(void)snprintf(landlocked_abstract.sun_path + 1,
	    sizeof(landlocked_abstract.sun_path) - 1, "sc-landlock-%ld",
	    (long)getpid());
	ATF_REQUIRE((*fd = socket(AF_UNIX, SOCK_STREAM, 0)) != -1);
	ATF_REQUIRE(bind(*fd, (struct sockaddr *)&landlocked_abstract,
	    sizeof(landlocked_abstract)) == 0);
	ATF_REQUIRE(listen(*fd, 8) == 0);
	return 0;
}

static int __attribute__((unused))
landlocked_abstract_connect(void)
{
	int	 s;

	if ((s = socket(AF_UNIX, SOCK_STREAM, 0)) == -1)
		return 1;
	return landlocked_result(connect(s,
	    (struct sockaddr *)&landlocked_abstract,
	    sizeof(landlocked_abstract)));
}

/* A Unix socket listening at path, made outside the ruleset. */
static void __attribute__((unused))
landlocked_unix_listener(const char *path, int *fd)
{
	struct sockaddr_un	 sun;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	(void)strlcpy(sun.sun_path, path, sizeof(sun.sun_path));
	ATF_REQUIRE((*fd = socket(AF_UNIX, SOCK_STREAM, 0)) != -1);
	ATF_REQUIRE(bind(*fd, (struct sockaddr *)&sun, sizeof(sun)) == 0);
	ATF_REQUIRE(listen(*fd, 8) == 0);
}

/*
 * The files a test's rulesets are tried on: "dir/" a folder, "file" an
 * empty file, "file=text" a file holding text, "link>target" a link.
 */
static void __attribute__((unused))
landlocked_tree(const char *const *paths)
{
	char		 path[256];
	const char	*text;
	int		 fd;

	for (; *paths != NULL; paths++) {
		(void)strlcpy(path, *paths, sizeof(path));
		if ((text = strchr(*paths, '>')) != NULL) {
			path[text - *paths] = '\0';
			ATF_REQUIRE_MSG(symlink(text + 1, path) == 0, "%s", path);
			continue;
		}
		if (path[strlen(path) - 1] == '/') {
			ATF_REQUIRE_MSG(mkdir(path, 0700) == 0, "%s", path);
			continue;
		}
		if ((text = strchr(*paths, '=')) != NULL)
			path[text++ - *paths] = '\0';
		ATF_REQUIRE_MSG((fd = open(path, O_WRONLY | O_CREAT, 0600)) !=
		    -1, "%s", path);
		if (text != NULL)
			ATF_REQUIRE(write(fd, text, strlen(text)) ==
			    (ssize_t)strlen(text));
		close(fd);
	}
}

/*
 * A try on a path, "<op> <path>": read, write (a file there), make (a
 * new file), remove, truncate, or connect (to a Unix socket).
 */
static int __attribute__((unused))
landlocked_path(const char *try)
{
	struct sockaddr_un	 sun;
	const char		*path = strchr(try, ' ') + 1;
	int			 s;

	if (strncmp(try, "read ", 5) == 0)
		return landlocked_result(open(path, O_RDONLY));
	if (strncmp(try, "write ", 6) == 0)
		return landlocked_result(open(path, O_WRONLY));
	if (strncmp(try, "make ", 5) == 0)
		return landlocked_result(open(path, O_WRONLY | O_CREAT, 0600));
	if (strncmp(try, "remove ", 7) == 0)
		return landlocked_result(unlink(path));
	if (strncmp(try, "truncate ", 9) == 0)
		return landlocked_result(truncate(path, 0));
	if (strncmp(try, "connect ", 8) != 0 ||
	    (s = socket(AF_UNIX, SOCK_STREAM, 0)) == -1)
		return 1;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	(void)strlcpy(sun.sun_path, path, sizeof(sun.sun_path));
	return landlocked_result(connect(s, (struct sockaddr *)&sun,
	    sizeof(sun)));
}

/*
 * A case: under ruleset (NULL: the control, none), the try on a path, or
 * call() where try is NULL; done where err is 0, else refused with err,
 * from ABI from on where from is not 0 (done before it).
 */
struct landlocked_case {
	const char	*what;
	int		(*ruleset)(void);
	const char	*try;
	int		 err;
	int		 from;
	int		(*call)(void);
};

static const char	*landlocked_try;

static int __attribute__((unused))
landlocked_try_path(void)
{
	return landlocked_path(landlocked_try);
}

/* Runs the cases, with a TCP listener and an abstract socket to try. */
static void __attribute__((unused))
landlocked_cases(const struct landlocked_case *c, size_t n)
{
	int	 status, tcp, abs;

	landlocked_port = landlocked_listener(&tcp);
	(void)landlocked_abstract_listener(&abs);
	for (; n > 0; c++, n--) {
		landlocked_try = c->try;
		status = landlocked_run(c->ruleset, c->try != NULL ?
		    landlocked_try_path : c->call);
		if (c->err == 0)
			require_done(status, c->what);
		else if (c->from != 0)
			require_from_abi(status, c->from, c->err, c->what);
		else
			require_refused(status, c->err, c->what);
	}
	close(tcp);
	close(abs);
}

#define LANDLOCKED_CASES(c)	landlocked_cases((c), sizeof(c) / sizeof((c)[0]))

#endif
