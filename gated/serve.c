/*
 * The gate's loop: accept on gate.sock and fork a child per tunnel, at
 * most GATE_CHILDREN_MAX at once.  The parent reads nothing a client
 * sends; SIGTERM and SIGINT end the gate, and pasta's death too, since
 * the gate has no network without it.
 */
#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"
#include "gate.h"
#include "log.h"

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
		if (WIFSIGNALED(status))
			log_warnx("tunnel (pid %ld) killed by signal %d",
			    (long)pid, WTERMSIG(status));
	}
}

/*
 * A tunnel ends with the gate: killed outright when gated dies, however
 * it dies, rather than carrying bytes for up to GATE_TOTAL_SECS with no
 * gate to answer for them.  Set before the check, so that a gate gone in
 * between is seen either way.
 */
static void
child_start(struct gate *g, int fd, const sigset_t *waitmask)
{
	struct sigaction	sa;
	pid_t			pid;

	if ((pid = fork()) == -1) {
		log_warn("fork");
		return;
	}
	if (pid == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1 ||
		    getppid() != g->self)
			_exit(1);
		close(g->listenfd);
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGCHLD, &sa, NULL);
		sigprocmask(SIG_SETMASK, waitmask, NULL);
		tunnel(g, fd);
	}
	g->children[g->nchildren++] = pid;
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
	if (g->nchildren == GATE_CHILDREN_MAX) {
		log_warnx("%d tunnels open: answered 503", GATE_CHILDREN_MAX);
		(void)send(fd, busy, sizeof(busy) - 1,
		    MSG_NOSIGNAL | MSG_DONTWAIT);
	} else
		child_start(g, fd, waitmask);
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

void
serve(struct gate *g)
{
	struct pollfd	pfd;
	sigset_t	waitmask;

	daemon_signals(on_signal, &waitmask);
	log_info("serving %s: %zu destination(s)", g->sock, g->ndests);
	while (!quit) {
		pfd.fd = g->listenfd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		if (ppoll(&pfd, 1, NULL, &waitmask) == -1 && errno != EINTR)
			fatal("ppoll");
		if (reap)
			children_reap(g);
		if (!quit && (pfd.revents & POLLIN))
			accept_one(g, &waitmask);
	}
	log_info("ending: %zu tunnel(s) open", g->nchildren);
	close(g->listenfd);
}
