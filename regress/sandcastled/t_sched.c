/*
 * The scheduler (sandcastled/schedule.c) on a simulated clock: the rate
 * limit held over every 60 minutes, the back-off and its reset, a
 * resting capability left out of the claim, a released job's source
 * asked again at the rest's end, a hanging source,
 * fairness between sources that are due together, a backlog drained
 * job after job, taking turns, and the window filled again from the
 * records' starts at a restart or a round of -1.  The core's loop is
 * played here: ask sched_next(), make the call, say how it ended.
 */
#include <stdlib.h>
#include <string.h>

#include <atf-c.h>

#include "config.h"
#include "../../sandcastled/schedule.h"
#include "testconf.h"

#define CLAUDE	CAP_BIT(CAP_CLAUDE)
#define OCR	CAP_BIT(CAP_OCR)
#define T0	1000000		/* the simulated clock's start */

static struct config *
new_config(void)
{
	struct config	*conf;

	ATF_REQUIRE((conf = config_new("/nonexistent")) != NULL);
	conf->caps[CAP_CLAUDE].enabled = conf->caps[CAP_OCR].enabled = 1;
	conf->caps[CAP_CLAUDE].timeout = 600;
	conf->caps[CAP_CLAUDE].cooldown = 300;
	conf->caps[CAP_OCR].timeout = 120;
	conf->caps[CAP_OCR].cooldown = 60;
	return conf;
}

/*
 * Plays the core for one source answering a job to every claim, each
 * job lasting jobsecs, until end: the start times in starts[].  The
 * core asks again only once the job has ended.
 */
static size_t
run_jobs(struct sched *s, time_t end, time_t jobsecs, time_t *starts,
    size_t max)
{
	unsigned int	 caps;
	time_t		 now = T0, wake;
	ssize_t		 i;
	size_t		 n = 0;

	while (now < end && n < max) {
		if ((i = sched_next(s, now, &caps, &wake)) == -1) {
			ATF_REQUIRE_MSG(wake > now, "woken for nothing at %lld",
			    (long long)now);
			now = wake;
			continue;
		}
		sched_asked(s, (size_t)i, now, SCHED_JOB);
		sched_started(s, (size_t)i, now);
		starts[n++] = now;
		now += jobsecs;
	}
	return n;
}

/* No 3600 seconds hold more than max of the starts. */
static void
window_holds(const time_t *starts, size_t n, uint32_t max)
{
	size_t	 i, j, in;

	for (i = 0; i < n; i++) {
		for (in = 0, j = i; j < n && starts[j] < starts[i] + 3600; j++)
			in++;
		ATF_CHECK_MSG(in <= max, "%zu starts in the hour from +%lld",
		    in, (long long)(starts[i] - T0));
	}
}

/*
 * S5: a source never runs more than max_jobs_per_hour in 60 minutes,
 * even with a backlog that would have it asked again at once.
 */
ATF_TC_WITHOUT_HEAD(rate_limit);
ATF_TC_BODY(rate_limit, tc)
{
	struct config	*conf = new_config();
	struct sched	*s;
	time_t		 starts[64];
	size_t		 n;

	add_source(conf, "notes", 30, 3, CLAUDE);
	ATF_REQUIRE((s = sched_new(conf, T0)) != NULL);
	n = run_jobs(s, T0 + 3 * 3600, 0, starts, 64);
	ATF_REQUIRE(n >= 7);
	/* Back to back, each job taking no time. */
	ATF_CHECK_EQ(starts[0], T0);
	ATF_CHECK_EQ(starts[1], T0);
	ATF_CHECK_EQ(starts[2], T0);
	/* The 4th only once the 1st start is 3600 s old, and so on. */
	ATF_CHECK_EQ(starts[3], T0 + 3600);
	ATF_CHECK_EQ(starts[4], T0 + 3600);
	ATF_CHECK_EQ(starts[5], T0 + 3600);
	ATF_CHECK_EQ(starts[6], T0 + 7200);
	ATF_CHECK_EQ(n, 9);
	window_holds(starts, n, 3);
	/* Blocked, it is still due for nothing, and says when it will be. */
	ATF_CHECK_EQ(sched_rate_free(s, 0, T0 + 3 * 3600 - 1), T0 + 3 * 3600);
	sched_free(s);
	config_free(conf);
}

