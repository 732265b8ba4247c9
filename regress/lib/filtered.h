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
#include <sys/wait.h>

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

#endif
