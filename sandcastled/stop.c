/*
 * The parent's stop in the rows' stop order, routing meanwhile: the core
 * first, which needs the keep-frontend to finish.  A child that ends
 * owing an answer gets its standin sent, so that none waits forever.
 */
#include <sys/types.h>

#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "job.h"
#include "log.h"
#include "msg.h"
#include "proto.h"
#include "sandcastled.h"

#define STOP_AGAIN	5	/* seconds between two SIGKILLs */

struct owed {
	int		 on;
	uint32_t	 id;
};
static struct owed owed[PROC_MSG_END][PROC_COUNT];

static int	 stopping;
static int	 stop_status;
static int	 stop_turn;		/* the stop_order whose children end now */
static time_t	 stop_by;		/* they are killed then */

static time_t
stop_now(void)
{
	struct timespec	 ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		fatal("clock_gettime");
	return ts.tv_sec;
}

/*
 * One question of a type at a time from each child: the core waits for
 * each answer, the launcher runs one job and its one call.  A second
 * while the first is owed would lose the first's stand-in: fatal.
 */
void
stop_owe(uint32_t type, enum proc_id asker, uint32_t id)
{
	if (owed[type][asker].on)
		fatalx("%s asked %s (id %u) while its %s (id %u) was still "
		    "unanswered", proc_table()[asker].title, proc_msg_name(type),
		    id, proc_msg_name(type), owed[type][asker].id);
	owed[type][asker].on = 1;
	owed[type][asker].id = id;
}

int
stop_paid(uint32_t type, uint32_t id, enum proc_id *asker)
{
	int	 i;

	for (i = 0; i < PROC_COUNT; i++)
		if (owed[type][i].on && owed[type][i].id == id) {
			owed[type][i].on = 0;
			*asker = i;
			return 0;
		}
	return -1;
}

int
stop_standin_state(struct msgchan *chan, uint32_t id)
{
	uint32_t	 up = 0;

	return msg_compose(chan, PROC_KEEP_STATE, id, -1, &up, sizeof(up));
}

int
stop_standin_down(struct msgchan *chan, uint32_t id)
{
	static const char	 down[] = "the keep-frontend ended";

	return msg_compose(chan, PROC_KEEP_DOWN, id, -1, down,
	    sizeof(down) - 1);
}

int
stop_standin_job(struct msgchan *chan, uint32_t id)
{
	static struct job_outcome	 o;

	memset(&o, 0, sizeof(o));
	o.status = JOB_RELEASED;
	o.word = JW_STOPPED;
	(void)strlcpy(o.error, "the box launcher ended while the job ran",
	    sizeof(o.error));
	return outcome_send(chan, PROC_JOB_DONE, id, &o, NULL, 0);
}

/* After a reap: what a child gone owed, answered in its place. */
void
stop_orphans(void)
{
	const struct proc_msgrow	*r;
	struct proc			*t = proc_table();
	int				 a;

	for (r = proc_msg_next(0); r != NULL; r = proc_msg_next(r->rule.type)) {
		if (r->standin == NULL || t[r->to].pid != -1)
			continue;
		for (a = 0; a < PROC_COUNT; a++) {
			if (!owed[r->rule.type][a].on)
				continue;
			owed[r->rule.type][a].on = 0;
			if (t[a].chan.fd == -1)
				continue;
			if (r->standin(&t[a].chan, owed[r->rule.type][a].id) ==
			    -1)
				fatal("a message to %s", t[a].title);
			log_debug("answered %s's %s for %s, which ended",
			    t[a].title, r->rule.name, t[r->to].title);
		}
	}
}

int
stop_running(void)
{
	return stopping;
}

/* SIGTERM to the children of this turn; the kill due at its longest grace. */
static void
stop_tell(int turn, time_t now)
{
	struct proc	*t = proc_table();
	int		 i, grace = 0;

	for (i = 0; i < PROC_COUNT; i++) {
		if (t[i].stop_order != turn)
			continue;
		proc_signal(&t[i], SIGTERM);
		if (t[i].stop_grace > grace)
			grace = t[i].stop_grace;
	}
	stop_turn = turn;
	stop_by = now + grace;
}

/* 1 while a child of this turn or an earlier one runs; 2 if of a later one. */
static int
stop_left(int turn)
{
	struct proc	*t = proc_table();
	int		 i, left = 0;

	for (i = 0; i < PROC_COUNT; i++) {
		if (t[i].pid <= 0)
			continue;
		if (t[i].stop_order <= turn)
			return 1;
		left = 2;
	}
	return left;
}

void
stop_begin(int status)
{
	struct proc	*t = proc_table();
	int		 i;

	if (stopping)
		return;
	stopping = 1;
	stop_status = status;
	for (i = 0; i < PROC_COUNT; i++)
		if (t[i].stop_early && t[i].stop_order != 0)
			proc_signal(&t[i], SIGTERM);
	stop_tell(0, stop_now());
}

/* Kills what outlived its grace, tells the next turn once one is over. */
void
stop_step(void)
{
	struct proc	*t = proc_table();
	time_t		 now = stop_now();
	int		 i;

	if (!stopping)
		return;
	stop_orphans();
	while (stop_left(stop_turn) == 2)
		stop_tell(stop_turn + 1, now);
	if (stop_left(stop_turn) == 1 && now >= stop_by) {
		for (i = 0; i < PROC_COUNT; i++) {
			if (t[i].pid <= 0 || t[i].stop_order > stop_turn)
				continue;
			log_warnx("%s outlived its stop by %d s: SIGKILL",
			    t[i].title, t[i].stop_grace);
			proc_signal(&t[i], SIGKILL);
		}
		stop_by = now + STOP_AGAIN;
	}
	if (proc_running() == 0) {
		control_close();
		exit(stop_status);
	}
}

int
stop_timeout(void)
{
	time_t	 now;

	if (!stopping)
		return -1;
	now = stop_now();
	return stop_by <= now ? 0 : (int)(stop_by - now) * 1000;
}
