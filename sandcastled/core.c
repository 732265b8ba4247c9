/* The core: claims work through the keep-frontend, schedules it, hands each
 * job to the launcher and keeps the records.  One keep call at a time. */
#include <sys/types.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "config.h"
#include "contract.h"
#include "core.h"
#include "corebase.h"
#include "corejob.h"
#include "coreresult.h"
#include "keepcli.h"
#include "lock.h"
#include "log.h"
#include "msg.h"
#include "paths.h"
#include "proto.h"
#include "records.h"
#include "schedule.h"
#include "summary.h"

#define CORE_PUSH_EVERY	60	/* seconds between two summaries, at most */
#define CORE_LOCK_WAIT	10	/* seconds for another core to let data_dir go */

static struct core		 core;
static time_t			 core_wake;
static int			 core_scheduled;
static unsigned long		 core_pushed;
static time_t			 core_push_at;	/* monotonic */

/* sandcastled -1: a result not yet taken stays pending and fails the round. */
static void
core_once_done(struct core *c)
{
	uint32_t	 failed;

	if (c->once_told)
		return;
	c->once_told = 1;
	failed = c->once_failed || !TAILQ_EMPTY(&c->results);
	if (msg_compose(c->chan, PROC_ROUND_DONE, 0, -1, &failed,
	    sizeof(failed)) == -1)
		fatal("a message to the parent");
}

static void	 core_keep_state(void *, struct msg *);
static void	 core_take_claim(void *, struct msg *);

static void
core_probe(struct core *c)
{
	(void)ask_send(c->chan, PROC_KEEP_PROBE, -1, NULL, 0, core_keep_state,
	    c);
	c->wait = CORE_PROBE;
}

static void
core_keep_state(void *arg, struct msg *m)
{
	struct core	*c = arg;
	uint32_t	 up;

	memcpy(&up, m->data, sizeof(up));
	c->wait = CORE_IDLE;
	if (up) {
		c->keep_up = 1;
		core_scheduled = 1;
		log_info("the keep answers: asking the sources");
	} else
		c->probe_at = core_now() + CORE_KEEP_PROBE;
}

static void
core_prune(struct core *c, time_t now)
{
	char	 why[RECORDS_WHY_MAX];
	long	 n;

	c->prune_at = now + CORE_PRUNE_EVERY;
	if ((n = records_prune(c->dfd, c->conf->retention_days, time(NULL),
	    why, sizeof(why))) == -1)
		log_warnx("pruning the records: %s", why);
	else if (n > 0)
		log_info("%ld records older than %u days deleted", n,
		    c->conf->retention_days);
}

static void
core_claim(struct core *c, time_t now)
{
	unsigned int	 caps;
	ssize_t		 i;
	size_t		 len;
	char		*env;

	if ((i = sched_next(c->sched, now, &caps, &core_wake)) == -1)
		return;
	c->caps = caps;
	env = contract_claim_envelope(core_source(c, i), caps, CONTRACT_LIMIT,
	    &len);
	core_call(c, i, CORE_CLAIM, env, len, core_take_claim);
}

/* sandcastled -1: 1 when the source is skipped, as the daemon would. */
static int
core_once_skip(struct core *c, size_t i, time_t now, unsigned int *caps)
{
	char	 at[32];
	time_t	 free_at;

	if ((*caps = sched_caps(c->sched, i, now)) == 0) {
		log_info("source %s: not asked: each of its capabilities "
		    "rests", core_source(c, i));
		return 1;
	}
	if ((free_at = sched_rate_free(c->sched, i, now)) <= now)
		return 0;
	if (records_time(time(NULL) + (free_at - now), at, sizeof(at)) == -1)
		(void)strlcpy(at, "unknown", sizeof(at));
	log_info("source %s: not asked: its max_jobs_per_hour (%u) jobs "
	    "started in the last hour; it may be asked again in %lld s, at %s",
	    core_source(c, i), c->sched->srcs[i].src->max_jobs_per_hour,
	    (long long)(free_at - now), at);
	return 1;
}

