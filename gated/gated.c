/*
 * gated: the gate, the only way out, from a network namespace whose
 * routes close the internal network a second time.  See gated(8).
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "gate.h"
#include "daemon.h"
#include "log.h"
#include "note.h"
#include "paths.h"
#include "refusal.h"

PROGRAM_NOTE("gated");

static struct gate	gate = { .listenfd = -1, .refusalfd = -1,
			    .pasta = -1, .self = -1, .spare = -1, .sparefd = -1 };

/* A tunnel carries any call to its name and port: each entry the longest. */
static void
gate_list(struct gate *g, const struct config *conf)
{
	struct destination	*d, *e;
	size_t			 i, j;

	g->dests = reallocarray(NULL, conf->ndests + 1, sizeof(*g->dests));
	if (g->dests == NULL)
		err(1, NULL);
	for (i = 0; i < conf->ndests; i++)
		g->dests[i] = *conf->dests[i];
	g->ndests = conf->ndests;
	for (i = 0; i < g->ndests; i++)
		for (j = 0, d = &g->dests[i]; j < g->ndests; j++) {
			e = &g->dests[j];
			if (e->port == d->port && strcmp(e->host, d->host) == 0 &&
			    e->call_seconds > d->call_seconds)
				d->call_seconds = e->call_seconds;
		}
}

/* Whatever way gated ends, it leaves no tunnel, no pasta, no socket. */
static void
gate_cleanup(void)
{
	if (getpid() != gate.self)
		return;
	serve_end_children(&gate);
	netns_end_pasta(gate.pasta);
	gate.pasta = -1;
	if (gate.listenfd != -1)
		listen_remove(gate.sock);
}

static void
open_files(struct gate *g)
{
	char	dir[PATH_MAX], why[PATH_MAX + 128];

	if (path_state_dir(dir, sizeof(dir)) == -1)
		fatalx("%s", path_why());
	if (path_private_dir(dir, why, sizeof(why)) == -1)
		fatalx("%s", why);
	if ((size_t)snprintf(g->refusals, sizeof(g->refusals), "%s/%s", dir,
	    REFUSAL_FILE) >= sizeof(g->refusals))
		fatalx("%s/%s: path too long", dir, REFUSAL_FILE);
	if (refusal_prune(g->refusals, time(NULL)) == -1)
		fatal("%s: cannot prune", g->refusals);
	if ((g->refusalfd = refusal_open(g->refusals)) == -1)
		fatal("%s", g->refusals);
	if (path_runtime_dir(dir, sizeof(dir)) == -1 ||
	    path_runtime_file(GATE_SOCK, g->sock, sizeof(g->sock)) == -1)
		fatalx("%s", path_why());
	if (path_private_dir(dir, why, sizeof(why)) == -1)
		fatalx("%s", why);
	g->listenfd = listen_open(g->sock);
}

static void
gate_start(struct gate *g)
{
	g->self = getpid();
	if (atexit(gate_cleanup) != 0)
		fatalx("atexit");
	daemon_hold_signals();
	open_files(g);
	own_read(g);
	g->resolver = resolve_pick();
	g->pasta = netns_enter();
	route_install(g, route_wait_link(g->pasta));
	route_verify(g);
	resolve_prepare(g);
}

/* Without -d, a gate that cannot serve still exits 1 with its reason. */
static int
daemon_start_child(void)
{
	pid_t	pid;
	int	ready[2], status;
	char	c;

	if (pipe2(ready, O_CLOEXEC) == -1)
		err(1, "pipe");
	if ((pid = fork()) == -1)
		err(1, "fork");
	if (pid == 0) {
		close(ready[0]);
		if (setsid() == -1)
			err(1, "setsid");
		return ready[1];
	}
	close(ready[1]);
	if (read(ready[0], &c, 1) == 1)
		_exit(0);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		continue;
	_exit(WIFEXITED(status) && WEXITSTATUS(status) != 0 ?
	    WEXITSTATUS(status) : 1);
}

static void
daemon_ready(int fd, int verbose)
{
	int	null;

	if ((null = open("/dev/null", O_RDWR)) == -1)
		fatal("/dev/null");
	log_init("gated", 0, verbose);
	dup2(null, STDIN_FILENO);
	dup2(null, STDOUT_FILENO);
	dup2(null, STDERR_FILENO);
	if (null > STDERR_FILENO)
		close(null);
	if (write(fd, "r", 1) != 1)
		log_warn("cannot say the gate is ready");
	close(fd);
}

int
main(int argc, char *argv[])
{
	struct daemon_start	 d = { .name = "gated",
				    .usage = "[-dnVv] [-c dir]" };
	struct config		*conf;
	int			 ready = -1;

	conf = daemon_start(&d, argc, argv);
	gate_list(&gate, conf);
	if (!d.foreground)
		ready = daemon_start_child();
	gate_start(&gate);
	if (!d.foreground)
		daemon_ready(ready, d.verbose);
	landlock_gate(&gate);
	filter_gate();
	serve(&gate);
	return 0;
}
