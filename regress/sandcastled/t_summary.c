/*
 * The sources' summary for sandcastlectl show sources
 * (sandcastled/summary.c): what the core makes of its schedule, the
 * parent's check of every field against the configuration, the copy it
 * keeps, and that it takes PROC_SOURCES from the core alone.  Each
 * refusal has its control.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <atf-c.h>

#include "config.h"
#include "ctl.h"
#include "msg.h"
#include "../../sandcastled/parent.h"
#include "../../sandcastled/proc.h"
#include "../../sandcastled/proctab.h"
#include "../../sandcastled/proto.h"
#include "../../sandcastled/schedule.h"
#include "../../sandcastled/summary.h"
#include "testconf.h"

#define CLAUDE	CAP_BIT(CAP_CLAUDE)
#define OCR	CAP_BIT(CAP_OCR)
#define T0	1000000		/* the core's monotonic clock */
#define W0	1800000000	/* time(3) at T0 */

/*
 * notes (30 s, 10 an hour, claude, 1 at once) and recipes (60 s, 2 an
 * hour, both); 3 jobs at once in all, of ocr 1.
 */
static struct config *
two_sources(void)
{
	struct config	*conf;

	ATF_REQUIRE((conf = config_new("/nonexistent")) != NULL);
	conf->caps[CAP_CLAUDE].enabled = conf->caps[CAP_OCR].enabled = 1;
	conf->caps[CAP_CLAUDE].cooldown = 300;
	conf->caps[CAP_OCR].cooldown = 600;
	conf->jobs = 3;
	conf->caps[CAP_OCR].jobs = 1;
	add_source(conf, "notes", 30, 10, CLAUDE)->jobs = 1;
	add_source(conf, "recipes", 60, 2, CLAUDE | OCR);
	return conf;
}

/*
 * notes took two jobs and answers; recipes failed twice in a row; ocr
 * rests from T0 + 10.  The summary is made at T0 + 20.
 */
static struct sched *
played(const struct config *conf, struct ctl_source v[2])
{
	struct sched	*s;

	ATF_REQUIRE((s = sched_new(conf, T0)) != NULL);
	sched_asked(s, 0, T0, SCHED_OK);
	sched_started(s, 0, T0);
	sched_asked(s, 0, T0 + 5, SCHED_OK);
	sched_started(s, 0, T0 + 5);
	sched_asked(s, 1, T0 + 1, SCHED_FAILED);
	sched_failed(s, 1, T0 + 1, "the claim failed: status 500: down");
	sched_asked(s, 1, T0 + 2, SCHED_FAILED);
	sched_failed(s, 1, T0 + 2, "the claim failed: the keep refused "
	    "the call: the gate refused");
	sched_rest(s, CAP_OCR, T0 + 10, 0);
	summary_make(s, T0 + 20, W0 + 20, v);
	return s;
}

static int
check(const struct config *conf, const void *v, size_t len)
{
	char	 why[SUMMARY_WHY_MAX];

	return summary_check(conf, v, len, why, sizeof(why));
}

ATF_TC_WITHOUT_HEAD(made);
ATF_TC_BODY(made, tc)
{
	struct config		*conf = two_sources();
	struct ctl_source	 v[2];
	struct sched		*s = played(conf, v);

	ATF_CHECK_STREQ(v[0].name, "notes");
	ATF_CHECK_EQ(v[0].at, W0 + 20);
	ATF_CHECK_EQ(v[0].jobs_hour, 2);
	ATF_CHECK_EQ(v[0].max_jobs, 10);
	ATF_CHECK_EQ(v[0].backoff, 0);
	ATF_CHECK_EQ(v[0].failures, 0);
	ATF_CHECK_EQ(v[0].next, W0 + 35);	/* asked at T0 + 5, every 30 s */
	ATF_CHECK_STREQ(v[0].error, "");
	ATF_CHECK_EQ(v[0].error_at, 0);
	ATF_CHECK_EQ(v[0].rest[CAP_OCR], 0);	/* ocr is not notes' */
	ATF_CHECK_STREQ(v[1].name, "recipes");
	ATF_CHECK_EQ(v[1].failures, 2);
	ATF_CHECK_EQ(v[1].backoff, 120);	/* 60 s times 2 */
	ATF_CHECK_EQ(v[1].next, W0 + 122);
	ATF_CHECK_EQ(v[1].jobs_hour, 0);
	ATF_CHECK_EQ(v[1].max_jobs, 2);
	ATF_CHECK_STREQ(v[1].error, "the claim failed: the keep refused the "
	    "call: the gate refused");
	ATF_CHECK_EQ(v[1].error_at, W0 + 2);
	ATF_CHECK_EQ(v[1].rest[CAP_OCR], W0 + 610);
	ATF_CHECK_EQ(v[1].rest[CAP_CLAUDE], 0);
	ATF_CHECK_EQ(v[0].running, 0);
	ATF_CHECK_EQ(v[0].jobs, 1);		/* its own */
	ATF_CHECK_EQ(v[1].jobs, 3);		/* config.yaml's */
	ATF_CHECK_EQ(check(conf, v, sizeof(v)), 0);

	/* An hour on, notes' jobs left the window; a call that works clears the error. */
	sched_asked(s, 1, T0 + 200, SCHED_OK);
	summary_make(s, T0 + 3606, W0 + 3606, v);
	ATF_CHECK_EQ(v[0].jobs_hour, 0);
	ATF_CHECK(v[0].next <= v[0].at);	/* due since long: "now" */
	ATF_CHECK_EQ(v[1].failures, 0);
	ATF_CHECK_EQ(v[1].backoff, 0);
	ATF_CHECK_STREQ(v[1].error, "");
	ATF_CHECK_EQ(v[1].rest[CAP_OCR], 0);	/* its rest is over */
	ATF_CHECK_EQ(check(conf, v, sizeof(v)), 0);
	sched_free(s);
	config_free(conf);
}

