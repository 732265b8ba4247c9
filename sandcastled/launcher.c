/* The box launcher: the only process that runs a program (podman).  One
 * that cannot prepare podman still runs and releases every job with why. */
#include <sys/types.h>
#include <sys/pidfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ask.h"
#include "boxrun.h"
#include "build.h"
#include "child.h"
#include "config.h"
#include "job.h"
#include "jobrun.h"
#include "keepbody.h"
#include "keepcli.h"
#include "launcher.h"
#include "lock.h"
#include "log.h"
#include "msg.h"
#include "paths.h"
#include "podman.h"
#include "proc.h"
#include "proto.h"
#include "readlock.h"
#include "runner.h"

#define LAUNCHER_LOCK		"launcher.lock"
#define LAUNCHER_LOCK_WAIT	30	/* seconds for another launcher to end */
/* The table's room: a run whose outcome went out may not be reaped yet. */
#define LAUNCHER_RUNS_MAX	(2 * JOBS_MAX)

static struct config	*launcher_conf;
static struct msgchan	*launcher_chan;
static int		 launcher_podman_ok;
static int		 launcher_leftover;	/* a box a crash left stays */
static int		 launcher_unlocked;	/* another launcher holds the lock */
static char		 launcher_why[256];
static int		 launcher_stopping;

struct launcher_run {
	uint32_t	 id;
	pid_t		 pid;		/* 0: a free slot */
	int		 pidfd;
	struct msgchan	 chan;		/* fd -1 once it hung up */
	int		 done;
	int		 calling;
	uint32_t	 cap;
	char		 source[NAME_LEN + 1];
};
static struct launcher_run	 launcher_runs[LAUNCHER_RUNS_MAX];

static void	 launcher_run_keep(void *, struct msg *);
static void	 launcher_run_done(void *, struct msg *);

static const struct msg_rule launcher_run_rules[] = {
	{ RUN_KEEP, "RUN_KEEP", sizeof(struct proc_keep_call) + 2,
	    KEEP_MAXENVELOPE, 0, RUN_RUNNER, 0, launcher_run_keep },
	{ RUN_ANSWER, "RUN_ANSWER", KEEPCLI_WIRE_MIN, KEEPCLI_WIRE_MAX, 2,
	    RUN_LAUNCHER, RUN_KEEP, NULL },
	{ RUN_DOWN, "RUN_DOWN", 1, PROC_REASON_MAX, 0, RUN_LAUNCHER, RUN_KEEP,
	    NULL },
	{ RUN_DONE, "RUN_DONE", sizeof(struct outcome_wire), PROC_MAXPAYLOAD,
	    0, RUN_RUNNER, 0, launcher_run_done },
};
#define LAUNCHER_NRULES	(sizeof(launcher_run_rules) / \
			    sizeof(launcher_run_rules[0]))

static void
launcher_done(uint32_t id, const struct job_outcome *o)
{
	if (outcome_send(launcher_chan, PROC_JOB_DONE, id, o, NULL, 0) == -1)
		fatal("a job's outcome to the parent");
}

/* No box starts beside a crash's that would not go: the job is released. */
static int
launcher_boxes_ok(void)
{
	if (launcher_podman_ok || !launcher_leftover)
		return launcher_podman_ok;
	if (box_remove_leftovers(launcher_why, sizeof(launcher_why)) == -1)
		return 0;
	log_info("the boxes a crash left are gone: boxes run again");
	launcher_leftover = 0;
	return launcher_podman_ok = 1;
}

/* The claim's memfd is not trusted either: sealed, the span inside it. */
int
launcher_input(const struct proc_job *j, int fd, const char **why)
{
	if (j->inputlen == 0) {
		*why = "a memfd came with no input";
		return fd == -1 ? 0 : -1;
	}
	if (fd == -1) {
		*why = "its input came without the claim's memfd";
		return -1;
	}
	return keepbody_span_check(fd, j->input_off, j->inputlen, why);
}

