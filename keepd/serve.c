/* keepd's loop: one ppoll(2), signals blocked elsewhere so none is lost. */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "client.h"
#include "daemon.h"
#include "fetcher.h"
#include "listen.h"
#include "log.h"
#include "serve.h"

#define SERVE_MAXFDS	(1 + 2 * 64 + WARM_MAX)

struct slot {
	struct client	*c;		/* NULL for a warm child */
	int		 child;
	struct fetcher	*warm;
};

static volatile sig_atomic_t	 serve_quit;
static struct clientlist	 clients = TAILQ_HEAD_INITIALIZER(clients);

static void
serve_signal(int sig)
{
	if (sig == SIGTERM || sig == SIGINT)
		serve_quit = 1;
}


/* Children are killed when done with: only another end is news. */
static void
serve_reap(void)
{
	pid_t	 pid;
	int	 st;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		fetcher_reaped(pid);
		if (WIFSIGNALED(st) && WTERMSIG(st) != SIGKILL)
			log_warnx("request process %d was killed by signal %d%s",
			    (int)pid, WTERMSIG(st), WTERMSIG(st) == SIGSYS ?
			    " (its seccomp filter)" : "");
		else if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
			log_warnx("request process %d exited %d", (int)pid,
			    WEXITSTATUS(st));
	}
}

static size_t
serve_pollfds(int listenfd, struct pollfd *pfd, struct slot *slot)
{
	struct fetcher	*warm[WARM_MAX];
	struct client	*c;
	size_t		 n = 1, i, k;

	pfd[0].fd = listenfd;
	pfd[0].events = POLLIN;
	memset(slot, 0, SERVE_MAXFDS * sizeof(*slot));
	TAILQ_FOREACH(c, &clients, entry) {
		pfd[n].fd = c->chan.fd;
		pfd[n].events = (c->f == NULL && !c->closing ? POLLIN : 0) |
		    (c->chan.outqlen > 0 ? POLLOUT : 0);
		slot[n++].c = c;
		if (c->f != NULL) {
			pfd[n].fd = c->f->chan.fd;
			pfd[n].events = POLLIN |
			    (c->f->chan.outqlen > 0 ? POLLOUT : 0);
			slot[n].c = c;
			slot[n++].child = 1;
		}
	}
	k = fetcher_warm_pollfds(pfd + n, warm, WARM_MAX);
	for (i = 0; i < k; i++)
		slot[n++].warm = warm[i];
	return n;
}

static struct timespec *
serve_timeout(struct timespec *ts)
{
	struct timespec		 now;
	const struct timespec	*first;
	struct client		*c;

	first = fetcher_warm_first();
	TAILQ_FOREACH(c, &clients, entry)
		if (c->f != NULL && (first == NULL ||
		    c->deadline.tv_sec < first->tv_sec))
			first = &c->deadline;
	if (first == NULL)
		return NULL;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ts->tv_sec = first->tv_sec - now.tv_sec + 1;
	ts->tv_nsec = 0;
	if (ts->tv_sec < 0)
		ts->tv_sec = 0;
	return ts;
}

static void
serve_dispatch(int listenfd, struct pollfd *pfd, struct slot *slot,
    size_t n)
{
	size_t	 i;

	/* The warm first: a client's next request may take or end one. */
	for (i = 1; i < n; i++)
		if (slot[i].warm != NULL && pfd[i].revents != 0)
			fetcher_warm_input(slot[i].warm);
	if (pfd[0].revents & POLLIN)
		client_accept(listenfd, &clients);
	for (i = 1; i < n; i++) {
		if (pfd[i].revents == 0 || slot[i].warm != NULL)
			continue;
		if (slot[i].child && (pfd[i].revents & POLLOUT))
			client_child_output(slot[i].c);
		else if (slot[i].child)
			client_child_input(slot[i].c);
		else if (pfd[i].revents & (POLLIN | POLLHUP | POLLERR))
			client_input(slot[i].c);
		if (!slot[i].child && (pfd[i].revents & POLLOUT))
			client_output(slot[i].c);
	}
}

static void
serve_sweep(void)
{
	struct client	*c, *t;
	struct timespec	 now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	TAILQ_FOREACH_SAFE(c, &clients, entry, t) {
		client_expire(c, &now);
		if (client_done(c))
			client_drop(&clients, c);
	}
	fetcher_warm_expire(&now);
}

/* Made when nothing is in flight, so its fork delays no request. */
static void
serve_spare(void)
{
	struct client	*c;

	TAILQ_FOREACH(c, &clients, entry)
		if (c->f != NULL || c->chan.outqlen > 0)
			return;
	fetcher_spare();
}

static void
serve_end(void)
{
	struct client	*c;

	while ((c = TAILQ_FIRST(&clients)) != NULL)
		client_drop(&clients, c);
	fetcher_end_all();
	keepsock_close();
	serve_reap();
	log_info("exiting on SIGTERM");
}

void
serve(int listenfd, int secretsfd, const char *gatepath)
{
	struct pollfd	 pfd[SERVE_MAXFDS];
	struct slot	 slot[SERVE_MAXFDS];
	struct timespec	 ts;
	sigset_t	 waitmask;
	size_t		 n;

	daemon_signals(serve_signal, &waitmask);
	client_init(secretsfd);
	fetcher_init(gatepath);
	fetcher_spare();
	while (!serve_quit) {
		n = serve_pollfds(listenfd, pfd, slot);
		if (ppoll(pfd, n, serve_timeout(&ts), &waitmask) == -1) {
			if (errno != EINTR)
				fatal("ppoll");
			memset(pfd, 0, n * sizeof(pfd[0]));
		}
		serve_reap();
		serve_dispatch(listenfd, pfd, slot, n);
		serve_sweep();
		serve_spare();
	}
	serve_end();
}
