/* sandcastled's children: each a fresh exec, its channel on fd 3 alone. */
#include <sys/types.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "msg.h"
#include "proc.h"
#include "proto.h"
#include "sandbox.h"

extern char **environ;

static struct proc	*procs;

void
proc_use(struct proc *rows)
{
	procs = rows;
}

/* A row takes what goes to it and the answers to what it asks. */
static void
proc_derive(struct proc *p)
{
	const struct proc_msgrow	*r, *q;
	uint32_t			 bit = PROC_BIT(p->id);

	for (r = proc_msg_next(0); r != NULL; r = proc_msg_next(r->rule.type)) {
		if (r->rule.from & bit)
			p->sends |= MSG_BIT(r->rule.type);
		if (r->to == (int)p->id)
			p->takes |= MSG_BIT(r->rule.type);
		for (q = proc_msg_next(0); r->to == ROUTE_ASKER && q != NULL;
		    q = proc_msg_next(q->rule.type))
			if ((r->rule.pays & MSG_BIT(q->rule.type)) &&
			    (q->rule.from & bit))
				p->takes |= MSG_BIT(r->rule.type);
	}
}

struct proc *
proc_table(void)
{
	static int	 derived;
	size_t		 i;

	if (!derived)
		for (i = 0; i < PROC_COUNT; i++)
			proc_derive(&procs[i]);
	derived = 1;
	return procs;
}

struct proc *
proc_by_title(const char *title)
{
	struct proc	*t = proc_table();
	size_t		 i;

	for (i = 0; i < PROC_COUNT; i++)
		if (strcmp(t[i].title, title) == 0)
			return &t[i];
	return NULL;
}

struct proc *
proc_by_pid(pid_t pid)
{
	size_t	 i;

	for (i = 0; i < PROC_COUNT; i++)
		if (procs[i].pid == pid && pid > 0)
			return &procs[i];
	return NULL;
}

static void
proc_argv(const struct proc *p, const struct options *opts, char **argv,
    size_t max)
{
	size_t	 n = 0;
	int	 v;

	argv[n++] = "sandcastled";
	argv[n++] = "-P";
	argv[n++] = (char *)p->title;
	argv[n++] = "-c";
	argv[n++] = (char *)opts->confdir;
	argv[n++] = "-s";
	argv[n++] = (char *)opts->secretsdir;
	argv[n++] = "-D";
	argv[n++] = opts->digests;
	if (opts->once)
		argv[n++] = "-1";
	else if (opts->foreground)
		argv[n++] = "-d";
	for (v = 0; v < opts->verbose && n < max - 1; v++)
		argv[n++] = "-v";
	argv[n] = NULL;
}

static __attribute__((noreturn)) void
proc_exec(const struct proc *p, int sock, int exefd,
    const struct options *opts, pid_t parent)
{
	char		*argv[16];
	sigset_t	 none;
	int		 exe;

	/* Set before the check: a parent gone in between is seen either way. */
	if (prctl(PR_SET_PDEATHSIG, p->deathsig) == -1 || getppid() != parent)
		_exit(127);
	/* The parent's signalfd blocks these; the mask survives execve. */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if ((exe = fcntl(exefd, F_DUPFD_CLOEXEC, PROC_FD + 2)) == -1 ||
	    dup2(sock, PROC_FD) == -1 ||
	    dup3(exe, PROC_FD + 1, O_CLOEXEC) == -1) {
		log_warn("%s: cannot set up its descriptors", p->title);
		_exit(127);
	}
	closefrom(PROC_FD + 2);
	proc_argv(p, opts, argv, sizeof(argv) / sizeof(argv[0]));
	fexecve(PROC_FD + 1, argv, environ);
	log_warn("%s: cannot re-execute sandcastled", p->title);
	_exit(127);
}

static void
proc_start(struct proc *p, int exefd, const struct options *opts)
{
	pid_t	 parent = getpid();
	int	 sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1)
		fatal("socketpair for %s", p->title);
	switch ((p->pid = fork())) {
	case -1:
		fatal("fork for %s", p->title);
	case 0:
		proc_exec(p, sv[1], exefd, opts, parent);
	}
	close(sv[1]);
	/* Not yet reaped, the child still has its pid: this is the child's. */
	if ((p->pidfd = pidfd_open(p->pid, 0)) == -1)
		fatal("pidfd_open for %s", p->title);
	if (fcntl(sv[0], F_SETFL, O_NONBLOCK) == -1)
		fatal("%s: O_NONBLOCK", p->title);
	msgchan_init(&p->chan, sv[0], PROC_MAXPAYLOAD);
	p->started = time(NULL);
	p->is_ready = 0;
	log_debug("started %s, pid %d", p->title, (int)p->pid);
}

void
proc_start_all(int exefd, const struct options *opts)
{
	struct proc	*t = proc_table();
	size_t		 i;

	for (i = 0; i < PROC_COUNT; i++)
		proc_start(&t[i], exefd, opts);
}

/* By its pidfd: the parent's filter refuses kill(2), which reaches any pid. */
void
proc_signal(struct proc *p, int sig)
{
	if (p->pid > 0 && p->pidfd != -1)
		(void)pidfd_send_signal(p->pidfd, sig, NULL, 0);
}

void
proc_kill_all(int sig)
{
	size_t	 i;

	for (i = 0; i < PROC_COUNT; i++)
		proc_signal(&procs[i], sig);
}

int
proc_running(void)
{
	size_t	 i;
	int	 n = 0;

	for (i = 0; i < PROC_COUNT; i++)
		if (procs[i].pid > 0)
			n++;
	return n;
}

void
proc_describe_exit(const struct proc *p, int status, char *buf, size_t bufsz)
{
	const char	*abbrev;
	int		 sig;

	if (WIFEXITED(status)) {
		snprintf(buf, bufsz, "%s exited with status %d%s", p->title,
		    WEXITSTATUS(status),
		    WEXITSTATUS(status) == SANDBOX_DEBUG_EXIT ?
		    " (in a debug build: its seccomp filter denied a call)" :
		    "");
		return;
	}
	sig = WTERMSIG(status);
	abbrev = sigabbrev_np(sig);
	snprintf(buf, bufsz, "%s was killed by signal %d (SIG%s)%s", p->title,
	    sig, abbrev != NULL ? abbrev : "?",
	    sig == SIGSYS ? ": its seccomp filter denied a call" : "");
}

static void
proc_gone(struct proc *p)
{
	p->pid = -1;
	p->is_ready = 0;
	if (p->pidfd != -1) {
		close(p->pidfd);
		p->pidfd = -1;
	}
	if (p->chan.fd != -1) {
		close(p->chan.fd);
		msgchan_clear(&p->chan);
		p->chan.fd = -1;
	}
}

/* last takes what the child sent before it ended.  Returns how many. */
int
proc_reap(int stopping, void (*last)(struct proc *))
{
	struct proc	*p;
	char		 line[160];
	pid_t		 pid;
	int		 status, n = 0;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if ((p = proc_by_pid(pid)) == NULL)
			continue;
		last(p);
		proc_describe_exit(p, status, line, sizeof(line));
		if (stopping && WIFEXITED(status) && WEXITSTATUS(status) == 0)
			log_debug("%s", line);
		else
			log_warnx("%s", line);
		proc_gone(p);
		n++;
	}
	if (pid == -1 && errno != ECHILD)
		log_warn("waitpid");
	return n;
}
