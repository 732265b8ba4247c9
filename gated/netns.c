/*
 * gated's user and network namespace, wired by pasta as gated(8) says (DNS
 * not by -D: Debian 12's pasta then forwards nothing).  The helper forks
 * before the unshare: pasta joins a namespace already the operator's.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "barrier.h"
#include "daemon.h"
#include "gate.h"
#include "log.h"

static volatile sig_atomic_t	helper_ending;

static void
helper_term(int sig)
{
	helper_ending = 1;
}

/* systemd ignores SIGPIPE; Debian 12's pasta exits when it is ignored. */
static __attribute__((noreturn)) void
helper_pasta(pid_t gate)
{
	sigset_t	none;
	char		pid[16];
	int		null;

	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if ((null = open("/dev/null", O_RDONLY)) != -1)
		dup2(null, STDIN_FILENO);
	closefrom(STDERR_FILENO + 1);
	snprintf(pid, sizeof(pid), "%ld", (long)gate);
	execlp("pasta", "pasta", "--no-map-gw", "-4",
	    "-a", BARRIER_ADDR, "-g", BARRIER_PEER, "-I", BARRIER_IFNAME,
	    "--dns-forward", BARRIER_DNS, "--no-dhcp",
	    "-t", "none", "-u", "none", "-T", "none", "-U", "none",
	    "--no-icmp", "-f", "--quiet", pid, (char *)NULL);
	log_warn("cannot run pasta (install passt)");
	_exit(127);
}

/* Reparenting shows gated's end: pasta joining its userns loses PDEATHSIG. */
static __attribute__((noreturn)) void
helper_exec(pid_t gate, int go)
{
	struct sigaction	sa;
	struct timespec		tick = { 0, 100 * 1000 * 1000 };
	sigset_t		none;
	pid_t			pid;
	int			status, i;
	char			c;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = helper_term;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) == -1 || getppid() != gate)
		_exit(1);
	/* gated holds its signals while it starts; its helper takes them. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (read(go, &c, 1) != 1)
		_exit(1);
	if ((pid = fork()) == -1)
		_exit(1);
	if (pid == 0)
		helper_pasta(gate);
	while (waitpid(pid, &status, WNOHANG) == 0) {
		if (helper_ending || getppid() != gate) {
			(void)kill(pid, SIGTERM);
			for (i = 0; i < 5 && waitpid(pid, &status,
			    WNOHANG) == 0; i++)
				nanosleep(&tick, NULL);
			if (i == 5) {
				(void)kill(pid, SIGKILL);
				(void)waitpid(pid, &status, 0);
			}
			break;
		}
		nanosleep(&tick, NULL);
	}
	if (WIFSIGNALED(status)) {
		signal(WTERMSIG(status), SIG_DFL);
		raise(WTERMSIG(status));
	}
	_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 1);
}

pid_t
netns_enter(void)
{
	pid_t	pid, self = getpid();
	int	go[2];

	if (pipe2(go, O_CLOEXEC) == -1)
		fatal("pipe");
	if ((pid = fork()) == -1)
		fatal("fork");
	if (pid == 0) {
		close(go[1]);
		helper_exec(self, go[0]);
	}
	close(go[0]);
	daemon_own_netns();
	if (write(go[1], "g", 1) != 1)
		fatal("cannot start pasta");
	close(go[1]);
	log_debug("namespace made; pasta is pid %ld", (long)pid);
	return pid;
}

void
netns_end_pasta(pid_t pasta)
{
	struct timespec	pause = { 0, 20 * 1000 * 1000 };
	int		i, status;

	if (pasta <= 0)
		return;
	if (kill(pasta, SIGTERM) == -1 && errno != ESRCH)
		log_warn("cannot end pasta (pid %ld)", (long)pasta);
	for (i = 0; i < 50; i++) {
		if (waitpid(pasta, &status, WNOHANG) != 0)
			return;
		nanosleep(&pause, NULL);
	}
	log_warnx("pasta (pid %ld) did not end on SIGTERM: killed",
	    (long)pasta);
	kill(pasta, SIGKILL);
	while (waitpid(pasta, &status, 0) == -1 && errno == EINTR)
		continue;
}
