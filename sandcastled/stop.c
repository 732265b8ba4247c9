/* The parent's stop in the rows' stop order, the core first.  A child that
 * ends owing an answer gets its standin sent, so that none waits forever. */
#include <sys/types.h>

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "control.h"
#include "job.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "proto.h"
#include "stop.h"

#define STOP_AGAIN	5	/* seconds between two SIGKILLs */

struct owed {
	uint32_t	 type;
	enum proc_id	 asker;
	uint32_t	 id;
};
static struct owed	*owed;
static size_t		 nowed, owed_size;

static int	 stopping;
static int	 stop_status;
static int	 stop_turn;
static time_t	 stop_by;

static time_t
stop_now(void)
{
	struct timespec	 ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == -1)
		fatal("clock_gettime");
	return ts.tv_sec;
}

/* A second question with the id of one still owed would take its answer. */
void
stop_owe(uint32_t type, enum proc_id asker, uint32_t id)
{
	struct owed	*o;
	size_t		 i;

	for (i = 0; i < nowed; i++)
		if (owed[i].type == type && owed[i].id == id)
			fatalx("%s asked %s (id %u) while %s's %s of that id was "
			    "still unanswered", proc_table()[asker].title,
			    proc_msg_name(type), id,
			    proc_table()[owed[i].asker].title,
			    proc_msg_name(type));
	if (nowed == owed_size) {
		if ((o = reallocarray(owed, owed_size + 16, sizeof(*o))) ==
		    NULL)
			fatal("the questions owed");
		owed = o;
		owed_size += 16;
	}
	owed[nowed++] = (struct owed){ type, asker, id };
}

/* The asker of the question of id whose type is in pays; -1 when none. */
int
stop_paid(uint32_t pays, uint32_t id, enum proc_id *asker)
{
	size_t	 i;

	for (i = 0; i < nowed; i++)
		if ((pays & MSG_BIT(owed[i].type)) && owed[i].id == id) {
			*asker = owed[i].asker;
			owed[i] = owed[--nowed];
			return 0;
		}
	return -1;
}

size_t
stop_owed(enum proc_id asker)
{
	size_t	 i, n = 0;

	for (i = 0; i < nowed; i++)
		n += owed[i].asker == asker;
	return n;
}

void
stop_orphans(void)
{
	const struct proc_msgrow	*r;
	struct proc			*t = proc_table(), *a;
	size_t				 i = 0;

	while (i < nowed) {
		r = proc_msg(owed[i].type);
		if (t[r->to].pid != -1) {
			i++;
			continue;
		}
		a = &t[owed[i].asker];
		if (a->chan.fd != -1 && r->standin(&a->chan, owed[i].id) == -1)
			fatal("a message to %s", a->title);
		log_debug("answered %s's %s (id %u) for %s, which ended",
		    a->title, r->rule.name, owed[i].id, t[r->to].title);
		owed[i] = owed[--nowed];
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
