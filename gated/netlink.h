/* Just enough of NETLINK_ROUTE for the gate's network. */
#ifndef SANDCASTLE_NETLINK_H
#define SANDCASTLE_NETLINK_H

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <stddef.h>

#define NL_BUFSZ	32768

struct nlreq {
	struct nlmsghdr	 n;
	char		 body[512];
};

typedef void	(*nl_cb)(const struct nlmsghdr *, void *);

int	nl_open(void);
void	nl_request(struct nlreq *req, int type, int flags, const void *hdr,
	    size_t hdrlen);
/* Adds attribute type with len bytes of data; -1 when it does not fit. */
int	nl_attr(struct nlreq *, int type, const void *data, size_t len);
/* Every other message of the exchange goes to cb.  0, or -errno. */
int	nl_talk(int fd, struct nlreq *req, nl_cb cb, void *arg);
int	nl_dump(int fd, int type, unsigned char family, nl_cb cb, void *arg);
/* The attribute's payload when it is exactly len bytes, else NULL. */
const void *nl_rta(const struct rtattr *, size_t len);

#endif
