/* The results on their way to the sources.  At start a running job a crash
 * left is sent back released. */
#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "contract.h"
#include "corebase.h"
#include "coreresult.h"
#include "outcome.h"
#include "keep.h"
#include "log.h"
#include "records.h"
#include "schedule.h"

#define DIRFLAGS	(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

static struct core_result *
core_result_new(struct core *c, size_t src, const char *id,
    enum contract_status status, const char *output, const char *error)
{
	struct core_result	*r;

	if ((r = calloc(1, sizeof(*r))) == NULL)
		fatal("calloc");
	r->state = RESULT_SEND;
	r->src = src;
	r->cap = -1;
	(void)strlcpy(r->id, id, sizeof(r->id));
	r->status = status;
	if (output != NULL) {
		if ((r->output = strdup(output)) == NULL)
			fatal("strdup");
		r->outputlen = strlen(output);
	}
	if (error != NULL)
		(void)strlcpy(r->error, error, sizeof(r->error));
	TAILQ_INSERT_TAIL(&c->results, r, entry);
	return r;
}

/* A result whose record already says it (a restart found it pending). */
void
core_result_add(struct core *c, size_t src, const char *id, int cap,
    enum contract_status status, const char *output, const char *error)
{
	core_result_new(c, src, id, status, output, error)->cap = cap;
}

static enum contract_status
core_result_status(enum job_status s)
{
	return s == JOB_SUCCEEDED ? CONTRACT_SUCCEEDED : s == JOB_FAILED ?
	    CONTRACT_FAILED_JOB : CONTRACT_RELEASED;
}

static void
core_result_job(const struct core *c, const struct core_result *r,
    struct records_job *j)
{
	memset(j, 0, sizeof(*j));
	j->source = core_source(c, r->src);
	j->id = r->id;
	j->numeric = r->numeric;
	j->cap = r->cap;
	j->started_at = r->started_at;
}

/* An unwritten record still says running: a stop sends it back released. */
void
core_result_finish(struct core *c, size_t src, const struct records_job *j,
    struct job_outcome *o)
{
	struct core_result	*r;
	char			 why[RECORDS_WHY_MAX];

	r = core_result_new(c, src, j->id, core_result_status(o->status),
	    o->output, o->status == JOB_FAILED ? o->error : NULL);
	r->numeric = j->numeric;
	r->cap = j->cap;
	r->started_at = j->started_at;
	r->finished_at = time(NULL);
	if (records_finish(c->dfd, j, o, r->finished_at, why,
	    sizeof(why)) == 0)
		return;
	log_warnx("source %s job %s: its record cannot be written (%s): its "
	    "result is held until it can be, and no job is claimed meanwhile",
	    j->source, j->id, why);
	r->state = RESULT_RECORD;
	r->outcome = *o;
	o->output = o->reply = o->record = NULL;
	if (c->record_at == 0 || c->record_at > core_now() + CORE_RECORD_RETRY)
		c->record_at = core_now() + CORE_RECORD_RETRY;
}

void
core_result_unnoted(struct core *c, size_t src, const char *id)
{
	struct core_result	*r;

	r = core_result_new(c, src, id, CONTRACT_RELEASED, NULL, NULL);
	r->norecord = 1;
}

static void
core_result_drop(struct core *c, struct core_result *r)
{
	TAILQ_REMOVE(&c->results, r, entry);
	job_outcome_free(&r->outcome);
	free(r->output);
	free(r);
}

int
core_result_held(const struct core *c)
{
	struct core_result	*r;

	TAILQ_FOREACH(r, &c->results, entry)
		if (r->state != RESULT_SEND)
			return 1;
	return 0;
}

/*
 * 0 when the record says it, 1 when none is left, -1 to try again.  Held
 * for a record that is gone, the result would stop every claim for good.
 */
static int
core_result_mark(struct core *c, struct core_result *r, enum records_result rr)
{
	char	 why[RECORDS_WHY_MAX];
	int	 rv;

	if (r->norecord || (rv = records_result(c->dfd,
	    core_source(c, r->src), r->id, rr, why, sizeof(why))) == 0)
		return 0;
	if (rv == 1) {
		log_warnx("source %s job %s: %s, but its record is gone (%s): "
		    "no record says so, and the claims go on",
		    core_source(c, r->src), r->id, rr == RECORDS_SENT ?
		    "the source took the result" : "the source no longer "
		    "held the job (409)", why);
		return 1;
	}
	if (r->state != RESULT_MARK)
		log_warnx("source %s job %s: the record cannot say the result "
		    "was %s (%s): it is tried again until it can",
		    core_source(c, r->src), r->id, rr == RECORDS_SENT ?
		    "taken" : "refused", why);
	return -1;
}

