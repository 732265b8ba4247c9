/* max_jobs_per_hour is a sliding window: a fixed hour would let twice the
 * cap through across its edge.  A source with a backlog is due at a job's end. */
#include <sys/types.h>

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "schedule.h"

static time_t	 backoff(const struct sched_source *);
static time_t	 rate_until(const struct sched_source *);
static time_t	 rest_end(const struct sched *, const struct sched_source *);
static time_t	 due(const struct sched *, const struct sched_source *,
		    time_t);
static int	 before(const struct sched_source *, time_t,
		    const struct sched_source *, time_t);

struct sched *
sched_new(const struct config *conf, time_t now)
{
	struct sched		*s;
	struct source		*src;
	size_t			 i = 0;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	s->conf = conf;
	if ((s->srcs = calloc(conf->nsources + 1, sizeof(*s->srcs))) == NULL) {
		free(s);
		return NULL;
	}
	TAILQ_FOREACH(src, &conf->sources, entry) {
		s->srcs[i].src = src;
		s->srcs[i].next = now;
		s->srcs[i].starts = calloc(src->max_jobs_per_hour,
		    sizeof(time_t));
		s->n = ++i;
		if (s->srcs[i - 1].starts == NULL) {
			sched_free(s);
			return NULL;
		}
	}
	return s;
}

void
sched_free(struct sched *s)
{
	size_t	 i;

	if (s == NULL)
		return;
	for (i = 0; i < s->n; i++)
		free(s->srcs[i].starts);
	free(s->srcs);
	free(s);
}

ssize_t
sched_find(const struct sched *s, const char *name)
{
	size_t	 i;

	for (i = 0; i < s->n; i++)
		if (strcmp(s->srcs[i].src->name, name) == 0)
			return (ssize_t)i;
	return -1;
}

uint32_t
sched_job_limit(const struct source *src, const struct capability *cap)
{
	return src->job_timeout < cap->timeout ? src->job_timeout :
	    cap->timeout;
}

unsigned int
sched_caps(const struct sched *s, size_t i, time_t now)
{
	unsigned int	 caps = s->srcs[i].src->capabilities;
	int		 c;

	for (c = 0; c < CAP_COUNT; c++)
		if (s->rest[c] > now)
			caps &= ~CAP_BIT(c);
	return caps;
}

/* When the oldest start of a full window leaves it; 0 while it has room. */
static time_t
rate_until(const struct sched_source *ss)
{
	if (ss->nstarts < ss->src->max_jobs_per_hour)
		return 0;
	return ss->starts[ss->head] + SCHED_WINDOW;
}

time_t
sched_rate_free(const struct sched *s, size_t i, time_t now)
{
	time_t	 t = rate_until(&s->srcs[i]);

	return t > now ? t : now;
}

static time_t
rest_end(const struct sched *s, const struct sched_source *ss)
{
	time_t	 t = 0;
	int	 c;

	for (c = 0; c < CAP_COUNT; c++)
		if ((ss->src->capabilities & CAP_BIT(c)) &&
		    (t == 0 || s->rest[c] < t))
			t = s->rest[c];
	return t;
}

static time_t
due(const struct sched *s, const struct sched_source *ss, time_t now)
{
	time_t	 t = ss->draining ? now : ss->next, r;

	if ((r = rate_until(ss)) > t)
		t = r;
	if (sched_caps(s, (size_t)(ss - s->srcs), now) == 0 &&
	    (r = rest_end(s, ss)) > t)
		t = r;
	return t;
}

/*
 * A free slot goes to the source with the fewest jobs running; on a tie,
 * the one due first, then the one asked longest ago.
 */
static int
before(const struct sched_source *a, time_t da, const struct sched_source *b,
    time_t db)
{
	if (a->running != b->running)
		return a->running < b->running;
	if (da != db)
		return da < db;
	return a->turn < b->turn;
}

unsigned int
sched_room(const struct sched *s, size_t i, time_t now)
{
	const struct sched_source	*ss = &s->srcs[i];
	unsigned int			 caps;
	int				 c;

	if (s->running >= config_jobs_of(s->conf, 0) ||
	    ss->running >= config_jobs_of(s->conf, ss->src->jobs))
		return 0;
	caps = sched_caps(s, i, now);
	for (c = 0; c < CAP_COUNT; c++)
		if (s->caprun[c] >= config_jobs_of(s->conf,
		    s->conf->caps[c].jobs))
			caps &= ~CAP_BIT(c);
	return caps;
}

/* A source all of whose capabilities are busy waits for a job's end. */
ssize_t
sched_next(struct sched *s, time_t now, unsigned int *caps, time_t *wake)
{
	ssize_t		 best = -1;
	time_t		 d, bestd = 0;
	size_t		 i;

	*wake = now + SCHED_WINDOW;
	for (i = 0; i < s->n; i++) {
		if ((d = due(s, &s->srcs[i], now)) > now) {
			if (d < *wake)
				*wake = d;
			continue;
		}
		if (sched_room(s, i, now) == 0)
			continue;
		if (best == -1 || before(&s->srcs[i], d, &s->srcs[best],
		    bestd)) {
			best = (ssize_t)i;
			bestd = d;
		}
	}
	if (best == -1)
		return -1;
	*caps = sched_room(s, (size_t)best, now);
	return best;
}