/* S5: the control: with room for 4, the 4th starts right after the 3rd. */
ATF_TC_WITHOUT_HEAD(rate_limit_control);
ATF_TC_BODY(rate_limit_control, tc)
{
	struct config	*conf = new_config();
	struct sched	*s;
	time_t		 starts[64];
	size_t		 n;

	add_source(conf, "notes", 30, 4, CLAUDE);
	ATF_REQUIRE((s = sched_new(conf, T0)) != NULL);
	n = run_jobs(s, T0 + 3600, 0, starts, 64);
	ATF_CHECK_EQ(n, 4);
	ATF_CHECK_EQ(starts[3], T0);
	window_holds(starts, n, 4);
	sched_free(s);
	config_free(conf);
}

/* S5: long jobs and a short poll_interval: the window still holds. */
ATF_TC_WITHOUT_HEAD(rate_limit_sliding);
ATF_TC_BODY(rate_limit_sliding, tc)
{
	struct config	*conf = new_config();
	struct sched	*s;
	time_t		 starts[512];
	size_t		 n;

	add_source(conf, "notes", 5, 7, CLAUDE);
	ATF_REQUIRE((s = sched_new(conf, T0)) != NULL);
	n = run_jobs(s, T0 + 10 * 3600, 1234, starts, 512);
	ATF_CHECK(n > 20);
	window_holds(starts, n, 7);
	sched_free(s);
	config_free(conf);
}

/* The wait after each result, as sched_next() sees it. */
static time_t
wait_after(struct sched *s, time_t *now, enum sched_result r)
{
	unsigned int	 caps;
	time_t		 wake;

	ATF_REQUIRE_EQ(sched_next(s, *now, &caps, &wake), 0);
	sched_asked(s, 0, *now, r);
	ATF_REQUIRE_EQ(sched_next(s, *now, &caps, &wake), -1);
	ATF_REQUIRE_EQ(sched_next(s, wake - 1, &caps, &wake), -1);
	wake -= *now;
	*now += wake;
	return wake;
}

ATF_TC_WITHOUT_HEAD(backoff);
ATF_TC_BODY(backoff, tc)
{
	static const time_t want[] = { 30, 60, 120, 240, 480, 600, 600, 600 };
	struct config	*conf = new_config();
	struct sched	*s;
	time_t		 now = T0;
	size_t		 i;

	add_source(conf, "notes", 30, 60, CLAUDE);
	ATF_REQUIRE((s = sched_new(conf, T0)) != NULL);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ATF_CHECK_EQ_MSG(wait_after(s, &now, SCHED_FAILED), want[i],
		    "failure %zu", i + 1);
	/* A success resets it: the next failure waits poll_interval again. */
	ATF_CHECK_EQ(wait_after(s, &now, SCHED_OK), 30);
	ATF_CHECK_EQ(wait_after(s, &now, SCHED_FAILED), 30);
	ATF_CHECK_EQ(wait_after(s, &now, SCHED_FAILED), 60);
	/* The keep down or the secret unusable: poll_interval, no back-off. */
	ATF_CHECK_EQ(wait_after(s, &now, SCHED_SKIPPED), 30);
	ATF_CHECK_EQ(wait_after(s, &now, SCHED_SKIPPED), 30);
	sched_free(s);
	config_free(conf);
}

/* A poll_interval above 10 minutes is never shortened by a back-off. */
ATF_TC_WITHOUT_HEAD(backoff_long_interval);
ATF_TC_BODY(backoff_long_interval, tc)
{
	struct config	*conf = new_config();
	struct sched	*s;
	time_t		 now = T0;

	add_source(conf, "notes", 3600, 60, CLAUDE);
	ATF_REQUIRE((s = sched_new(conf, T0)) != NULL);
	ATF_CHECK_EQ(wait_after(s, &now, SCHED_FAILED), 3600);
	ATF_CHECK_EQ(wait_after(s, &now, SCHED_FAILED), 3600);
	ATF_CHECK_EQ(wait_after(s, &now, SCHED_OK), 3600);
	sched_free(s);
	config_free(conf);
}

