/* The requests' children as keepd holds them: spare, at work or warm. */
#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "dest.h"
#include "fetch.h"
#include "fetcher.h"
#include "fetchmsg.h"
#include "heapown.h"
#include "log.h"
#include "msg.h"
#include "secrets.h"
#include "tunnel.h"

TAILQ_HEAD(fetcherlist, fetcher);

/* Every child keepd has forked and not yet reaped: at work, warm, spare. */
#define FETCHER_PIDS_MAX	(64 + WARM_MAX + 1)
/* Spares ended untaken in a row, then none until a cold request. */
#define SPARE_LOST_MAX		3

static struct fetcherlist	 warm = TAILQ_HEAD_INITIALIZER(warm);
static size_t			 nwarm;
static const char		*fetcher_gatepath;
static pid_t			 fetcher_pids[FETCHER_PIDS_MAX];
static struct fetcher		*spare;
static int			 spare_lost;

/* Held until reaped: a burst may fill them, and a request is refused. */
static int
fetcher_pid_slot(void)
{
	int	 i;

	for (i = 0; i < FETCHER_PIDS_MAX; i++)
		if (fetcher_pids[i] == 0)
			return i;
	return -1;
}

void
fetcher_reaped(pid_t pid)
{
	size_t	 i;

	for (i = 0; i < FETCHER_PIDS_MAX; i++)
		if (fetcher_pids[i] == pid)
			fetcher_pids[i] = 0;
	if (spare != NULL && spare->pid == pid) {
		log_warnx("the spare request process %d ended untaken",
		    (int)pid);
		spare->pid = -1;
		fetcher_end(spare);
		spare = NULL;
		spare_lost++;
	}
}

int
fetcher_is_child(pid_t pid)
{
	size_t	 i;

	for (i = 0; pid > 0 && i < FETCHER_PIDS_MAX; i++)
		if (fetcher_pids[i] == pid)
			return 1;
	return 0;
}

/* A cold child's first with FETCH_DEST: the gate connects as it reads. */
int
fetcher_tunnel(struct fetcher *f)
{
	const struct destination *d = f->kd->d;
	char			 why[KEEP_REASON_MAX];
	int			 fd, r;

	if ((fd = tunnel_request(fetcher_gatepath, d->host, d->port, why,
	    sizeof(why))) == -1)
		r = msg_compose(&f->chan, FETCH_TUNNEL, 0, -1, why,
		    strlen(why));
	else if ((r = msg_compose(&f->chan, FETCH_TUNNEL, 0, fd, NULL,
	    0)) == -1)
		close(fd);
	if (r == -1 || msgchan_flush(&f->chan) == -1)
		return -1;
	f->tunnels++;
	return 0;
}

void
fetcher_init(const char *gatepath)
{
	fetcher_gatepath = gatepath;
}

/* The death signal set before the check: a keepd gone between is seen. */
static struct fetcher *
fetcher_fork(void)
{
	struct fetcher	*f;
	pid_t		 pid, keepd = getpid();
	int		 sp[2], slot;

	if ((slot = fetcher_pid_slot()) == -1 ||
	    (f = calloc(1, sizeof(*f))) == NULL)
		return NULL;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == -1) {
		free(f);
		return NULL;
	}
	if ((pid = fork()) == -1) {
		close(sp[0]);
		close(sp[1]);
		free(f);
		return NULL;
	}
	if (pid == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1 ||
		    getppid() != keepd)
			_exit(1);
		fetch_run(sp[1]);
	}
	fetcher_pids[slot] = pid;
	close(sp[1]);
	(void)fcntl(sp[0], F_SETFL, O_NONBLOCK);
	msgchan_init(&f->chan, sp[0], FETCH_MAXPAYLOAD);
	f->chan.wipe = 1;
	f->pid = pid;
	return f;
}

/* Made between requests, when no secret is in keepd's memory. */
void
fetcher_spare(void)
{
	if (spare != NULL || spare_lost >= SPARE_LOST_MAX)
		return;
	if ((spare = fetcher_fork()) == NULL) {
		log_warn("cannot make a spare request process");
		spare_lost++;
		return;
	}
	heap_own();
}

static struct fetcher *
fetcher_cold(const struct keep_dest *kd)
{
	struct fetcher	*f;

	spare_lost = 0;
	if ((f = spare) != NULL)
		spare = NULL;
	else if ((f = fetcher_fork()) == NULL)
		return NULL;
	f->kd = kd;
	log_debug("%s: its request process %d", kd->d->name, (int)f->pid);
	if (msg_compose(&f->chan, FETCH_DEST, 0, -1, kd->d->name,
	    strlen(kd->d->name)) == -1) {
		fetcher_end(f);
		return NULL;
	}
	return f;
}

