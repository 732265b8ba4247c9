/*
 * The programs install and uninstall run (podman, systemctl, loginctl):
 * from PATH, with the operator's environment, never through a shell.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "install.h"

extern char **environ;

static int	spawn_status(pid_t);

static int
spawn_status(pid_t pid)
{
	int	status;

	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR)
			return -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

int
spawn_wait(char *const argv[])
{
	pid_t	pid;
	int	e;

	fflush(stdout);
	if ((e = posix_spawnp(&pid, argv[0], NULL, NULL, argv, environ)) !=
	    0) {
		errno = e;
		return -1;
	}
	return spawn_status(pid);
}

int
spawn_capture(char *const argv[], int both, char *out, size_t outsz)
{
	posix_spawn_file_actions_t	 fa;
	pid_t				 pid;
	size_t				 len = 0;
	ssize_t				 n;
	char				 junk[512], *p;
	int				 fds[2], e;

	out[0] = '\0';
	if (pipe2(fds, O_CLOEXEC) == -1)
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
	if (both)
		posix_spawn_file_actions_adddup2(&fa, fds[1], STDERR_FILENO);
	else
		posix_spawn_file_actions_addopen(&fa, STDERR_FILENO,
		    "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null",
	    O_RDONLY, 0);
	e = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (e != 0) {
		close(fds[0]);
		errno = e;
		return -1;
	}
	for (;;) {
		if (len + 1 < outsz)
			n = read(fds[0], out + len, outsz - 1 - len);
		else
			n = read(fds[0], junk, sizeof(junk));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (len + 1 < outsz)
			len += n;
	}
	close(fds[0]);
	out[len] = '\0';
	/* The first line that says something, as one line. */
	for (p = out; *p == '\n' || *p == ' '; p++)
		;
	memmove(out, p, strlen(p) + 1);
	out[strcspn(out, "\n")] = '\0';
	return spawn_status(pid);
}
