/*
 * Just enough of NETLINK_ROUTE for the gate's routes: a request that
 * waits for its acknowledgement, and a dump read to its end.
 */
#ifndef SANDCASTLE_NETLINK_H
#define SANDCASTLE_NETLINK_H

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <stddef.h>

#define NL_BUFSZ	32768

struct nlreq {
	struct nlmsghdr	 n;
	struct rtmsg	 r;
	char		 attrs[256];
};

int	nl_open(void);
/* Adds attribute type with len bytes of data; -1 when it does not fit. */
int	nl_attr(struct nlreq *, int type, const void *data, size_t len);
/* Sends req and returns 0, or the kernel's -errno. */
int	nl_talk(int fd, struct nlreq *req);
/* Dumps type for family, calling cb for each message; -1 on error. */
int	nl_dump(int fd, int type, unsigned char family,
	    void (*cb)(const struct nlmsghdr *, void *), void *arg);

#endif
