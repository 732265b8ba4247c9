/*
 * The daemons' common start: see daemon.h.
 */
#include <sys/types.h>

#include <err.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "daemon.h"
#include "log.h"

struct config *
daemon_config(const char *dir)
{
	struct conferrs	 errs = TAILQ_HEAD_INITIALIZER(errs);
	struct config	*conf;

	if ((conf = config_load(dir, &errs)) == NULL) {
		if (TAILQ_EMPTY(&errs))
			err(1, "%s", dir);
		conferrs_print(stderr, &errs);
		exit(1);
	}
	conferrs_free(&errs);
	return conf;
}

static void
proc_self_write(const char *file, const char *text)
{
	size_t	 len = strlen(text);
	int	 fd;

	if ((fd = open(file, O_WRONLY | O_CLOEXEC)) == -1)
		fatal("%s", file);
	if (write(fd, text, len) != (ssize_t)len)
		fatal("%s: cannot write \"%s\"", file, text);
	close(fd);
}

void
daemon_own_netns(void)
{
	char	 map[64];
	uid_t	 uid = geteuid();
	gid_t	 gid = getegid();

	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) == -1)
		fatal("unshare: cannot make a user and network namespace of "
		    "its own (are unprivileged user namespaces allowed here? "
		    "see user.max_user_namespaces)");
	(void)snprintf(map, sizeof(map), "0 %u 1", (unsigned int)uid);
	proc_self_write("/proc/self/uid_map", map);
	/* An unprivileged map of gids needs setgroups(2) closed first. */
	proc_self_write("/proc/self/setgroups", "deny");
	(void)snprintf(map, sizeof(map), "0 %u 1", (unsigned int)gid);
	proc_self_write("/proc/self/gid_map", map);
}

void
daemon_signals(void (*handler)(int), sigset_t *waitmask)
{
	struct sigaction sa;
	sigset_t	 block;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, waitmask);
	sigdelset(waitmask, SIGTERM);
	sigdelset(waitmask, SIGINT);
	sigdelset(waitmask, SIGCHLD);
}
