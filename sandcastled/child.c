/* What every child of sandcastled does around its row's columns: init,
 * sandbox, ready, then child_loop(). */
#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "ask.h"
#include "child.h"
#include "config.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "proto.h"

#define CHILD_MAXFDS	160	/* a row's own descriptors polled, at most */

int				child_once;
static volatile sig_atomic_t	child_stop;
static struct proc		*child_proc;
static struct msgchan		 child_chan;

static void
child_sigterm(int sig)
{
	child_stop = 1;
}

/* The parent's configuration: a file changed since would set it apart. */
static struct config *
child_config(const struct options *opts)
{
	struct conferrs	 errs = TAILQ_HEAD_INITIALIZER(errs);
	struct conferr	*e;
	struct config	*conf;
	const char	*how;
	char		 name[NAME_LEN + 16];

	if ((conf = config_load(opts->confdir, &errs)) != NULL) {
		conferrs_free(&errs);
		if (config_digests_differ(conf, opts->digests, name,
		    sizeof(name), &how))
			fatalx("%s/%s: %s since sandcastled started, which "
			    "read the configuration before: restart sandcastled "
			    "to run with the configuration as it is now",
			    opts->confdir, name, how);
		return conf;
	}
	TAILQ_FOREACH(e, &errs, entry)
		log_warnx("%s", e->line);
	conferrs_free(&errs);
	fatalx("%s: the configuration changed since sandcastled started: "
	    "fix it and restart sandcastled", opts->confdir);
}

/* SIGTERM let in only in ppoll(2): no stop between the check and the wait. */
static void
child_signals(void)
{
	struct sigaction sa;
	sigset_t	 set;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = child_sigterm;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) == -1)
		fatal("sigaction SIGTERM");
	signal(SIGPIPE, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &set, NULL) == -1)
		fatal("sigprocmask");
}

static void
child_ready(void)
{
	if (msg_compose(&child_chan, PROC_READY, 0, -1, NULL, 0) == -1 ||
	    msgchan_flush_all(&child_chan) == -1)
		fatal("cannot tell the parent it is ready");
}

/* 0 when the parent closed the channel. */
static int
child_wait(int ms, const sigset_t *mask)
{
	struct pollfd	 pfd[1 + CHILD_MAXFDS];
	struct timespec	 ts;
	ssize_t		 n;
	size_t		 nfds = 0;

	pfd[0].fd = child_chan.fd;
	pfd[0].events = POLLIN | (child_chan.outqlen > 0 ? POLLOUT : 0);
	if (child_proc->pollfds != NULL)
		nfds = child_proc->pollfds(pfd + 1, CHILD_MAXFDS);
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	if (ppoll(pfd, 1 + nfds, ms == -1 ? NULL : &ts, mask) == -1) {
		if (errno == EINTR)
			return 1;
		fatal("ppoll");
	}
	if (nfds > 0)
		child_proc->dispatch(pfd + 1, nfds);
	if ((pfd[0].revents & POLLOUT) && msgchan_flush(&child_chan) == -1)
		fatal("writing to the parent");
	if (!(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
		return 1;
	if ((n = msgchan_read(&child_chan)) == 0)
		return 0;
	if (n == -1 && errno != EAGAIN && errno != EINTR)
		fatal("reading from the parent");
	return 1;
}

static int
child_next(struct msg *m)
{
	int	 r;

	if ((r = msg_get(&child_chan, m)) == -1)
		fatal("a message from the parent");
	if (r == 1)
		proc_verify(child_proc->takes, m, "the parent");
	return r;
}

void
child_take(struct proc *p, struct msg *m)
{
	const struct proc_msgrow	*r = proc_msg(m->type);

	if (r != NULL && r->to == (int)p->id)
		r->rule.take(p, m);
	else if (r != NULL && r->to == ROUTE_ASKER)
		ask_answer(m);
	else
		fatalx("the parent sent %s (id %u), which the %s did not ask "
		    "for", proc_msg_name(m->type), m->id, p->title);
}

/* The one loop: SIGTERM ends the child at once, unless own_sigterm. */
static __attribute__((noreturn)) void
child_loop(void)
{
	struct msg	 m;
	sigset_t	 none;
	int		 ms;

	sigemptyset(&none);
	for (;;) {
		if (child_stop && !child_proc->own_sigterm) {
			log_debug("SIGTERM: stopping");
			exit(0);
		}
		ms = child_proc->timer != NULL ? child_proc->timer() : -1;
		if (child_wait(ms, &none) == 0) {
			log_debug("the parent closed the channel");
			exit(0);
		}
		while (child_next(&m) == 1) {
			child_take(child_proc, &m);
			msg_free(&m);
		}
	}
}

void
child_main(const char *title, const struct options *opts)
{
	struct config	*conf;
	struct stat	 st;

	if ((child_proc = proc_by_title(title)) == NULL ||
	    opts->digests == NULL || fstat(PROC_FD, &st) == -1 || !S_ISSOCK(st.st_mode))
		fatalx("-P is for sandcastled's own children only");
	setproctitle("%s", title);
	/* syslog's socket reopened now: later it is a socket(2) the filter kills. */
	closelog();
	closefrom(PROC_FD + 1);
	log_init("sandcastled", opts->foreground, opts->verbose);
	log_procname(title);
	child_once = opts->once;
	conf = child_config(opts);
	child_signals();
	if (fcntl(PROC_FD, F_SETFL, O_NONBLOCK) == -1)
		fatal("O_NONBLOCK on the channel");
	msgchan_init(&child_chan, PROC_FD, PROC_MAXPAYLOAD);
	ask_use(child_proc->id);
	child_proc->init(conf, &child_chan);
	child_proc->sandbox();
	child_ready();
	child_proc->ready();
	child_loop();
}

/* Set by SIGTERM, for a child that waits elsewhere than in child_loop(). */
const volatile sig_atomic_t *
child_stopping(void)
{
	return &child_stop;
}
