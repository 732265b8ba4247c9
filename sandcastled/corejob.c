/* A job's life in the core: noted in its record before it runs, then its
 * outcome recorded and its result queued.  What the box wrote never logs. */
#include <sys/types.h>
#include <sys/uio.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ask.h"
#include "config.h"
#include "contract.h"
#include "corebase.h"
#include "corejob.h"
#include "coreresult.h"
#include "job.h"
#include "log.h"
#include "msg.h"
#include "proto.h"
#include "records.h"
#include "schedule.h"

/* The manual's line, which a log parser reads: msg=job, error="" for none. */
static void
corejob_log(const struct core_job *j, const struct job_outcome *o)
{
	const struct records_job *r = &j->rjob;
	double			  secs = o->seconds;

	if (!o->box_started)
		secs = (double)(core_now() - j->mono);
	log_info("msg=job source=%s job=%s capability=%s status=%s "
	    "seconds=%.0f error=%s input_tokens=%llu output_tokens=%llu",
	    r->source, r->id, r->cap >= 0 ? cap_name(r->cap) : "none",
	    job_status_name(o->status), secs,
	    o->word == JW_NONE ? "\"\"" : job_word_name(o->word),
	    (unsigned long long)o->usage.input_tokens,
	    (unsigned long long)o->usage.output_tokens);
}

/* Its slot freed; a 429 rests its capability for every box of it. */
static void
corejob_end(struct core_job *j, const struct job_outcome *o, int ran)
{
	struct core	*c = j->core;

	corejob_log(j, o);
	if (o->status != JOB_SUCCEEDED)
		core_once_failed(c);
	if (o->status == JOB_RELEASED && j->rjob.cap >= 0)
		sched_rest(c->sched, j->rjob.cap, core_now(), o->rest);
	if (ran)
		sched_job_end(c->sched, j->src, j->rjob.cap);
	TAILQ_REMOVE(&c->jobs, j, entry);
	c->njobs--;
	contract_claim_free(&j->claim);
	keepcli_answer_free(&j->claimed);
	free(j);
}

static void
corejob_finish(struct core_job *j, struct job_outcome *o, int ran)
{
	core_result_finish(j->core, j->src, &j->rjob, o);
	corejob_end(j, o, ran);
}

/* Not noted, so never run: released at once, or a crash would lose it. */
static void
corejob_unnoted(struct core_job *j, const char *why)
{
	struct core		*c = j->core;
	struct job_outcome	 o;

	log_warnx("source %s job %s: it cannot be noted (%s): it is released "
	    "and leaves no record", j->rjob.source, j->rjob.id, why);
	memset(&o, 0, sizeof(o));
	o.status = JOB_RELEASED;
	o.word = JW_RECORD;
	(void)strlcpy(o.error, "the job could not be noted", sizeof(o.error));
	core_result_unnoted(c, j->src, j->rjob.id);
	/* No backlog is drained onto a full disk: poll_interval first. */
	sched_asked(c->sched, j->src, core_now(), SCHED_SKIPPED);
	corejob_end(j, &o, 0);
}

static void	 core_job_done(void *, struct msg *);

static void
corejob_send(struct core_job *j, const struct source *src)
{
	struct core		  *c = j->core;
	const struct contract_job *cj = &j->claim.jobs[0];
	struct proc_job		   pj;
	struct iovec		   iov;
	int			   fd = -1;

	memset(&pj, 0, sizeof(pj));
	(void)strlcpy(pj.source, src->name, sizeof(pj.source));
	(void)strlcpy(pj.id, cj->id, sizeof(pj.id));
	pj.cap = cj->cap;
	pj.timeout = sched_job_limit(src, &c->conf->caps[cj->cap]);
	pj.inputlen = cj->inputlen;
	pj.input_off = cj->inputoff;
	/* The input, by the claim's memfd: msg_compose() closes the dup. */
	if (cj->inputlen > 0 && (fd = fcntl(j->claimed.body_fd,
	    F_DUPFD_CLOEXEC, 0)) == -1)
		fatal("the claim's memfd for the box launcher");
	iov.iov_base = &pj;
	iov.iov_len = sizeof(pj);
	(void)ask_send(c->chan, PROC_JOB_RUN, fd, &iov, 1, core_job_done, j);
	sched_job_begin(c->sched, j->src, cj->cap);
}

void
core_job_start(struct core *c, struct core_job *j)
{
	const struct source	*src = c->sched->srcs[j->src].src;
	struct contract_job	*cj = &j->claim.jobs[0];
	struct job_outcome	 o;
	char			 why[RECORDS_WHY_MAX];

	j->core = c;
	j->mono = core_now();
	TAILQ_INSERT_TAIL(&c->jobs, j, entry);
	c->njobs++;
	sched_started(c->sched, j->src, j->mono);
	j->rjob.source = src->name;
	j->rjob.id = cj->id;
	j->rjob.numeric = cj->numeric;
	j->rjob.cap = cj->cap;
	j->rjob.input = cj->input;
	j->rjob.inputlen = cj->inputlen;
	j->rjob.started_at = time(NULL);
	memset(&o, 0, sizeof(o));
	if (records_begin(c->dfd, &j->rjob, why, sizeof(why)) == -1)
		corejob_unnoted(j, why);
	else if (c->stopping) {
		/* A claim answered after SIGTERM: noted, and given back. */
		o.status = JOB_RELEASED;
		o.word = JW_STOPPED;
		(void)strlcpy(o.error, "sandcastled stopped before the job ran",
		    sizeof(o.error));
		corejob_finish(j, &o, 0);
	} else if (cj->failed[0] != '\0') {
		o.status = JOB_FAILED;
		o.word = strcmp(cj->failed, CONTRACT_NO_INPUT) == 0 ? JW_INPUT :
		    JW_CAPABILITY;
		(void)strlcpy(o.error, cj->failed, sizeof(o.error));
		corejob_finish(j, &o, 0);
	} else
		corejob_send(j, src);
}

static void
core_job_done(void *arg, struct msg *m)
{
	struct core_job		*j = arg;
	struct job_outcome	 o;

	if (outcome_take(m, &o, NULL, 0) == -1)
		fatalx("the parent sent an outcome that does not add up");
	corejob_finish(j, &o, 1);
	job_outcome_free(&o);
}
