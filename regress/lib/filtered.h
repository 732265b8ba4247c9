/*
 * For the atf-c tests of a seccomp filter: a call runs in a forked
 * child under the filter (or under none, for its control), and the
 * child's wait status says whether the filter killed it.  A debug build
 * (make DEBUG=1) traps instead and exits SANDBOX_DEBUG_EXIT.
 *
 * Included by one test program each; every function is static.
 */
#ifndef REGRESS_FILTERED_H
#define REGRESS_FILTERED_H

#include <sys/types.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include <atf-c.h>

#include "sandbox.h"

/* Runs call() in a child, under filter() unless it is NULL; returns the wait status. */
static int __attribute__((unused))
filtered_run(void (*filter)(void), int (*call)(void))
{
	pid_t	 pid;
	int	 status;

	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		if (filter != NULL)
			filter();
		_exit(call());
	}
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	return status;
}

static void __attribute__((unused))
require_killed(int status, const char *what)
{
#ifdef SANDBOX_DEBUG
	ATF_REQUIRE_MSG(WIFEXITED(status) &&
	    WEXITSTATUS(status) == SANDBOX_DEBUG_EXIT,
	    "%s: not trapped (status %#x)", what, status);
#else
	ATF_REQUIRE_MSG(WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS,
	    "%s: not killed by SIGSYS (status %#x)", what, status);
#endif
}

static void __attribute__((unused))
require_exit(int status, int code, const char *what)
{
	ATF_REQUIRE_MSG(WIFEXITED(status) && WEXITSTATUS(status) == code,
	    "%s: expected exit %d, got status %#x", what, code, status);
}

static void __attribute__((unused))
require_ok(int status, const char *what)
{
	require_exit(status, 0, what);
}

/* A W^X probe's exit when the kernel said EACCES (a deny list's answer). */
#define WX_EACCES	3

/* Exit 0 when a private page was mapped with prot, WX_EACCES when refused so. */
static int __attribute__((unused))
wx_mmap(int prot)
{
	if (mmap(NULL, 4096, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) !=
	    MAP_FAILED)
		return 0;
	return errno == EACCES ? WX_EACCES : 1;
}

static int __attribute__((unused))
call_mmap_wx(void)
{
	return wx_mmap(PROT_READ | PROT_WRITE | PROT_EXEC);
}

static int __attribute__((unused))
call_mmap_x(void)
{
	return wx_mmap(PROT_READ | PROT_EXEC);
}

static int __attribute__((unused))
call_mmap_rw(void)
{
	return wx_mmap(PROT_READ | PROT_WRITE);
}

/* A written page made executable too. */
static int __attribute__((unused))
call_mprotect_wx(void)
{
	void	*p;

	if ((p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE |
	    MAP_ANONYMOUS, -1, 0)) == MAP_FAILED)
		return 2;
	if (mprotect(p, 4096, PROT_READ | PROT_WRITE | PROT_EXEC) == 0)
		return 0;
	return errno == EACCES ? WX_EACCES : 1;
}

#endif