static void
launcher_stopped(struct job_outcome *o)
{
	o->status = JOB_RELEASED;
	o->word = JW_STOPPED;
	(void)strlcpy(o->error, "sandcastled stopped before the job ran",
	    sizeof(o->error));
}

static void
launcher_no_box(struct job_outcome *o)
{
	o->status = JOB_RELEASED;
	o->word = launcher_leftover ? JW_LEFTOVER : launcher_unlocked ?
	    JW_LAUNCHER : JW_PODMAN;
	(void)snprintf(o->error, sizeof(o->error), "no box can run: %s",
	    launcher_why);
}

int
launcher_standin_job(struct msgchan *chan, uint32_t id)
{
	static struct job_outcome	 o;

	memset(&o, 0, sizeof(o));
	o.status = JOB_RELEASED;
	o.word = JW_STOPPED;
	(void)strlcpy(o.error, "the box launcher ended while the job ran",
	    sizeof(o.error));
	return outcome_send(chan, PROC_JOB_DONE, id, &o, NULL, 0);
}

static void
launcher_keep_answer(void *arg, struct msg *m)
{
	struct launcher_run	*r = arg;
	struct keepcli_answer	 a;
	int			 rv;

	r->calling = 0;
	if (m->type == PROC_KEEP_DOWN)
		rv = msg_compose(&r->chan, RUN_DOWN, 0, -1, m->data, m->len);
	else {
		if (keepcli_answer_take(m, &a) == -1)
			fatalx("the parent sent a keep answer whose lengths "
			    "do not add up");
		rv = keepcli_answer_send(&r->chan, RUN_ANSWER, 0, &a);
		keepcli_answer_free(&a);
	}
	if (rv == -1)
		log_warn("a keep answer to the runner of job %s", r->source);
}

static void
launcher_run_keep(void *arg, struct msg *m)
{
	struct launcher_run	*r = arg;
	struct iovec		 iov = { m->data, m->len };

	if (r->calling)
		fatalx("a job's runner asked the keep twice at once");
	r->calling = 1;
	(void)ask_send(launcher_chan, PROC_KEEP_CALL, -1, &iov, 1,
	    launcher_keep_answer, r);
}

static void
launcher_run_done(void *arg, struct msg *m)
{
	struct launcher_run	*r = arg;
	struct job_outcome	 o;

	if (r->done || outcome_take(m, &o, NULL, 0) == -1)
		fatalx("a job's runner sent an outcome that does not add up");
	launcher_done(r->id, &o);
	job_outcome_free(&o);
	r->done = 1;
}

static void
launcher_count(uint32_t cap, const char *source, uint32_t n[3])
{
	size_t	 i;

	n[0] = n[1] = n[2] = 0;
	for (i = 0; i < LAUNCHER_RUNS_MAX; i++) {
		if (launcher_runs[i].pid == 0 || launcher_runs[i].done)
			continue;
		n[0]++;
		n[1] += launcher_runs[i].cap == cap;
		n[2] += strcmp(launcher_runs[i].source, source) == 0;
	}
}

/* The launcher's own count holds the limits whatever the core asks. */
static int
launcher_may_start(const struct proc_job *j, struct job_outcome *o)
{
	const struct config	*cf = launcher_conf;
	const struct source	*src;
	const char		*what = NULL;
	uint32_t		 n[3];

	launcher_count(j->cap, j->source, n);
	TAILQ_FOREACH(src, &cf->sources, entry)
		if (strcmp(src->name, j->source) == 0)
			break;
	if (n[0] >= config_jobs_of(cf, 0))
		what = "jobs";
	else if (n[1] >= config_jobs_of(cf, cf->caps[j->cap].jobs))
		what = "its capability's jobs";
	else if (src == NULL || n[2] >= config_jobs_of(cf, src->jobs))
		what = "its source's jobs";
	else
		return 0;
	o->status = JOB_RELEASED;
	o->word = JW_RELEASED;
	(void)snprintf(o->error, sizeof(o->error), "the box launcher refused "
	    "it: %u boxes run, %u of its capability and %u of its source, "
	    "which %s allows no more of", n[0], n[1], n[2], what);
	log_warnx("refused a box of source %s: %u boxes run, %u of %s and %u "
	    "of the source: %s allows no more", j->source, n[0], n[1],
	    cap_name(j->cap), n[2], what);
	return -1;
}

