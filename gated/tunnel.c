/*
 * One tunnel, in a child under a filter put on before its client came; no
 * byte sent after the request reaches a destination before the decision.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "connect.h"
#include "deadline.h"
#include "gate.h"
#include "log.h"
#include "policy.h"
#include "refusal.h"

struct ask {
	struct connect_req	 req;
	const struct destination *dest;
	char			 pending[CONNECT_HEADERS_MAX];
	size_t			 npending;
	struct sockaddr_in	 chosen;
	int			 has_addr;
};

static void
answer(int fd, const char *status, const char *header, const char *value)
{
	char	buf[1024];
	int	n;

	if (header == NULL)
		n = snprintf(buf, sizeof(buf), "HTTP/1.1 %s\r\n\r\n", status);
	else
		n = snprintf(buf, sizeof(buf), "HTTP/1.1 %s\r\n%s: %s\r\n\r\n",
		    status, header, value);
	if (n > 0 && (size_t)n < sizeof(buf))
		(void)send(fd, buf, n, MSG_NOSIGNAL);
}

static __attribute__((noreturn)) void
bad_request(int fd, const char *status, const char *why)
{
	log_warnx("bad request: %s", why);
	answer(fd, status, "Sandcastle-Error", why);
	_exit(0);
}

/* As gated's user namespace sees it: the operator is 0, others overflow. */
static void
peer_check(int fd)
{
	struct ucred	cr;
	socklen_t	len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == -1)
		fatal("SO_PEERCRED");
	if (cr.uid == geteuid())
		return;
	log_warnx("refused a connection from pid %ld: uid %u in the gate's "
	    "namespace is not the gate's own", (long)cr.pid,
	    (unsigned int)cr.uid);
	answer(fd, "403 Forbidden", "Sandcastle-Error",
	    "not the gate's own user");
	_exit(0);
}

static enum connect_state
request_feed(struct ask *a, const char *buf, size_t n)
{
	enum connect_state	st;
	size_t			used;

	st = connect_feed(&a->req, buf, n, &used);
	if (st == CONNECT_DONE) {
		a->npending = n - used;
		memcpy(a->pending, buf + used, a->npending);
	}
	return st;
}

