/*
 * The tunnel's bytes both ways by splice(2), none copied into the gate; a
 * half close passes on by shutdown(2), as TLS close_notify and HTTP need.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "gate.h"
#include "log.h"

/* Asked of each pipe; a machine over its pipe budget gives less. */
#define RELAY_PIPESZ	(256 * 1024)

struct half {
	int		 from, to;
	int		 pipe[2];
	size_t		 size;		/* what the pipe holds at most */
	size_t		 len;
	int		 full;		/* out of slots before size */
	int		 eof, shut, failed;
};

static int
half_open(struct half *h, int from, int to)
{
	int	 n;

	memset(h, 0, sizeof(*h));
	h->from = from;
	h->to = to;
	if (pipe2(h->pipe, O_CLOEXEC | O_NONBLOCK) == -1)
		return -1;
	if ((n = fcntl(h->pipe[1], F_SETPIPE_SZ, RELAY_PIPESZ)) == -1)
		n = fcntl(h->pipe[1], F_GETPIPE_SZ);
	if (n <= 0)
		return -1;
	h->size = n;
	return 0;
}

static short
half_events(const struct half *h, int fd)
{
	short	ev = 0;

	if (h->from == fd && h->len < h->size && !h->full && !h->eof)
		ev |= POLLIN;
	if (h->to == fd && h->len > 0)
		ev |= POLLOUT;
	return ev;
}

static void
half_read(struct half *h)
{
	ssize_t	n;

	n = splice(h->from, NULL, h->pipe[1], NULL, h->size - h->len,
	    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
	/* Slots, not bytes, fill a pipe: marked full, or poll wakes at once. */
	if (n == -1 && errno == EAGAIN && h->len > 0) {
		h->full = 1;
		return;
	}
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		h->eof = 1;
		return;
	}
	h->len += n;
}

static void
half_write(struct half *h)
{
	ssize_t	n;

	n = splice(h->pipe[0], NULL, h->to, NULL, h->len,
	    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		h->failed = 1;
		return;
	}
	h->len -= n;
	h->full = 0;
}

/* Sent at once: the other side is most often ready, a poll(2) less. */
static void
half_step(struct half *h, short rin, short rout)
{
	if ((rin & (POLLIN | POLLHUP | POLLERR)) && h->len < h->size &&
	    !h->full && !h->eof)
		half_read(h);
	if (h->len > 0 && ((rout & (POLLOUT | POLLERR)) ||
	    (rin & POLLIN)))
		half_write(h);
	if (h->eof && h->len == 0 && !h->shut) {
		shutdown(h->to, SHUT_WR);
		h->shut = 1;
	}
}

static int
relay_poll(struct half *up, struct half *down, unsigned int idle)
{
	struct pollfd	pfd[2];
	int		r;

	pfd[0].fd = up->from;
	pfd[0].events = half_events(up, up->from) |
	    half_events(down, up->from);
	pfd[1].fd = up->to;
	pfd[1].events = half_events(up, up->to) | half_events(down, up->to);
	/* A side with nothing to wait for would wake poll with POLLHUP. */
	if (pfd[0].events == 0)
		pfd[0].fd = -1;
	if (pfd[1].events == 0)
		pfd[1].fd = -1;
	if ((r = poll(pfd, 2, idle * 1000)) <= 0)
		return r;
	if ((pfd[0].revents | pfd[1].revents) & (POLLERR | POLLNVAL)) {
		up->failed = 1;
		return 1;
	}
	half_step(up, pfd[0].revents, pfd[1].revents);
	half_step(down, pfd[1].revents, pfd[0].revents);
	return 1;
}

/* What the client sent after the request goes first: into the up pipe. */
static int
relay_pending(struct half *up, const void *pending, size_t npending)
{
	ssize_t	n;

	if (npending == 0)
		return 0;
	if (npending > up->size ||
	    (n = write(up->pipe[1], pending, npending)) != (ssize_t)npending)
		return -1;
	up->len = npending;
	return 0;
}

void
relay(int client, int server, const void *pending, size_t npending,
    unsigned int idle)
{
	static struct half	up, down;
	int			r;

	if (half_open(&up, client, server) == -1 ||
	    half_open(&down, server, client) == -1 ||
	    relay_pending(&up, pending, npending) == -1 ||
	    fcntl(client, F_SETFL, O_NONBLOCK) == -1 ||
	    fcntl(server, F_SETFL, O_NONBLOCK) == -1) {
		log_warn("the tunnel's pipes");
		return;
	}
	while (!(up.shut && down.shut) && !up.failed && !down.failed) {
		if ((r = relay_poll(&up, &down, idle)) == 0) {
			log_info("tunnel idle for %u s: closed", idle);
			return;
		}
		if (r == -1 && errno != EINTR) {
			log_warn("poll");
			return;
		}
	}
}