static struct launcher_run *
launcher_slot(void)
{
	size_t	 i;

	for (i = 0; i < LAUNCHER_RUNS_MAX; i++)
		if (launcher_runs[i].pid == 0)
			return &launcher_runs[i];
	fatalx("no slot for a job's runner");
}

/* The runner holds its channel and the input's memfd, nothing of ours. */
static void
launcher_fork(struct launcher_run *r, const struct proc_job *j, int memfd)
{
	pid_t	 self = getpid();
	size_t	 i;
	int	 sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1 ||
	    (r->pid = fork()) == -1)
		fatal("a job's runner");
	if (r->pid == 0) {
		(void)close(sv[0]);
		(void)close(launcher_chan->fd);
		for (i = 0; i < LAUNCHER_RUNS_MAX; i++)
			if (launcher_runs[i].pid > 0)
				(void)close(launcher_runs[i].chan.fd),
				    (void)close(launcher_runs[i].pidfd);
		runner_main(launcher_conf, j, memfd, sv[1],
		    launcher_run_rules, LAUNCHER_NRULES, self);
	}
	(void)close(sv[1]);
	if ((r->pidfd = pidfd_open(r->pid, 0)) == -1)
		fatal("pidfd_open for a job's runner");
	if (fcntl(sv[0], F_SETFL, O_NONBLOCK) == -1)
		fatal("a job's runner: O_NONBLOCK");
	msgchan_init(&r->chan, sv[0], PROC_MAXPAYLOAD);
	r->done = r->calling = 0;
	r->cap = j->cap;
	(void)strlcpy(r->source, j->source, sizeof(r->source));
}

void
launcher_job(void *proc, struct msg *m)
{
	struct proc_job		 j;
	struct job_outcome	 o;
	struct launcher_run	*r;
	const char		*why;

	memcpy(&j, m->data, sizeof(j));
	if (launcher_input(&j, m->fd, &why) == -1)
		fatalx("the parent sent a job that does not add up: %s", why);
	if (j.cap >= CAP_COUNT || !launcher_conf->caps[j.cap].enabled ||
	    memchr(j.source, '\0', sizeof(j.source)) == NULL)
		fatalx("the parent sent a job that does not add up");
	memset(&o, 0, sizeof(o));
	if (launcher_stopping)
		launcher_stopped(&o);
	else if (!launcher_boxes_ok())
		launcher_no_box(&o);
	else if (launcher_may_start(&j, &o) == 0) {
		r = launcher_slot();
		r->id = m->id;
		launcher_fork(r, &j, m->fd);
		return;
	}
	launcher_done(m->id, &o);
}

static void
launcher_reap(struct launcher_run *r)
{
	struct job_outcome	 o;
	siginfo_t		 si;
	char			 how[64];

	memset(&si, 0, sizeof(si));
	if (waitid(P_PIDFD, r->pidfd, &si, WEXITED | WNOHANG) == -1)
		fatal("waitid for a job's runner");
	if (si.si_pid == 0)
		return;
	if (!r->done) {
		if (si.si_code == CLD_EXITED)
			(void)snprintf(how, sizeof(how), "exit %d",
			    si.si_status);
		else
			(void)snprintf(how, sizeof(how), "signal %d",
			    si.si_status);
		log_warnx("the runner of a job of source %s ended without its "
		    "outcome (%s): the job is released", r->source, how);
		memset(&o, 0, sizeof(o));
		o.status = JOB_RELEASED;
		o.word = JW_RELEASED;
		(void)snprintf(o.error, sizeof(o.error), "its runner in the "
		    "box launcher ended without an outcome (%s)", how);
		launcher_done(r->id, &o);
	}
	ask_forget(r);
	(void)close(r->pidfd);
	if (r->chan.fd != -1) {
		(void)close(r->chan.fd);
		msgchan_clear(&r->chan);
	}
	memset(r, 0, sizeof(*r));
}

