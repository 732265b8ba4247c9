/* Refused control connections: told why and held with the write side shut
 * a while, or a client still writing its CTL_HELLO would get EPIPE. */
#include <sys/types.h>
#include <sys/socket.h>

#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"
#include "log.h"
#include "msg.h"
#include "refused.h"

#define REFUSED_MAX	16
#define REFUSED_HOLD_MS	2000

struct refused {
	int		 used;
	int		 fd;
	long long	 until;		/* ms of CLOCK_MONOTONIC */
};

static struct refused	refused[REFUSED_MAX];
static int		refused_map[REFUSED_MAX];	/* pollfd -> slot */

static long long
refused_now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
refused_close(struct refused *r)
{
	close(r->fd);
	r->used = 0;
}

/* A free slot, else the one held longest: a flood of refusals holds 16 at most. */
static struct refused *
refused_slot(void)
{
	struct refused	*oldest = &refused[0];
	size_t		 i;

	for (i = 0; i < REFUSED_MAX; i++) {
		if (!refused[i].used)
			return &refused[i];
		if (refused[i].until < oldest->until)
			oldest = &refused[i];
	}
	refused_close(oldest);
	return oldest;
}

void
refused_hold(int fd, const char *reason)
{
	struct msgchan	 chan;
	struct refused	*r;

	msgchan_init(&chan, fd, CTL_MAXPAYLOAD);
	if (msg_compose(&chan, CTL_ERROR, 0, -1, reason, strlen(reason) + 1)
	    == 0)
		(void)msgchan_flush(&chan);
	msgchan_clear(&chan);
	shutdown(fd, SHUT_WR);
	r = refused_slot();
	r->used = 1;
	r->fd = fd;
	r->until = refused_now() + REFUSED_HOLD_MS;
}

/* With no event asked, poll(2) still reports the peer's close as POLLHUP. */
size_t
refused_pollfds(struct pollfd *pfd, size_t max)
{
	size_t	 i, n = 0;

	for (i = 0; i < REFUSED_MAX && n < max; i++) {
		if (!refused[i].used)
			continue;
		pfd[n].fd = refused[i].fd;
		pfd[n].events = 0;
		refused_map[n++] = i;
	}
	return n;
}

void
refused_dispatch(struct pollfd *pfd, size_t n)
{
	long long	 now = refused_now();
	size_t		 i;

	for (i = 0; i < n; i++)
		if (pfd[i].revents & (POLLHUP | POLLERR | POLLNVAL))
			refused_close(&refused[refused_map[i]]);
	for (i = 0; i < REFUSED_MAX; i++)
		if (refused[i].used && refused[i].until <= now)
			refused_close(&refused[i]);
}

int
refused_timeout(void)
{
	long long	 now = refused_now(), next = -1;
	size_t		 i;

	for (i = 0; i < REFUSED_MAX; i++)
		if (refused[i].used && (next == -1 || refused[i].until < next))
			next = refused[i].until;
	if (next == -1)
		return -1;
	return next <= now ? 0 : (int)(next - now);
}

size_t
refused_maxfds(void)
{
	return REFUSED_MAX;
}