ATF_TC_WITHOUT_HEAD(resting);
ATF_TC_BODY(resting, tc)
{
	struct config	*conf = new_config();
	struct sched	*s;
	unsigned int	 caps = 0;
	time_t		 wake;

	add_source(conf, "both", 30, 60, CLAUDE | OCR);
	add_source(conf, "onlyclaude", 30, 60, CLAUDE);
	ATF_REQUIRE((s = sched_new(conf, T0)) != NULL);
	/* Control: nothing rests, both capabilities are named. */
	ATF_CHECK_EQ(sched_caps(s, 0, T0), CLAUDE | OCR);
	ATF_CHECK_EQ(sched_caps(s, 1, T0), CLAUDE);
	sched_rest(s, CAP_CLAUDE, T0, 0);
	/* claude rests for 300 s, for every source. */
	ATF_CHECK_EQ(sched_next(s, T0, &caps, &wake), 0);
	ATF_CHECK_EQ(caps, OCR);
	sched_asked(s, 0, T0, SCHED_OK);
	/* onlyclaude has nothing to ask for: it waits for the rest to end. */
	ATF_CHECK_EQ(sched_next(s, T0, &caps, &wake), -1);
	ATF_CHECK_EQ(wake, T0 + 30);
	ATF_CHECK_EQ(sched_next(s, T0 + 30, &caps, &wake), 0);
	ATF_CHECK_EQ(caps, OCR);
	sched_asked(s, 0, T0 + 30, SCHED_OK);
	ATF_CHECK_EQ(sched_caps(s, 1, T0 + 299), 0);
	ATF_CHECK_EQ(sched_caps(s, 0, T0 + 299), OCR);
	ATF_CHECK_EQ(sched_caps(s, 1, T0 + 300), CLAUDE);
	/* At 300 the rest is over: onlyclaude, due since 0, goes first. */
	ATF_CHECK_EQ(sched_next(s, T0 + 300, &caps, &wake), 1);
	ATF_CHECK_EQ(caps, CLAUDE);
	sched_asked(s, 1, T0 + 300, SCHED_OK);
	ATF_CHECK_EQ(sched_next(s, T0 + 300, &caps, &wake), 0);
	ATF_CHECK_EQ(caps, CLAUDE | OCR);
	sched_free(s);
	config_free(conf);
}

/* Every capability resting: the wake is the first rest's end. */
ATF_TC_WITHOUT_HEAD(resting_all);
ATF_TC_BODY(resting_all, tc)
{
	struct config	*conf = new_config();
	struct sched	*s;
	unsigned int	 caps;
	time_t		 wake;

	add_source(conf, "both", 30, 60, CLAUDE | OCR);
	ATF_REQUIRE((s = sched_new(conf, T0)) != NULL);
	sched_rest(s, CAP_CLAUDE, T0, 0);
	sched_rest(s, CAP_OCR, T0 + 10, 0);
	ATF_CHECK_EQ(sched_next(s, T0 + 20, &caps, &wake), -1);
	ATF_CHECK_EQ(wake, T0 + 70);
	ATF_CHECK_EQ(sched_next(s, T0 + 70, &caps, &wake), 0);
	ATF_CHECK_EQ(caps, OCR);
	/* A second rest never shortens the first. */
	sched_rest(s, CAP_CLAUDE, T0 - 200, 0);
	ATF_CHECK_EQ(sched_caps(s, 0, T0 + 299), OCR);
	sched_free(s);
	config_free(conf);
}

/*
 * A 429's rest: the longer of the cooldown (claude's 300 s) and the
 * retry-after the answer asked for, and never more than a day.
 */
ATF_TC_WITHOUT_HEAD(resting_retry_after);
ATF_TC_BODY(resting_retry_after, tc)
{
	struct config	*conf = new_config();
	struct sched	*s;

	add_source(conf, "onlyclaude", 30, 60, CLAUDE);
	ATF_REQUIRE((s = sched_new(conf, T0)) != NULL);
	/* Control: a retry-after shorter than the cooldown changes nothing. */
	sched_rest(s, CAP_CLAUDE, T0, 30);
	ATF_CHECK_EQ(sched_caps(s, 0, T0 + 299), 0);
	ATF_CHECK_EQ(sched_caps(s, 0, T0 + 300), CLAUDE);
	/* A longer one is the rest. */
	sched_rest(s, CAP_CLAUDE, T0 + 1000, 900);
	ATF_CHECK_EQ(sched_caps(s, 0, T0 + 1300), 0);
	ATF_CHECK_EQ(sched_caps(s, 0, T0 + 1899), 0);
	ATF_CHECK_EQ(sched_caps(s, 0, T0 + 1900), CLAUDE);
	/* Bounded: a week asked for is a day's rest. */
	sched_rest(s, CAP_CLAUDE, T0 + 2000, 7 * 86400);
	ATF_CHECK_EQ(sched_caps(s, 0, T0 + 2000 + 86399), 0);
	ATF_CHECK_EQ(sched_caps(s, 0, T0 + 2000 + 86400), CLAUDE);
	ATF_CHECK_EQ(s->rest[CAP_CLAUDE], T0 + 2000 + SCHED_REST_MAX);
	sched_free(s);
	config_free(conf);
}

