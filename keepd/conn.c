/*
 * A connection inside the gate's tunnel: libtls, always verified, or plain
 * HTTP; its handshake bounded by CONN_HANDSHAKE_SECS, inside the keep's 30 s.
 */
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tls.h>

#include "conn.h"
#include "deadline.h"

const char *const keepd_tls_libs[] = { "libcrypto.so", "libssl.so",
    "libtls.so", NULL };

static ssize_t
conn_cbret(ssize_t n, int want)
{
	if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return want;
	return n;
}

/* libtls reads a record's header, then its body: one read serves many. */
#define CONN_RBUFSZ	(64 * 1024)
/* One connection a process: conn_start() and conn_close() empty it. */
static unsigned char	conn_rbuf[CONN_RBUFSZ];

static ssize_t
conn_rcb(struct tls *tls, void *buf, size_t len, void *arg)
{
	struct conn	*c = arg;
	ssize_t		 n;

	if (c->roff == c->rlen) {
		c->roff = c->rlen = 0;
		while ((n = read(c->fd, conn_rbuf, sizeof(conn_rbuf))) == -1 &&
		    errno == EINTR)
			;
		if (n <= 0)
			return conn_cbret(n, TLS_WANT_POLLIN);
		c->rlen = (size_t)n;
	}
	if (len > c->rlen - c->roff)
		len = c->rlen - c->roff;
	memcpy(buf, conn_rbuf + c->roff, len);
	c->roff += len;
	return (ssize_t)len;
}

static ssize_t
conn_wcb(struct tls *tls, const void *buf, size_t len, void *arg)
{
	const struct conn	*c = arg;
	ssize_t			 n;

	while ((n = write(c->fd, buf, len)) == -1 && errno == EINTR)
		;
	return conn_cbret(n, TLS_WANT_POLLOUT);
}

/* A libtls context up to the handshake, on the callbacks: no fd yet. */
static int
conn_ready(struct conn *c, char *why, size_t whysz)
{
	if (c->cfg == NULL || c->tls != NULL)
		return 0;
	if ((c->tls = tls_client()) == NULL) {
		(void)snprintf(why, whysz, "cannot make a TLS context");
		return -1;
	}
	if (tls_configure(c->tls, c->cfg) == -1 ||
	    tls_connect_cbs(c->tls, conn_rcb, conn_wcb, c, c->host) == -1) {
		(void)snprintf(why, whysz, "TLS with %s: %s", c->host,
		    tls_error(c->tls));
		tls_free(c->tls);
		c->tls = NULL;
		return -1;
	}
	return 0;
}

int
conn_prepare(struct conn *c, struct tls_config *cfg, const char *host,
    char *why, size_t whysz)
{
	c->fd = -1;
	c->tls = NULL;
	c->roff = c->rlen = 0;
	c->cfg = cfg;
	c->host = host;
	return conn_ready(c, why, whysz);
}

static int
conn_wait(int fd, int want, const struct timespec *deadline)
{
	struct pollfd	 pfd;
	int		 ms, n;

	pfd.fd = fd;
	pfd.events = want == TLS_WANT_POLLIN ? POLLIN : POLLOUT;
	for (;;) {
		if ((ms = deadline_ms(deadline)) == 0)
			return -1;
		if ((n = poll(&pfd, 1, ms)) > 0)
			return 0;
		if (n == -1 && errno != EINTR)
			return -1;
	}
}

static int
conn_handshake(struct conn *c, const char *host, char *why, size_t whysz)
{
	struct timespec	 deadline;
	int		 r;

	deadline_set(&deadline, CONN_HANDSHAKE_SECS);
	while ((r = tls_handshake(c->tls)) == TLS_WANT_POLLIN ||
	    r == TLS_WANT_POLLOUT) {
		if (conn_wait(c->fd, r, &deadline) == -1) {
			(void)snprintf(why, whysz, "TLS with %s: no handshake "
			    "within %d s", host, CONN_HANDSHAKE_SECS);
			return -1;
		}
	}
	if (r == -1) {
		(void)snprintf(why, whysz, "TLS with %s: %s", host,
		    tls_error(c->tls));
		return -1;
	}
	return 0;
}

int
conn_start(struct conn *c, int fd, char *why, size_t whysz)
{
	int	 flags, r;

	c->fd = fd;
	c->roff = c->rlen = 0;
	if (c->cfg == NULL)
		return 0;
	if (conn_ready(c, why, whysz) == -1)
		return -1;
	/* The handshake alone is non-blocking, to keep its deadline. */
	if ((flags = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, flags | O_NONBLOCK) == -1) {
		(void)snprintf(why, whysz, "TLS with %s: %s", c->host,
		    strerror(errno));
		return -1;
	}
	r = conn_handshake(c, c->host, why, whysz);
	if (fcntl(fd, F_SETFL, flags) == -1 && r == 0) {
		(void)snprintf(why, whysz, "TLS with %s: %s", c->host,
		    strerror(errno));
		return -1;
	}
	return r;
}

int
conn_write(struct conn *c, const char *buf, size_t len)
{
	ssize_t	 n;

	while (len > 0) {
		if (c->tls != NULL)
			n = tls_write(c->tls, buf, len);
		else
			n = write(c->fd, buf, len);
		if (n == TLS_WANT_POLLIN || n == TLS_WANT_POLLOUT ||
		    (n == -1 && c->tls == NULL && errno == EINTR))
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= n;
	}
	return 0;
}

ssize_t
conn_read(struct conn *c, void *buf, size_t len, char *why, size_t whysz)
{
	ssize_t	 n;

	for (;;) {
		if (c->tls != NULL)
			n = tls_read(c->tls, buf, len);
		else
			n = read(c->fd, buf, len);
		if (n == TLS_WANT_POLLIN || n == TLS_WANT_POLLOUT ||
		    (n == -1 && c->tls == NULL && errno == EINTR))
			continue;
		break;
	}
	if (n == -1)
		(void)snprintf(why, whysz, "reading the answer: %s",
		    c->tls != NULL ? tls_error(c->tls) : strerror(errno));
	return n;
}

/* Any byte, end or error means done; a session ticket libtls takes is alive. */
int
conn_alive(struct conn *c)
{
	unsigned char	 b;
	int		 flags, alive;

	if (c->fd == -1 || (flags = fcntl(c->fd, F_GETFL)) == -1 ||
	    fcntl(c->fd, F_SETFL, flags | O_NONBLOCK) == -1)
		return 0;
	if (c->tls != NULL)
		alive = tls_read(c->tls, &b, 1) == TLS_WANT_POLLIN;
	else
		alive = read(c->fd, &b, 1) == -1 && (errno == EAGAIN ||
		    errno == EWOULDBLOCK);
	if (fcntl(c->fd, F_SETFL, flags) == -1)
		return 0;
	return alive;
}

/* Without waiting: a close_notify that cannot go now is not sent. */
void
conn_close(struct conn *c)
{
	int	 flags;

	if (c->fd == -1)
		return;
	if (c->tls != NULL) {
		if ((flags = fcntl(c->fd, F_GETFL)) != -1)
			(void)fcntl(c->fd, F_SETFL, flags | O_NONBLOCK);
		(void)tls_close(c->tls);
		tls_free(c->tls);
		c->tls = NULL;
	}
	close(c->fd);
	c->fd = -1;
	c->roff = c->rlen = 0;
}

const char *
conn_error(struct conn *c)
{
	const char	*e;

	if (c->tls != NULL && (e = tls_error(c->tls)) != NULL)
		return e;
	return strerror(errno);
}
