/*
 * The core: the engine.  It will ask the sources for work through the
 * keep-frontend, decide what runs, hand jobs to the box launcher and
 * write the records under data_dir.  It can make no socket and run no
 * program (sandbox_core()).
 */
#include <sys/types.h>

#include <stddef.h>

#include "config.h"
#include "log.h"
#include "msg.h"
#include "sandcastled.h"

static struct config	*core_conf;

static void
core_dispatch(struct msg *m)
{
	/* msg_verify() let through only what the (empty) rule table lists. */
	fatalx("core: no message from the parent is handled yet (type %u)",
	    m->type);
}

void
core_run(struct config *conf, struct msgchan *chan)
{
	core_conf = conf;
	sandbox_core();
	child_ready(chan);
	log_debug("ready: %zu sources, records under %s", core_conf->nsources,
	    core_conf->data_dir);
	child_loop(chan, NULL, 0, "the parent", core_dispatch);
}