/*
 * A job released after the source's last claim brought nothing: the
 * source has it again, and is due at claude's rest's end (300 s), not
 * at its poll_interval's (3600 s).  Control: without the release it
 * waits its hour.  A source that backs off keeps its back-off.
 */
ATF_TC_WITHOUT_HEAD(released);
ATF_TC_BODY(released, tc)
{
	struct config	*conf = new_config();
	struct sched	*s;
	unsigned int	 caps;
	time_t		 wake;

	add_source(conf, "given", 3600, 60, CLAUDE);
	add_source(conf, "control", 3600, 60, CLAUDE);
	add_source(conf, "failing", 3600, 60, CLAUDE);
	ATF_REQUIRE((s = sched_new(conf, T0)) != NULL);
	sched_asked(s, 0, T0, SCHED_OK);
	sched_asked(s, 1, T0, SCHED_OK);
	sched_asked(s, 2, T0, SCHED_FAILED);
	sched_rest(s, CAP_CLAUDE, T0 + 10, 0);
	sched_released(s, 0, CAP_CLAUDE, T0 + 10);
	sched_released(s, 2, CAP_CLAUDE, T0 + 10);
	ATF_CHECK_EQ(sched_next(s, T0 + 309, &caps, &wake), -1);
	ATF_CHECK_EQ(wake, T0 + 310);
	ATF_CHECK_EQ(sched_next(s, T0 + 310, &caps, &wake), 0);
	ATF_CHECK_EQ(caps, CLAUDE);
	sched_asked(s, 0, T0 + 310, SCHED_JOB);
	sched_asked(s, 0, T0 + 311, SCHED_OK);
	ATF_CHECK_EQ(sched_next(s, T0 + 311, &caps, &wake), -1);
	ATF_CHECK_EQ(wake, T0 + 3600);
	ATF_CHECK_EQ(sched_due(s, 1, T0 + 311), T0 + 3600);
	ATF_CHECK_EQ(sched_due(s, 2, T0 + 311), T0 + 3600);
	/* Released once the rest is over, or of no capability: at once. */
	sched_released(s, 1, CAP_CLAUDE, T0 + 400);
	ATF_CHECK_EQ(sched_due(s, 1, T0 + 400), T0 + 400);
	sched_released(s, 0, (enum cap_id)-1, T0 + 401);
	ATF_CHECK_EQ(sched_due(s, 0, T0 + 401), T0 + 401);
	sched_free(s);
	config_free(conf);
}

/* A source whose call hangs for the keep's 30 s delays another by no more. */
ATF_TC_WITHOUT_HEAD(hanging_source);
ATF_TC_BODY(hanging_source, tc)
{
	struct config	*conf = new_config();
	struct sched	*s;
	unsigned int	 caps;
	time_t		 wake, now = T0, asked_b = 0;
	ssize_t		 i;
	int		 round;

	add_source(conf, "hangs", 30, 60, CLAUDE);
	add_source(conf, "fine", 30, 60, CLAUDE);
	ATF_REQUIRE((s = sched_new(conf, T0)) != NULL);
	for (round = 0; round < 1000; round++) {
		if ((i = sched_next(s, now, &caps, &wake)) == -1) {
			now = wake;
			continue;
		}
		if (i == 0) {
			now += 30;	/* KEEP_CALL_SECONDS, then unreachable */
			sched_asked(s, 0, now, SCHED_FAILED);
			continue;
		}
		/* fine is asked at most 30 s after it was due. */
		ATF_CHECK_MSG(now - (asked_b ? asked_b + 30 : T0) <= 30,
		    "fine asked at +%lld, due at +%lld", (long long)(now - T0),
		    (long long)((asked_b ? asked_b + 30 : T0) - T0));
		asked_b = now;
		sched_asked(s, 1, now, SCHED_OK);
	}
	ATF_CHECK(asked_b > T0 + 3600);
	sched_free(s);
	config_free(conf);
}

