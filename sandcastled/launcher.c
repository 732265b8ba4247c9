/*
 * The box launcher: the only process that will run a program, podman,
 * for each job and each check, and remove the boxes a crash left
 * behind.  Its filter is a deny list (sandbox_launcher()): podman
 * inherits it.
 */
#include <sys/types.h>

#include <stddef.h>

#include "config.h"
#include "log.h"
#include "msg.h"
#include "sandcastled.h"

static struct config	*launcher_conf;

static void
launcher_dispatch(struct msg *m)
{
	/* msg_verify() let through only what the (empty) rule table lists. */
	fatalx("box launcher: no message from the parent is handled yet "
	    "(type %u)", m->type);
}

void
launcher_run(struct config *conf, struct msgchan *chan)
{
	launcher_conf = conf;
	sandbox_launcher();
	child_ready(chan);
	log_debug("ready: claude %s, ocr %s",
	    launcher_conf->caps[CAP_CLAUDE].enabled ? "on" : "off",
	    launcher_conf->caps[CAP_OCR].enabled ? "on" : "off");
	child_loop(chan, NULL, 0, "the parent", launcher_dispatch);
}
