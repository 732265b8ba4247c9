/*
 * The gate's loop, which reads nothing a client sends: each client to the
 * spare, and the next spare forked once the gate is quiet, so that its fork
 * does not take the CPU from the tunnel just handed over.
 */
#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "daemon.h"
#include "gate.h"
#include "heapown.h"
#include "log.h"
#include "msg.h"

#define SPARE_CLIENT	1	/* to the spare: its client's descriptor */
#define SPARE_GATE	0x1
#define SPARE_SPARE	0x2

static void	 spare_client(void *, struct msg *);

static const struct msg_rule spare_rules[] = {
	{ SPARE_CLIENT, "SPARE_CLIENT", 0, 0, 1, SPARE_GATE, 0, spare_client },
};
#define SPARE_NRULES	(sizeof(spare_rules) / sizeof(spare_rules[0]))

static volatile sig_atomic_t	quit, reap;

static void
on_signal(int sig)
{
	if (sig == SIGCHLD)
		reap = 1;
	else
		quit = 1;
}

static void
child_forget(struct gate *g, pid_t pid)
{
	size_t	i;

	for (i = 0; i < g->nchildren; i++) {
		if (g->children[i] == pid) {
			g->children[i] = g->children[--g->nchildren];
			return;
		}
	}
}

static void
children_reap(struct gate *g)
{
	pid_t	pid;
	int	status;

	reap = 0;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (pid == g->pasta) {
			g->pasta = -1;
			fatalx("pasta (pid %ld) ended: the gate has lost its "
			    "network", (long)pid);
		}
		child_forget(g, pid);
		if (pid == g->spare) {
			log_warnx("the spare tunnel process %ld ended untaken",
			    (long)pid);
			close(g->sparefd);
			g->sparefd = -1;
			g->spare = -1;
			g->spare_lost++;
		}
		if (WIFSIGNALED(status))
			log_warnx("tunnel (pid %ld) killed by signal %d",
			    (long)pid, WTERMSIG(status));
	}
}

/* The spare's one client: the tunnel serves it and ends the spare. */
static void
spare_client(void *arg, struct msg *m)
{
	int	 fd = m->fd;

	m->fd = -1;
	msg_free(m);
	tunnel(arg, fd);
}

/* In the spare, its locks on: the one client it will serve, or its end. */
static __attribute__((noreturn)) void
spare_wait(const struct gate *g, int sp, int abi)
{
	struct msgchan	 chan;
	struct msg	 m;
	char		 why[128];

	log_debug("spare tunnel process %ld ready: landlock ABI %d, seccomp "
	    "filter on", (long)getpid(), abi);
	msgchan_init(&chan, sp, 0);
	if (msg_read_one(&chan, &m) != 1)
		_exit(0);
	if (msg_check_set(spare_rules, SPARE_NRULES, msg_takes(spare_rules,
	    SPARE_NRULES, SPARE_SPARE), &m, why, sizeof(why)) == -1)
		fatalx("from gated: %s", why);
	msgchan_clear(&chan);
	close(sp);
	msg_rule_find(spare_rules, SPARE_NRULES, m.type)->take((void *)g, &m);
	_exit(0);
}

/* PDEATHSIG set before the check: a gate gone in between is seen either way. */
static pid_t
child_start(struct gate *g, int fd, int sp, const sigset_t *waitmask)
{
	struct sigaction	sa;
	pid_t			pid;
	int			abi;

	if ((pid = fork()) == -1) {
		log_warn("fork");
		return -1;
	}
	if (pid == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1 ||
		    getppid() != g->self)
			_exit(1);
		close(g->listenfd);
		if (g->sparefd != -1)
			close(g->sparefd);
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGCHLD, &sa, NULL);
		sigprocmask(SIG_SETMASK, waitmask, NULL);
		if (sp != -1)
			heap_own();
		abi = landlock_tunnel();
		filter_tunnel();
		if (sp != -1)
			spare_wait(g, sp, abi);
		tunnel(g, fd);
	}
	g->children[g->nchildren++] = pid;
	return pid;
}

/* The gate wakes after a quiet spell only while this holds, to make one. */
static int
spare_wanted(const struct gate *g)
{
	return g->spare == -1 && g->spare_lost < GATE_SPARE_LOST_MAX &&
	    g->nchildren <= GATE_CHILDREN_MAX;
}