/* Two sources always due, each job longer than a poll_interval: they take turns. */
ATF_TC_WITHOUT_HEAD(fairness);
ATF_TC_BODY(fairness, tc)
{
	struct config	*conf = new_config();
	struct sched	*s;
	unsigned int	 caps;
	time_t		 wake, now = T0;
	ssize_t		 i, prev = -1;
	int		 n[2] = { 0, 0 }, round;

	add_source(conf, "a", 30, 3600, CLAUDE);
	add_source(conf, "b", 30, 3600, CLAUDE);
	ATF_REQUIRE((s = sched_new(conf, T0)) != NULL);
	for (round = 0; round < 100; round++) {
		ATF_REQUIRE((i = sched_next(s, now, &caps, &wake)) != -1);
		ATF_CHECK_MSG(i != prev, "%s twice in a row at round %d",
		    i ? "b" : "a", round);
		sched_asked(s, (size_t)i, now, SCHED_OK);
		sched_started(s, (size_t)i, now);
		n[i]++;
		prev = i;
		now += 45;
	}
	ATF_CHECK_EQ(n[0], 50);
	ATF_CHECK_EQ(n[1], 50);
	ATF_CHECK_EQ(sched_find(s, "b"), 1);
	ATF_CHECK_EQ(sched_find(s, "c"), -1);
	sched_free(s);
	config_free(conf);
}

/* The soonest due goes first, whatever the order of the sources. */
ATF_TC_WITHOUT_HEAD(soonest_first);
ATF_TC_BODY(soonest_first, tc)
{
	struct config	*conf = new_config();
	struct sched	*s;
	unsigned int	 caps;
	time_t		 wake;

	add_source(conf, "slow", 120, 60, CLAUDE);
	add_source(conf, "quick", 10, 60, CLAUDE);
	ATF_REQUIRE((s = sched_new(conf, T0)) != NULL);
	sched_asked(s, 0, T0, SCHED_OK);
	sched_asked(s, 1, T0 + 5, SCHED_OK);
	ATF_CHECK_EQ(sched_next(s, T0 + 14, &caps, &wake), -1);
	ATF_CHECK_EQ(wake, T0 + 15);
	/* At 200 both are due: quick since 15, slow since 120. */
	ATF_CHECK_EQ(sched_next(s, T0 + 200, &caps, &wake), 1);
	sched_asked(s, 1, T0 + 200, SCHED_OK);
	ATF_CHECK_EQ(sched_next(s, T0 + 200, &caps, &wake), 0);
	sched_free(s);
	config_free(conf);
}

/*
 * Plays the core for sources with backlog[i] jobs waiting, each job
 * lasting jobsecs: a claim brings a job while one waits, else nothing.
 * The sources asked, in order, in who[]; their times in when[].
 */
static size_t
play(struct sched *s, int *backlog, time_t jobsecs, size_t rounds,
    ssize_t *who, time_t *when)
{
	unsigned int	 caps;
	time_t		 now = T0, wake;
	ssize_t		 i;
	size_t		 n = 0;

	while (n < rounds) {
		if ((i = sched_next(s, now, &caps, &wake)) == -1) {
			ATF_REQUIRE_MSG(wake > now, "woken for nothing at %lld",
			    (long long)now);
			now = wake;
			continue;
		}
		who[n] = i;
		when[n++] = now;
		if (backlog[i] == 0) {
			sched_asked(s, (size_t)i, now, SCHED_OK);
			continue;
		}
		backlog[i]--;
		sched_asked(s, (size_t)i, now, SCHED_JOB);
		sched_started(s, (size_t)i, now);
		now += jobsecs;
	}
	return n;
}

/*
 * A backlog is drained at the speed of the boxes: with poll_interval an
 * hour, each of 20 jobs of 2 s is claimed as soon as the one before has
 * ended; the claim that finds the queue empty is the first followed by
 * poll_interval.  The control: a source whose claims bring nothing is
 * asked every poll_interval.
 */
ATF_TC_WITHOUT_HEAD(drain);
ATF_TC_BODY(drain, tc)
{
	struct config	*conf = new_config();
	struct sched	*s;
	ssize_t		 who[32];
	time_t		 when[32];
	int		 backlog[2] = { 20, 0 };
	size_t		 k;

	add_source(conf, "scans", 3600, 100, OCR);
	ATF_REQUIRE((s = sched_new(conf, T0)) != NULL);
	ATF_REQUIRE_EQ(play(s, backlog, 2, 23, who, when), 23);
	for (k = 0; k <= 20; k++)
		ATF_CHECK_EQ_MSG(when[k], T0 + 2 * (time_t)k,
		    "claim %zu at +%lld", k, (long long)(when[k] - T0));
	ATF_CHECK_EQ(when[21], T0 + 40 + 3600);
	ATF_CHECK_EQ(when[22], T0 + 40 + 7200);
	sched_free(s);
	config_free(conf);

	/* Control: nothing waiting, one claim an hour. */
	conf = new_config();
	add_source(conf, "scans", 3600, 100, OCR);
	ATF_REQUIRE((s = sched_new(conf, T0)) != NULL);
	backlog[0] = 0;
	ATF_REQUIRE_EQ(play(s, backlog, 2, 3, who, when), 3);
	ATF_CHECK_EQ(when[1], T0 + 3600);
	ATF_CHECK_EQ(when[2], T0 + 7200);
	sched_free(s);
	config_free(conf);
}

