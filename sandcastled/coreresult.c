/*
 * The results on their way to the sources.  A result waits in the
 * queue until its source took it (2xx) or said it no longer holds the
 * job (409: kept in the record, never sent again); a failed send waits
 * for the source's back-off.  At start, the records say what a crash
 * left: a job still running is sent back released, a finished job
 * whose result was never sent has it sent.
 */
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
#include "core.h"
#include "keep.h"
#include "log.h"
#include "records.h"
#include "schedule.h"

#define DIRFLAGS	(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

void
core_result_add(struct core *c, size_t src, const char *id,
    enum contract_status status, const char *output, const char *error)
{
	struct core_result	*r;

	if ((r = calloc(1, sizeof(*r))) == NULL)
		fatal("calloc");
	r->src = src;
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
}

static void
core_result_drop(struct core *c, struct core_result *r)
{
	TAILQ_REMOVE(&c->results, r, entry);
	free(r->output);
	free(r);
}

static int
core_result_due(const struct core *c, const struct core_result *r,
    time_t now)
{
	return !r->tried || c->sched->srcs[r->src].next <= now;
}

/* -1 when none waits; else when the first can be sent. */
time_t
core_result_wake(const struct core *c)
{
	struct core_result	*r;
	time_t			 wake = -1, t;

	TAILQ_FOREACH(r, &c->results, entry) {
		t = r->tried ? c->sched->srcs[r->src].next : 0;
		if (wake == -1 || t < wake)
			wake = t;
	}
	return wake;
}

/* 1 when a result went out and the core waits for its answer. */
int
core_result_next(struct core *c, time_t now)
{
	struct core_result	*r, *t;
	char			*env;
	size_t			 len;

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
		core_call(c, r->src, CORE_RESULT, env, len);
		return 1;
	}
	return 0;
}

static void
core_result_mark(struct core *c, struct core_result *r, enum records_result rr)
{
	char	 why[RECORDS_WHY_MAX];

	if (records_result(c->dfd, core_source(c, r->src), r->id, rr, why,
	    sizeof(why)) == -1)
		log_warnx("source %s job %s: the record: %s",
		    core_source(c, r->src), r->id, why);
}

void
core_result_answer(struct core *c, const struct keepcli_answer *a,
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
		core_result_mark(c, r, RECORDS_SENT);
		core_result_drop(c, r);
		break;
	case CONTRACT_GONE:
		log_info("source %s job %s: %s (409): the result stays in the "
		    "record and is never sent again", name, r->id,
		    RECORDS_NOTE_GONE);
		core_result_mark(c, r, RECORDS_GONE);
		core_result_drop(c, r);
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

/* output.json of a record, one folder at a time, no link followed. */
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

/* Cut short by a crash: its record says released, and so does its result. */
static void
core_recover_running(struct core *c, size_t i, const struct records_meta *m)
{
	struct records_job	 j;
	struct job_outcome	 o;
	char			 why[RECORDS_WHY_MAX];

	memset(&j, 0, sizeof(j));
	j.source = core_source(c, i);
	j.id = m->job;
	j.numeric = m->numeric;
	j.cap = m->cap;
	j.started_at = m->started_at;
	memset(&o, 0, sizeof(o));
	o.status = JOB_RELEASED;
	(void)strlcpy(o.error, "sandcastled stopped while the job ran",
	    sizeof(o.error));
	if (records_finish(c->dfd, &j, &o, time(NULL), why, sizeof(why)) == -1)
		log_warnx("source %s job %s: the record: %s", j.source, j.id,
		    why);
	log_info("source %s job %s: it was running when sandcastled stopped: "
	    "it is sent back released", j.source, j.id);
	core_result_add(c, i, m->job, CONTRACT_RELEASED, NULL, NULL);
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
	core_result_add(c, i, m->job, m->status == RECORDS_SUCCEEDED ?
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