/* Each source's jobs running, by capability, as they begin and end. */
ATF_TC_WITHOUT_HEAD(running);
ATF_TC_BODY(running, tc)
{
	struct config		*conf = two_sources();
	struct ctl_source	 v[2];
	struct sched		*s = played(conf, v);

	sched_job_begin(s, 0, CAP_CLAUDE);
	sched_job_begin(s, 1, CAP_CLAUDE);
	sched_job_begin(s, 1, CAP_OCR);
	summary_make(s, T0 + 30, W0 + 30, v);
	ATF_CHECK_EQ(v[0].running, 1);
	ATF_CHECK_EQ(v[0].caprun[CAP_CLAUDE], 1);
	ATF_CHECK_EQ(v[0].caprun[CAP_OCR], 0);
	ATF_CHECK_EQ(v[1].running, 2);
	ATF_CHECK_EQ(v[1].caprun[CAP_CLAUDE], 1);
	ATF_CHECK_EQ(v[1].caprun[CAP_OCR], 1);
	ATF_CHECK_EQ(check(conf, v, sizeof(v)), 0);
	sched_job_end(s, 1, CAP_CLAUDE);
	summary_make(s, T0 + 40, W0 + 40, v);
	ATF_CHECK_EQ(v[1].running, 1);
	ATF_CHECK_EQ(v[1].caprun[CAP_CLAUDE], 0);
	ATF_CHECK_EQ(v[1].caprun[CAP_OCR], 1);
	ATF_CHECK_EQ(check(conf, v, sizeof(v)), 0);
	sched_free(s);
	config_free(conf);
}

/* show status's rows: all, each enabled capability, each source. */
ATF_TC_WITHOUT_HEAD(rows);
ATF_TC_BODY(rows, tc)
{
	static const struct {
		int32_t		 kind;
		const char	*name;
		uint32_t	 before, after, jobs;
	} want[] = {
		{ CTL_JOBS_ALL, "", 0, 3, 3 },
		{ CTL_JOBS_CAP, "claude", 0, 2, 3 },
		{ CTL_JOBS_CAP, "ocr", 0, 1, 1 },
		{ CTL_JOBS_SOURCE, "notes", 0, 1, 1 },
		{ CTL_JOBS_SOURCE, "recipes", 0, 2, 3 },
	};
	struct config		*conf = two_sources();
	struct ctl_source	 v[2];
	struct ctl_jobs		 row;
	struct sched		*s = played(conf, v);
	char			 why[SUMMARY_WHY_MAX];
	size_t			 i;
	int			 k;

	summary_init(conf);
	for (k = 0; k < 2; k++) {
		for (i = 0; summary_jobs(i, &row) == 0; i++) {
			ATF_REQUIRE(i < sizeof(want) / sizeof(want[0]));
			ATF_CHECK_EQ(row.kind, want[i].kind);
			ATF_CHECK_STREQ(row.name, want[i].name);
			ATF_CHECK_EQ(row.running, k ? want[i].after :
			    want[i].before);
			ATF_CHECK_EQ(row.jobs, want[i].jobs);
			ATF_CHECK_EQ(row.at, k ? W0 + 30 : 0);
		}
		ATF_CHECK_EQ(i, sizeof(want) / sizeof(want[0]));
		if (k == 1)
			break;
		/* Then three jobs run: notes' claude, recipes' claude and ocr. */
		sched_job_begin(s, 0, CAP_CLAUDE);
		sched_job_begin(s, 1, CAP_CLAUDE);
		sched_job_begin(s, 1, CAP_OCR);
		summary_make(s, T0 + 30, W0 + 30, v);
		ATF_REQUIRE_EQ(summary_keep(v, sizeof(v), why, sizeof(why)), 0);
	}
	sched_free(s);
}

