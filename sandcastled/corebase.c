/* The core's lowest layer: its clock, a source's name, a call to the keep. */
#include <sys/types.h>
#include <sys/uio.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ask.h"
#include "corebase.h"
#include "ask.h"
#include "corebase.h"
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

/* Sends the envelope (and frees it) to the keep; take has its answer. */
void
core_call(struct core *c, size_t src, enum core_wait wait, char *envelope,
    size_t len, ask_take_fn *take)
{
	struct proc_keep_call	 pc = { 0 };	/* a source's: KEEP_CALL_SECONDS */
	struct iovec		 iov[2];

	if (envelope == NULL)
		fatal("a call to source %s", core_source(c, src));
	iov[0].iov_base = &pc;
	iov[0].iov_len = sizeof(pc);
	iov[1].iov_base = envelope;
	iov[1].iov_len = len;
	(void)ask_send(c->chan, PROC_KEEP_CALL, -1, iov, 2, take, c);
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

/* to may keep the answer, leaving a zeroed one. */
void
core_keep_answer(struct core *c, struct msg *m,
    void (*to)(struct core *, struct keepcli_answer *, const char *))
{
	struct keepcli_answer	 a;
	char			 down[PROC_REASON_MAX + 1];
	const char		*d = NULL;

	memset(&a, 0, sizeof(a));
	if (m->type == PROC_KEEP_DOWN) {
		(void)snprintf(down, sizeof(down), "%.*s", (int)m->len,
		    (char *)m->data);
		d = down;
	} else if (keepcli_answer_take(m, &a) == -1)
		fatalx("the parent sent a keep answer whose lengths do not "
		    "add up");
	else if (keepcli_answer_map(&a) == -1) {
		(void)snprintf(down, sizeof(down), "its body could not be "
		    "mapped: %s", strerror(errno));
		d = down;
	}
	to(c, &a, d);
	keepcli_answer_free(&a);
}
