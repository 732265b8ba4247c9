/* The core's lowest layer: its clock, a source's name, a call to the keep. */
#include <sys/types.h>
#include <sys/uio.h>

#include <stdlib.h>
#include <time.h>

#include "core.h"
#include "log.h"
#include "msg.h"
#include "proto.h"

time_t
core_now(void)
{
	struct timespec	 ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		fatal("clock_gettime");
	return ts.tv_sec;
}

const char *
core_source(const struct core *c, size_t i)
{
	return c->sched->srcs[i].src->name;
}

/* The id of the next question the core asks; never 0, never the launcher's. */
uint32_t
core_next_id(struct core *c)
{
	c->seq = (c->seq + 1) & ~PROC_ID_LAUNCHER;
	if (c->seq == 0)
		c->seq = 1;
	return c->seq;
}

/* Sends the envelope (and frees it) to the keep; its answer comes later. */
void
core_call(struct core *c, size_t src, enum core_wait wait, char *envelope,
    size_t len)
{
	struct proc_keep_call	 pc = { 0 };	/* a source's: KEEP_CALL_SECONDS */
	struct iovec		 iov[2];

	if (envelope == NULL)
		fatal("a call to source %s", core_source(c, src));
	iov[0].iov_base = &pc;
	iov[0].iov_len = sizeof(pc);
	iov[1].iov_base = envelope;
	iov[1].iov_len = len;
	if (msg_composev(c->chan, PROC_KEEP_CALL, core_next_id(c), -1, iov,
	    2) == -1)
		fatal("a call to the parent");
	free(envelope);
	c->wait = wait;
	c->src = src;
}

void
core_once_failed(struct core *c)
{
	c->once_failed = 1;
}

void
core_keep_down(struct core *c, const char *why)
{
	if (c->keep_up)
		log_warnx("the keep does not answer (%s): no source is asked "
		    "until it does; asking again every %d seconds", why,
		    CORE_KEEP_PROBE);
	c->keep_up = 0;
	c->probe_at = core_now() + CORE_KEEP_PROBE;
}