/* The rate limit moves the next poll past poll_interval. */
ATF_TC_WITHOUT_HEAD(next_rate);
ATF_TC_BODY(next_rate, tc)
{
	struct config		*conf = two_sources();
	struct ctl_source	 v[2];
	struct sched		*s;

	ATF_REQUIRE((s = sched_new(conf, T0)) != NULL);
	sched_asked(s, 1, T0, SCHED_OK);
	sched_started(s, 1, T0);
	sched_asked(s, 1, T0 + 100, SCHED_OK);
	sched_started(s, 1, T0 + 100);
	summary_make(s, T0 + 101, W0 + 101, v);
	ATF_CHECK_EQ(v[1].jobs_hour, 2);
	ATF_CHECK_EQ(v[1].next, W0 + 3600);	/* the first start leaves the hour */
	ATF_CHECK_EQ(check(conf, v, sizeof(v)), 0);
	sched_free(s);
	config_free(conf);
}

/* A byte outside printable ASCII in a reason goes out as '?'. */
ATF_TC_WITHOUT_HEAD(printable);
ATF_TC_BODY(printable, tc)
{
	struct config		*conf = two_sources();
	struct ctl_source	 v[2];
	struct sched		*s;

	ATF_REQUIRE((s = sched_new(conf, T0)) != NULL);
	sched_asked(s, 0, T0, SCHED_FAILED);
	sched_failed(s, 0, T0, "bad\033[2Jline\nend\xff");
	summary_make(s, T0, W0, v);
	ATF_CHECK_STREQ(v[0].error, "bad?[2Jline?end?");
	ATF_CHECK_EQ(check(conf, v, sizeof(v)), 0);
	sched_free(s);
	config_free(conf);
}

/* Every field the parent passes on is checked; the untouched copy passes. */
ATF_TC_WITHOUT_HEAD(bounds);
ATF_TC_BODY(bounds, tc)
{
	struct config		*conf = two_sources();
	struct ctl_source	 v[2], b[3];
	struct sched		*s = played(conf, v);

	ATF_REQUIRE_EQ(check(conf, v, sizeof(v)), 0);
	ATF_CHECK_EQ(check(conf, v, sizeof(v) - 1), -1);
	ATF_CHECK_EQ(check(conf, v, sizeof(v[0])), -1);
	ATF_CHECK_EQ(check(conf, v, 0), -1);
	memcpy(b, v, sizeof(v));
	b[2] = v[1];
	ATF_CHECK_EQ(check(conf, b, sizeof(b)), -1);
	/* Swapped: not in the configuration's order. */
	b[0] = v[1];
	b[1] = v[0];
	ATF_CHECK_EQ(check(conf, b, sizeof(v)), -1);
#define BREAK(what) do {						\
	memcpy(b, v, sizeof(v));					\
	what;								\
	ATF_CHECK_EQ_MSG(check(conf, b, sizeof(v)), -1, "%s", #what);	\
} while (0)
	BREAK(memset(b[0].name, 'a', sizeof(b[0].name)));
	BREAK(strlcpy(b[0].name, "other", sizeof(b[0].name)));
	BREAK(memset(b[1].error, 'a', sizeof(b[1].error)));
	BREAK(b[1].error[3] = '\n');
	BREAK(b[1].error[3] = (char)0x9b);
	BREAK(b[0].jobs_hour = 11);
	BREAK(b[0].max_jobs = 20);
	BREAK(b[0].caps = CLAUDE | OCR);
	BREAK(b[0].backoff = 30);
	BREAK(b[1].failures = 0);
	BREAK(b[0].rest[CAP_OCR] = W0);
	BREAK(b[1].rest[CAP_COUNT] = W0);
	BREAK(b[1].rest[CAP_OCR] = -1);
	BREAK(b[0].running = 1);
	BREAK(b[0].jobs = 2);
	BREAK((b[0].running = 2, b[0].caprun[CAP_CLAUDE] = 2));
	BREAK((b[0].running = 1, b[0].caprun[CAP_OCR] = 1));
	BREAK((b[1].running = 1, b[1].caprun[CAP_COUNT] = 1));
	/* Each within its source, over its capability's or all jobs. */
	BREAK((b[1].running = 2, b[1].caprun[CAP_OCR] = 2));
	BREAK((b[0].running = 1, b[0].caprun[CAP_CLAUDE] = 1,
	    b[1].running = 3, b[1].caprun[CAP_CLAUDE] = 3));
#undef BREAK
	/* Control: the most each holds, at once, passes. */
	memcpy(b, v, sizeof(v));
	b[0].running = b[0].caprun[CAP_CLAUDE] = 1;
	b[1].running = 2;
	b[1].caprun[CAP_CLAUDE] = b[1].caprun[CAP_OCR] = 1;
	ATF_CHECK_EQ(check(conf, b, sizeof(v)), 0);
	/* Control: texts that end early, with bytes after their NUL, pass. */
	memcpy(b, v, sizeof(v));
	memset(b[0].error + 1, 'x', sizeof(b[0].error) - 1);
	ATF_CHECK_EQ(check(conf, b, sizeof(v)), 0);
	sched_free(s);
	config_free(conf);
}

