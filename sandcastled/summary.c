/* The sources' summary from the core, trusted no more than any child: every
 * text must end in its NUL and be printable ASCII (sandcastlectl prints it). */
#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "ctl.h"
#include "log.h"
#include "schedule.h"
#include "summary.h"

_Static_assert(CAP_COUNT <= CTL_MAXCAPS, "ctl_source.rest holds every capability");
_Static_assert(CTL_NAME_MAX == NAME_LEN + 1, "ctl_source.name holds a name");
_Static_assert(CTL_ERROR_MAX == SCHED_ERROR_MAX, "ctl_source.error holds a failure");

static const struct config	*kept_conf;
static struct ctl_source	*kept;
static size_t			 nkept;
static int			 have;

/* A monotonic time as time(3); 0 stays 0, "none". */
static int64_t
wall_of(time_t t, time_t mono, time_t wall)
{
	return t == 0 ? 0 : (int64_t)wall + ((int64_t)t - (int64_t)mono);
}

static void
printable_copy(char *dst, const char *src, size_t dstsz)
{
	size_t	 i;

	for (i = 0; i + 1 < dstsz && src[i] != '\0'; i++)
		dst[i] = src[i] >= 0x20 && src[i] < 0x7f ? src[i] : '?';
	dst[i] = '\0';
}

void
summary_make(const struct sched *s, time_t mono, time_t wall,
    struct ctl_source *v)
{
	const struct sched_source	*ss;
	size_t				 i;
	int				 c;

	for (i = 0; i < s->n; i++) {
		ss = &s->srcs[i];
		memset(&v[i], 0, sizeof(v[i]));
		v[i].at = wall;
		v[i].next = wall_of(sched_due(s, i, mono), mono, wall);
		v[i].error_at = wall_of(ss->error_at, mono, wall);
		v[i].caps = ss->src->capabilities;
		for (c = 0; c < CAP_COUNT; c++)
			if ((v[i].caps & CAP_BIT(c)) && s->rest[c] > mono)
				v[i].rest[c] = wall_of(s->rest[c], mono, wall);
		v[i].backoff = (uint32_t)sched_backoff(s, i);
		v[i].failures = ss->failures;
		v[i].jobs_hour = sched_jobs_hour(s, i, mono);
		v[i].max_jobs = ss->src->max_jobs_per_hour;
		v[i].running = ss->running;
		v[i].jobs = config_jobs_of(s->conf, ss->src->jobs);
		for (c = 0; c < CAP_COUNT; c++)
			v[i].caprun[c] = ss->caprun[c];
		(void)strlcpy(v[i].name, ss->src->name, sizeof(v[i].name));
		printable_copy(v[i].error, ss->error, sizeof(v[i].error));
	}
}

static int
text_ok(const char *t, size_t size)
{
	size_t	 i;

	for (i = 0; i < size && t[i] != '\0'; i++)
		if (t[i] < 0x20 || t[i] >= 0x7f)
			return 0;
	return i < size;
}

/* Its jobs running: within its jobs, each of a capability it has. */
static int
running_check(const struct config *conf, const struct source *src,
    const struct ctl_source *v, char *why, size_t whysz)
{
	uint64_t	 sum = 0;
	int		 c;

	for (c = 0; c < CTL_MAXCAPS; c++) {
		if (v->caprun[c] != 0 && (c >= CAP_COUNT ||
		    (v->caps & CAP_BIT(c)) == 0)) {
			failwhy(why, whysz, "source %s: a job running of a "
			    "capability it does not have", src->name);
			return -1;
		}
		sum += v->caprun[c];
	}
	if (v->jobs != config_jobs_of(conf, src->jobs) ||
	    v->running > v->jobs || sum != v->running) {
		failwhy(why, whysz, "source %s: its jobs running do not add "
		    "up", src->name);
		return -1;
	}
	return 0;
}

static int
source_check(const struct config *conf, const struct source *src,
    const struct ctl_source *v, char *why, size_t whysz)
{
	int	 c;

	if (!text_ok(v->name, sizeof(v->name)) ||
	    strcmp(v->name, src->name) != 0) {
		failwhy(why, whysz, "not source %s's", src->name);
		return -1;
	}
	if (!text_ok(v->error, sizeof(v->error))) {
		failwhy(why, whysz, "source %s: its error is not printable "
		    "text ending in NUL", src->name);
		return -1;
	}
	if (v->caps != src->capabilities || v->max_jobs !=
	    src->max_jobs_per_hour || v->jobs_hour > v->max_jobs ||
	    (v->backoff == 0) != (v->failures == 0)) {
		failwhy(why, whysz, "source %s: its counts do not add up",
		    src->name);
		return -1;
	}
	for (c = 0; c < CTL_MAXCAPS; c++)
		if (v->rest[c] != 0 && (c >= CAP_COUNT ||
		    (v->caps & CAP_BIT(c)) == 0 || v->rest[c] < 0)) {
			failwhy(why, whysz, "source %s: a rest of a capability "
			    "it does not have", src->name);
			return -1;
		}
	return running_check(conf, src, v, why, whysz);
}