static void
spare_start(struct gate *g, const sigset_t *waitmask)
{
	int	sp[2];

	if (!spare_wanted(g))
		return;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == -1) {
		log_warn("socketpair");
		g->spare_lost++;
		return;
	}
	g->sparefd = sp[0];
	if ((g->spare = child_start(g, -1, sp[1], waitmask)) == -1) {
		close(sp[0]);
		g->sparefd = -1;
		g->spare_lost++;
	}
	close(sp[1]);
}

/* 0, or -1 when there was none or it ended unseen.  Never reused. */
static int
spare_take(struct gate *g, int fd)
{
	struct msgchan	chan;
	int		dup, r = -1;

	if (g->spare == -1)
		return -1;
	msgchan_init(&chan, g->sparefd, 0);
	if ((dup = fcntl(fd, F_DUPFD_CLOEXEC, 0)) != -1 &&
	    msg_compose(&chan, SPARE_CLIENT, 0, dup, NULL, 0) == -1)
		close(dup);
	else if (dup != -1)
		r = msgchan_flush_all(&chan);
	msgchan_clear(&chan);
	close(g->sparefd);
	g->sparefd = -1;
	if (r == -1)
		(void)kill(g->spare, SIGKILL);
	else
		g->spare_lost = 0;
	g->spare = -1;
	return r;
}

static void
accept_one(struct gate *g, const sigset_t *waitmask)
{
	static const char	busy[] = "HTTP/1.1 503 Service Unavailable\r\n"
	    "Sandcastle-Error: the gate has 32 tunnels open\r\n\r\n";
	int			fd;

	if ((fd = accept4(g->listenfd, NULL, NULL, SOCK_CLOEXEC)) == -1) {
		if (errno != EAGAIN && errno != EINTR &&
		    errno != ECONNABORTED)
			log_warn("accept");
		return;
	}
	if (g->nchildren - (g->spare != -1) >= GATE_CHILDREN_MAX) {
		log_warnx("%d tunnels open: answered 503", GATE_CHILDREN_MAX);
		(void)send(fd, busy, sizeof(busy) - 1,
		    MSG_NOSIGNAL | MSG_DONTWAIT);
	} else if (spare_take(g, fd) == -1) {
		g->spare_lost = 0;
		(void)child_start(g, fd, -1, waitmask);
	}
	close(fd);
}

void
serve_end_children(struct gate *g)
{
	size_t	i;

	for (i = 0; i < g->nchildren; i++)
		kill(g->children[i], SIGTERM);
	while (g->nchildren > 0) {
		if (waitpid(g->children[g->nchildren - 1], NULL, 0) == -1 &&
		    errno == EINTR)
			continue;
		g->nchildren--;
	}
}

static int64_t
now_ns(void)
{
	struct timespec	now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

/* What is left of the quiet spell begun at spell; NULL: no spare to make. */
static const struct timespec *
quiet_left(const struct gate *g, int64_t spell, struct timespec *left)
{
	int64_t	ns;

	if (!spare_wanted(g))
		return NULL;
	if ((ns = spell + GATE_SPARE_QUIET_MS * 1000000LL - now_ns()) < 0)
		ns = 0;
	left->tv_sec = ns / 1000000000;
	left->tv_nsec = ns % 1000000000;
	return left;
}

/* The quiet spell begins at each connection, never at a child's end. */
void
serve(struct gate *g)
{
	struct timespec	left;
	struct pollfd	pfd;
	sigset_t	waitmask;
	int64_t		spell;

	daemon_signals(on_signal, &waitmask);
	log_info("serving %s: %zu destination(s)", g->sock, g->ndests);
	spare_start(g, &waitmask);
	spell = now_ns();
	while (!quit) {
		if (spare_wanted(g) &&
		    now_ns() - spell >= GATE_SPARE_QUIET_MS * 1000000LL) {
			spare_start(g, &waitmask);
			spell = now_ns();
		}
		pfd.fd = g->listenfd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (ppoll(&pfd, 1, quiet_left(g, spell, &left), &waitmask) == -1 &&
		    errno != EINTR)
			fatal("ppoll");
		if (reap)
			children_reap(g);
		if (!quit && (pfd.revents & POLLIN)) {
			accept_one(g, &waitmask);
			spell = now_ns();
		}
	}
	log_info("ending: %zu tunnel(s) open", g->nchildren);
	close(g->listenfd);
}
