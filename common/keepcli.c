/* The keep's client: each answer checked by the table, every wait bounded. */
#include <sys/types.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "deadline.h"
#include "keepbody.h"
#include "keepcli.h"
#include "msg.h"
#include "usock.h"

struct keepcli {
	struct msgchan	 chan;
	uint32_t	 ndest;
	uint32_t	 nextid;
	int		 broken;
	uint32_t	 asked;		/* the request in flight's id, 0 none */
	unsigned int	 seconds;
	struct timespec	 deadline;
};

static int
keepcli_read(struct keepcli *k, unsigned int seconds, struct msg *m,
    const char **why)
{
	struct pollfd	 pfd = { k->chan.fd, POLLIN, 0 };
	struct timespec	 deadline;
	char		 reason[128];
	ssize_t		 n;
	int		 r;

	deadline_set(&deadline, seconds);
	while ((r = msg_get(&k->chan, m)) == 0) {
		if ((r = poll(&pfd, 1, deadline_ms(&deadline))) == -1 &&
		    errno == EINTR)
			continue;
		if (r <= 0) {
			*why = r == 0 ? "the keep did not answer in time" :
			    strerror(errno);
			return -1;
		}
		if ((n = msgchan_read(&k->chan)) <= 0) {
			*why = n == 0 ? "the keep closed the connection" :
			    strerror(errno);
			return -1;
		}
	}
	if (r == -1) {
		*why = strerror(errno);
		return -1;
	}
	if (msg_check_set(keep_rules, keep_nrules, msg_takes(keep_rules,
	    keep_nrules, KEEP_CLIENT), m, reason, sizeof(reason)) == -1) {
		msg_free(m);
		*why = "the keep's answer breaks its protocol";
		return -1;
	}
	return 0;
}

struct keepcli *
keepcli_fdopen(int fd, const char **why)
{
	struct keep_hello	 hello = { KEEP_VERSION, 0 };
	struct keepcli		*k;
	struct msg		 m;

	if ((k = calloc(1, sizeof(*k))) == NULL) {
		*why = strerror(errno);
		close(fd);
		return NULL;
	}
	msgchan_init(&k->chan, fd, MSG_MAXPAYLOAD);
	k->nextid = 1;
	if (msg_compose(&k->chan, KEEP_HELLO, 0, -1, &hello,
	    sizeof(hello)) == -1 || msgchan_flush_all(&k->chan) == -1) {
		*why = strerror(errno);
		goto fail;
	}
	if (keepcli_read(k, KEEPCLI_HELLO_SECONDS, &m, why) == -1)
		goto fail;
	if (m.type != KEEP_HELLO) {
		*why = m.type == KEEP_REFUSED ? "the keep refused the hello" :
		    "the keep's answer is not its hello";
		msg_free(&m);
		goto fail;
	}
	memcpy(&hello, m.data, sizeof(hello));
	msg_free(&m);
	if (hello.version != KEEP_VERSION) {
		*why = "the keep speaks another protocol version: restart it "
		    "with this build";
		goto fail;
	}
	k->ndest = hello.ndestinations;
	return k;
fail:
	keepcli_close(k);
	return NULL;
}

struct keepcli *
keepcli_open(const char *path, const char **why)
{
	int	 fd;

	if ((fd = usock_connect(path)) == -1) {
		*why = strerror(errno);
		return NULL;
	}
	return keepcli_fdopen(fd, why);
}

uint32_t
keepcli_ndestinations(const struct keepcli *k)
{
	return k->ndest;
}

static int
keepcli_take_answer(struct msg *m, struct keepcli_answer *a)
{
	struct keep_answer	 h;
	const char		*p = (const char *)m->data + sizeof(h), *why;

	memcpy(&h, m->data, sizeof(h));
	if (h.ctype_len != m->len - sizeof(h) || h.body_len > KEEP_MAXBODY ||
	    (h.body_len == 0) != (m->fd == -1))
		return -1;
	if (m->fd != -1 && keepbody_check(m->fd, h.body_len, &why) == -1)
		return -1;
	if ((a->ctype = strndup(p, h.ctype_len)) == NULL)
		return -1;
	a->body_fd = m->fd;
	m->fd = -1;
	a->body_len = h.body_len;
	a->status = h.status;
	a->retry_after = h.retry_after;
	return 0;
}