/*
 * The back-off stays: a job's result the source failed to take backs it
 * off as any failed call, backlog or not; a success ends the back-off.
 */
ATF_TC_WITHOUT_HEAD(drain_backoff);
ATF_TC_BODY(drain_backoff, tc)
{
	struct config	*conf = new_config();
	struct sched	*s;
	unsigned int	 caps;
	time_t		 wake, now = T0;

	add_source(conf, "scans", 30, 100, OCR);
	ATF_REQUIRE((s = sched_new(conf, T0)) != NULL);
	ATF_REQUIRE_EQ(sched_next(s, now, &caps, &wake), 0);
	sched_asked(s, 0, now, SCHED_JOB);
	sched_started(s, 0, now);
	/* Control: the job ended at +5 and its source is due. */
	ATF_CHECK_EQ(sched_next(s, now + 5, &caps, &wake), 0);
	/* Its result failed at +5: due at +35, then +95. */
	sched_asked(s, 0, now + 5, SCHED_FAILED);
	ATF_CHECK_EQ(sched_next(s, now + 5, &caps, &wake), -1);
	ATF_CHECK_EQ(wake, T0 + 35);
	sched_asked(s, 0, T0 + 35, SCHED_FAILED);
	ATF_CHECK_EQ(sched_next(s, T0 + 35, &caps, &wake), -1);
	ATF_CHECK_EQ(wake, T0 + 95);
	sched_asked(s, 0, T0 + 95, SCHED_JOB);
	ATF_CHECK_EQ(sched_next(s, T0 + 95, &caps, &wake), 0);
	ATF_CHECK_EQ(sched_backoff(s, 0), 0);
	sched_free(s);
	config_free(conf);
}

/*
 * Sources with work take turns: two backlogs alternate job after job,
 * never one twice in a row while the other waits, and a third with an
 * empty queue is still asked at its poll_interval, within one job.
 */
ATF_TC_WITHOUT_HEAD(drain_turns);
ATF_TC_BODY(drain_turns, tc)
{
	struct config	*conf = new_config();
	struct sched	*s;
	static ssize_t	 who[400];
	static time_t	 when[400];
	int		 backlog[3] = { 1000, 1000, 0 }, n[3] = { 0, 0, 0 };
	ssize_t		 prev = -1;
	time_t		 lastc = T0;
	size_t		 k, jobs = 0;

	add_source(conf, "a", 3600, 1000, OCR);
	add_source(conf, "b", 3600, 1000, OCR);
	add_source(conf, "c", 60, 1000, OCR);
	ATF_REQUIRE((s = sched_new(conf, T0)) != NULL);
	ATF_REQUIRE_EQ(play(s, backlog, 10, 400, who, when), 400);
	for (k = 0; k < 400; k++) {
		n[who[k]]++;
		/* No wait between jobs: each ask at the end of the job before. */
		ATF_CHECK_EQ_MSG(when[k], T0 + 10 * (time_t)jobs,
		    "claim %zu at +%lld after %zu jobs", k,
		    (long long)(when[k] - T0), jobs);
		if (who[k] == 2) {
			ATF_CHECK_MSG(when[k] - lastc <= 60 + 10, "c asked at "
			    "+%lld after +%lld", (long long)(when[k] - T0),
			    (long long)(lastc - T0));
			lastc = when[k];
			continue;
		}
		ATF_CHECK_MSG(who[k] != prev, "%s twice in a row at claim %zu",
		    who[k] ? "b" : "a", k);
		prev = who[k];
		jobs++;
	}
	ATF_CHECK(n[0] - n[1] <= 1 && n[1] - n[0] <= 1);
	/* c: an ask each 60 s, and no more than one job late. */
	ATF_CHECK_MSG(n[2] >= (when[399] - T0) / 70 && n[2] <= (when[399] -
	    T0) / 60 + 1, "c asked %d times in %lld s", n[2],
	    (long long)(when[399] - T0));
	sched_free(s);
	config_free(conf);
}