static void
core_result_retry(struct core *c, time_t now)
{
	struct core_result	*r, *t;
	struct records_job	 j;
	int			 rv;

	if (c->record_at == 0 || now < c->record_at)
		return;
	c->record_at = 0;
	TAILQ_FOREACH_SAFE(r, &c->results, entry, t) {
		if (r->state == RESULT_MARK) {
			if ((rv = core_result_mark(c, r, r->mark)) == 0)
				log_info("source %s job %s: the record says it "
				    "now", core_source(c, r->src), r->id);
			if (rv != -1)
				core_result_drop(c, r);
			continue;
		}
		if (r->state != RESULT_RECORD)
			continue;
		core_result_job(c, r, &j);
		if (records_finish(c->dfd, &j, &r->outcome, r->finished_at,
		    NULL, 0) == -1)
			continue;
		log_info("source %s job %s: its record is written: its result "
		    "goes out", j.source, r->id);
		job_outcome_free(&r->outcome);
		r->state = RESULT_SEND;
	}
	if (core_result_held(c))
		c->record_at = now + CORE_RECORD_RETRY;
}

static int
core_result_due(const struct core *c, const struct core_result *r,
    time_t now)
{
	return r->state == RESULT_SEND &&
	    (!r->tried || c->sched->srcs[r->src].next <= now);
}

/* -1 when none waits; else when the first can be sent or written. */
time_t
core_result_wake(const struct core *c)
{
	struct core_result	*r;
	time_t			 wake = -1, t;

	TAILQ_FOREACH(r, &c->results, entry) {
		if (r->state != RESULT_SEND)
			t = c->record_at;
		else
			t = r->tried ? c->sched->srcs[r->src].next : 0;
		if (wake == -1 || t < wake)
			wake = t;
	}
	return wake;
}

static void
core_take_result(void *arg, struct msg *m)
{
	core_keep_answer(arg, m, core_result_answer);
}

int
core_result_next(struct core *c, time_t now)
{
	struct core_result	*r, *t;
	char			*env;
	size_t			 len;

	core_result_retry(c, now);
	TAILQ_FOREACH_SAFE(r, &c->results, entry, t) {
		if (!core_result_due(c, r, now))
			continue;
		env = contract_result_envelope(core_source(c, r->src), r->id,
		    r->status, r->output, r->outputlen,
		    r->status == CONTRACT_FAILED_JOB ? r->error : NULL, &len);
		if (env == NULL) {
			log_warn("source %s job %s: its result cannot be "
			    "written: it stays in the record only",
			    core_source(c, r->src), r->id);
			core_result_drop(c, r);
			continue;
		}
		c->sending = r;
		core_call(c, r->src, CORE_RESULT, env, len, core_take_result);
		return 1;
	}
	return 0;
}

static void
core_result_done(struct core *c, struct core_result *r, enum records_result rr)
{
	if (core_result_mark(c, r, rr) != -1) {
		core_result_drop(c, r);
		return;
	}
	r->state = RESULT_MARK;
	r->mark = rr;
	if (c->record_at == 0)
		c->record_at = core_now() + CORE_RECORD_RETRY;
}

void
core_result_answer(struct core *c, struct keepcli_answer *a,
    const char *down)
{
	struct core_result	*r = c->sending;
	enum contract_verdict	 v;
	char			 why[CONTRACT_WHY_MAX];
	const char		*name = core_source(c, r->src);

	c->sending = NULL;
	c->wait = CORE_IDLE;
	r->tried = 1;
	if (down != NULL) {
		core_keep_down(c, down);
		return;
	}
	switch ((v = contract_answer(a, 1, why, sizeof(why)))) {
	case CONTRACT_OK:
		/* The job is the source's again: not an hour's wait for it. */
		if (r->status == CONTRACT_RELEASED && !r->norecord)
			sched_released(c->sched, r->src, r->cap, core_now());
		core_result_done(c, r, RECORDS_SENT);
		break;
	case CONTRACT_GONE:
		log_info("source %s job %s: %s (409): the result stays in the "
		    "record and is never sent again", name, r->id,
		    RECORDS_NOTE_GONE);
		core_result_done(c, r, RECORDS_GONE);
		break;
	default:
		log_warnx("source %s job %s: the result was not taken: %s; it "
		    "is sent again at the source's next call", name, r->id,
		    why);
		sched_failed(c->sched, r->src, core_now(), why);
		sched_asked(c->sched, r->src, core_now(),
		    contract_backs_off(v) ? SCHED_FAILED : SCHED_SKIPPED);
		break;
	}
}

