/* A client of keep.sock: one KEEP_REQUEST at a time, each run in a child. */
#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "answer.h"
#include "client.h"
#include "dest.h"
#include "envelope.h"
#include "fetcher.h"
#include "fetchmsg.h"
#include "keep.h"
#include "log.h"
#include "msg.h"
#include "secrets.h"
#include "usock.h"
#include "what.h"

#define CLIENT_MAX	64

static int		 client_secretsfd = -1;
static size_t		 client_count;

static void	client_next(struct client *);

void
client_init(int secretsfd)
{
	client_secretsfd = secretsfd;
}

/* fd, when not -1, goes with the message and is closed once sent. */
static void
client_send(struct client *c, uint32_t type, int fd, const void *data,
    size_t len)
{
	if (msg_compose(&c->chan, type, c->id, fd, data, len) == -1) {
		if (fd != -1)
			close(fd);
		log_warn("client pid %d: cannot queue an answer", (int)c->peer);
		c->closing = 1;
		return;
	}
	client_output(c);
}

static void
client_refuse(struct client *c, enum keep_refusal code, const char *reason)
{
	struct keep_refused	 r;
	struct iovec		 iov[2];

	r.code = code;
	r.reason_len = strnlen(reason, KEEP_REASON_MAX);
	iov[0].iov_base = &r;
	iov[0].iov_len = sizeof(r);
	iov[1].iov_base = (void *)reason;
	iov[1].iov_len = r.reason_len;
	if (msg_composev(&c->chan, KEEP_REFUSED, c->id, -1, iov, 2) == -1)
		c->closing = 1;
	client_output(c);
}

/* Before a byte is read: the operator, as keepd's namespace sees it. */
static int
client_peer_ok(int fd, pid_t *pid)
{
	struct ucred	 cred;
	socklen_t	 len = sizeof(cred);
	char		 reason[128];
	uid_t		 uid;
	struct msgchan	 chan;
	struct keep_refused r;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == -1) {
		log_warn("keep.sock: SO_PEERCRED");
		return 0;
	}
	*pid = cred.pid;
	if (usock_peer_is_self(fd, &uid) == 0)
		return 1;
	log_warnx("keep.sock: refused a client of uid %u (pid %d): not the "
	    "operator's", (unsigned int)cred.uid, (int)cred.pid);
	(void)snprintf(reason, sizeof(reason), "refused: uid %u is not the "
	    "operator's", (unsigned int)cred.uid);
	r.code = KEEP_R_PEER;
	r.reason_len = strlen(reason);
	msgchan_init(&chan, fd, sizeof(r) + sizeof(reason));
	if (msg_composev(&chan, KEEP_REFUSED, 0, -1, (struct iovec[]){
	    { &r, sizeof(r) }, { reason, r.reason_len } }, 2) == 0)
		(void)msgchan_flush(&chan);
	msgchan_clear(&chan);
	return 0;
}

/* A request's child has no socket(2); were it to reach keep.sock, refused. */
static int
client_own_child(pid_t pid)
{
	if (!fetcher_is_child(pid))
		return 0;
	log_warnx("keep.sock: refused pid %d: one of keepd's request "
	    "processes", (int)pid);
	return 1;
}

void
client_accept(int listenfd, struct clientlist *clients)
{
	struct client	*c;
	pid_t		 pid;
	int		 fd;

	if ((fd = accept4(listenfd, NULL, NULL, SOCK_NONBLOCK |
	    SOCK_CLOEXEC)) == -1) {
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			log_warn("keep.sock: accept");
		return;
	}
	if (!client_peer_ok(fd, &pid) || client_own_child(pid) ||
	    client_count >= CLIENT_MAX ||
	    (c = calloc(1, sizeof(*c))) == NULL) {
		if (client_count >= CLIENT_MAX)
			log_warnx("keep.sock: %d clients already: refused pid "
			    "%d", CLIENT_MAX, (int)pid);
		close(fd);
		return;
	}
	msgchan_init(&c->chan, fd, KEEP_MAXENVELOPE);
	c->peer = pid;
	TAILQ_INSERT_TAIL(clients, c, entry);
	client_count++;
	log_debug("keep.sock: client pid %d", (int)pid);
}

static void
client_child_end(struct client *c, int answered)
{
	if (c->f != NULL && answered && c->keep)
		fetcher_keep(c->f);
	else if (c->f != NULL)
		fetcher_end(c->f);
	c->f = NULL;
	c->keep = 0;
	free(c->location);
	c->location = NULL;
}

void
client_drop(struct clientlist *clients, struct client *c)
{
	client_child_end(c, 0);
	TAILQ_REMOVE(clients, c, entry);
	close(c->chan.fd);
	msgchan_clear(&c->chan);
	free(c);
	client_count--;
}

int
client_done(const struct client *c)
{
	return c->chan.fd == -1 || (c->closing && c->chan.outqlen == 0);
}

