/*
 * Linux hands a stream's SCM_RIGHTS to the recvmsg(2) that reads the byte
 * it came with: each message is one sendmsg(2), and only a message whose
 * header starts in that read's span may take the descriptor.
 */

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "msg.h"

/* The first read buffer, and the most kept once a large message is taken. */
#define MSG_RBUF_INIT	(64 * 1024)
/* Room to see, and close, what a hostile peer sends. */
#define MSG_MAXFDS	8

struct msgout {
	TAILQ_ENTRY(msgout)	 entry;
	size_t			 size;
	size_t			 off;
	int			 fd;
	unsigned char		 buf[];
};

static ssize_t	msgout_send(int, const struct msgout *);
static void	msgout_free(struct msgchan *, struct msgout *);
static int	msgchan_room(struct msgchan *);
static void	msgchan_compact(struct msgchan *);
static ssize_t	msgchan_recv(struct msgchan *);
static int	msgchan_take_fds(struct msgchan *, struct msghdr *, size_t,
		    size_t);
static int	msg_check_hdr(const struct msgchan *, const struct msg_hdr *);
static int	msg_wait(int, short);

void
msgchan_init(struct msgchan *chan, int fd, size_t maxpayload)
{
	memset(chan, 0, sizeof(*chan));
	chan->fd = fd;
	chan->maxpayload = maxpayload > UINT32_MAX ? UINT32_MAX : maxpayload;
	chan->rfd = -1;
	TAILQ_INIT(&chan->outq);
}

void
msgchan_clear(struct msgchan *chan)
{
	struct msgout	*mo;

	while ((mo = TAILQ_FIRST(&chan->outq)) != NULL)
		msgout_free(chan, mo);
	if (chan->wipe && chan->rbuf != NULL)
		explicit_bzero(chan->rbuf, chan->rsize);
	free(chan->rbuf);
	chan->rbuf = NULL;
	chan->rpos = chan->rlen = chan->rsize = 0;
	if (chan->rfd != -1)
		close(chan->rfd);
	chan->rfd = -1;
	chan->rfdoff = chan->rfdend = 0;
}

int
msg_compose(struct msgchan *chan, uint32_t type, uint32_t id, int fd,
    const void *data, size_t len)
{
	struct iovec	 iov;

	iov.iov_base = (void *)data;
	iov.iov_len = len;
	return msg_composev(chan, type, id, fd, &iov, len > 0 ? 1 : 0);
}

/* The peer has the same maxpayload: a larger message fails here, not there. */
int
msg_composev(struct msgchan *chan, uint32_t type, uint32_t id, int fd,
    const struct iovec *iov, int iovcnt)
{
	struct msgout	*mo;
	struct msg_hdr	 hdr;
	size_t		 len = 0, off;
	int		 i;

	if (iovcnt < 0 || fd < -1) {
		errno = EINVAL;
		return -1;
	}
	for (i = 0; i < iovcnt; i++) {
		if (iov[i].iov_len > chan->maxpayload - len) {
			errno = EMSGSIZE;
			return -1;
		}
		len += iov[i].iov_len;
	}
	if ((mo = malloc(sizeof(*mo) + sizeof(hdr) + len)) == NULL)
		return -1;
	memset(&hdr, 0, sizeof(hdr));
	hdr.type = type;
	hdr.id = id;
	hdr.flags = fd != -1 ? MSGF_FD : 0;
	hdr.len = (uint32_t)len;
	memcpy(mo->buf, &hdr, sizeof(hdr));
	for (i = 0, off = sizeof(hdr); i < iovcnt; off += iov[i++].iov_len)
		if (iov[i].iov_len > 0)
			memcpy(mo->buf + off, iov[i].iov_base, iov[i].iov_len);
	mo->size = off;
	mo->off = 0;
	mo->fd = fd;
	TAILQ_INSERT_TAIL(&chan->outq, mo, entry);
	chan->outqlen++;
	return 0;
}

static void
msgout_free(struct msgchan *chan, struct msgout *mo)
{
	TAILQ_REMOVE(&chan->outq, mo, entry);
	chan->outqlen--;
	if (mo->fd != -1)
		close(mo->fd);
	if (chan->wipe)
		explicit_bzero(mo->buf, mo->size);
	free(mo);
}