void
sched_job_begin(struct sched *s, size_t i, enum cap_id c)
{
	s->running++;
	s->srcs[i].running++;
	if ((unsigned int)c < CAP_COUNT) {
		s->caprun[c]++;
		s->srcs[i].caprun[c]++;
	}
	s->changes++;
}

void
sched_job_end(struct sched *s, size_t i, enum cap_id c)
{
	if (s->running > 0)
		s->running--;
	if (s->srcs[i].running > 0)
		s->srcs[i].running--;
	if ((unsigned int)c < CAP_COUNT && s->caprun[c] > 0)
		s->caprun[c]--;
	if ((unsigned int)c < CAP_COUNT && s->srcs[i].caprun[c] > 0)
		s->srcs[i].caprun[c]--;
	s->changes++;
}

/* poll_interval times 2^(failures - 1), at most SCHED_BACKOFF_MAX. */
static time_t
backoff(const struct sched_source *ss)
{
	time_t		 wait = ss->src->poll_interval;
	time_t		 cap = wait > SCHED_BACKOFF_MAX ? wait : SCHED_BACKOFF_MAX;
	unsigned int	 k;

	for (k = 1; k < ss->failures && wait < cap; k++)
		wait *= 2;
	return wait < cap ? wait : cap;
}

void
sched_asked(struct sched *s, size_t i, time_t now, enum sched_result r)
{
	struct sched_source	*ss = &s->srcs[i];

	ss->turn = ++s->turns;
	ss->draining = r == SCHED_JOB;
	s->changes++;
	switch (r) {
	case SCHED_OK:
	case SCHED_JOB:
		ss->failures = 0;
		ss->error[0] = '\0';
		ss->error_at = 0;
		ss->next = r == SCHED_JOB ? now : now + ss->src->poll_interval;
		break;
	case SCHED_FAILED:
		ss->failures++;
		ss->next = now + backoff(ss);
		break;
	case SCHED_SKIPPED:
		ss->next = now + ss->src->poll_interval;
		break;
	}
}

void
sched_started(struct sched *s, size_t i, time_t now)
{
	struct sched_source	*ss = &s->srcs[i];
	uint32_t		 max = ss->src->max_jobs_per_hour;

	s->changes++;
	if (ss->nstarts < max) {
		ss->starts[(ss->head + ss->nstarts) % max] = now;
		ss->nstarts++;
		return;
	}
	ss->starts[ss->head] = now;
	ss->head = (ss->head + 1) % max;
}

/* One exactly SCHED_WINDOW seconds old has left (sched_jobs_hour()). */
size_t
sched_seed(struct sched *s, size_t i, const time_t *starts, size_t n,
    time_t wall, time_t now)
{
	size_t	 k, kept = 0;

	for (k = 0; k < n; k++) {
		if (starts[k] <= wall - SCHED_WINDOW || starts[k] > wall)
			continue;
		sched_started(s, i, now - (wall - starts[k]));
		kept++;
	}
	return kept;
}

void
sched_rest(struct sched *s, enum cap_id c, time_t now, uint32_t asked)
{
	time_t	 len;

	if ((unsigned int)c >= CAP_COUNT)
		return;
	len = s->conf->caps[c].cooldown;
	/* A wait the API asked for is heeded, but no longer than a cooldown. */
	if (asked > len)
		len = asked < SCHED_REST_MAX ? asked : SCHED_REST_MAX;
	if (now + len > s->rest[c])
		s->rest[c] = now + len;
	s->changes++;
}

/* Not while it backs off: its calls fail, whatever it holds. */
void
sched_released(struct sched *s, size_t i, enum cap_id c, time_t now)
{
	struct sched_source	*ss = &s->srcs[i];
	time_t			 t = now;

	if ((unsigned int)c < CAP_COUNT && s->rest[c] > now)
		t = s->rest[c];
	if (ss->failures == 0 && t < ss->next) {
		ss->next = t;
		s->changes++;
	}
}

void
sched_failed(struct sched *s, size_t i, time_t now, const char *why)
{
	struct sched_source	*ss = &s->srcs[i];

	(void)strlcpy(ss->error, why, sizeof(ss->error));
	ss->error_at = now;
	s->changes++;
}

time_t
sched_due(const struct sched *s, size_t i, time_t now)
{
	return due(s, &s->srcs[i], now);
}

time_t
sched_backoff(const struct sched *s, size_t i)
{
	return s->srcs[i].failures > 0 ? backoff(&s->srcs[i]) : 0;
}

uint32_t
sched_jobs_hour(const struct sched *s, size_t i, time_t now)
{
	const struct sched_source	*ss = &s->srcs[i];
	uint32_t			 k, n = 0;

	for (k = 0; k < ss->nstarts; k++)
		if (ss->starts[(ss->head + k) % ss->src->max_jobs_per_hour] >
		    now - SCHED_WINDOW)
			n++;
	return n;
}
