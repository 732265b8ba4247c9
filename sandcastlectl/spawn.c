/*
 * The programs install and uninstall run (podman, systemctl, loginctl):
 * from PATH, with the operator's environment, never through a shell.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "command.h"
#include "spawn.h"

extern char **environ;

/* Its exit status, or 128 and the signal, as a shell says it. */
static int
spawn_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

int
spawn_wait(char *const argv[])
{
	pid_t	pid;
	int	e, status;

	fflush(stdout);
	if ((e = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ)) !=
	    0) {
		errno = e;
		return -1;
	}
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			return -1;
	return spawn_code(status);
}

int
spawn_capture(char *const argv[], int both, char *out, size_t outsz)
{
	char	*p;
	int	 status;

	if (command_capture(argv, environ, both, out, outsz, &status) == -1)
		return -1;
	/* The first line that says something, as one line. */
	for (p = out; *p == '\n' || *p == ' '; p++)
		;
	memmove(out, p, strlen(p) + 1);
	out[strcspn(out, "\n")] = '\0';
	return spawn_code(status);
}
