/* A job's runner, one process per job, so that the launcher hears its
 * parent and the other jobs while this one waits on its box or its keep. */
#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/uio.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "boxrun.h"
#include "child.h"
#include "jobrun.h"
#include "keepbody.h"
#include "keepcli.h"
#include "log.h"
#include "msg.h"
#include "readlock.h"
#include "runner.h"

struct runner {
	struct msgchan		 chan;
	const struct msg_rule	*rules;
	size_t			 nrules;
};

/* The launcher's answer to its one question; 0 when it is gone. */
static int
runner_wait(struct runner *r, struct msg *m, const char **why)
{
	struct pollfd	 pfd = { r->chan.fd, POLLIN, 0 };
	sigset_t	 none;
	ssize_t		 n;
	int		 got;

	sigemptyset(&none);
	while ((got = msg_get(&r->chan, m)) == 0) {
		if (*child_stopping()) {
			*why = "sandcastled is stopping";
			return -1;
		}
		if (ppoll(&pfd, 1, NULL, &none) == -1 && errno != EINTR)
			fatal("a job's runner: ppoll");
		if ((pfd.revents & (POLLIN | POLLHUP | POLLERR)) == 0)
			continue;
		if ((n = msgchan_read(&r->chan)) == 0 ||
		    (n == -1 && errno != EAGAIN && errno != EINTR)) {
			*why = "the box launcher is gone";
			return -1;
		}
	}
	if (got == -1)
		fatal("a job's runner: the launcher's message");
	msg_verify_set(r->rules, r->nrules, msg_takes(r->rules, r->nrules,
	    RUN_RUNNER), m, "the box launcher");
	return 0;
}

static int
runner_keep(const char *env, size_t len, unsigned int seconds,
    struct keepcli_answer *a, void *arg, const char **why)
{
	static char		 down[PROC_REASON_MAX + 64];
	struct runner		*r = arg;
	struct proc_keep_call	 pc = { seconds };
	struct iovec		 iov[2] = { { &pc, sizeof(pc) },
				    { (void *)env, len } };
	struct msg		 m;

	if (msg_composev(&r->chan, RUN_KEEP, 0, -1, iov, 2) == -1 ||
	    msgchan_flush_all(&r->chan) == -1) {
		*why = "the box launcher is gone";
		return -1;
	}
	if (runner_wait(r, &m, why) == -1)
		return -1;
	if (m.type == RUN_DOWN) {
		(void)snprintf(down, sizeof(down), "the keep does not answer: "
		    "%.*s", (int)m.len, (char *)m.data);
		*why = down;
		msg_free(&m);
		return -1;
	}
	if (keepcli_answer_take(&m, a) == -1)
		fatalx("the box launcher sent a keep answer whose lengths do "
		    "not add up");
	msg_free(&m);
	return 0;
}

/* The input mapped read only, its memfd closed: the box's children get none. */
static void
runner_job(struct runner *r, const struct config *conf,
    const struct proc_job *j, int memfd, struct job_outcome *o)
{
	struct keepbody_span	 in;

	if (keepbody_span_map(memfd, j->input_off, j->inputlen, &in) == -1) {
		o->status = JOB_RELEASED;
		o->word = JW_RELEASED;
		(void)snprintf(o->error, sizeof(o->error), "its input could "
		    "not be mapped: %s", strerror(errno));
		(void)close(memfd);
		return;
	}
	(void)close(memfd);
	job_run(conf, j->cap, JOB_RUN, in.bytes, j->inputlen, j->timeout,
	    reader_lock, runner_keep, r, o);
	keepbody_span_unmap(&in);
}

void
runner_main(const struct config *conf, const struct proc_job *j, int memfd,
    int chanfd, const struct msg_rule *rules, size_t nrules, pid_t launcher)
{
	struct runner		 r;
	struct job_outcome	 o;

	/* Set before the check: a launcher gone in between is seen either way. */
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1 || getppid() != launcher)
		_exit(1);
	setproctitle("job runner");
	log_procname("job runner");
	msgchan_init(&r.chan, chanfd, PROC_MAXPAYLOAD);
	r.rules = rules;
	r.nrules = nrules;
	/* SIGTERM, or the launcher's hang-up, removes the box. */
	box_stop_when(child_stopping(), chanfd);
	memset(&o, 0, sizeof(o));
	runner_job(&r, conf, j, memfd, &o);
	if (outcome_send(&r.chan, RUN_DONE, 0, &o, NULL, 0) == -1 ||
	    msgchan_flush_all(&r.chan) == -1)
		log_warn("a job's outcome to the box launcher");
	_exit(0);
}
