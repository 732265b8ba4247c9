/*
 * What every child of sandcastled does around its own work: it takes
 * its title, reads the configuration, closes what it inherited, and
 * after its filter is on (the child's own run function installs it)
 * says it is ready and serves its channel to the parent.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "config.h"
#include "log.h"
#include "msg.h"
#include "proto.h"
#include "sandcastled.h"

int				child_once;
static volatile sig_atomic_t	child_stop;

static void
child_sigterm(int sig)
{
	child_stop = 1;
}

static struct config *
child_config(const struct options *opts)
{
	struct conferrs	 errs = TAILQ_HEAD_INITIALIZER(errs);
	struct conferr	*e;
	struct config	*conf;

	if ((conf = config_load(opts->confdir, &errs)) != NULL) {
		conferrs_free(&errs);
		return conf;
	}
	TAILQ_FOREACH(e, &errs, entry)
		log_warnx("%s", e->line);
	conferrs_free(&errs);
	fatalx("%s: the configuration changed since sandcastled started: "
	    "fix it and restart sandcastled", opts->confdir);
}

/*
 * SIGTERM stays blocked but in ppoll(2), so that a stop cannot fall
 * between the check of the flag and the wait.
 */
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

void
child_main(const char *title, const struct options *opts)
{
	static struct msgchan	 chan;
	struct proc		*p;
	struct config		*conf;
	struct stat		 st;

	if ((p = proc_by_title(title)) == NULL ||
	    fstat(PROC_FD, &st) == -1 || !S_ISSOCK(st.st_mode))
		fatalx("-P is for sandcastled's own children only");
	setproctitle("%s", title);
	/*
	 * Closing syslog's socket behind its back would make it reconnect
	 * later, a socket(2) the core's filter kills: close it, then open
	 * it again (log_init connects at once) before the filter goes on.
	 */
	closelog();
	closefrom(PROC_FD + 1);
	log_init("sandcastled", opts->foreground, opts->verbose);
	log_procname(title);
	child_once = opts->once;
	conf = child_config(opts);
	child_signals();
	if (fcntl(PROC_FD, F_SETFL, O_NONBLOCK) == -1)
		fatal("O_NONBLOCK on the channel");
	msgchan_init(&chan, PROC_FD, PROC_MAXPAYLOAD);
	p->run(conf, &chan);
	fatalx("%s: its run function returned", title);
}

/* Set by SIGTERM, for a child that waits elsewhere than in child_loop(). */
const volatile sig_atomic_t *
child_stopping(void)
{
	return &child_stop;
}

void
child_ready(struct msgchan *chan)
{
	if (msg_compose(chan, PROC_READY, 0, -1, NULL, 0) == -1 ||
	    msgchan_flush_all(chan) == -1)
		fatal("cannot tell the parent it is ready");
}

static void
child_read(struct msgchan *chan, const struct msg_rule *rules, size_t nrules,
    const char *peer, void (*dispatch)(struct msg *))
{
	struct msg	 m;
	ssize_t		 n;
	int		 r;

	if ((n = msgchan_read(chan)) == 0) {
		log_debug("the parent closed the channel");
		exit(0);
	}
	if (n == -1) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		fatal("reading from the parent");
	}
	while ((r = msg_get(chan, &m)) == 1) {
		msg_verify(rules, nrules, &m, peer);
		dispatch(&m);
		msg_free(&m);
	}
	if (r == -1)
		fatal("a message from the parent");
}

void
child_loop(struct msgchan *chan, const struct msg_rule *rules, size_t nrules,
    const char *peer, void (*dispatch)(struct msg *))
{
	struct pollfd	 pfd;
	sigset_t	 none;

	sigemptyset(&none);
	for (;;) {
		if (child_stop) {
			log_debug("SIGTERM: stopping");
			exit(0);
		}
		pfd.fd = chan->fd;
		pfd.events = POLLIN | (chan->outqlen > 0 ? POLLOUT : 0);
		if (ppoll(&pfd, 1, NULL, &none) == -1) {
			if (errno == EINTR)
				continue;
			fatal("ppoll");
		}
		if ((pfd.revents & POLLOUT) && msgchan_flush(chan) == -1)
			fatal("writing to the parent");
		if (pfd.revents & (POLLIN | POLLHUP | POLLERR))
			child_read(chan, rules, nrules, peer, dispatch);
	}
}
