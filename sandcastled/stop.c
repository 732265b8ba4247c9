/*
 * The parent's stop, in phases, while it goes on routing messages.
 *
 * The core first: it lets the claim or the job in flight end and sends
 * those jobs back released, and for that it needs the keep-frontend, so
 * that child stays until the core is gone (at most PROC_CORE_STOP
 * seconds).  The box launcher is told at once: the core runs no new job
 * while it stops, and the launcher removes the box that runs, if any.
 * Then the keep-frontend, and whatever outlives PROC_STOP_WAIT seconds
 * is killed.
 *
 * A child that ends may owe another an answer: a keep call, the keep's
 * state, a job's outcome.  The parent answers for it (the keep "does
 * not answer", the job "released"), so that no child waits for a
 * message that will never come.
 */
#include <sys/types.h>

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core.h"
#include "log.h"
#include "msg.h"
#include "proto.h"
#include "sandcastled.h"

#define PROC_CORE_STOP	(CORE_STOP_SECONDS + 5)
#define PROC_STOP_WAIT	5

/* What a child waits for from another, and who owes it. */
struct owed {
	int		 on;
	uint32_t	 id;
	enum proc_id	 from;		/* the child that owes the answer */
	enum proc_id	 to;		/* the child that waits for it */
};

static struct owed owed[OWE_COUNT] = {
	[OWE_PROBE] = { 0, 0, PROC_KEEPFE, PROC_CORE },
	[OWE_CORE_CALL] = { 0, 0, PROC_KEEPFE, PROC_CORE },
	[OWE_LAUNCHER_CALL] = { 0, 0, PROC_KEEPFE, PROC_LAUNCHER },
	[OWE_JOB] = { 0, 0, PROC_LAUNCHER, PROC_CORE },
};

static int	 stopping;
static int	 stop_status;
static time_t	 core_by;		/* the core is killed then */
static time_t	 rest_by;		/* the others, once told */
static int	 rest_told;

static time_t
stop_now(void)
{
	struct timespec	 ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		fatal("clock_gettime");
	return ts.tv_sec;
}

void
stop_owe(enum owe o, uint32_t id)
{
	owed[o].on = 1;
	owed[o].id = id;
}

void
stop_paid(enum owe o)
{
	owed[o].on = 0;
}

static void
stop_answer(enum owe o)
{
	static const char	 down[] = "the keep-frontend ended";
	struct proc_job_done	 d;
	struct proc		*to = &proc_table()[owed[o].to];
	uint32_t		 up = 0;
	int			 r;

	owed[o].on = 0;
	if (to->chan.fd == -1)
		return;
	switch (o) {
	case OWE_PROBE:
		r = msg_compose(&to->chan, PROC_KEEP_STATE, owed[o].id, -1,
		    &up, sizeof(up));
		break;
	case OWE_JOB:
		memset(&d, 0, sizeof(d));
		d.status = JOB_RELEASED;
		d.word = JW_STOPPED;
		(void)strlcpy(d.error, "the box launcher ended while the job "
		    "ran", sizeof(d.error));
		r = msg_compose(&to->chan, PROC_JOB_DONE, owed[o].id, -1, &d,
		    sizeof(d));
		break;
	default:
		r = msg_compose(&to->chan, PROC_KEEP_DOWN, owed[o].id, -1,
		    down, sizeof(down) - 1);
		break;
	}
	if (r == -1)
		fatal("a message to %s", to->title);
	log_debug("answered %s for %s, which ended", to->title,
	    proc_table()[owed[o].from].title);
}

/* After a reap: what a child gone owed, answered in its place. */
void
stop_orphans(void)
{
	size_t	 o;

	for (o = 0; o < OWE_COUNT; o++)
		if (owed[o].on && proc_table()[owed[o].from].pid == -1)
			stop_answer(o);
}

int
stop_running(void)
{
	return stopping;
}

static void
stop_signal(enum proc_id id, int sig)
{
	proc_signal(&proc_table()[id], sig);
}

void
stop_begin(int status)
{
	if (stopping)
		return;
	stopping = 1;
	stop_status = status;
	core_by = stop_now() + PROC_CORE_STOP;
	stop_signal(PROC_CORE, SIGTERM);
	stop_signal(PROC_LAUNCHER, SIGTERM);
}

/* Kills what outlived its time, tells the rest once the core is gone. */
void
stop_step(void)
{
	struct proc	*t = proc_table();
	time_t		 now = stop_now();

	if (!stopping)
		return;
	stop_orphans();
	if (t[PROC_CORE].pid > 0 && now >= core_by) {
		log_warnx("the core outlived its stop by %d s: SIGKILL",
		    PROC_CORE_STOP);
		stop_signal(PROC_CORE, SIGKILL);
		core_by = now + PROC_STOP_WAIT;
	}
	if (t[PROC_CORE].pid <= 0 && !rest_told) {
		rest_told = 1;
		rest_by = now + PROC_STOP_WAIT;
		stop_signal(PROC_KEEPFE, SIGTERM);
		stop_signal(PROC_LAUNCHER, SIGTERM);
	}
	if (rest_told && now >= rest_by && proc_running() > 0) {
		log_warnx("a child outlived SIGTERM by %d s: SIGKILL",
		    PROC_STOP_WAIT);
		stop_signal(PROC_KEEPFE, SIGKILL);
		stop_signal(PROC_LAUNCHER, SIGKILL);
		rest_by = now + PROC_STOP_WAIT;
	}
	if (proc_running() == 0) {
		control_close();
		exit(stop_status);
	}
}

/* Milliseconds to the next deadline of the stop, or -1. */
int
stop_timeout(void)
{
	time_t	 now, next;

	if (!stopping)
		return -1;
	now = stop_now();
	next = rest_told ? rest_by : core_by;
	return next <= now ? 0 : (int)(next - now) * 1000;
}