static int
keepcli_take_refused(const struct msg *m, struct keepcli_answer *a)
{
	struct keep_refused	 h;
	size_t			 n, i;

	memcpy(&h, m->data, sizeof(h));
	if (h.reason_len != m->len - sizeof(h))
		return -1;
	n = h.reason_len < sizeof(a->reason) ? h.reason_len :
	    sizeof(a->reason) - 1;
	memcpy(a->reason, (const char *)m->data + sizeof(h), n);
	a->reason[n] = '\0';
	/* Text for a person and for a log line: no control byte in it. */
	for (i = 0; i < n; i++)
		if ((unsigned char)a->reason[i] < 0x20 || a->reason[i] == 0x7f)
			a->reason[i] = ' ';
	a->refused = 1;
	a->code = h.code;
	return 0;
}

int
keepcli_send(struct keepcli *k, const char *envelope, size_t len,
    unsigned int seconds, const char **why)
{
	struct keep_request	 req;
	struct iovec		 iov[2];

	if (k->broken || k->asked != 0) {
		*why = k->broken ? "the connection to the keep broke earlier" :
		    "a request is in flight on this connection";
		return -1;
	}
	if (seconds == 0 || seconds > KEEPCLI_CALL_MAX)
		seconds = seconds == 0 ? KEEP_CALL_SECONDS : KEEPCLI_CALL_MAX;
	k->broken = 1;
	if (len > KEEP_MAXENVELOPE - sizeof(req)) {
		*why = "the envelope is larger than the keep takes";
		return -1;
	}
	req.seconds = seconds;
	iov[0].iov_base = &req;
	iov[0].iov_len = sizeof(req);
	iov[1].iov_base = (void *)envelope;
	iov[1].iov_len = len;
	k->asked = k->nextid++;
	if (msg_composev(&k->chan, KEEP_REQUEST, k->asked, -1, iov, 2) == -1 ||
	    msgchan_flush_all(&k->chan) == -1) {
		*why = strerror(errno);
		return -1;
	}
	k->seconds = seconds;
	/* keepd ends the call first: this is for a keep that hangs. */
	deadline_set(&k->deadline, seconds + KEEPCLI_MARGIN);
	return 0;
}

int
keepcli_fd(const struct keepcli *k)
{
	return k->chan.fd;
}

int
keepcli_wait_ms(const struct keepcli *k)
{
	return k->asked != 0 ? deadline_ms(&k->deadline) : -1;
}

static int
keepcli_taken(struct keepcli *k, struct msg *m, struct keepcli_answer *a,
    const char **why)
{
	int	 r;

	memset(a, 0, sizeof(*a));
	a->body_fd = -1;
	if (m->id != k->asked || m->type == KEEP_HELLO)
		r = -1;
	else if (m->type == KEEP_ANSWER)
		r = keepcli_take_answer(m, a);
	else
		r = keepcli_take_refused(m, a);
	msg_free(m);
	if (r == -1) {
		keepcli_answer_free(a);
		*why = "the keep's answer breaks its protocol";
		return -1;
	}
	a->seconds = k->seconds;
	k->asked = 0;
	k->broken = 0;
	return 0;
}

int
keepcli_receive(struct keepcli *k, struct keepcli_answer *a, const char **why)
{
	struct msg	 m;
	char		 reason[128];
	ssize_t		 n;
	int		 r;

	if ((n = msgchan_read(&k->chan)) == 0 || (n == -1 && errno != EAGAIN &&
	    errno != EINTR)) {
		*why = n == 0 ? "the keep closed the connection" :
		    strerror(errno);
		return -1;
	}
	if ((r = msg_get(&k->chan, &m)) == -1) {
		*why = strerror(errno);
		return -1;
	}
	if (r == 0) {
		if (deadline_ms(&k->deadline) > 0)
			return 0;
		*why = "the keep did not answer in time";
		return -1;
	}
	if (msg_check_set(keep_rules, keep_nrules, msg_takes(keep_rules,
	    keep_nrules, KEEP_CLIENT), &m, reason, sizeof(reason)) == -1) {
		msg_free(&m);
		*why = "the keep's answer breaks its protocol";
		return -1;
	}
	return keepcli_taken(k, &m, a, why) == 0 ? 1 : -1;
}

int
keepcli_request(struct keepcli *k, const char *envelope, size_t len,
    unsigned int seconds, struct keepcli_answer *a, const char **why)
{
	struct msg	 m;

	memset(a, 0, sizeof(*a));
	a->body_fd = -1;
	if (keepcli_send(k, envelope, len, seconds, why) == -1 ||
	    keepcli_read(k, k->seconds + KEEPCLI_MARGIN, &m, why) == -1)
		return -1;
	return keepcli_taken(k, &m, a, why);
}

