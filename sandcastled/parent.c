/* The parent: the control socket, the children and their watch.  A child
 * that dies takes the daemon down, loudly (stop.c, exit 1). */
#include <sys/types.h>
#include <sys/signalfd.h>

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "control.h"
#include "daemon.h"
#include "keep.h"
#include "lock.h"
#include "log.h"
#include "msg.h"
#include "parent.h"
#include "paths.h"
#include "proc.h"
#include "proto.h"
#include "refused.h"
#include "stop.h"
#include "summary.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

static pid_t	parent_pid;

/* fatal() exits too: no child and no socket may outlive the parent. */
static void
parent_atexit(void)
{
	if (getpid() != parent_pid)
		return;
	proc_kill_all(SIGTERM);
	control_close();
}

void
parent_ready(void *arg, struct msg *m)
{
	struct proc	*p = arg;
	struct proc	*t = proc_table();
	size_t		 i;

	if (p->is_ready)
		fatalx("%s sent PROC_READY twice", p->title);
	p->is_ready = 1;
	log_debug("%s is ready, its filter on", p->title);
	for (i = 0; i < PROC_COUNT; i++)
		if (!t[i].is_ready)
			return;
	log_info("running: core, keep-frontend and box launcher are ready");
}

/* Type, size and id alone are read; a descriptor goes on, never read here. */
static void
parent_forward(enum proc_id to, struct msg *m)
{
	struct proc	*p = &proc_table()[to];

	if (p->chan.fd == -1) {
		log_debug("%s for %s, which ended: dropped",
		    proc_msg_name(m->type), p->title);
		return;
	}
	if (msg_compose(&p->chan, m->type, m->id, m->fd, m->data, m->len) == -1)
		fatal("a message to %s", p->title);
	m->fd = -1;
}

void
parent_sources(void *arg, struct msg *m)
{
	struct proc	*p = arg;
	char	 why[SUMMARY_WHY_MAX];

	if (summary_keep(m->data, m->len, why, sizeof(why)) == -1)
		fatalx("%s sent PROC_SOURCES of %zu bytes: %s", p->title,
		    m->len, why);
}

/* sandcastled -1: the round is over; the stop's status says how it went. */
void
parent_round_done(void *proc, struct msg *m)
{
	uint32_t	 failed;

	memcpy(&failed, m->data, sizeof(failed));
	log_info("the round is over: %s; stopping", failed ? "something "
	    "failed, the log says what" : "every source asked, no job failed");
	stop_begin(failed ? 1 : 0);
}

void
parent_dispatch(struct proc *p, struct msg *m)
{
	const struct proc_msgrow	*r;
	const char			*name = proc_msg_name(m->type);
	enum proc_id			 asker;

	/* Its sends are its rows' (proc.c): r is one of them. */
	proc_verify(p->sends, m, p->title);
	r = proc_msg(m->type);
	/* A child cannot pose as the other. */
	if (r->id_names_sender && ((m->id & PROC_ID_LAUNCHER) != 0) !=
	    (p->id == PROC_LAUNCHER))
		fatalx("%s sent %s with another's id", p->title, name);
	if (r->standin != NULL)
		stop_owe(m->type, p->id, m->id);
	if (r->to == ROUTE_PARENT)
		r->rule.take(p, m);
	else if (r->to != ROUTE_ASKER)
		parent_forward(r->to, m);
	else if (stop_paid(r->rule.pays, m->id, &asker) == 0)
		parent_forward(asker, m);
	else
		fatalx("%s sent %s (id %u), which no child asked for",
		    p->title, name, m->id);
}

static int
parent_child_read(struct proc *p)
{
	struct msg	 m;
	ssize_t		 n;
	int		 r;

	if ((n = msgchan_read(&p->chan)) == -1 &&
	    (errno == EAGAIN || errno == EINTR))
		return 0;
	if (n == 0 || (n == -1 && errno == EPROTO)) {
		/* Its exit follows: SIGCHLD says how it ended. */
		if (n == 0)
			log_debug("%s closed its channel", p->title);
		else
			log_warnx("%s ended in the middle of a message",
			    p->title);
		close(p->chan.fd);
		msgchan_clear(&p->chan);
		p->chan.fd = -1;
		return 0;
	}
	if (n == -1)
		fatal("reading from %s", p->title);
	while ((r = msg_get(&p->chan, &m)) == 1) {
		parent_dispatch(p, &m);
		msg_free(&m);
	}
	if (r == -1)
		fatal("%s sent a malformed message", p->title);
	return 1;
}