static ssize_t
msgout_send(int sock, const struct msgout *mo)
{
	union {
		struct cmsghdr	hdr;
		unsigned char	buf[CMSG_SPACE(sizeof(int))];
	}		 cbuf;
	struct msghdr	 mh;
	struct iovec	 iov;
	struct cmsghdr	*cm;

	memset(&mh, 0, sizeof(mh));
	iov.iov_base = (void *)(mo->buf + mo->off);
	iov.iov_len = mo->size - mo->off;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (mo->fd != -1) {
		memset(&cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf.buf;
		mh.msg_controllen = sizeof(cbuf.buf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &mo->fd, sizeof(int));
	}
	return sendmsg(sock, &mh, MSG_NOSIGNAL);
}

int
msgchan_flush(struct msgchan *chan)
{
	struct msgout	*mo;
	ssize_t		 n;

	while ((mo = TAILQ_FIRST(&chan->outq)) != NULL) {
		if ((n = msgout_send(chan->fd, mo)) == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 1;
			return -1;
		}
		/* The descriptor went with the first byte: ours is done. */
		if (mo->fd != -1) {
			close(mo->fd);
			mo->fd = -1;
		}
		mo->off += (size_t)n;
		if (mo->off == mo->size)
			msgout_free(chan, mo);
	}
	return 0;
}

static int
msg_wait(int fd, short events)
{
	struct pollfd	 pfd;

	pfd.fd = fd;
	pfd.events = events;
	for (;;) {
		if (poll(&pfd, 1, -1) != -1)
			return 0;
		if (errno != EINTR)
			return -1;
	}
}

int
msgchan_flush_all(struct msgchan *chan)
{
	int	 r;

	while ((r = msgchan_flush(chan)) == 1)
		if (msg_wait(chan->fd, POLLOUT) == -1)
			return -1;
	return r;
}

static void
msgchan_compact(struct msgchan *chan)
{
	size_t	 left = chan->rlen - chan->rpos;

	if (chan->rpos == 0)
		return;
	if (chan->wipe)
		explicit_bzero(chan->rbuf, chan->rpos);
	if (left == 0 && chan->rsize > MSG_RBUF_INIT) {
		free(chan->rbuf);
		chan->rbuf = NULL;
		chan->rsize = 0;
	} else if (left > 0) {
		memmove(chan->rbuf, chan->rbuf + chan->rpos, left);
		/* What was moved is still behind it, where it was. */
		if (chan->wipe)
			explicit_bzero(chan->rbuf + left, chan->rlen - left);
	}
	chan->rfdoff = chan->rfdoff > chan->rpos ?
	    chan->rfdoff - chan->rpos : 0;
	chan->rfdend = chan->rfdend > chan->rpos ?
	    chan->rfdend - chan->rpos : 0;
	chan->rlen = left;
	chan->rpos = 0;
}

static int
msgchan_room(struct msgchan *chan)
{
	size_t		 cap = sizeof(struct msg_hdr) + chan->maxpayload;
	size_t		 want;
	unsigned char	*p;

	msgchan_compact(chan);
	if (chan->rlen < chan->rsize)
		return 0;
	if (chan->rsize >= cap) {
		/* A whole message waits: the caller did not drain msg_get(). */
		errno = ENOBUFS;
		return -1;
	}
	want = chan->rsize == 0 ? MSG_RBUF_INIT : chan->rsize * 2;
	if (want > cap)
		want = cap;
	if (chan->wipe) {
		/* realloc() would leave the old bytes behind, unzeroed. */
		if ((p = malloc(want)) == NULL)
			return -1;
		if (chan->rbuf != NULL) {
			memcpy(p, chan->rbuf, chan->rlen);
			explicit_bzero(chan->rbuf, chan->rsize);
			free(chan->rbuf);
		}
	} else if ((p = realloc(chan->rbuf, want)) == NULL)
		return -1;
	chan->rbuf = p;
	chan->rsize = want;
	return 0;
}

/* Two descriptors, or one while another waits: close them all, not guess. */
static int
msgchan_take_fds(struct msgchan *chan, struct msghdr *mh, size_t off,
    size_t n)
{
	struct cmsghdr	*cm;
	int		 fds[MSG_MAXFDS], fd;
	size_t		 nfds = 0, i, k;

	for (cm = CMSG_FIRSTHDR(mh); cm != NULL; cm = CMSG_NXTHDR(mh, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < k; i++) {
			memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int),
			    sizeof(int));
			if (nfds < MSG_MAXFDS)
				fds[nfds++] = fd;
			else
				close(fd);
		}
	}
	if (nfds == 1 && chan->rfd == -1 && !(mh->msg_flags & MSG_CTRUNC)) {
		chan->rfd = fds[0];
		chan->rfdoff = off;
		chan->rfdend = off + n;
		return 0;
	}
	for (i = 0; i < nfds; i++)
		close(fds[i]);
	if (nfds == 0 && !(mh->msg_flags & MSG_CTRUNC))
		return 0;
	errno = EPROTO;
	return -1;
}

