/*
 * The scheduler (sandcastled(8), SCHEDULING): which source the core
 * claims from next, and when.  Pure: the clock is passed in (seconds of
 * CLOCK_MONOTONIC in the core, any clock in the tests).  One job runs
 * at a time across all sources: the core asks sched_next() only when
 * none runs and no call is waiting for its answer.
 */
#ifndef SANDCASTLED_SCHED_H
#define SANDCASTLED_SCHED_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "config.h"

#define SCHED_WINDOW		3600	/* seconds of max_jobs_per_hour's window */
#define SCHED_BACKOFF_MAX	600	/* the longest back-off, unless poll_interval is longer */
#define SCHED_ERROR_MAX		512	/* a failure's reason, cut short */

/* How a call to a source ended, for its next ask. */
enum sched_result {
	SCHED_OK,		/* answered: the next ask at poll_interval */
	SCHED_JOB,		/* answered with a job: asked again once it ended */
	SCHED_FAILED,		/* unreachable, 5xx, unreadable: back off */
	SCHED_SKIPPED		/* the keep down, the secret unusable: poll_interval */
};

struct sched_source {
	const struct source	*src;
	time_t			 next;		/* the next ask, at the soonest */
	unsigned long		 turn;		/* its last ask's turn, for a tie */
	int			 draining;	/* its last claim brought a job */
	unsigned int		 failures;	/* calls failed in a row */
	time_t			*starts;	/* ring of the last jobs' starts */
	uint32_t		 nstarts;	/* held in starts, at most max_jobs_per_hour */
	uint32_t		 head;		/* the oldest start once the ring is full */
	char			 error[SCHED_ERROR_MAX];	/* why its last call failed; "" */
	time_t			 error_at;
};

struct sched {
	const struct config	*conf;
	struct sched_source	*srcs;
	size_t			 n;
	time_t			 rest[CAP_COUNT];	/* resting until, across all sources */
	unsigned long		 turns;		/* asks so far, for the sources' turns */
	unsigned long		 changes;	/* counts every change: the core pushes them */
};

/* Every source due at now; NULL when memory ran out. */
struct sched	*sched_new(const struct config *, time_t now);
void		 sched_free(struct sched *);
/* The source's index, or -1 when it is not configured. */
ssize_t		 sched_find(const struct sched *, const char *name);

/*
 * The source to claim from now (its index) with the capabilities to
 * name in *caps; or -1 with *wake the soonest time one can be due.
 */
ssize_t		 sched_next(struct sched *, time_t now, unsigned int *caps,
		    time_t *wake);
/* The source's call ended at now. */
void		 sched_asked(struct sched *, size_t, time_t now,
		    enum sched_result);
/* A job claimed from the source at now counts in its window. */
void		 sched_started(struct sched *, size_t, time_t now);
/*
 * The source's window filled again from the starts its records hold, on
 * the wall clock and oldest first, wall being the wall clock's now: a
 * restarted core, or a round of sandcastled -1, counts the jobs of the
 * last SCHED_WINDOW seconds before it.  Those older, or later than wall,
 * are left out; the number counted.
 */
size_t		 sched_seed(struct sched *, size_t, const time_t *starts,
		    size_t n, time_t wall, time_t now);
/* The capability rests for its cooldown from now. */
void		 sched_rest(struct sched *, enum cap_id, time_t now);
/* Why the source's call failed at now; cleared by its next SCHED_OK. */
void		 sched_failed(struct sched *, size_t, time_t now, const char *why);

/* For sandcastlectl show sources: the soonest it may be asked for a job. */
time_t		 sched_due(const struct sched *, size_t, time_t now);
/* The seconds of its current back-off; 0 while its calls work. */
time_t		 sched_backoff(const struct sched *, size_t);
/* Its jobs started in the SCHED_WINDOW seconds up to now. */
uint32_t	 sched_jobs_hour(const struct sched *, size_t, time_t now);

/* Its allowed capabilities that are not resting at now. */
unsigned int	 sched_caps(const struct sched *, size_t, time_t now);
/* When max_jobs_per_hour lets the next job start: now, or later. */
time_t		 sched_rate_free(const struct sched *, size_t, time_t now);
/* The seconds a job of the source with the capability may take. */
uint32_t	 sched_job_limit(const struct source *, const struct capability *);

#endif