void
client_output(struct client *c)
{
	if (c->chan.fd != -1 && c->chan.outqlen > 0 &&
	    msgchan_flush(&c->chan) == -1) {
		if (errno != EPIPE && errno != ECONNRESET)
			log_warn("client pid %d", (int)c->peer);
		c->closing = 1;
		msgchan_clear(&c->chan);
	}
}

static void
client_what(struct client *c, const struct envelope *env)
{
	(void)snprintf(c->what, sizeof(c->what), "%s %s %s", env->destination,
	    envelope_method_name(env->method), env->path);
}

static int
client_fetch(struct client *c, const struct keep_dest *kd, const char *data,
    size_t len)
{
	struct secret	 s;
	char		 why[ENVELOPE_WHY_MAX], rule[128];

	/* Read for every request: a replaced secret counts from the next. */
	if (secret_read(client_secretsfd, kd->d->secret, &s, rule,
	    sizeof(rule)) == -1) {
		(void)snprintf(why, sizeof(why), "unusable secret: %s",
		    kd->d->secret);
		log_info("%s refused: %s (its file %s)", c->what, why, rule);
		client_refuse(c, KEEP_R_SECRET, why);
		return -1;
	}
	c->f = fetcher_start(kd, data, len, &s);
	secret_free(&s);
	if (c->f == NULL) {
		log_warn("%s refused: cannot start its process", c->what);
		client_refuse(c, KEEP_R_INTERNAL, "the keep cannot start a "
		    "process for the request: try again");
		return -1;
	}
	return 0;
}

static void
client_request(void *arg, struct msg *m)
{
	static struct envelope	 env;
	struct client		*c = arg;
	struct keep_request	 req;
	const struct keep_dest	*kd;
	const char		*data;
	size_t			 len;
	char			 why[ENVELOPE_WHY_MAX];

	c->id = m->id;
	if (!c->hello) {
		log_warnx("client pid %d: a request before its hello: closed",
		    (int)c->peer);
		client_refuse(c, KEEP_R_PROTOCOL, "a request before the hello");
		c->closing = 1;
		return;
	}
	memcpy(&req, m->data, sizeof(req));
	data = (const char *)m->data + sizeof(req);
	len = m->len - sizeof(req);
	if (envelope_parse(&env, data, len, dest_known, NULL, why,
	    sizeof(why)) == -1) {
		envelope_what(data, len, c->what, sizeof(c->what));
		log_info("%s refused: %s", c->what, why);
		client_refuse(c, KEEP_R_ENVELOPE, why);
		return;
	}
	client_what(c, &env);
	kd = dest_find(env.destination);
	if (client_fetch(c, kd, data, len) == -1)
		return;
	c->seconds = kd->d->call_seconds;
	if (req.seconds != 0 && req.seconds < c->seconds)
		c->seconds = req.seconds;
	clock_gettime(CLOCK_MONOTONIC, &c->deadline);
	c->deadline.tv_sec += c->seconds;
}

static void
client_hello(void *arg, struct msg *m)
{
	struct client		*c = arg;
	struct keep_hello	 h;
	char			 why[128];

	memcpy(&h, m->data, sizeof(h));
	c->id = m->id;
	if (c->hello || h.version != KEEP_VERSION) {
		if (c->hello)
			(void)snprintf(why, sizeof(why), "a second hello");
		else
			(void)snprintf(why, sizeof(why), "protocol version %u, "
			    "this keepd speaks %u", h.version, KEEP_VERSION);
		log_warnx("client pid %d: %s: closed", (int)c->peer, why);
		client_refuse(c, KEEP_R_PROTOCOL, why);
		c->closing = 1;
		return;
	}
	c->hello = 1;
	h.version = KEEP_VERSION;
	h.ndestinations = dest_count();
	client_send(c, KEEP_HELLO, -1, &h, sizeof(h));
}

static const struct msg_rule client_rules[] = {
	KEEP_ROWS(MSG_ROW)
};
#define CLIENT_NRULES	(sizeof(client_rules) / sizeof(client_rules[0]))

static void
client_message(struct client *c, struct msg *m)
{
	char	 why[128];

	if (msg_check_set(client_rules, CLIENT_NRULES, msg_takes(client_rules,
	    CLIENT_NRULES, KEEP_KEEPD), m, why, sizeof(why)) == -1) {
		log_warnx("client pid %d sent a malformed message (type %u, "
		    "%zu bytes: %s): closed", (int)c->peer, m->type, m->len,
		    why);
		c->closing = 1;
	} else
		msg_rule_find(client_rules, CLIENT_NRULES, m->type)->take(c, m);
}

static void
client_next(struct client *c)
{
	struct msg	 m;
	int		 r;

	while (!c->closing && c->f == NULL) {
		if ((r = msg_get(&c->chan, &m)) == 0)
			return;
		if (r == -1) {
			log_warn("client pid %d: closed", (int)c->peer);
			c->closing = 1;
			return;
		}
		client_message(c, &m);
		msg_free(&m);
	}
}

