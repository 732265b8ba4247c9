/*
 * The show commands' plain output: a table, times in the local zone.
 */
#include <err.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "cap.h"
#include "ctl.h"
#include "ctlcmd.h"
#include "output.h"
#include "records.h"
#include "values.h"

static void	plain_head(enum action);
static void	plain_status(const struct ctl_proc *, size_t,
		    const struct ctl_jobs *, size_t);
static void	plain_source(const struct ctl_source *, time_t);
static void	plain_job(const struct records_meta *);
static void	plain_tail(enum action);
static void	plain_record(const struct job_shown *);

const struct output plain_output = {
	plain_head,
	plain_status,
	plain_source,
	plain_job,
	plain_tail,
	plain_record
};

const struct output *
output_of(const struct parse_result *res)
{
	return res->json ? &json_output : &plain_output;
}

static void
plain_head(enum action action)
{
	switch (action) {
	case SHOW_SOURCES:
		printf("%-16s %-9s %-9s %-9s %-9s %-22s %s\n", "SOURCE",
		    "NEXT POLL", "BACK-OFF", "RUNNING", "JOBS/HOUR", "RESTING",
		    "LAST ERROR");
		break;
	case SHOW_JOBS:
		printf("%-19s %-16s %-12s %-10s %-9s %7s %s\n", "TIME",
		    "SOURCE", "JOB", "CAPABILITY", "STATUS", "SECONDS",
		    "TOKENS");
		break;
	default:
		/* A show of a list whose table was left out here. */
		errx(1, "output.c: no heading for the list of action %d",
		    action);
	}
}

static void
plain_tail(enum action action)
{
}

/* "2026-01-02 03:04:05" in the local zone, or "-". */
static void
fmt_local(time_t t, char *buf, size_t bufsz)
{
	struct tm	 tm;

	if (localtime_r(&t, &tm) == NULL ||
	    strftime(buf, bufsz, "%Y-%m-%d %H:%M:%S", &tm) == 0)
		(void)strlcpy(buf, "-", bufsz);
}

/* The processes, a blank line, then each count of jobs running. */
static void
plain_status(const struct ctl_proc *p, size_t np, const struct ctl_jobs *j,
    size_t nj)
{
	char	 since[32], what[96];
	size_t	 i;

	printf("%-16s %8s %-9s %s\n", "PROCESS", "PID", "STATE", "SINCE");
	for (i = 0; i < np; i++) {
		fmt_local((time_t)p[i].started, since, sizeof(since));
		printf("%-16s %8d %-9s %s\n", p[i].title, (int)p[i].pid,
		    ctl_state_name(p[i].state), since);
	}
	printf("\n%-24s %s\n", "JOBS", "RUNNING");
	for (i = 0; i < nj; i++) {
		if (j[i].kind == CTL_JOBS_ALL)
			(void)strlcpy(what, "all", sizeof(what));
		else
			(void)snprintf(what, sizeof(what), "%s %s",
			    j[i].kind == CTL_JOBS_CAP ? "capability" : "source",
			    j[i].name);
		printf("%-24s %u/%u\n", what, j[i].running, j[i].jobs);
	}
}

/* Within a day from now as hh:mm:ss, later with its date. */
static void
fmt_time(int64_t t, time_t now, char *buf, size_t bufsz)
{
	struct tm	 tm;
	time_t		 tt = (time_t)t;

	if (localtime_r(&tt, &tm) == NULL || strftime(buf, bufsz,
	    t - (int64_t)now < 86400 ? "%H:%M:%S" : "%Y-%m-%d %H:%M", &tm) == 0)
		(void)strlcpy(buf, "-", bufsz);
}

static void
fmt_resting(const struct ctl_source *v, time_t now, char *buf, size_t bufsz)
{
	char	 t[32], one[64];
	int	 c;

	buf[0] = '\0';
	for (c = 0; c < CAP_COUNT; c++) {
		if ((v->caps & CAP_BIT(c)) == 0 || v->rest[c] <= now)
			continue;
		fmt_time(v->rest[c], now, t, sizeof(t));
		(void)snprintf(one, sizeof(one), "%s%s until %s",
		    buf[0] != '\0' ? ", " : "", cap_name(c), t);
		(void)strlcat(buf, one, bufsz);
	}
	if (buf[0] == '\0')
		(void)strlcpy(buf, "-", bufsz);
}

static void
plain_source(const struct ctl_source *v, time_t now)
{
	char	 next[32], backoff[32], running[32], jobs[32], rest[160];

	if (v->next <= now)
		(void)strlcpy(next, "now", sizeof(next));
	else
		fmt_time(v->next, now, next, sizeof(next));
	if (v->backoff == 0)
		(void)strlcpy(backoff, "none", sizeof(backoff));
	else
		duration_fmt(v->backoff, backoff, sizeof(backoff));
	(void)snprintf(running, sizeof(running), "%u/%u", v->running, v->jobs);
	(void)snprintf(jobs, sizeof(jobs), "%u/%u", v->jobs_hour, v->max_jobs);
	fmt_resting(v, now, rest, sizeof(rest));
	printf("%-16s %-9s %-9s %-9s %-9s %-22s %s\n", v->name, next, backoff,
	    running, jobs, rest, v->error[0] != '\0' ? v->error : "-");
}

static void
plain_job(const struct records_meta *m)
{
	char	 t[32], secs[24], tokens[48];

	fmt_local(m->started_at, t, sizeof(t));
	if (m->finished_at != 0)
		(void)snprintf(secs, sizeof(secs), "%lld",
		    (long long)(m->finished_at - m->started_at));
	else
		(void)strlcpy(secs, "-", sizeof(secs));
	if (m->usage.has)
		(void)snprintf(tokens, sizeof(tokens), "%llu+%llu",
		    (unsigned long long)m->usage.input_tokens,
		    (unsigned long long)m->usage.output_tokens);
	else
		(void)strlcpy(tokens, "-", sizeof(tokens));
	printf("%-19s %-16s %-12s %-10s %-9s %7s %s\n", t, m->source, m->job,
	    m->cap == -1 ? "-" : cap_name(m->cap),
	    records_status_name(m->status), secs, tokens);
}

static void
plain_record(const struct job_shown *js)
{
	size_t	 i;

	if (js->meta != NULL) {
		fwrite(js->meta, 1, js->metalen, stdout);
		if (js->metalen == 0 || js->meta[js->metalen - 1] != '\n')
			putchar('\n');
	}
	for (i = 0; i < js->nfiles; i++)
		printf("%-12s %s\n", js->files[i].name, js->files[i].path);
}
