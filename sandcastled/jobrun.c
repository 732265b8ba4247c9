/* A job in its box, from the launcher: the box started, its reader run,
 * and the box's end, which may overrule what it said. */
#include <sys/types.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "boxrun.h"
#include "job.h"
#include "jobread.h"
#include "jobrun.h"
#include "log.h"
#include "podman.h"

static void	 job_end(struct job_ctx *, const struct box_end *);

static double
job_since(const struct timespec *t0)
{
	struct timespec	 now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t0->tv_sec) + (now.tv_nsec - t0->tv_nsec) / 1e9;
}

void
job_run(const struct config *conf, enum cap_id cap, enum job_mode mode,
    const char *input, size_t inputlen, unsigned int timeout,
    void (*lock)(void), job_keep_fn *keep, void *arg, struct job_outcome *o)
{
	const struct capability	*c = &conf->caps[cap];
	struct box_end	 bo;
	struct job_ctx		 x;
	struct timespec		 t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	memset(o, 0, sizeof(*o));
	memset(&x, 0, sizeof(x));
	x.conf = conf;
	x.cap = cap;
	x.mode = mode;
	if ((x.lock = lock) == NULL)
		fatalx("a box's reader without its lock");
	x.keep = keep;
	x.arg = arg;
	x.o = o;
	proto_seq_init(&x.seq, cap);
	if (timeout == 0 || timeout > c->timeout)
		timeout = c->timeout;
	if (mode == JOB_RUN && inputlen > c->max_input)
		job_decide(&x, JOB_FAILED, JW_INPUT, "the input is %zu bytes, "
		    "more than max_input (%llu)", inputlen,
		    (unsigned long long)c->max_input);
	else if (mode == JOB_RUN && inputlen == 0)
		job_decide(&x, JOB_FAILED, JW_INPUT, "the job has no input");
	else if (job_no_build() != NULL)
		job_decide(&x, JOB_RELEASED, JW_PODMAN, "no box can run: %s",
		    job_no_build());
	else if ((x.box = box_start(cap, mode == JOB_RUN ? BOX_CORE :
	    BOX_CHECK, &c->box, timeout, c->max_output)) == NULL)
		job_decide(&x, JOB_RELEASED, JW_PODMAN, "podman cannot be run "
		    "(%s): install podman", strerror(errno));
	if (x.box != NULL) {
		o->box_started = 1;
		jobread_run(&x, input, inputlen);
		box_finish(x.box, &bo);
		job_end(&x, &bo);
	}
	if (o->status != JOB_RELEASED)
		o->rest = 0;
	o->seconds = job_since(&t0);
}

/* The step that fixes each cause podman gives: its words before the hello. */
static const char *const podman_steps[] = {
	[PODMAN_CGROUP] = "podman says a cgroup limit cannot be set here: "
	    "delegate cpu, cpuset, io, memory and pids to your user manager "
	    "(sandcastle(7)), then run sandcastlectl check",
	[PODMAN_RUNTIME] = "podman says its OCI runtime is not found: "
	    "install runc or crun, or name one installed as runtime in "
	    "~/.config/containers/containers.conf",
	[PODMAN_IMAGE] = "podman says the image is missing: run "
	    "sandcastlectl install",
	[PODMAN_RUNTIME_FAILED] = "podman says its OCI runtime failed: its "
	    "words are the record's stderr; podman info names the runtime",
	[PODMAN_OTHER] = "its words are the record's stderr",
};

/* Before its hello, stderr is podman's: none of its bytes goes into the line. */
static void
job_podman(struct job_ctx *x, const struct box_end *bo)
{
	job_decide(x, JOB_RELEASED, JW_PODMAN, "podman could not run the "
	    "image sandcastle-%s:%s (exit %d): %s", cap_name(x->cap),
	    job_build(), bo->code,
	    podman_steps[podman_said(bo->errhead, bo->errlen)]);
}

/* How the box ended: a broken limit or a bad end overrules its last line. */
static void
job_end(struct job_ctx *x, const struct box_end *bo)
{
	struct job_outcome	*o = x->o;
	char			 said[JOB_ERROR_MAX];

	(void)strlcpy(said, o->error, sizeof(said));
	o->stderr_len = bo->errlen < JOB_STDERR_MAX ? bo->errlen :
	    JOB_STDERR_MAX;
	memcpy(o->stderr_head, bo->errhead, o->stderr_len);
	o->box_removed = bo->removed;
	if (bo->stopped)
		job_decide(x, JOB_RELEASED, JW_STOPPED, "%s while the job ran: "
		    "its box was removed", bo->why);
	else if (bo->timed_out)
		job_decide(x, JOB_FAILED, JW_TIME, "the box ran past its "
		    "time: removed and confirmed gone");
	else if (bo->output_failed)
		job_decide(x, JOB_FAILED, JW_OUTPUT, "%s", bo->why);
	else if (!x->hello && !x->last && bo->release)
		job_podman(x, bo);
	else if (bo->signal == SIGSYS)
		job_decide(x, JOB_FAILED, JW_FILTER, "the box broke its "
		    "filter: killed by SIGSYS for a call its seccomp filter "
		    "does not allow");
	else if (bo->signal != 0)
		job_decide(x, JOB_FAILED, JW_KILLED, "the box was killed by "
		    "signal %d%s", bo->signal, bo->signal == 9 ? " (137: its "
		    "memory, processes or cpu time)" : "");
	else if (bo->exited && bo->code != 0)
		job_decide(x, JOB_FAILED, JW_EXIT, "the box exited with "
		    "%d%s%.400s", bo->code, x->last ? ": " : "",
		    x->last ? said : "");
	else if (!x->last)
		job_decide(x, JOB_FAILED, JW_PROTOCOL, "the box ended without "
		    "a last line");
}