void
client_input(struct client *c)
{
	ssize_t	 n;

	if ((n = msgchan_read(&c->chan)) == -1 && (errno == EAGAIN ||
	    errno == EINTR))
		return;
	if (n <= 0) {
		c->closing = 1;
		msgchan_clear(&c->chan);
		close(c->chan.fd);
		c->chan.fd = -1;
		return;
	}
	client_next(c);
}

static void
client_request_end(struct client *c, int answered)
{
	client_child_end(c, answered);
	client_next(c);
}

int
client_answered(struct client *c, struct msg *m)
{
	uint32_t	 status;

	if (answer_check(m->data, m->len, m->fd, &status) == -1) {
		log_warnx("%s refused: its process sent a malformed answer",
		    c->what);
		client_refuse(c, KEEP_R_INTERNAL, "the keep's request process "
		    "failed");
		return 1;
	}
	if (c->location != NULL)
		log_info("%s %u (location %s, not followed)", c->what, status,
		    c->location);
	else
		log_info("%s %u", c->what, status);
	client_send(c, KEEP_ANSWER, m->fd, m->data, m->len);
	m->fd = -1;
	return 2;
}

int
client_refused(struct client *c, struct msg *m)
{
	struct keep_refused	 r;

	if (refused_check(m->data, m->len) == -1) {
		log_warnx("%s refused: its process sent a malformed refusal",
		    c->what);
		client_refuse(c, KEEP_R_INTERNAL, "the keep's request process "
		    "failed");
		return 1;
	}
	memcpy(&r, m->data, sizeof(r));
	log_info("%s refused: %.*s", c->what, (int)r.reason_len,
	    (const char *)m->data + sizeof(r));
	client_send(c, KEEP_REFUSED, -1, m->data, m->len);
	return 1;
}

int
client_location(struct client *c, struct msg *m)
{
	free(c->location);
	c->location = strndup(m->data != NULL ? m->data : "", m->len);
	return 0;
}

int
client_kept(struct client *c, struct msg *m)
{
	c->keep = 1;
	return 0;
}

int
client_tunnel(struct client *c, struct msg *m)
{
	const char	*why = NULL;

	if (m->fd != -1 || m->len != 0)
		why = "a tunnel asked with a payload";
	else if (c->f->tunnels >= FETCH_TUNNELS_MAX)
		why = "a third tunnel for one request";
	else if (fetcher_tunnel(c->f) == -1)
		why = "it cannot be handed its tunnel";
	if (why == NULL)
		return 0;
	log_warnx("%s refused: its process asked %s", c->what, why);
	client_refuse(c, KEEP_R_INTERNAL, "the keep's request process "
	    "failed");
	return 1;
}

static int
client_child_message(struct client *c, struct msg *m)
{
	char	 why[128];

	if (fetch_check(FETCH_KEEPD, m, why, sizeof(why)) == -1) {
		log_warnx("%s refused: its process sent a malformed message "
		    "(type %u: %s)", c->what, m->type, why);
		client_refuse(c, KEEP_R_INTERNAL, "the keep's request process "
		    "failed");
		return 1;
	}
	return fetch_msg(m->type)->take(c, m);
}

void
client_child_output(struct client *c)
{
	if (c->f == NULL || c->f->chan.outqlen == 0 ||
	    msgchan_flush(&c->f->chan) != -1)
		return;
	log_warnx("%s refused: its process ended before it took the request",
	    c->what);
	client_refuse(c, KEEP_R_INTERNAL, "the keep's request process ended "
	    "without an answer");
	client_request_end(c, 0);
}

void
client_child_input(struct client *c)
{
	struct msg	 m;
	ssize_t		 n;
	int		 r;

	if ((n = msgchan_read(&c->f->chan)) == -1 && (errno == EAGAIN ||
	    errno == EINTR))
		return;
	while (n > 0 && (r = msg_get(&c->f->chan, &m)) == 1) {
		r = client_child_message(c, &m);
		msg_free(&m);
		if (r) {
			client_request_end(c, r == 2);
			return;
		}
	}
	if (n <= 0 || r == -1) {
		log_warnx("%s refused: its process ended without an answer",
		    c->what);
		client_refuse(c, KEEP_R_INTERNAL, "the keep's request process "
		    "ended without an answer");
		client_request_end(c, 0);
	}
}

void
client_expire(struct client *c, const struct timespec *now)
{
	char	 why[64], d[32];

	if (c->f == NULL || now->tv_sec < c->deadline.tv_sec ||
	    (now->tv_sec == c->deadline.tv_sec &&
	    now->tv_nsec < c->deadline.tv_nsec))
		return;
	duration_fmt(c->seconds, d, sizeof(d));
	(void)snprintf(why, sizeof(why), "no answer within %s", d);
	log_info("%s refused: %s", c->what, why);
	client_refuse(c, KEEP_R_TIMEOUT, why);
	client_request_end(c, 0);
}
