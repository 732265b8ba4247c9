/*
 * A request's child, forked as a spare with no secret: its lock goes on
 * before it reads a byte, so a flaw in TLS or HTTP reaches one secret.
 */
#include <sys/types.h>
#include <sys/uio.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "answer.h"
#include "codeidle.h"
#include "conn.h"
#include "dest.h"
#include "envelope.h"
#include "fetch.h"
#include "fetchmsg.h"
#include "heapown.h"
#include "http.h"
#include "keep.h"
#include "keepbody.h"
#include "lock.h"
#include "log.h"
#include "msg.h"
#include "tunnel.h"

#define FETCH_FD	3
#define FETCH_READSZ	(64 * 1024)
#define FETCH_RETRY	2	/* beside HTTP_DONE and HTTP_ERROR */

struct fetch {
	const struct keep_dest	*kd;
	struct msgchan		 chan;
	struct conn		*conn;
	struct http_response	 resp;
	char			*req;		/* with its secret */
	size_t			 reqlen;
	int			 extra;		/* bytes came past the answer */
	int			 bodyfd;
	struct msg		 tunnel;
	int			 has_tunnel;
	char			 why[KEEP_REASON_MAX];
};

static void
fetch_isolate(int fd)
{
	sigset_t	 none;
	int		 sig;

	for (sig = 1; sig < NSIG; sig++)
		(void)signal(sig, SIG_DFL);
	/* A tunnel the gate closed is an error to report, not a death. */
	(void)signal(SIGPIPE, SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (fd != FETCH_FD && dup2(fd, FETCH_FD) == -1)
		fatal("dup2");
	/* The secrets folder, keep.sock and every client go here. */
	closefrom(FETCH_FD + 1);
	log_procname("fetch");
}

static void
fetch_send(struct fetch *f, uint32_t type, int fd, const struct iovec *iov,
    int n)
{
	if (msg_composev(&f->chan, type, 0, fd, iov, n) == -1 ||
	    msgchan_flush_all(&f->chan) == -1)
		_exit(1);
}

static __attribute__((noreturn)) void
fetch_refuse(struct fetch *f, enum keep_refusal code)
{
	struct keep_refused	 r;
	struct iovec		 iov[2];

	http_request_free(f->req, f->reqlen);
	f->req = NULL;
	r.code = code;
	r.reason_len = strlen(f->why);
	iov[0].iov_base = &r;
	iov[0].iov_len = sizeof(r);
	iov[1].iov_base = f->why;
	iov[1].iov_len = r.reason_len;
	fetch_send(f, FETCH_REFUSED, -1, iov, 2);
	_exit(0);
}

/* FETCH_KEEP first when the connection stays for the next request. */
static void
fetch_answer(struct fetch *f, int keep)
{
	struct http_response	*h = &f->resp;
	struct keep_answer	 a;
	struct iovec		 iov[2];
	int			 fd = -1;

	if (h->status >= 300 && h->status < 400 && h->location != NULL)
		(void)msg_compose(&f->chan, FETCH_LOCATION, 0, -1, h->location,
		    strnlen(h->location, FETCH_LOCATION_MAX));
	if (keepbody_seal(f->bodyfd, NULL, 0, h->bodylen) == -1) {
		(void)snprintf(f->why, sizeof(f->why), "the keep cannot seal "
		    "the body: %s", strerror(errno));
		fetch_refuse(f, KEEP_R_INTERNAL);
	}
	if (h->bodylen > 0)
		fd = f->bodyfd;
	else
		close(f->bodyfd);
	f->bodyfd = -1;
	if (keep)
		(void)msg_compose(&f->chan, FETCH_KEEP, 0, -1, NULL, 0);
	a.status = h->status;
	a.retry_after = answer_retry_after(h->retry_after, time(NULL));
	a.ctype_len = h->content_type != NULL ? strlen(h->content_type) : 0;
	a.body_len = h->bodylen;
	iov[0].iov_base = &a;
	iov[0].iov_len = sizeof(a);
	iov[1].iov_base = h->content_type;
	iov[1].iov_len = a.ctype_len;
	fetch_send(f, FETCH_ANSWER, fd, iov, 2);
	http_response_free(h);
	if (!keep)
		_exit(0);
}

static void
fetch_get(struct fetch *f, uint32_t type, struct msg *m)
{
	int	 r;

	if ((r = msg_read_one(&f->chan, m)) == 0)
		_exit(0);
	if (r == -1 || m->type != type ||
	    fetch_check(FETCH_CHILD, m, f->why, sizeof(f->why)) == -1)
		_exit(1);
}

/* For this child's destination alone, whatever keepd sent; secret zeroed. */
static void
fetch_take(struct fetch *f)
{
	static struct envelope	 env;
	struct msg		 sm, em;
	const char		*why;
	int			 r;

	fetch_get(f, FETCH_SECRET, &sm);
	fetch_get(f, FETCH_REQUEST, &em);
	if (envelope_parse(&env, em.data, em.len, dest_known, NULL, f->why,
	    sizeof(f->why)) == -1 || strcmp(env.destination,
	    f->kd->d->name) != 0) {
		explicit_bzero(sm.data, sm.len);
		(void)snprintf(f->why, sizeof(f->why), "the keep's request "
		    "process serves another destination");
		fetch_refuse(f, KEEP_R_INTERNAL);
	}
	r = http_request_build(f->kd->d, &env, f->kd->auth, sm.data, sm.len,
	    &f->req, &f->reqlen, &why);
	explicit_bzero(sm.data, sm.len);
	msg_free(&sm);
	msg_free(&em);
	if (r == -1) {
		(void)snprintf(f->why, sizeof(f->why), "%s", why);
		fetch_refuse(f, KEEP_R_HTTP);
	}
}

/* keepd writes the CONNECT: the child has no socket(2) or connect(2). */
static void
fetch_connect(struct fetch *f)
{
	struct msg	 m;
	uint32_t	 code;
	int		 tfd;

	if (f->has_tunnel) {
		m = f->tunnel;
		f->has_tunnel = 0;
	} else {
		fetch_send(f, FETCH_TUNNEL, -1, NULL, 0);
		fetch_get(f, FETCH_TUNNEL, &m);
	}
	if ((tfd = m.fd) == -1) {
		(void)snprintf(f->why, sizeof(f->why), "%.*s", (int)m.len,
		    m.data != NULL ? (const char *)m.data : "");
		msg_free(&m);
		fetch_refuse(f, KEEP_R_GATE);
	}
	m.fd = -1;
	msg_free(&m);
	if (tunnel_await(tfd, f->why, sizeof(f->why), &code) == -1)
		fetch_refuse(f, code);
	if (conn_start(f->conn, tfd, f->why, sizeof(f->why)) == -1)
		fetch_refuse(f, KEEP_R_TLS);
}

/* FETCH_RETRY when a kept connection ended before a byte of the answer. */
static int
fetch_read(struct fetch *f, unsigned char *buf, int reused)
{
	size_t	 used, got = 0;
	ssize_t	 n;
	int	 r = HTTP_MORE;

	http_response_init(&f->resp, 0);
	http_response_body_to(&f->resp, f->bodyfd);
	f->extra = 0;
	while (r == HTTP_MORE) {
		n = conn_read(f->conn, buf, FETCH_READSZ, f->why,
		    sizeof(f->why));
		if (n <= 0 && got == 0 && reused)
			return FETCH_RETRY;
		if (n == -1)
			return HTTP_ERROR;
		if (n == 0)
			r = http_response_eof(&f->resp);
		else {
			got += n;
			r = http_response_feed(&f->resp, buf, n, &used);
			f->extra = r == HTTP_DONE && used < (size_t)n;
		}
	}
	if (r == HTTP_ERROR)
		(void)snprintf(f->why, sizeof(f->why), "%s", f->resp.why);
	return r;
}

static int
fetch_exchange(struct fetch *f, unsigned char *buf, int reused)
{
	if (conn_write(f->conn, f->req, f->reqlen) == -1) {
		if (reused)
			return FETCH_RETRY;
		(void)snprintf(f->why, sizeof(f->why), "writing the request: "
		    "%s", conn_error(f->conn));
		return HTTP_ERROR;
	}
	return fetch_read(f, buf, reused);
}

static void
fetch_one(struct fetch *f)
{
	static unsigned char	 buf[FETCH_READSZ];
	void			*none;
	int			 reused, r;

	fetch_take(f);
	if ((f->bodyfd = keepbody_open(0, &none)) == -1) {
		(void)snprintf(f->why, sizeof(f->why), "the keep cannot hold "
		    "a body: %s", strerror(errno));
		fetch_refuse(f, KEEP_R_INTERNAL);
	}
	if ((reused = f->conn->fd != -1) && !conn_alive(f->conn)) {
		conn_close(f->conn);
		reused = 0;
	}
	do {
		if (f->conn->fd == -1)
			fetch_connect(f);
		if ((r = fetch_exchange(f, buf, reused)) == FETCH_RETRY) {
			conn_close(f->conn);
			reused = 0;
		}
	} while (r == FETCH_RETRY);
	http_request_free(f->req, f->reqlen);
	f->req = NULL;
	if (r == HTTP_ERROR)
		fetch_refuse(f, KEEP_R_HTTP);
	/* A capability's request is never sent twice: its connection goes. */
	fetch_answer(f, http_response_reusable(&f->resp) && !f->extra &&
	    f->kd->d->cap < 0);
}

static void
fetch_dest(struct fetch *f)
{
	struct msg	 m;
	char		 name[NAME_LEN + 1];

	fetch_get(f, FETCH_DEST, &m);
	memcpy(name, m.data, m.len);
	name[m.len] = '\0';
	msg_free(&m);
	if ((f->kd = dest_find(name)) == NULL)
		_exit(1);
	f->conn = f->kd->conn;
	/* Mapped while keepd asks for the tunnel, never at rest (keepd(8)). */
	if (f->conn->cfg != NULL)
		code_busy(keepd_tls_libs);
	fetch_get(f, FETCH_TUNNEL, &f->tunnel);
	f->has_tunnel = 1;
}

void
fetch_run(int fd)
{
	static struct fetch	 f;
	int			 abi;

	fetch_isolate(fd);
	f.bodyfd = -1;
	msgchan_init(&f.chan, FETCH_FD, FETCH_MAXPAYLOAD);
	f.chan.wipe = 1;
	heap_own();
	abi = landlock_fetch();
	sandbox_fetch();
	log_debug("spare request process %d ready: landlock ABI %d, seccomp "
	    "filter on", (int)getpid(), abi);
	fetch_dest(&f);
	for (;;)
		fetch_one(&f);
}
