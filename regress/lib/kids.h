/*
 * Children that wait, forked until a limit stops them: the fork bomb
 * of the box probe (regress/box/probe) and of the reference suite's
 * hostile box, both built static on their own; every function static.
 */
#ifndef REGRESS_KIDS_H
#define REGRESS_KIDS_H

#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <unistd.h>

/* Forks up to max children that wait: how many; *err what stopped it, or 0. */
static int
kids_fork(pid_t *kids, int max, int *err)
{
	int	 n = 0;

	*err = 0;
	while (n < max) {
		if ((kids[n] = fork()) == -1) {
			*err = errno;
			break;
		}
		if (kids[n] == 0) {
			pause();
			_exit(0);
		}
		n++;
	}
	return n;
}

static void
kids_end(const pid_t *kids, int n)
{
	int	 i;

	for (i = 0; i < n; i++)
		(void)kill(kids[i], SIGKILL);
	for (i = 0; i < n; i++)
		(void)waitpid(kids[i], NULL, 0);
}

#endif
