/*
 * The per-request child.  It is forked for one envelope and holds one
 * secret, that destination's: it closes the secrets folder, keep.sock
 * and every client, puts on the stricter filter (no file, no fork, Unix
 * sockets only), and only then reads a byte from the gate or the
 * destination.  A flaw in TLS or in the HTTP parser reaches this
 * process alone.  What it learned goes back to keepd on fd FETCH_FD.
 */
#include <sys/types.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "keepbody.h"
#include "keepd.h"
#include "log.h"
#include "msg.h"

#define FETCH_FD	3
#define FETCH_READSZ	(64 * 1024)

struct fetch {
	struct secret		*secret;	/* zeroed once the request is built */
	struct msgchan		 chan;
	struct conn		 conn;
	struct http_response	 resp;
	int			 bodyfd;	/* the body's memfd */
	void			*bodymap;	/* mapped, HTTP_BODY_MAX */
	int			 populated;
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

static __attribute__((noreturn)) void
fetch_send(struct fetch *f, uint32_t type, int fd, const struct iovec *iov,
    int n)
{
	secret_free(f->secret);
	if (msg_composev(&f->chan, type, 0, fd, iov, n) == -1 ||
	    msgchan_flush_all(&f->chan) == -1)
		_exit(1);
	_exit(0);
}

static __attribute__((noreturn)) void
fetch_refuse(struct fetch *f, enum keep_refusal code)
{
	struct keep_refused	 r;
	struct iovec		 iov[2];

	r.code = code;
	r.reason_len = strlen(f->why);
	iov[0].iov_base = &r;
	iov[0].iov_len = sizeof(r);
	iov[1].iov_base = f->why;
	iov[1].iov_len = r.reason_len;
	fetch_send(f, KEEP_REFUSED, -1, iov, 2);
}

/* The body goes in a sealed memfd (keep.h), the rest in the message. */
static __attribute__((noreturn)) void
fetch_answer(struct fetch *f)
{
	struct http_response	*h = &f->resp;
	struct keep_answer	 a;
	struct iovec		 iov[2];
	int			 fd = -1;

	if (h->status >= 300 && h->status < 400 && h->location != NULL)
		(void)msg_compose(&f->chan, FETCH_LOCATION, 0, -1, h->location,
		    strnlen(h->location, FETCH_LOCATION_MAX));
	if (keepbody_seal(f->bodyfd, f->bodymap, HTTP_BODY_MAX,
	    h->bodylen) == -1) {
		(void)snprintf(f->why, sizeof(f->why), "the keep cannot seal "
		    "the body: %s", strerror(errno));
		fetch_refuse(f, KEEP_R_INTERNAL);
	}
	if (h->bodylen > 0)
		fd = f->bodyfd;
	else
		close(f->bodyfd);
	a.status = h->status;
	a.retry_after = answer_retry_after(h->retry_after, time(NULL));
	a.ctype_len = h->content_type != NULL ? strlen(h->content_type) : 0;
	a.body_len = h->bodylen;
	iov[0].iov_base = &a;
	iov[0].iov_len = sizeof(a);
	iov[1].iov_base = h->content_type;
	iov[1].iov_len = a.ctype_len;
	fetch_send(f, KEEP_ANSWER, fd, iov, 2);
}

/* The request is built, the secret zeroed and the request written. */
static int
fetch_request(struct fetch *f, const struct keep_dest *kd,
    const struct envelope *env, struct secret *s)
{
	const char	*why;
	char		*req;
	size_t		 reqlen;
	int		 r;

	r = http_request_build(kd->d, env, kd->auth, s->value, s->len, &req,
	    &reqlen, &why);
	secret_free(s);
	if (r == -1) {
		(void)snprintf(f->why, sizeof(f->why), "%s", why);
		return -1;
	}
	r = conn_write(&f->conn, req, reqlen);
	http_request_free(req, reqlen);
	if (r == -1)
		(void)snprintf(f->why, sizeof(f->why), "writing the request: "
		    "%s", conn_error(&f->conn));
	return r;
}

/*
 * Once the length is known, the body's pages at once: one call, where
 * faulting them in one by one costs a trap a page.
 */
static void
fetch_populate(struct fetch *f)
{
	if (f->populated || f->resp.content_length <= 0 ||
	    f->resp.content_length > HTTP_BODY_MAX)
		return;
	f->populated = 1;
	(void)madvise(f->bodymap, f->resp.content_length, MADV_POPULATE_WRITE);
}

/*
 * HTTP_DONE, or HTTP_ERROR with the reason in f->why.  The body is
 * parsed straight into its memfd: no copy of it is made on the way.
 */
static int
fetch_read(struct fetch *f, unsigned char *buf)
{
	size_t	 used;
	ssize_t	 n;
	int	 r = HTTP_MORE;

	http_response_init(&f->resp, 0);
	http_response_body_in(&f->resp, f->bodymap, HTTP_BODY_MAX);
	while (r == HTTP_MORE) {
		n = conn_read(&f->conn, buf, FETCH_READSZ, f->why,
		    sizeof(f->why));
		if (n == -1)
			return HTTP_ERROR;
		if (n == 0)
			r = http_response_eof(&f->resp);
		else
			r = http_response_feed(&f->resp, buf, n, &used);
		fetch_populate(f);
	}
	if (r == HTTP_ERROR)
		(void)snprintf(f->why, sizeof(f->why), "%s", f->resp.why);
	return r;
}

void
fetch_run(int fd, const struct keep_dest *kd, const struct envelope *env,
    struct secret *s, const char *gatepath)
{
	static unsigned char	 buf[FETCH_READSZ];
	static struct fetch	 f;
	const struct destination *d = kd->d;
	uint32_t		 code;
	int			 tfd;

	fetch_isolate(fd);
	f.secret = s;
	msgchan_init(&f.chan, FETCH_FD, MSG_MAXPAYLOAD);
	if (conn_prepare(&f.conn, kd, f.why, sizeof(f.why)) == -1)
		fetch_refuse(&f, KEEP_R_INTERNAL);
	landlock_fetch();
	sandbox_fetch();
	if ((f.bodyfd = keepbody_open(HTTP_BODY_MAX, &f.bodymap)) == -1) {
		(void)snprintf(f.why, sizeof(f.why), "the keep cannot hold "
		    "a body: %s", strerror(errno));
		fetch_refuse(&f, KEEP_R_INTERNAL);
	}
	if ((tfd = tunnel_open(gatepath, d->host, d->port, f.why,
	    sizeof(f.why), &code)) == -1)
		fetch_refuse(&f, code);
	if (conn_start(&f.conn, tfd, d->host, f.why, sizeof(f.why)) == -1)
		fetch_refuse(&f, KEEP_R_TLS);
	if (fetch_request(&f, kd, env, s) == -1)
		fetch_refuse(&f, KEEP_R_HTTP);
	if (fetch_read(&f, buf) == HTTP_ERROR)
		fetch_refuse(&f, KEEP_R_HTTP);
	fetch_answer(&f);
}