static void
parent_drain(struct proc *p)
{
	while (p->chan.fd != -1 && parent_child_read(p) == 1)
		;
}

static void
parent_signal(int sfd)
{
	struct signalfd_siginfo	 si;

	while (read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGCHLD:
			if (proc_reap(stop_running(), parent_drain) > 0 &&
			    !stop_running()) {
				log_warnx("a child ended: stopping "
				    "sandcastled");
				stop_begin(1);
			}
			stop_orphans();
			break;
		case SIGINT:
		case SIGTERM:
			if (stop_running()) {
				log_info("SIG%s: already stopping",
				    sigabbrev_np(si.ssi_signo));
				break;
			}
			log_info("SIG%s: stopping: the core first, once what "
			    "it has in flight is over",
			    sigabbrev_np(si.ssi_signo));
			stop_begin(0);
			break;
		case SIGHUP:
			log_info("SIGHUP: the configuration is read at start "
			    "only: restart sandcastled to read it again");
			break;
		}
	}
}

/* Signals as messages, handled between two others, never inside one. */
static int
parent_signalfd(void)
{
	sigset_t	 set;
	int		 fd;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	if (sigprocmask(SIG_BLOCK, &set, NULL) == -1)
		fatal("sigprocmask");
	if ((fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC)) == -1)
		fatal("signalfd");
	signal(SIGPIPE, SIG_IGN);
	return fd;
}

static void
parent_children(struct pollfd *pfd)
{
	struct proc	*t = proc_table();
	size_t		 i;

	for (i = 0; i < PROC_COUNT; i++) {
		if (t[i].chan.fd == -1 || pfd[i].revents == 0)
			continue;
		if ((pfd[i].revents & POLLOUT) &&
		    msgchan_flush(&t[i].chan) == -1)
			fatal("writing to %s", t[i].title);
		if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR))
			(void)parent_child_read(&t[i]);
	}
}

static int
parent_timeout(void)
{
	int	 a = refused_timeout(), b = stop_timeout();

	return a == -1 ? b : b == -1 || a < b ? a : b;
}

static __attribute__((noreturn)) void
parent_loop(int sfd)
{
	struct pollfd	 pfd[1 + PROC_COUNT + 1 + 16 + 16];
	struct proc	*t = proc_table();
	size_t		 i, nc;

	for (;;) {
		pfd[0].fd = sfd;
		pfd[0].events = POLLIN;
		for (i = 0; i < PROC_COUNT; i++) {
			pfd[1 + i].fd = t[i].chan.fd;
			pfd[1 + i].events = POLLIN |
			    (t[i].chan.outqlen > 0 ? POLLOUT : 0);
		}
		nc = control_pollfds(pfd + 1 + PROC_COUNT,
		    NELEM(pfd) - 1 - PROC_COUNT);
		if (poll(pfd, 1 + PROC_COUNT + nc, parent_timeout()) == -1) {
			if (errno == EINTR)
				continue;
			fatal("poll");
		}
		if (pfd[0].revents & POLLIN)
			parent_signal(sfd);
		parent_children(pfd + 1);
		control_dispatch(pfd + 1 + PROC_COUNT, nc);
		stop_step();
	}
}

/* The runtime folder, which the ruleset keeps for control.sock's removal. */
static void
parent_control(char *dir, size_t dirsz)
{
	char	 sock[PATH_MAX], why[512];

	if (path_runtime_dir(dir, dirsz) == -1)
		fatalx("%s: it holds sandcastled's control socket", path_why());
	if (path_private_dir(dir, why, sizeof(why)) == -1)
		fatalx("%s: the runtime folder must be the operator's alone "
		    "(0700)", why);
	if (path_runtime_file(CONTROL_SOCK, sock, sizeof(sock)) == -1)
		fatalx("%s", path_why());
	control_open(sock);
}

void
parent_main(struct config *conf, const struct options *opts, int exefd)
{
	char	 rundir[PATH_MAX];
	int	 sfd;

	daemon_hold_signals();
	parent_control(rundir, sizeof(rundir));
	summary_init(conf);
	parent_pid = getpid();
	if (atexit(parent_atexit) != 0)
		fatalx("atexit");
	if (!opts->foreground) {
		if (daemon(0, 0) == -1)
			fatal("daemon");
		parent_pid = getpid();
		log_init("sandcastled", 0, opts->verbose);
	}
	sfd = parent_signalfd();
	proc_start_all(exefd, opts);
	close(exefd);
	landlock_parent(rundir);
	sandbox_parent();
	log_info("started with %zu sources", conf->nsources);
	parent_loop(sfd);
}