/* MAP_POPULATE: the pages at once; sealed at body_len, nothing lies past it. */
int
keepcli_answer_map(struct keepcli_answer *a)
{
	void	*p;

	if (a->body != NULL)
		return 0;
	if (a->body_len == 0) {
		a->body = "";
		return 0;
	}
	if ((p = mmap(NULL, a->body_len, PROT_READ, MAP_SHARED | MAP_POPULATE,
	    a->body_fd, 0)) == MAP_FAILED)
		return -1;
	a->map = p;
	a->body = p;
	return 0;
}

void
keepcli_answer_free(struct keepcli_answer *a)
{
	if (a->map != NULL)
		(void)munmap(a->map, a->body_len);
	if (a->body_len > 0 && a->body_fd != -1)
		close(a->body_fd);
	if (a->held != NULL)
		free(a->held);
	else
		free(a->ctype);
	memset(a, 0, sizeof(*a));
	a->body_fd = -1;
}

int
keepcli_answer_send(struct msgchan *chan, uint32_t type, uint32_t id,
    const struct keepcli_answer *a)
{
	static char		 nul[1];
	struct keepcli_wire	 h;
	struct iovec		 iov[5];
	int			 fd = -1, i, save;

	if (a->body_len > KEEP_MAXBODY) {
		errno = EMSGSIZE;
		return -1;
	}
	/* msg_compose() closes what it sends: the answer keeps its own. */
	if (a->body_len > 0 && (fd = fcntl(a->body_fd, F_DUPFD_CLOEXEC,
	    0)) == -1)
		return -1;
	memset(&h, 0, sizeof(h));
	h.refused = a->refused != 0;
	h.status = a->status;
	h.retry_after = a->retry_after;
	h.code = a->code;
	h.seconds = a->seconds;
	h.reason_len = strnlen(a->reason, sizeof(a->reason) - 1);
	h.ctype_len = a->ctype != NULL ? strnlen(a->ctype, KEEP_CTYPE_MAX) : 0;
	h.body_len = a->body_len;
	iov[0].iov_base = &h;
	iov[0].iov_len = sizeof(h);
	iov[1].iov_base = (void *)a->reason;
	iov[1].iov_len = h.reason_len;
	iov[3].iov_base = a->ctype;
	iov[3].iov_len = h.ctype_len;
	for (i = 2; i < 5; i += 2) {
		iov[i].iov_base = nul;
		iov[i].iov_len = 1;
	}
	if (msg_composev(chan, type, id, fd, iov, 5) == -1) {
		save = errno;
		if (fd != -1)
			close(fd);
		errno = save;
		return -1;
	}
	return 0;
}

int
keepcli_answer_take(struct msg *m, struct keepcli_answer *a)
{
	struct keepcli_wire	 h;
	char			*p = (char *)m->data + sizeof(h);
	const char		*why;

	memset(a, 0, sizeof(*a));
	a->body_fd = -1;
	if (m->len < KEEPCLI_WIRE_MIN)
		return -1;
	memcpy(&h, m->data, sizeof(h));
	if (h.reason_len >= sizeof(a->reason) || h.ctype_len > KEEP_CTYPE_MAX ||
	    h.body_len > KEEP_MAXBODY || KEEPCLI_WIRE_MIN +
	    (size_t)h.reason_len + h.ctype_len != m->len ||
	    p[h.reason_len] != '\0' || p[m->len - sizeof(h) - 1] != '\0' ||
	    (h.body_len == 0) != (m->fd == -1))
		return -1;
	/* Its sender is not trusted either: the seals and the size again. */
	if (m->fd != -1 && keepbody_check(m->fd, h.body_len, &why) == -1)
		return -1;
	a->refused = h.refused != 0;
	a->status = h.status;
	a->retry_after = h.retry_after;
	a->code = h.code;
	a->seconds = h.seconds;
	memcpy(a->reason, p, h.reason_len + 1);
	a->ctype = p + h.reason_len + 1;
	a->body_fd = m->fd;
	a->body_len = h.body_len;
	a->held = m->data;
	m->fd = -1;
	m->data = NULL;
	m->len = 0;
	return 0;
}

void
keepcli_close(struct keepcli *k)
{
	if (k == NULL)
		return;
	msgchan_clear(&k->chan);
	if (k->chan.fd != -1)
		close(k->chan.fd);
	free(k);
}