static void
launcher_read(struct launcher_run *r)
{
	const struct msg_rule	*rule;
	struct msg		 m;
	ssize_t			 n;
	int			 got;

	if ((n = msgchan_read(&r->chan)) == -1 && (errno == EAGAIN ||
	    errno == EINTR))
		return;
	if (n <= 0) {
		(void)close(r->chan.fd);
		msgchan_clear(&r->chan);
		r->chan.fd = -1;
		return;
	}
	while ((got = msg_get(&r->chan, &m)) == 1) {
		msg_verify_set(launcher_run_rules, LAUNCHER_NRULES,
		    msg_takes(launcher_run_rules, LAUNCHER_NRULES,
		    RUN_LAUNCHER), &m, "a job's runner");
		rule = msg_rule_find(launcher_run_rules, LAUNCHER_NRULES,
		    m.type);
		rule->take(r, &m);
		msg_free(&m);
	}
	if (got == -1)
		fatal("a job's runner sent a malformed message");
}

size_t
launcher_pollfds(struct pollfd *pfd, size_t max)
{
	size_t	 i, n = 0;

	for (i = 0; i < LAUNCHER_RUNS_MAX && n + 2 <= max; i++) {
		if (launcher_runs[i].pid == 0)
			continue;
		pfd[n].fd = launcher_runs[i].chan.fd;
		pfd[n++].events = POLLIN |
		    (launcher_runs[i].chan.outqlen > 0 ? POLLOUT : 0);
		pfd[n].fd = launcher_runs[i].pidfd;
		pfd[n++].events = POLLIN;
	}
	return n;
}

void
launcher_dispatch(struct pollfd *pfd, size_t n)
{
	struct launcher_run	*r;
	size_t			 i, k = 0;

	for (i = 0; i < LAUNCHER_RUNS_MAX && k + 2 <= n; i++) {
		if ((r = &launcher_runs[i])->pid == 0)
			continue;
		if (r->chan.fd != -1 && (pfd[k].revents & POLLOUT) &&
		    msgchan_flush(&r->chan) == -1)
			log_warn("writing to a job's runner");
		if (r->chan.fd != -1 &&
		    (pfd[k].revents & (POLLIN | POLLHUP | POLLERR)))
			launcher_read(r);
		if (pfd[k + 1].revents & POLLIN)
			launcher_reap(r);
		k += 2;
	}
}

/* SIGTERM: each runner removes its box and says so; then the launcher ends. */
int
launcher_timer(void)
{
	size_t	 i, left = 0;

	if (!*child_stopping())
		return -1;
	for (i = 0; i < LAUNCHER_RUNS_MAX; i++) {
		if (launcher_runs[i].pid == 0)
			continue;
		left++;
		if (!launcher_stopping)
			(void)pidfd_send_signal(launcher_runs[i].pidfd,
			    SIGTERM, NULL, 0);
	}
	launcher_stopping = 1;
	if (left == 0) {
		if (msgchan_flush_all(launcher_chan) == -1)
			log_warn("the last outcomes to the parent");
		log_debug("SIGTERM: every box is removed");
		exit(0);
	}
	return -1;
}

static int
launcher_build(char id[BUILD_ID_LEN + 1])
{
	char	 dir[PATH_MAX];

	if (self_bindir(dir, sizeof(dir)) == -1) {
		(void)snprintf(launcher_why, sizeof(launcher_why),
		    "cannot find the folder of this binary");
		return -1;
	}
	return build_id(dir, id, launcher_why, sizeof(launcher_why));
}

