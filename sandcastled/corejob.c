/*
 * A job's life in the core: noted in its record before it runs, then
 * its outcome recorded and its result queued.  The core never opens
 * the input: the launcher maps it from the claim's memfd.  What the box
 * wrote is hostile: record and source only, never the log, whose line
 * has sandcastle's own word (word.c).
 */
#include <sys/types.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "contract.h"
#include "core.h"
#include "job.h"
#include "log.h"
#include "msg.h"
#include "proto.h"
#include "records.h"
#include "schedule.h"

/*
 * sandcastle's own word for the outcome: what the box said is in the
 * record.  The manual's line, which a log parser of it reads: msg=job,
 * and error="" when there is none.
 */
static void
corejob_log(const struct core *c, const struct job_outcome *o)
{
	const struct records_job *j = &c->rjob;
	double			  secs = o->seconds;

	if (!o->box_started)
		secs = (double)(core_now() - c->job_mono);
	log_info("msg=job source=%s job=%s capability=%s status=%s "
	    "seconds=%.0f error=%s input_tokens=%llu output_tokens=%llu",
	    j->source, j->id, j->cap >= 0 ? cap_name(j->cap) : "none",
	    job_status_name(o->status), secs,
	    o->word == JW_NONE ? "\"\"" : job_word_name(o->word),
	    (unsigned long long)o->usage.input_tokens,
	    (unsigned long long)o->usage.output_tokens);
}

static void
corejob_end(struct core *c, const struct job_outcome *o)
{
	corejob_log(c, o);
	if (o->status != JOB_SUCCEEDED)
		core_once_failed(c);
	if (o->status == JOB_RELEASED && c->rjob.cap >= 0)
		sched_rest(c->sched, c->rjob.cap, core_now(), o->rest);
	contract_claim_free(&c->claim);
	keepcli_answer_free(&c->claimed);
	memset(&c->rjob, 0, sizeof(c->rjob));
	c->wait = CORE_IDLE;
}

static void
corejob_finish(struct core *c, struct job_outcome *o)
{
	core_result_finish(c, c->src, &c->rjob, o);
	corejob_end(c, o);
}

/*
 * Not noted, so never run: released at once, so that no record claims
 * it.  Held in memory it would be lost to a crash, and the source keeps
 * a claimed job for this worker for good.
 */
static void
corejob_unnoted(struct core *c, const char *why)
{
	struct job_outcome	 o;

	log_warnx("source %s job %s: it cannot be noted (%s): it is released "
	    "and leaves no record", c->rjob.source, c->rjob.id, why);
	memset(&o, 0, sizeof(o));
	o.status = JOB_RELEASED;
	o.word = JW_RECORD;
	(void)strlcpy(o.error, "the job could not be noted", sizeof(o.error));
	core_result_unnoted(c, c->src, c->rjob.id);
	/* No backlog is drained onto a full disk: poll_interval first. */
	sched_asked(c->sched, c->src, core_now(), SCHED_SKIPPED);
	corejob_end(c, &o);
}

static void
corejob_send(struct core *c, const struct source *src)
{
	const struct contract_job *j = &c->claim.jobs[0];
	struct proc_job		   pj;
	int			   fd = -1;

	memset(&pj, 0, sizeof(pj));
	(void)strlcpy(pj.source, src->name, sizeof(pj.source));
	(void)strlcpy(pj.id, j->id, sizeof(pj.id));
	pj.cap = j->cap;
	pj.timeout = sched_job_limit(src, &c->conf->caps[j->cap]);
	pj.inputlen = j->inputlen;
	pj.input_off = j->inputoff;
	/* The input, by the claim's memfd: msg_compose() closes the dup. */
	if (j->inputlen > 0 && (fd = fcntl(c->claimed.body_fd,
	    F_DUPFD_CLOEXEC, 0)) == -1)
		fatal("the claim's memfd for the box launcher");
	if (msg_compose(c->chan, PROC_JOB_RUN, core_next_id(c), fd, &pj,
	    sizeof(pj)) == -1)
		fatal("a job for the box launcher");
	c->wait = CORE_JOB;
}

void
core_job_start(struct core *c)
{
	const struct source	*src = c->sched->srcs[c->src].src;
	struct contract_job	*j = &c->claim.jobs[0];
	struct job_outcome	 o;
	char			 why[RECORDS_WHY_MAX];

	c->job_mono = core_now();
	sched_started(c->sched, c->src, c->job_mono);
	memset(&c->rjob, 0, sizeof(c->rjob));
	c->rjob.source = src->name;
	c->rjob.id = j->id;
	c->rjob.numeric = j->numeric;
	c->rjob.cap = j->cap;
	c->rjob.input = j->input;
	c->rjob.inputlen = j->inputlen;
	c->rjob.started_at = time(NULL);
	memset(&o, 0, sizeof(o));
	if (records_begin(c->dfd, &c->rjob, why, sizeof(why)) == -1)
		corejob_unnoted(c, why);
	else if (c->stopping) {
		/* A claim answered after SIGTERM: noted, and given back. */
		o.status = JOB_RELEASED;
		o.word = JW_STOPPED;
		(void)strlcpy(o.error, "sandcastled stopped before the job ran",
		    sizeof(o.error));
		corejob_finish(c, &o);
	} else if (j->failed[0] != '\0') {
		o.status = JOB_FAILED;
		o.word = strcmp(j->failed, CONTRACT_NO_INPUT) == 0 ? JW_INPUT :
		    JW_CAPABILITY;
		(void)strlcpy(o.error, j->failed, sizeof(o.error));
		corejob_finish(c, &o);
	} else
		corejob_send(c, src);
}

void
core_job_done(struct core *c, struct msg *m)
{
	struct job_outcome	 o;

	if (outcome_take(m, &o, NULL, 0) == -1)
		fatalx("the parent sent an outcome that does not add up");
	corejob_finish(c, &o);
	job_outcome_free(&o);
}
