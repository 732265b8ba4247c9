/* The scheduler (sandcastled(8), SCHEDULING), pure: the clock is passed
 * in.  The core asks sched_next() when no call waits, for a free slot. */
#ifndef SANDCASTLED_SCHED_H
#define SANDCASTLED_SCHED_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "config.h"

#define SCHED_WINDOW		3600	/* seconds of max_jobs_per_hour's window */
#define SCHED_BACKOFF_MAX	600	/* the longest back-off, unless poll_interval is longer */
#define SCHED_ERROR_MAX		512
#define SCHED_REST_MAX		86400	/* the longest rest of a capability */

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
	uint32_t		 running;
	uint32_t		 caprun[CAP_COUNT];
	unsigned int		 failures;	/* calls failed in a row */
	time_t			*starts;	/* ring of the last jobs' starts */
	uint32_t		 nstarts;
	uint32_t		 head;		/* the oldest start once the ring is full */
	char			 error[SCHED_ERROR_MAX];	/* why its last call failed; "" */
	time_t			 error_at;
};

struct sched {
	const struct config	*conf;
	struct sched_source	*srcs;
	size_t			 n;
	time_t			 rest[CAP_COUNT];	/* resting until, across all sources */
	uint32_t		 running;
	uint32_t		 caprun[CAP_COUNT];
	unsigned long		 turns;
	unsigned long		 changes;	/* counts every change: the core pushes them */
};

/* Every source due at now; NULL when memory ran out. */
struct sched	*sched_new(const struct config *, time_t now);
void		 sched_free(struct sched *);
ssize_t		 sched_find(const struct sched *, const char *name);

/* The source that takes the next free slot and its *caps; or -1 with
 * *wake, the soonest due (a job's end frees a slot whenever it comes). */
ssize_t		 sched_next(struct sched *, time_t now, unsigned int *caps,
		    time_t *wake);
void		 sched_asked(struct sched *, size_t, time_t now,
		    enum sched_result);
void		 sched_started(struct sched *, size_t, time_t now);
/* A job of the source and capability begins, or ends, in its box. */
void		 sched_job_begin(struct sched *, size_t, enum cap_id);
void		 sched_job_end(struct sched *, size_t, enum cap_id);
/* The capabilities of the source with a slot free; 0: none. */
unsigned int	 sched_room(const struct sched *, size_t, time_t now);
/* starts oldest first; older than SCHED_WINDOW, or after wall, left out. */
size_t		 sched_seed(struct sched *, size_t, const time_t *starts,
		    size_t n, time_t wall, time_t now);
/* For its cooldown, or asked seconds (retry-after) when longer. */
void		 sched_rest(struct sched *, enum cap_id, time_t now,
		    uint32_t asked);
/* The source took back a job released of the capability: it is due
 * again at the capability's rest's end, if that comes before its next. */
void		 sched_released(struct sched *, size_t, enum cap_id, time_t now);
/* Why the source's call failed at now; cleared by its next SCHED_OK. */
void		 sched_failed(struct sched *, size_t, time_t now, const char *why);

time_t		 sched_due(const struct sched *, size_t, time_t now);
time_t		 sched_backoff(const struct sched *, size_t);
uint32_t	 sched_jobs_hour(const struct sched *, size_t, time_t now);

unsigned int	 sched_caps(const struct sched *, size_t, time_t now);
time_t		 sched_rate_free(const struct sched *, size_t, time_t now);
uint32_t	 sched_job_limit(const struct source *, const struct capability *);

#endif