static ssize_t
msgchan_recv(struct msgchan *chan)
{
	union {
		struct cmsghdr	hdr;
		unsigned char	buf[CMSG_SPACE(sizeof(int) * MSG_MAXFDS)];
	}		 cbuf;
	struct msghdr	 mh;
	struct iovec	 iov;
	ssize_t		 n;
	size_t		 off = chan->rlen;

	memset(&mh, 0, sizeof(mh));
	iov.iov_base = chan->rbuf + off;
	iov.iov_len = chan->rsize - off;
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf.buf;
	mh.msg_controllen = sizeof(cbuf.buf);
	do {
		n = recvmsg(chan->fd, &mh, MSG_CMSG_CLOEXEC);
	} while (n == -1 && errno == EINTR);
	if (n == -1)
		return -1;
	chan->rlen += (size_t)n;
	if (msgchan_take_fds(chan, &mh, off, (size_t)n) == -1)
		return -1;
	return n;
}

ssize_t
msgchan_read(struct msgchan *chan)
{
	ssize_t	 n;

	if (msgchan_room(chan) == -1)
		return -1;
	if ((n = msgchan_recv(chan)) == 0 &&
	    (chan->rlen > chan->rpos || chan->rfd != -1)) {
		errno = EPROTO;
		return -1;
	}
	return n;
}

/* On the header alone: its size, flags and whose the held descriptor is. */
static int
msg_check_hdr(const struct msgchan *chan, const struct msg_hdr *hdr)
{
	size_t	 start = chan->rpos;
	size_t	 end = start + sizeof(*hdr) + hdr->len;

	if (hdr->flags & ~MSGF_FD) {
		errno = EPROTO;
		return -1;
	}
	if (hdr->len > chan->maxpayload) {
		errno = EMSGSIZE;
		return -1;
	}
	if (hdr->flags & MSGF_FD) {
		/* The read of its first byte would have brought it. */
		if (chan->rfd == -1 || start < chan->rfdoff ||
		    start >= chan->rfdend) {
			errno = EPROTO;
			return -1;
		}
	} else if (chan->rfd != -1 && end >= chan->rfdend) {
		/* No later header starts where the descriptor came. */
		errno = EPROTO;
		return -1;
	}
	return 0;
}

int
msg_get(struct msgchan *chan, struct msg *m)
{
	struct msg_hdr	 hdr;
	size_t		 avail = chan->rlen - chan->rpos;

	if (chan->rfd != -1 && chan->rpos >= chan->rfdend) {
		errno = EPROTO;
		return -1;
	}
	if (avail < sizeof(hdr))
		return 0;
	memcpy(&hdr, chan->rbuf + chan->rpos, sizeof(hdr));
	if (msg_check_hdr(chan, &hdr) == -1)
		return -1;
	if (avail - sizeof(hdr) < hdr.len)
		return 0;
	m->data = NULL;
	if (hdr.len > 0) {
		if ((m->data = malloc(hdr.len)) == NULL)
			return -1;
		memcpy(m->data, chan->rbuf + chan->rpos + sizeof(hdr), hdr.len);
	}
	m->type = hdr.type;
	m->id = hdr.id;
	m->len = hdr.len;
	m->fd = -1;
	if (hdr.flags & MSGF_FD) {
		m->fd = chan->rfd;
		chan->rfd = -1;
	}
	/* Taken: its bytes are the caller's alone now. */
	if (chan->wipe)
		explicit_bzero(chan->rbuf + chan->rpos, sizeof(hdr) + hdr.len);
	chan->rpos += sizeof(hdr) + hdr.len;
	return 1;
}