/* sandcastled -1: each source once, in name order, for one job at most. */
static void
core_once_claim(struct core *c, time_t now)
{
	unsigned int	 caps = 0;
	size_t		 i, len;
	char		*env;

	if (c->njobs >= config_jobs_of(c->conf, 0))
		return;
	while (c->once_next < c->sched->n &&
	    core_once_skip(c, c->once_next, now, &caps))
		c->once_next++;
	if (c->once_next == c->sched->n) {
		if (c->njobs == 0)
			core_once_done(c);
		return;
	}
	/* Each of its capabilities with a slot: a busy one's job ends first. */
	if (sched_room(c->sched, c->once_next, now) != caps)
		return;
	i = c->once_next++;
	c->caps = caps;
	env = contract_claim_envelope(core_source(c, i), caps, CONTRACT_LIMIT,
	    &len);
	core_call(c, i, CORE_CLAIM, env, len, core_take_claim);
}

/* The job holds the claim and its answer, whose memfd holds the input. */
static void
core_claimed(struct core *c, struct contract_claim *claim,
    struct keepcli_answer *a)
{
	struct core_job		*j;
	const struct contract_job *cj = &claim->jobs[0];

	log_info("poll source=%s job=%s capability=%s", core_source(c, c->src),
	    cj->id, cj->cap >= 0 ? cap_name(cj->cap) : "none");
	if ((j = calloc(1, sizeof(*j))) == NULL)
		fatal("a job");
	j->src = c->src;
	j->claim = *claim;
	j->claimed = *a;
	memset(a, 0, sizeof(*a));
	a->body_fd = -1;
	core_job_start(c, j);
}

static void
core_claim_answer(struct core *c, struct keepcli_answer *a, const char *down)
{
	struct contract_claim	 claim;
	enum contract_verdict	 v;
	char			 why[CONTRACT_WHY_MAX], err[SCHED_ERROR_MAX];
	time_t			 now = core_now();

	c->wait = CORE_IDLE;
	if (down != NULL) {
		core_once_failed(c);
		sched_asked(c->sched, c->src, now, SCHED_SKIPPED);
		(void)snprintf(why, sizeof(why), "the keep does not answer "
		    "(%.*s)", PROC_REASON_MAX, down);
		sched_failed(c->sched, c->src, now, why);
		core_keep_down(c, down);
		return;
	}
	v = contract_answer(a, 0, why, sizeof(why));
	if (v == CONTRACT_OK && contract_claim_parse(a->body, a->body_len,
	    c->caps, CONTRACT_LIMIT, &claim, why, sizeof(why)) == 0) {
		sched_asked(c->sched, c->src, now, claim.njobs > 0 ?
		    SCHED_JOB : SCHED_OK);
		if (claim.njobs > 0)
			core_claimed(c, &claim, a);
		else
			contract_claim_free(&claim);
		return;
	}
	core_once_failed(c);
	log_warnx("source %s: %s: %s", core_source(c, c->src),
	    v == CONTRACT_OK ? "the claim's answer is unreadable, no job of "
	    "it taken" : "the claim failed", why);
	sched_asked(c->sched, c->src, now, v == CONTRACT_OK ||
	    contract_backs_off(v) ? SCHED_FAILED : SCHED_SKIPPED);
	(void)strlcpy(err, v == CONTRACT_OK ? "the claim's answer is "
	    "unreadable: " : "the claim failed: ", sizeof(err));
	(void)strlcat(err, why, sizeof(err));
	sched_failed(c->sched, c->src, now, err);
}

static void
core_take_claim(void *arg, struct msg *m)
{
	core_keep_answer(arg, m, core_claim_answer);
}

static void
core_push(struct core *c, time_t now)
{
	struct ctl_source	*v;
	size_t			 n = c->sched->n;

	if ((v = calloc(n, sizeof(*v))) == NULL)
		fatal("calloc");
	summary_make(c->sched, now, time(NULL), v);
	if (msg_compose(c->chan, PROC_SOURCES, 0, -1, v, n * sizeof(*v)) == -1)
		fatal("a message to the parent");
	free(v);
	core_pushed = c->sched->changes;
	core_push_at = now + CORE_PUSH_EVERY;
}