static char *
core_read_output(int dfd, const char *source, const char *id)
{
	struct stat	 st;
	char		*buf = NULL;
	int		 sfd, jfd = -1, fd = -1;

	if ((sfd = openat(dfd, source, DIRFLAGS)) == -1 ||
	    (jfd = openat(sfd, id, DIRFLAGS)) == -1 ||
	    (fd = openat(jfd, "output.json", O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1 || fstat(fd, &st) == -1 ||
	    !S_ISREG(st.st_mode) || st.st_size > KEEP_MAXBODY)
		goto out;
	if ((buf = malloc(st.st_size + 1)) == NULL)
		fatal("malloc");
	if (read(fd, buf, st.st_size) != st.st_size) {
		free(buf);
		buf = NULL;
		goto out;
	}
	buf[st.st_size] = '\0';
out:
	if (fd != -1)
		close(fd);
	if (jfd != -1)
		close(jfd);
	if (sfd != -1)
		close(sfd);
	return buf;
}

/* No result went out, so released; core_lock(): nobody wrote past it. */
static void
core_recover_running(struct core *c, size_t i, const struct records_meta *m)
{
	struct records_job	 j;
	struct job_outcome	 o;

	memset(&j, 0, sizeof(j));
	j.source = core_source(c, i);
	j.id = m->job;
	j.numeric = m->numeric;
	j.cap = m->cap;
	j.started_at = m->started_at;
	memset(&o, 0, sizeof(o));
	o.status = JOB_RELEASED;
	o.word = JW_STOPPED;
	(void)strlcpy(o.error, "sandcastled stopped while the job ran",
	    sizeof(o.error));
	log_info("source %s job %s: it was running when sandcastled stopped: "
	    "it is sent back released", j.source, j.id);
	core_result_finish(c, i, &j, &o);
}

static void
core_recover_pending(struct core *c, size_t i, const struct records_meta *m)
{
	char	*out = NULL;

	if (m->status == RECORDS_SUCCEEDED &&
	    (out = core_read_output(c->dfd, core_source(c, i), m->job)) ==
	    NULL) {
		log_warnx("source %s job %s: its output.json cannot be read: "
		    "its result is not sent", core_source(c, i), m->job);
		return;
	}
	core_result_add(c, i, m->job, m->cap, m->status == RECORDS_SUCCEEDED ?
	    CONTRACT_SUCCEEDED : m->status == RECORDS_FAILED ?
	    CONTRACT_FAILED_JOB : CONTRACT_RELEASED, out,
	    m->status == RECORDS_FAILED ? m->error : NULL);
	free(out);
}

static void
core_recover_one(struct core *c, const struct records_ref *ref)
{
	struct records_meta	 m;
	char			 why[RECORDS_WHY_MAX];
	ssize_t			 i;

	if ((i = sched_find(c->sched, ref->source)) == -1) {
		log_warnx("data_dir/%s/%s: no source %s is configured: the "
		    "job is left as it is", ref->source, ref->job, ref->source);
		return;
	}
	if (records_read(c->dfd, ref->source, ref->job, &m, why,
	    sizeof(why)) == -1) {
		log_warnx("%s", why);
		return;
	}
	if (m.status == RECORDS_RUNNING)
		core_recover_running(c, i, &m);
	else if (m.result == RECORDS_PENDING)
		core_recover_pending(c, i, &m);
}

void
core_recover(struct core *c)
{
	struct records_ref	*refs;
	char			 why[RECORDS_WHY_MAX];
	size_t			 n, i, unreadable;

	if (records_unfinished(c->dfd, &refs, &n, &unreadable, why,
	    sizeof(why)) == -1) {
		log_warnx("the records a crash may have left: %s", why);
		return;
	}
	if (unreadable > 0)
		log_warnx("%zu records under %s cannot be read: they are left "
		    "as they are", unreadable, c->conf->data_dir);
	for (i = 0; i < n; i++)
		core_recover_one(c, &refs[i]);
	free(refs);
}