/* The parent keeps the last good summary; a bad one leaves it as it was. */
ATF_TC_WITHOUT_HEAD(kept);
ATF_TC_BODY(kept, tc)
{
	struct config		*conf = two_sources();
	struct ctl_source	 v[2];
	const struct ctl_source	*got;
	struct sched		*s = played(conf, v);
	char			 why[SUMMARY_WHY_MAX];
	size_t			 n;

	ATF_CHECK_EQ(summary_last(&got, &n), 0);
	ATF_CHECK_EQ(summary_keep(v, sizeof(v), why, sizeof(why)), -1);
	ATF_CHECK_EQ(summary_last(&got, &n), 0);
	summary_init(conf);
	ATF_REQUIRE_EQ(summary_keep(v, sizeof(v), why, sizeof(why)), 0);
	ATF_REQUIRE_EQ(summary_last(&got, &n), 1);
	ATF_CHECK_EQ(n, 2);
	ATF_CHECK(memcmp(got, v, sizeof(v)) == 0);
	v[0].jobs_hour = 99;
	ATF_CHECK_EQ(summary_keep(v, sizeof(v), why, sizeof(why)), -1);
	ATF_REQUIRE_EQ(summary_last(&got, &n), 1);
	ATF_CHECK_EQ(got[0].jobs_hour, 2);
	sched_free(s);
}

static struct msg
sources_msg(struct ctl_source *v, size_t len)
{
	struct msg	 m;

	memset(&m, 0, sizeof(m));
	m.type = PROC_SOURCES;
	m.fd = -1;
	m.data = v;
	m.len = len;
	return m;
}

/* 1 when the parent's dispatch of child's message ended the process, as fatal() does. */
static int
ends(enum proc_id child, struct msg *m)
{
	pid_t	 pid;
	int	 st;

	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		(void)close(2);
		(void)open("/dev/null", O_WRONLY);
		parent_dispatch(&proc_table()[child], m);
		_exit(0);
	}
	ATF_REQUIRE(waitpid(pid, &st, 0) == pid);
	return WIFEXITED(st) && WEXITSTATUS(st) != 0;
}

/* PROC_SOURCES from the keep-frontend or the launcher is fatal; the core's is kept. */
ATF_TC_WITHOUT_HEAD(core_only);
ATF_TC_BODY(core_only, tc)
{
	struct config		*conf = two_sources();
	struct ctl_source	 v[2];
	const struct ctl_source	*got;
	struct sched		*s = played(conf, v);
	struct msg		 m = sources_msg(v, sizeof(v));
	size_t			 n;

	summary_init(conf);
	ATF_CHECK(ends(PROC_KEEPFE, &m));
	ATF_CHECK(ends(PROC_LAUNCHER, &m));
	/* A summary that lies about the sources is fatal from the core too. */
	v[1].failures = 0;
	ATF_CHECK(ends(PROC_CORE, &m));
	v[1].failures = 2;
	/* Control: the core's own, kept. */
	ATF_CHECK(!ends(PROC_CORE, &m));
	parent_dispatch(&proc_table()[PROC_CORE], &m);
	ATF_REQUIRE_EQ(summary_last(&got, &n), 1);
	ATF_CHECK_EQ(n, 2);
	ATF_CHECK_STREQ(got[1].name, "recipes");
	sched_free(s);
}

ATF_TP_ADD_TCS(tp)
{
	/* The rows, as main() hands them down before any case runs. */
	proc_use(proc_children);
	proc_msgs_use(proc_msgtab);
	ATF_TP_ADD_TC(tp, made);
	ATF_TP_ADD_TC(tp, running);
	ATF_TP_ADD_TC(tp, rows);
	ATF_TP_ADD_TC(tp, next_rate);
	ATF_TP_ADD_TC(tp, printable);
	ATF_TP_ADD_TC(tp, bounds);
	ATF_TP_ADD_TC(tp, kept);
	ATF_TP_ADD_TC(tp, core_only);
	return atf_no_error();
}