static void
launcher_holds(void)
{
	const struct box_hold	*h;
	size_t			 i, n;

	h = box_holds(box_cgroup_layer(), &n);
	for (i = 0; i < n; i++)
		if (h[i].warn)
			log_warnx("%s is held by %s", h[i].limit, h[i].held);
		else
			log_info("%s is held by %s", h[i].limit, h[i].held);
}

/*
 * Another launcher, its parent killed, may still own a box: the lock comes
 * before removing a crash's boxes.  A record lock: no podman child holds it.
 */
static int
launcher_lock(void)
{
	struct timespec	 tick = { 0, 100 * 1000 * 1000 };
	struct flock	 fl;
	char		 path[PATH_MAX];
	int		 fd, i;

	if (path_runtime_file(LAUNCHER_LOCK, path, sizeof(path)) == -1) {
		(void)snprintf(launcher_why, sizeof(launcher_why), "%s",
		    path_why());
		return -1;
	}
	if ((fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC,
	    0600)) == -1) {
		(void)snprintf(launcher_why, sizeof(launcher_why), "%.160s: "
		    "%s", path, strerror(errno));
		return -1;
	}
	for (i = 0;; i++) {
		memset(&fl, 0, sizeof(fl));
		fl.l_type = F_WRLCK;
		fl.l_whence = SEEK_SET;
		if (fcntl(fd, F_SETLK, &fl) == 0)
			return 0;
		if (fcntl(fd, F_GETLK, &fl) == -1 || fl.l_type == F_UNLCK)
			fl.l_pid = 0;
		if (i == 0)
			log_info("%s is held by pid %ld, the box launcher of "
			    "another sandcastled: waiting for it to end", path,
			    (long)fl.l_pid);
		if (i >= LAUNCHER_LOCK_WAIT * 10) {
			(void)snprintf(launcher_why, sizeof(launcher_why),
			    "%.120s is still held by pid %ld, the box launcher "
			    "of another sandcastled, after %d s: stop that "
			    "sandcastled", path, (long)fl.l_pid,
			    LAUNCHER_LOCK_WAIT);
			(void)close(fd);
			return -1;
		}
		nanosleep(&tick, NULL);
	}
}

static int
launcher_prepare(void)
{
	char	 id[BUILD_ID_LEN + 1];

	if (launcher_build(id) == -1)
		return -1;
	if (job_init(id, launcher_why, sizeof(launcher_why)) == -1 ||
	    box_prepare(launcher_why, sizeof(launcher_why)) == -1)
		return -1;
	if (launcher_lock() == -1) {
		launcher_unlocked = 1;
		return -1;
	}
	if (box_remove_leftovers(launcher_why, sizeof(launcher_why)) == -1) {
		launcher_leftover = 1;
		return -1;
	}
	log_info("boxes of build %s", id);
	launcher_holds();
	return 0;
}

void
launcher_ready(void)
{
	char	 buf[256] = "";
	int	 c;

	for (c = 0; c < CAP_COUNT; c++) {
		(void)strlcat(buf, c > 0 ? ", " : "", sizeof(buf));
		(void)strlcat(buf, cap_name(c), sizeof(buf));
		(void)strlcat(buf, launcher_conf->caps[c].enabled ? " on" :
		    " off", sizeof(buf));
	}
	log_debug("ready: %s", buf);
}

void
launcher_sandbox(void)
{
	sandbox_launcher();
}

void
launcher_init(struct config *conf, struct msgchan *chan)
{
	launcher_conf = conf;
	launcher_chan = chan;
	launcher_podman_ok = launcher_prepare() == 0;
	if (!launcher_podman_ok)
		log_warnx("no box can run: %s; every job is released and its "
		    "capability rests", launcher_why);
}
