/*
 * The tunnel's bytes, both ways, until both sides have closed: a side
 * that ends its half is passed on with shutdown(2), as TLS close_notify
 * and HTTP need.  The gate reads nothing of them.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "gate.h"
#include "log.h"

#define RELAY_BUFSZ	16384

struct half {
	int		 from, to;
	char		 buf[RELAY_BUFSZ];
	size_t		 len, off;
	int		 eof, shut, failed;
};

static short
half_events(const struct half *h, int fd)
{
	short	ev = 0;

	if (h->from == fd && h->len == 0 && !h->eof)
		ev |= POLLIN;
	if (h->to == fd && h->len > 0)
		ev |= POLLOUT;
	return ev;
}

static void
half_read(struct half *h)
{
	ssize_t	n;

	n = recv(h->from, h->buf, sizeof(h->buf), 0);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		h->eof = 1;
		return;
	}
	h->len = n;
	h->off = 0;
}

static void
half_write(struct half *h)
{
	ssize_t	n;

	n = send(h->to, h->buf + h->off, h->len - h->off, MSG_NOSIGNAL);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n == -1) {
		h->failed = 1;
		return;
	}
	h->off += n;
	if (h->off == h->len)
		h->len = h->off = 0;
}

/* revents of the fd this half reads from, then of the one it writes to. */
static void
half_step(struct half *h, short rin, short rout)
{
	if ((rin & (POLLIN | POLLHUP | POLLERR)) && h->len == 0 && !h->eof)
		half_read(h);
	if ((rout & (POLLOUT | POLLERR)) && h->len > 0)
		half_write(h);
	if (h->eof && h->len == 0 && !h->shut) {
		shutdown(h->to, SHUT_WR);
		h->shut = 1;
	}
}

static int
relay_poll(struct half *up, struct half *down)
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
	if ((r = poll(pfd, 2, GATE_IDLE_SECS * 1000)) <= 0)
		return r;
	if ((pfd[0].revents | pfd[1].revents) & (POLLERR | POLLNVAL)) {
		up->failed = 1;
		return 1;
	}
	half_step(up, pfd[0].revents, pfd[1].revents);
	half_step(down, pfd[1].revents, pfd[0].revents);
	return 1;
}

void
relay(int client, int server, const void *pending, size_t npending)
{
	static struct half	up, down;
	int			r;

	memset(&up, 0, sizeof(up));
	memset(&down, 0, sizeof(down));
	up.from = down.to = client;
	up.to = down.from = server;
	/* What the client sent after the request goes first, now. */
	memcpy(up.buf, pending, npending);
	up.len = npending;
	while (!(up.shut && down.shut) && !up.failed && !down.failed) {
		if ((r = relay_poll(&up, &down)) == 0) {
			log_info("tunnel idle for %d s: closed", GATE_IDLE_SECS);
			return;
		}
		if (r == -1 && errno != EINTR) {
			log_warn("poll");
			return;
		}
	}
}
