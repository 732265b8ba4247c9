/*
 * The keep-frontend: the only process that will talk to keepd over
 * keep.sock.  It will check that an envelope names a configured
 * destination, forward it and return the answer.  Its filter allows
 * Unix sockets only (sandbox_keepfe()).
 */
#include <sys/types.h>

#include <stddef.h>

#include "config.h"
#include "log.h"
#include "msg.h"
#include "sandcastled.h"

static struct config	*keepfe_conf;

static void
keepfe_dispatch(struct msg *m)
{
	/* msg_verify() let through only what the (empty) rule table lists. */
	fatalx("keep-frontend: no message from the parent is handled yet "
	    "(type %u)", m->type);
}

void
keepfe_run(struct config *conf, struct msgchan *chan)
{
	keepfe_conf = conf;
	sandbox_keepfe();
	child_ready(chan);
	log_debug("ready: %zu sources", keepfe_conf->nsources);
	child_loop(chan, NULL, 0, "the parent", keepfe_dispatch);
}