ATF_TC_WITHOUT_HEAD(job_limit);
ATF_TC_BODY(job_limit, tc)
{
	struct source		 src;
	struct capability	 cap;

	memset(&src, 0, sizeof(src));
	memset(&cap, 0, sizeof(cap));
	src.job_timeout = 300;
	cap.timeout = 600;
	ATF_CHECK_EQ(sched_job_limit(&src, &cap), 300);
	cap.timeout = 120;
	ATF_CHECK_EQ(sched_job_limit(&src, &cap), 120);
}

/*
 * jobs: 3 in all, a source's jobs: 2 and ocr's jobs: 1 held together; a
 * free slot to the source with fewer running; a 429 with claude jobs in
 * flight rests claude for every source while those jobs end as they end.
 */
ATF_TC_WITHOUT_HEAD(slots_held);
ATF_TC_BODY(slots_held, tc)
{
	struct config	*conf = new_config();
	struct sched	*s;
	unsigned int	 caps;
	time_t		 wake;

	conf->jobs = 3;
	conf->caps[CAP_OCR].jobs = 1;
	add_source(conf, "a", 30, 30, CLAUDE | OCR)->jobs = 2;
	add_source(conf, "b", 30, 30, CLAUDE | OCR);
	ATF_REQUIRE((s = sched_new(conf, T0)) != NULL);
	ATF_REQUIRE_EQ(sched_next(s, T0, &caps, &wake), 0);
	ATF_CHECK_EQ(caps, CLAUDE | OCR);
	sched_asked(s, 0, T0, SCHED_JOB);
	sched_started(s, 0, T0);
	sched_job_begin(s, 0, CAP_OCR);
	ATF_CHECK_EQ(sched_room(s, 0, T0), CLAUDE);
	ATF_CHECK_EQ(sched_room(s, 1, T0), CLAUDE);
	/* Both due now: b, with none running, before a with one. */
	ATF_REQUIRE_EQ(sched_next(s, T0, &caps, &wake), 1);
	ATF_CHECK_EQ(caps, CLAUDE);
	sched_asked(s, 1, T0, SCHED_JOB);
	sched_started(s, 1, T0);
	sched_job_begin(s, 1, CAP_CLAUDE);
	ATF_CHECK_EQ(sched_room(s, 0, T0), CLAUDE);
	sched_job_begin(s, 0, CAP_CLAUDE);
	ATF_CHECK_EQ(sched_room(s, 0, T0), 0);
	ATF_CHECK_EQ(sched_room(s, 1, T0), 0);
	ATF_CHECK_EQ(sched_next(s, T0, &caps, &wake), -1);
	/* Below the three, a stays at its two. */
	sched_job_end(s, 1, CAP_CLAUDE);
	ATF_CHECK_EQ(sched_room(s, 0, T0), 0);
	ATF_CHECK_EQ(sched_room(s, 1, T0), CLAUDE);
	/* A 429 while a's claude job runs: claude rests for both. */
	sched_rest(s, CAP_CLAUDE, T0 + 1, 0);
	ATF_CHECK_EQ(sched_room(s, 1, T0 + 1), 0);
	ATF_CHECK_EQ(sched_next(s, T0 + 1, &caps, &wake), -1);
	sched_job_end(s, 0, CAP_OCR);
	ATF_CHECK_EQ(sched_room(s, 0, T0 + 1), OCR);
	ATF_CHECK_EQ(sched_room(s, 1, T0 + 1), OCR);
	sched_job_end(s, 0, CAP_CLAUDE);
	ATF_CHECK_EQ(sched_room(s, 1, T0 + 300), OCR);
	ATF_CHECK_EQ(sched_room(s, 1, T0 + 301), CLAUDE | OCR);
	ATF_CHECK_EQ(sched_room(s, 0, T0 + 301), CLAUDE | OCR);
	sched_free(s);
	config_free(conf);
}

#define WALL	1780000000	/* the wall clock's now, at T0 */

/*
 * S5: a window filled again from the records' starts (wall clock) at a
 * restart or a round of sandcastled -1: full, the source is not due
 * until the oldest start is an hour old on the scheduler's own clock,
 * and no more than its cap starts in that hour, the seeded included.
 */