static void
core_push_due(struct core *c)
{
	time_t	 now = core_now();

	if (core_scheduled && (c->sched->changes != core_pushed ||
	    now >= core_push_at))
		core_push(c, now);
}

/* SIGTERM: results go out within CORE_STOP_SECONDS; the rest stay pending. */
static void
core_stop_begin(struct core *c)
{
	static const char *const what[] = {
		[CORE_IDLE] = "nothing in flight",
		[CORE_PROBE] = "waiting for the keep's state",
		[CORE_CLAIM] = "waiting for the claim in flight, whose jobs "
		    "go back released",
		[CORE_RESULT] = "waiting for the result in flight",
	};

	c->stopping = 1;
	c->stop_by = core_now() + KEEPCLI_SECONDS;
	c->record_at = core_now();
	log_info("SIGTERM: stopping: %s; %zu job(s) running, whose boxes "
	    "are removed and which go back released", what[c->wait], c->njobs);
}

static __attribute__((noreturn)) void
core_stop_end(struct core *c)
{
	struct core_result	*r;
	size_t			 held = 0, left = 0;

	TAILQ_FOREACH(r, &c->results, entry) {
		if (r->state == RESULT_SEND)
			left++;
		else
			held++;
	}
	if (left > 0 || held > 0)
		log_info("stopped: %zu result(s) left to send and %zu held "
		    "for their record; the records say so, and the next start "
		    "sends them", left, held);
	else
		log_debug("stopped: every result sent");
	exit(0);
}

static void
core_stop_step(struct core *c, time_t now)
{
	if (c->wait != CORE_IDLE)
		return;
	if (c->keep_up && now <= c->stop_by && core_result_next(c, now))
		return;
	if (c->njobs == 0)
		core_stop_end(c);
}

static void
core_step(struct core *c)
{
	time_t	 now = core_now();

	if (c->stopping) {
		core_stop_step(c, now);
		return;
	}
	if (c->wait != CORE_IDLE || c->once_told)
		return;
	if (!c->keep_up) {
		if (now >= c->probe_at)
			core_probe(c);
		return;
	}
	if (core_result_next(c, now))
		return;
	/* A record that cannot be written would be the next job's too. */
	if (core_result_held(c)) {
		if (child_once) {
			core_once_failed(c);
			core_once_done(c);
		}
		return;
	}
	if (child_once)
		core_once_claim(c, now);
	else if (c->njobs < config_jobs_of(c->conf, 0))
		core_claim(c, now);
}

static time_t
core_idle_wake(const struct core *c)
{
	time_t	 wake, r;

	if (!c->keep_up)
		return c->probe_at;
	/* Every slot taken, or -1's next waits for one: a job's end wakes it. */
	wake = c->njobs < config_jobs_of(c->conf, 0) && !child_once ?
	    core_wake : -1;
	if ((r = core_result_wake(c)) != -1 && (wake == -1 || r < wake))
		wake = r;
	return wake;
}

static int
core_timeout(const struct core *c)
{
	time_t	 now = core_now(), wake = -1;

	if (c->stopping)
		wake = c->stop_by + KEEPCLI_SECONDS;
	else if (c->wait == CORE_IDLE)
		wake = core_idle_wake(c);
	if (!c->stopping && (wake == -1 || c->prune_at < wake))
		wake = c->prune_at;
	if (core_scheduled && (wake == -1 || core_push_at < wake))
		wake = core_push_at;
	if (wake == -1)
		return -1;
	if (wake <= now)
		return 0;
	return wake - now > 3600 ? 3600 * 1000 : (int)(wake - now) * 1000;
}