int
msg_read_one(struct msgchan *chan, struct msg *m)
{
	ssize_t	 n;
	int	 r;

	while ((r = msg_get(chan, m)) == 0) {
		if (msg_wait(chan->fd, POLLIN) == -1)
			return -1;
		if ((n = msgchan_read(chan)) == 0)
			return 0;
		if (n == -1 && errno != EAGAIN && errno != EWOULDBLOCK)
			return -1;
	}
	return r;
}

void
msg_free(struct msg *m)
{
	free(m->data);
	m->data = NULL;
	m->len = 0;
	if (m->fd != -1)
		close(m->fd);
	m->fd = -1;
}

const struct msg_rule *
msg_rule_find(const struct msg_rule *rules, size_t nrules, uint32_t type)
{
	size_t	 i;

	for (i = 0; i < nrules; i++)
		if (rules[i].type == type)
			return &rules[i];
	return NULL;
}

int
msg_check_set(const struct msg_rule *rules, size_t nrules, uint32_t set,
    const struct msg *m, char *why, size_t whysz)
{
	const struct msg_rule	*r;

	if ((r = msg_rule_find(rules, nrules, m->type)) == NULL)
		snprintf(why, whysz, "unknown type");
	else if (set != MSG_ANY && (m->type >= 32 ||
	    !(set & MSG_BIT(m->type))))
		snprintf(why, whysz, "not a message this process takes");
	else if (m->len < r->minlen)
		snprintf(why, whysz, "shorter than the %zu bytes expected",
		    r->minlen);
	else if (m->len > r->maxlen)
		snprintf(why, whysz, "longer than the %zu bytes allowed",
		    r->maxlen);
	else if (r->fd == 1 && m->fd == -1)
		snprintf(why, whysz, "a descriptor was expected, none came");
	else if (r->fd == 0 && m->fd != -1)
		snprintf(why, whysz, "a descriptor came, none was expected");
	else
		return 0;
	return -1;
}

int
msg_check(const struct msg_rule *rules, size_t nrules, const struct msg *m,
    char *why, size_t whysz)
{
	return msg_check_set(rules, nrules, MSG_ANY, m, why, whysz);
}

void
msg_verify_set(const struct msg_rule *rules, size_t nrules, uint32_t set,
    const struct msg *m, const char *peer)
{
	const struct msg_rule	*r;
	const char		*name;
	char			 why[128], num[32];

	if (msg_check_set(rules, nrules, set, m, why, sizeof(why)) == 0)
		return;
	snprintf(num, sizeof(num), "type %u", m->type);
	r = msg_rule_find(rules, nrules, m->type);
	name = r != NULL && r->name != NULL ? r->name : num;
	fatalx("%s sent %s of %zu bytes: %s", peer, name, m->len, why);
}

void
msg_verify(const struct msg_rule *rules, size_t nrules, const struct msg *m,
    const char *peer)
{
	msg_verify_set(rules, nrules, MSG_ANY, m, peer);
}

uint32_t
msg_takes(const struct msg_rule *rules, size_t nrules, uint32_t side)
{
	uint32_t	 set = 0;
	size_t		 i;

	for (i = 0; i < nrules; i++)
		if (rules[i].type < 32 && (rules[i].from & ~side) != 0)
			set |= MSG_BIT(rules[i].type);
	return set;
}

int
msg_answers(const struct msg_rule *rules, size_t nrules, uint32_t question,
    const struct msg *m)
{
	const struct msg_rule	*r = msg_rule_find(rules, nrules, m->type);

	return r != NULL && question < 32 && (r->pays & MSG_BIT(question));
}
