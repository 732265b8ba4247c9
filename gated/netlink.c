/*
 * NETLINK_ROUTE by hand, not a library's: the kernel's route lookup is the
 * second barrier's proof, so the asking is ours to check.
 */
#include <sys/socket.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "netlink.h"

static unsigned int	nl_seq;

int
nl_open(void)
{
	int	fd;

	if ((fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC,
	    NETLINK_ROUTE)) == -1)
		fatal("netlink socket");
	return fd;
}

void
nl_request(struct nlreq *req, int type, int flags, const void *hdr,
    size_t hdrlen)
{
	memset(req, 0, sizeof(*req));
	if (hdrlen > sizeof(req->body))
		fatalx("netlink: a header of %zu bytes", hdrlen);
	req->n.nlmsg_len = NLMSG_LENGTH(hdrlen);
	req->n.nlmsg_type = type;
	req->n.nlmsg_flags = flags;
	memcpy(NLMSG_DATA(&req->n), hdr, hdrlen);
}

int
nl_attr(struct nlreq *req, int type, const void *data, size_t len)
{
	struct rtattr	*rta;
	size_t		 off = NLMSG_ALIGN(req->n.nlmsg_len);

	if (off + RTA_SPACE(len) > sizeof(*req))
		return -1;
	rta = (struct rtattr *)((char *)req + off);
	rta->rta_type = type;
	rta->rta_len = RTA_LENGTH(len);
	memcpy(RTA_DATA(rta), data, len);
	req->n.nlmsg_len = off + RTA_SPACE(len);
	return 0;
}

const void *
nl_rta(const struct rtattr *rta, size_t len)
{
	return RTA_PAYLOAD(rta) == len ? RTA_DATA(rta) : NULL;
}

static int
nl_send(int fd, struct nlmsghdr *n)
{
	struct sockaddr_nl	sa;

	memset(&sa, 0, sizeof(sa));
	sa.nl_family = AF_NETLINK;
	n->nlmsg_seq = ++nl_seq;
	if (sendto(fd, n, n->nlmsg_len, 0, (struct sockaddr *)&sa,
	    sizeof(sa)) != (ssize_t)n->nlmsg_len)
		return -1;
	return 0;
}

/* 0, a negative errno from the kernel, or -EIO. */
static int
nl_read(int fd, nl_cb cb, void *arg)
{
	static char		 buf[NL_BUFSZ];
	struct nlmsghdr		*h;
	struct nlmsgerr		*e;
	ssize_t			 n;

	for (;;) {
		if ((n = recv(fd, buf, sizeof(buf), 0)) == -1) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)n);
		    h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != nl_seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return 0;
			if (h->nlmsg_type == NLMSG_ERROR) {
				if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
					return -EIO;
				e = NLMSG_DATA(h);
				return e->error;
			}
			if (cb != NULL)
				cb(h, arg);
		}
		if (n != 0)
			return -EIO;
	}
}

int
nl_talk(int fd, struct nlreq *req, nl_cb cb, void *arg)
{
	req->n.nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	if (nl_send(fd, &req->n) == -1)
		return -errno;
	return nl_read(fd, cb, arg);
}

int
nl_dump(int fd, int type, unsigned char family, nl_cb cb, void *arg)
{
	struct nlreq	req;
	struct rtgenmsg	g = { .rtgen_family = family };
	int		r;

	nl_request(&req, type, NLM_F_REQUEST | NLM_F_DUMP, &g, sizeof(g));
	if (nl_send(fd, &req.n) == -1)
		return -1;
	if ((r = nl_read(fd, cb, arg)) != 0) {
		errno = -r;
		return -1;
	}
	return 0;
}
