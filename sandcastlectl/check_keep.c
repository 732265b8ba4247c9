/*
 * check: the keep.  It answers on keep.sock with its protocol version and
 * the number of destinations it knows; without it, check goes on with
 * what it can read itself and stops before anything that needs the keep.
 */
#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "keep.h"
#include "msg.h"
#include "paths.h"
#include "usock.h"
#include "check.h"
#include "sandcastlectl.h"

#define KEEP_ANSWER_MS	5000

static const struct msg_rule keep_rules[] = {
	{ KEEP_HELLO, "hello", sizeof(struct keep_hello),
	    sizeof(struct keep_hello), 0 },
};

/* Waits for one message at most KEEP_ANSWER_MS; 1, or 0 with why. */
static int
keep_answer(struct msgchan *chan, struct msg *m, const char **why)
{
	struct pollfd	pfd = { chan->fd, POLLIN, 0 };
	ssize_t		n;
	int		r;

	for (;;) {
		if ((r = msg_get(chan, m)) != 0)
			break;
		if (poll(&pfd, 1, KEEP_ANSWER_MS) <= 0) {
			*why = "it did not answer in 5 s";
			return 0;
		}
		if ((n = msgchan_read(chan)) <= 0) {
			*why = n == 0 ? "it closed the connection" :
			    strerror(errno);
			return 0;
		}
	}
	if (r == -1) {
		*why = strerror(errno);
		return 0;
	}
	return 1;
}

static int
keep_hello(const char *path, uint32_t *ndest, const char **why)
{
	struct keep_hello	 hello = { KEEP_VERSION, 0 };
	struct msgchan		 chan;
	struct msg		 m;
	char			 reason[128];
	int			 fd, ok = 0;

	if ((fd = usock_connect(path)) == -1) {
		*why = strerror(errno);
		return 0;
	}
	msgchan_init(&chan, fd, 4096);
	if (msg_compose(&chan, KEEP_HELLO, 0, -1, &hello, sizeof(hello)) ==
	    -1 || msgchan_flush_all(&chan) == -1)
		*why = strerror(errno);
	else if (keep_answer(&chan, &m, why)) {
		if (msg_check(keep_rules, 1, &m, reason, sizeof(reason)) == -1)
			*why = "its answer is not the keep's hello";
		else {
			memcpy(&hello, m.data, sizeof(hello));
			if (hello.version != KEEP_VERSION)
				*why = "it speaks another protocol version: "
				    "restart it with this build";
			else {
				*ndest = hello.ndestinations;
				ok = 1;
			}
		}
		msg_free(&m);
	}
	msgchan_clear(&chan);
	close(fd);
	return ok;
}

int
check_keep(struct check *c)
{
	char		 path[PATH_MAX];
	const char	*why = NULL;
	uint32_t	 n = 0;

	if (path_runtime_file(KEEP_SOCK, path, sizeof(path)) == -1) {
		check_line(c, MARK_FAIL, "keep: %s", path_why());
		return 0;
	}
	if (keep_hello(path, &n, &why)) {
		c->keep = 1;
		check_line(c, MARK_OK, "keep: ready at %s, with %u "
		    "destination(s)", path, (unsigned)n);
	} else
		check_line(c, MARK_FAIL, "keep: the keep does not answer at "
		    "%s (%s); start it with keepd", path, why);
	return 0;
}