/* No more running than config.yaml's jobs, nor of a capability than its. */
static int
totals_check(const struct config *conf, uint64_t running,
    const uint64_t caprun[CAP_COUNT], char *why, size_t whysz)
{
	int	 c;

	if (running > config_jobs_of(conf, 0)) {
		failwhy(why, whysz, "%llu jobs running, more than its jobs "
		    "(%u)", (unsigned long long)running,
		    config_jobs_of(conf, 0));
		return -1;
	}
	for (c = 0; c < CAP_COUNT; c++)
		if (caprun[c] > config_jobs_of(conf, conf->caps[c].jobs)) {
			failwhy(why, whysz, "%llu jobs of %s running, more "
			    "than its jobs (%u)", (unsigned long long)caprun[c],
			    cap_name(c), config_jobs_of(conf,
			    conf->caps[c].jobs));
			return -1;
		}
	return 0;
}

int
summary_check(const struct config *conf, const void *data, size_t len,
    char *why, size_t whysz)
{
	const struct source	*src;
	struct ctl_source	 v;
	uint64_t		 running = 0, caprun[CAP_COUNT] = { 0 };
	size_t			 i = 0;
	int			 c;

	if (len % sizeof(v) != 0 || len / sizeof(v) != conf->nsources) {
		failwhy(why, whysz,
		    "%zu bytes are not %zu sources of %zu bytes", len,
		    conf->nsources, sizeof(v));
		return -1;
	}
	TAILQ_FOREACH(src, &conf->sources, entry) {
		/* The message's data need not be aligned for the struct. */
		memcpy(&v, (const char *)data + i++ * sizeof(v), sizeof(v));
		if (source_check(conf, src, &v, why, whysz) == -1)
			return -1;
		running += v.running;
		for (c = 0; c < CAP_COUNT; c++)
			caprun[c] += v.caprun[c];
	}
	return totals_check(conf, running, caprun, why, whysz);
}

void
summary_init(const struct config *conf)
{
	kept_conf = conf;
}

int
summary_keep(const void *data, size_t len, char *why, size_t whysz)
{
	struct ctl_source	*v;

	if (kept_conf == NULL) {
		failwhy(why, whysz, "no configuration to check it against");
		return -1;
	}
	if (summary_check(kept_conf, data, len, why, whysz) == -1)
		return -1;
	if (len > 0 && (v = malloc(len)) == NULL) {
		failwhy(why, whysz, "out of memory");
		return -1;
	}
	if (len == 0)
		v = NULL;
	else
		memcpy(v, data, len);
	free(kept);
	kept = v;
	nkept = len / sizeof(*v);
	have = 1;
	return 0;
}

int
summary_last(const struct ctl_source **v, size_t *n)
{
	*v = kept;
	*n = nkept;
	return have;
}

/* The kept summary's jobs running, of capability c, or of all at -1. */
static uint32_t
kept_running(int c)
{
	uint32_t	 n = 0;
	size_t		 i;

	for (i = 0; have && i < nkept; i++)
		n += c == -1 ? kept[i].running : kept[i].caprun[c];
	return n;
}

/* Row i: every job, then each enabled capability, then each source. */
int
summary_jobs(size_t i, struct ctl_jobs *row)
{
	const struct source	*src;
	size_t			 k = 0, n = 1;
	int			 c;

	memset(row, 0, sizeof(*row));
	if (kept_conf == NULL)
		return -1;
	row->at = have && nkept > 0 ? kept[0].at : 0;
	row->kind = CTL_JOBS_ALL;
	row->running = kept_running(-1);
	row->jobs = config_jobs_of(kept_conf, 0);
	if (i == 0)
		return 0;
	row->kind = CTL_JOBS_CAP;
	for (c = 0; c < CAP_COUNT; c++)
		if (kept_conf->caps[c].enabled && n++ == i) {
			row->running = kept_running(c);
			row->jobs = config_jobs_of(kept_conf,
			    kept_conf->caps[c].jobs);
			(void)strlcpy(row->name, cap_name(c), sizeof(row->name));
			return 0;
		}
	row->kind = CTL_JOBS_SOURCE;
	TAILQ_FOREACH(src, &kept_conf->sources, entry) {
		if (n++ == i) {
			row->running = have && k < nkept ? kept[k].running : 0;
			row->jobs = config_jobs_of(kept_conf, src->jobs);
			(void)strlcpy(row->name, src->name, sizeof(row->name));
			return 0;
		}
		k++;
	}
	return -1;
}