ATF_TC_WITHOUT_HEAD(seed_full);
ATF_TC_BODY(seed_full, tc)
{
	static const time_t	 at[] = { WALL - 3000, WALL - 1200, WALL - 60 };
	struct config		*conf = new_config();
	struct sched		*s;
	unsigned int		 caps;
	time_t			 wake, starts[64];
	size_t			 n;

	add_source(conf, "notes", 30, 3, CLAUDE);
	ATF_REQUIRE((s = sched_new(conf, T0)) != NULL);
	ATF_CHECK_EQ(sched_seed(s, 0, at, 3, WALL, T0), 3);
	ATF_CHECK_EQ(sched_jobs_hour(s, 0, T0), 3);
	ATF_CHECK_EQ(sched_next(s, T0, &caps, &wake), -1);
	ATF_CHECK_EQ(wake, T0 + 600);
	ATF_CHECK_EQ(sched_rate_free(s, 0, T0), T0 + 600);
	/* Then one start each time an old one leaves the hour. */
	n = run_jobs(s, T0 + 3600, 0, starts, 64);
	ATF_CHECK_EQ(n, 3);
	ATF_CHECK_EQ(starts[0], T0 + 600);
	ATF_CHECK_EQ(starts[1], T0 + 2400);
	ATF_CHECK_EQ(starts[2], T0 + 3540);
	sched_free(s);
	config_free(conf);
}

/*
 * S5: the control: seeded below its cap, the source is due at once;
 * starts an hour old or older, or later than now, are not counted.
 */
ATF_TC_WITHOUT_HEAD(seed_room);
ATF_TC_BODY(seed_room, tc)
{
	static const time_t	 at[] = { WALL - 7200, WALL - 3600,
	    WALL - 3599, WALL - 5, WALL + 30 };
	struct config		*conf = new_config();
	struct sched		*s;
	unsigned int		 caps;
	time_t			 wake;

	add_source(conf, "notes", 30, 3, CLAUDE);
	ATF_REQUIRE((s = sched_new(conf, T0)) != NULL);
	ATF_CHECK_EQ(sched_seed(s, 0, at, 5, WALL, T0), 2);
	ATF_CHECK_EQ(sched_jobs_hour(s, 0, T0), 2);
	ATF_CHECK_EQ(sched_next(s, T0, &caps, &wake), 0);
	ATF_CHECK_EQ(caps, CLAUDE);
	/* The third start fills it, until WALL - 3599 is an hour old. */
	sched_asked(s, 0, T0, SCHED_JOB);
	sched_started(s, 0, T0);
	ATF_CHECK_EQ(sched_rate_free(s, 0, T0), T0 + 1);
	sched_free(s);
	config_free(conf);
}

/* S5: more starts than the cap: the newest are those that count. */
ATF_TC_WITHOUT_HEAD(seed_more);
ATF_TC_BODY(seed_more, tc)
{
	static const time_t	 at[] = { WALL - 3500, WALL - 3000,
	    WALL - 2000, WALL - 1000 };
	struct config		*conf = new_config();
	struct sched		*s;

	add_source(conf, "notes", 30, 2, CLAUDE);
	add_source(conf, "other", 30, 2, CLAUDE);
	ATF_REQUIRE((s = sched_new(conf, T0)) != NULL);
	ATF_CHECK_EQ(sched_seed(s, 0, at, 4, WALL, T0), 4);
	ATF_CHECK_EQ(sched_jobs_hour(s, 0, T0), 2);
	ATF_CHECK_EQ(sched_rate_free(s, 0, T0), T0 + 1600);
	/* The other source's window is its own. */
	ATF_CHECK_EQ(sched_jobs_hour(s, 1, T0), 0);
	ATF_CHECK_EQ(sched_rate_free(s, 1, T0), T0);
	sched_free(s);
	config_free(conf);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, rate_limit);
	ATF_TP_ADD_TC(tp, rate_limit_control);
	ATF_TP_ADD_TC(tp, rate_limit_sliding);
	ATF_TP_ADD_TC(tp, seed_full);
	ATF_TP_ADD_TC(tp, seed_room);
	ATF_TP_ADD_TC(tp, seed_more);
	ATF_TP_ADD_TC(tp, backoff);
	ATF_TP_ADD_TC(tp, backoff_long_interval);
	ATF_TP_ADD_TC(tp, resting);
	ATF_TP_ADD_TC(tp, resting_all);
	ATF_TP_ADD_TC(tp, resting_retry_after);
	ATF_TP_ADD_TC(tp, released);
	ATF_TP_ADD_TC(tp, hanging_source);
	ATF_TP_ADD_TC(tp, fairness);
	ATF_TP_ADD_TC(tp, soonest_first);
	ATF_TP_ADD_TC(tp, drain);
	ATF_TP_ADD_TC(tp, drain_backoff);
	ATF_TP_ADD_TC(tp, drain_turns);
	ATF_TP_ADD_TC(tp, job_limit);
	ATF_TP_ADD_TC(tp, slots_held);
	return atf_no_error();
}