int
core_timer(void)
{
	struct core	*c = &core;

	if (*child_stopping() && !c->stopping)
		core_stop_begin(c);
	/* A call never answered: the parent would kill the core anyway. */
	if (c->stopping && core_now() >= c->stop_by + KEEPCLI_SECONDS)
		core_stop_end(c);
	/* Due whatever runs: a job, a call or a keep that is down. */
	if (!c->stopping && core_now() >= c->prune_at)
		core_prune(c, core_now());
	core_step(c);
	core_push_due(c);
	return core_timeout(c);
}

static int
core_data_dir(const char *dir)
{
	char	 p[PATH_MAX], why[PATH_MAX + 128];
	char	*s;
	int	 fd;

	if (strlcpy(p, dir, sizeof(p)) >= sizeof(p))
		fatalx("data_dir %s: too long", dir);
	for (s = p + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		if (mkdir(p, 0700) == -1 && errno != EEXIST)
			fatal("data_dir %s: cannot make %s", dir, p);
		*s = '/';
	}
	if (path_private_dir(dir, why, sizeof(why)) == -1)
		fatalx("data_dir: %s: the records must be the operator's "
		    "alone (0700)", why);
	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		fatal("data_dir %s", dir);
	return fd;
}

/*
 * Another core, still ending, could write past a record this one takes for a
 * crash's.  flock(2) on the folder needs no file, so a full disk holds it.
 */
static void
core_lock(int dfd, const char *dir)
{
	struct timespec	 tick = { 0, 100 * 1000 * 1000 };
	int		 i;

	for (i = 0; flock(dfd, LOCK_EX | LOCK_NB) == -1; i++) {
		if (errno != EWOULDBLOCK)
			fatal("data_dir %s: flock", dir);
		if (i == 0)
			log_info("data_dir %s is held by the core of another "
			    "sandcastled: waiting for it to end", dir);
		if (i >= CORE_LOCK_WAIT * 10)
			fatalx("data_dir %s is still held by the core of "
			    "another sandcastled after %d s: stop that "
			    "sandcastled, or give this one another data_dir",
			    dir, CORE_LOCK_WAIT);
		nanosleep(&tick, NULL);
	}
}

/* max_jobs_per_hour outlives a restart: the window is filled from the records. */
static void
core_seed_window(struct core *c)
{
	struct source	*src;
	time_t		 wall = time(NULL), mono = core_now(), *starts;
	size_t		 i = 0, n, bad, kept;
	char		 why[RECORDS_WHY_MAX];

	TAILQ_FOREACH(src, &c->conf->sources, entry) {
		if (records_starts(c->dfd, src->name, wall - SCHED_WINDOW,
		    wall, &starts, &n, &bad, why, sizeof(why)) == -1)
			log_warnx("source %s: its jobs of the last hour are "
			    "not known: %s", src->name, why);
		else {
			if (bad > 0)
				log_warnx("source %s: %zu record(s) of the "
				    "last hour cannot be read: not counted in "
				    "its max_jobs_per_hour", src->name, bad);
			kept = sched_seed(c->sched, i, starts, n, wall, mono);
			if (kept > 0)
				log_info("source %s: %zu job(s) started in "
				    "the last hour, counted from the records",
				    src->name, kept);
		}
		free(starts);
		i++;
	}
}

void
core_init(struct config *conf, struct msgchan *chan)
{
	struct core	*c = &core;

	c->conf = conf;
	c->chan = chan;
	TAILQ_INIT(&c->results);
	TAILQ_INIT(&c->jobs);
	c->dfd = core_data_dir(conf->data_dir);
	core_lock(c->dfd, conf->data_dir);
	if ((c->sched = sched_new(conf, core_now())) == NULL)
		fatal("the scheduler");
}

void
core_sandbox(void)
{
	landlock_core(core.dfd, core.conf->data_dir);
	sandbox_core();
}

void
core_ready(void)
{
	struct core	*c = &core;

	log_debug("ready: %zu sources, records under %s", c->conf->nsources,
	    c->conf->data_dir);
	core_recover(c);
	core_seed_window(c);
	core_prune(c, core_now());
	core_wake = core_now();
}