static void
request_read(int fd, struct ask *a)
{
	struct timespec		deadline;
	struct pollfd		pfd = { fd, POLLIN, 0 };
	char			buf[CONNECT_HEADERS_MAX];
	enum connect_state	st = CONNECT_MORE;
	ssize_t			n;
	int			ms;

	deadline_set(&deadline, GATE_REQUEST_SECS);
	connect_init(&a->req);
	while (st == CONNECT_MORE) {
		if ((ms = deadline_ms(&deadline)) == 0 || poll(&pfd, 1, ms) == 0)
			bad_request(fd, "408 Request Timeout",
			    "no whole request within 10 s");
		if ((n = recv(fd, buf, sizeof(buf), 0)) == -1 &&
		    (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			log_debug("the client left before its request ended");
			_exit(0);
		}
		st = request_feed(a, buf, n);
	}
	if (st == CONNECT_ERROR && !a->req.literal)
		bad_request(fd, "400 Bad Request", a->req.why);
}

static __attribute__((noreturn)) void
refuse(const struct gate *g, int fd, const struct ask *a, enum refusal r)
{
	struct refusal_rec	rec;
	char			ip[INET_ADDRSTRLEN] = "-";
	const char		*host = a->req.literal ? "-" : a->req.host;

	memset(&rec, 0, sizeof(rec));
	rec.when = time(NULL);
	strlcpy(rec.dest, a->dest ? a->dest->name : "-", sizeof(rec.dest));
	strlcpy(rec.host, host, sizeof(rec.host));
	rec.port = a->req.port;
	rec.code = r;
	if ((rec.has_addr = a->has_addr))
		rec.addr = a->chosen.sin_addr;
	if (rec.has_addr)
		inet_ntop(AF_INET, &rec.addr, ip, sizeof(ip));
	log_info("refused %s: %s:%u %s: %s", rec.dest, host, a->req.port, ip,
	    policy_reason(r));
	answer(fd, "403 Forbidden", "Sandcastle-Refusal", policy_reason(r));
	if (rec.port != 0 && refusal_append_fd(g->refusalfd, &rec) == -1)
		log_warn("%s: the refusal is not recorded", g->refusals);
	_exit(0);
}

/* GATE_NOCHECK (a test build) skips it: the second barrier alone refuses. */
static enum refusal
decide(const struct gate *g, struct ask *a)
{
	struct in_addr	 addrs[GATE_ADDRS_MAX];
	const char	*reason, *why = NULL;
	size_t		 n = 0;
	enum refusal	 r;

	if (!a->dest->has_internal) {
		n = resolve_name(a->req.host, addrs, GATE_ADDRS_MAX, &why);
		if (n == 0)
			log_debug("%s: %s", a->req.host, why ? why : "no address");
	}
	r = policy_check(a->dest, addrs, n, g->own, g->nown, &a->chosen,
	    &reason);
#ifdef GATE_NOCHECK
	if (r != REFUSAL_NONE && n > 0) {
		a->chosen.sin_addr = addrs[0];
		r = REFUSAL_NONE;
	}
#endif
	a->has_addr = a->dest->has_internal || n > 0;
	return r;
}

static int
dial_wait(int s)
{
	struct pollfd	pfd = { s, POLLOUT, 0 };
	socklen_t	len = sizeof(int);
	int		r, err;

	if ((r = poll(&pfd, 1, GATE_CONNECT_SECS * 1000)) == 0)
		return ETIMEDOUT;
	if (r == -1)
		return errno;
	if (getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
		return errno;
	return err;
}

/* A connected socket, or -1 with *err set: EACCES from a prohibit route. */
static int
dial(const struct sockaddr_in *sin, int *err)
{
	int	s;

	if ((s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    0)) == -1) {
		*err = errno;
		return -1;
	}
	if (connect(s, (const struct sockaddr *)sin, sizeof(*sin)) == 0)
		return s;
	*err = errno == EINPROGRESS ? dial_wait(s) : errno;
	if (*err == 0)
		return s;
	close(s);
	return -1;
}

static __attribute__((noreturn)) void
open_tunnel(int fd, const struct ask *a, unsigned int idle)
{
	char	ip[INET_ADDRSTRLEN], why[192];
	int	s, err;

	inet_ntop(AF_INET, &a->chosen.sin_addr, ip, sizeof(ip));
	if ((s = dial(&a->chosen, &err)) == -1) {
		/* pasta's reset of a refused connect lacks ACK: it is dropped. */
		if (err == ETIMEDOUT)
			snprintf(why, sizeof(why), "connect %s:%u: no answer "
			    "in %d s (through pasta, a port that refuses the "
			    "connection looks the same)", ip,
			    ntohs(a->chosen.sin_port), GATE_CONNECT_SECS);
		else
			snprintf(why, sizeof(why), "connect %s:%u: %s", ip,
			    ntohs(a->chosen.sin_port), strerror(err));
		log_warnx("cannot reach %s: %s:%u: %s", a->dest->name,
		    a->req.host, a->req.port, why);
		answer(fd, "502 Bad Gateway", "Sandcastle-Error", why);
		_exit(0);
	}
	log_info("tunnel %s: %s:%u via %s", a->dest->name, a->req.host,
	    a->req.port, ip);
	answer(fd, "200 Connection established", NULL, NULL);
	relay(fd, s, a->pending, a->npending, idle);
	_exit(0);
}

void
tunnel(const struct gate *g, int fd)
{
	static struct ask	a;
	enum refusal		r;
	unsigned int		call;

	alarm(GATE_TOTAL_SECS);
	memset(&a, 0, sizeof(a));
	peer_check(fd);
	request_read(fd, &a);
	if (a.req.literal)
		refuse(g, fd, &a, REFUSAL_LITERAL);
	if ((a.dest = policy_match(g->dests, g->ndests, a.req.host,
	    a.req.port)) == NULL)
		refuse(g, fd, &a, REFUSAL_UNLISTED);
	call = a.dest->call_seconds;
	/* The warm wait and the handshake come before a call: one margin more. */
	if (call + 2 * GATE_CALL_MARGIN > GATE_TOTAL_SECS)
		alarm(call + 2 * GATE_CALL_MARGIN);
	if ((r = decide(g, &a)) != REFUSAL_NONE)
		refuse(g, fd, &a, r);
	open_tunnel(fd, &a, call + GATE_CALL_MARGIN > GATE_IDLE_SECS ?
	    call + GATE_CALL_MARGIN : GATE_IDLE_SECS);
}
