/*
 * One hop of the daemons' messages for a test: out flushed, the next
 * message taken from in, and the bytes in's socket carried for it.
 *
 * Included by one test program each; every function is static.
 */
#ifndef REGRESS_HOP_H
#define REGRESS_HOP_H

#include <atf-c.h>

#include "msg.h"

static size_t __attribute__((unused))
hop(struct msgchan *out, struct msgchan *in, struct msg *m)
{
	size_t	 n = 0;
	ssize_t	 r;
	int	 got;

	ATF_REQUIRE(msgchan_flush_all(out) == 0);
	while ((got = msg_get(in, m)) == 0) {
		ATF_REQUIRE((r = msgchan_read(in)) > 0);
		n += r;
	}
	ATF_REQUIRE(got == 1);
	return n;
}

#endif