void
fetcher_end(struct fetcher *f)
{
	if (f->pid != -1)
		(void)kill(f->pid, SIGKILL);
	close(f->chan.fd);
	msgchan_clear(&f->chan);
	free(f);
}

static void
fetcher_unwarm(struct fetcher *f)
{
	TAILQ_REMOVE(&warm, f, entry);
	nwarm--;
}

/* The secret goes at once, its buffer zeroed: no later fork finds it. */
static int
fetcher_send(struct fetcher *f, const void *env, size_t envlen,
    const struct secret *s)
{
	if (msg_compose(&f->chan, FETCH_SECRET, 0, -1, s->value,
	    s->len) == -1 || msgchan_flush_all(&f->chan) == -1)
		return -1;
	if (msg_compose(&f->chan, FETCH_REQUEST, 0, -1, env, envlen) == -1 ||
	    msgchan_flush(&f->chan) == -1)
		return -1;
	return 0;
}

struct fetcher *
fetcher_start(const struct keep_dest *kd, const void *env, size_t envlen,
    const struct secret *s)
{
	struct fetcher	*f;
	int		 tries;

	TAILQ_FOREACH(f, &warm, entry)
		if (f->kd == kd)
			break;
	if (f != NULL) {
		fetcher_unwarm(f);
		f->tunnels = 0;
		if (fetcher_send(f, env, envlen, s) == 0)
			return f;
		fetcher_end(f);
	}
	/* A spare that ended unreaped fails its first write: one more try. */
	for (tries = 0; tries < 2; tries++) {
		if ((f = fetcher_cold(kd)) == NULL)
			return NULL;
		if (fetcher_tunnel(f) == 0 &&
		    fetcher_send(f, env, envlen, s) == 0)
			return f;
		fetcher_end(f);
	}
	return NULL;
}

void
fetcher_keep(struct fetcher *f)
{
	struct fetcher	*o;

	TAILQ_FOREACH(o, &warm, entry)
		if (o->kd == f->kd)
			break;
	if (o == NULL && nwarm >= WARM_MAX)
		o = TAILQ_FIRST(&warm);
	if (o != NULL) {
		fetcher_unwarm(o);
		fetcher_end(o);
	}
	clock_gettime(CLOCK_MONOTONIC, &f->idle_end);
	f->idle_end.tv_sec += WARM_IDLE_SECONDS;
	TAILQ_INSERT_TAIL(&warm, f, entry);
	nwarm++;
}

size_t
fetcher_warm_pollfds(struct pollfd *pfd, struct fetcher **slot, size_t max)
{
	struct fetcher	*f;
	size_t		 n = 0;

	TAILQ_FOREACH(f, &warm, entry) {
		if (n == max)
			break;
		pfd[n].fd = f->chan.fd;
		pfd[n].events = POLLIN;
		slot[n++] = f;
	}
	return n;
}

/* A warm child has nothing to say: a byte or its end, and it is done. */
void
fetcher_warm_input(struct fetcher *f)
{
	log_debug("%s: its warm request process %d spoke or ended",
	    f->kd->d->name, (int)f->pid);
	fetcher_unwarm(f);
	fetcher_end(f);
}

void
fetcher_warm_expire(const struct timespec *now)
{
	struct fetcher	*f, *t;

	TAILQ_FOREACH_SAFE(f, &warm, entry, t) {
		if (now->tv_sec < f->idle_end.tv_sec ||
		    (now->tv_sec == f->idle_end.tv_sec &&
		    now->tv_nsec < f->idle_end.tv_nsec))
			continue;
		fetcher_unwarm(f);
		fetcher_end(f);
	}
}

/* The warm child to end first: the list is in the order they went idle. */
const struct timespec *
fetcher_warm_first(void)
{
	struct fetcher	*f;

	return (f = TAILQ_FIRST(&warm)) != NULL ? &f->idle_end : NULL;
}

void
fetcher_end_all(void)
{
	struct fetcher	*f;

	while ((f = TAILQ_FIRST(&warm)) != NULL) {
		fetcher_unwarm(f);
		fetcher_end(f);
	}
	if (spare != NULL)
		fetcher_end(spare);
	spare = NULL;
}
