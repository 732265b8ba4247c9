/* The one way a program is run for its output: podman's and sandcastlectl's. */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>

#include "command.h"

static void
command_collect(int fd, char *out, size_t outsz)
{
	char	 sink[4096];
	size_t	 len = 0;
	ssize_t	 n;

	for (;;) {
		if (len + 1 < outsz)
			n = read(fd, out + len, outsz - 1 - len);
		else
			n = read(fd, sink, sizeof(sink));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (len + 1 < outsz)
			len += n;
	}
	if (outsz > 0)
		out[len] = '\0';
}

int
command_capture(char *const argv[], char *const envp[], int both,
    char *out, size_t outsz, int *status)
{
	posix_spawn_file_actions_t	 fa;
	pid_t				 pid;
	int				 p[2], e;

	if (outsz > 0)
		out[0] = '\0';
	if (pipe2(p, O_CLOEXEC) == -1)
		return -1;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null",
	    O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, p[1], STDOUT_FILENO);
	if (both)
		posix_spawn_file_actions_adddup2(&fa, p[1], STDERR_FILENO);
	else
		posix_spawn_file_actions_addopen(&fa, STDERR_FILENO,
		    "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addclosefrom_np(&fa, STDERR_FILENO + 1);
	e = posix_spawnp(&pid, argv[0], &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (e != 0) {
		close(p[0]);
		errno = e;
		return -1;
	}
	command_collect(p[0], out, outsz);
	close(p[0]);
	while (waitpid(pid, status, 0) == -1)
		if (errno != EINTR)
			return -1;
	return 0;
}
