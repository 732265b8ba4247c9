/*
 * The box launcher: the only process that runs a program (podman).
 * What podman needs beyond the filter is done first (box_prepare()).
 * A launcher that cannot prepare podman still runs and releases every
 * job with the reason, as the manual has it for a missing Podman.
 */
#include <sys/types.h>
#include <sys/uio.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "boxrun.h"
#include "build.h"
#include "config.h"
#include "job.h"
#include "keepbody.h"
#include "keepcli.h"
#include "log.h"
#include "msg.h"
#include "paths.h"
#include "podman.h"
#include "proto.h"
#include "sandcastled.h"

#define LAUNCHER_LOCK		"launcher.lock"
#define LAUNCHER_LOCK_WAIT	30	/* seconds for another launcher to end */

static struct config	*launcher_conf;
static struct msgchan	*launcher_chan;
static int		 launcher_podman_ok;	/* boxes may run */
static int		 launcher_leftover;	/* a box a crash left stays */
static int		 launcher_unlocked;	/* another launcher holds the lock */
static char		 launcher_why[256];
static uint32_t		 launcher_seq;

static void
launcher_send(struct msgchan *chan)
{
	if (msgchan_flush_all(chan) == -1)
		fatal("writing to the parent");
}

/* job_keep_fn.  One job at a time: nothing else can come meanwhile. */
static int
launcher_keep(const char *env, size_t len, unsigned int seconds,
    struct keepcli_answer *a, void *arg, const char **why)
{
	static char		 down[PROC_REASON_MAX];
	struct proc_keep_call	 pc;
	struct iovec		 iov[2];
	struct msg		 m;
	uint32_t		 id;
	int			 r;

	id = PROC_ID_LAUNCHER | (++launcher_seq & ~PROC_ID_LAUNCHER);
	pc.seconds = seconds;
	iov[0].iov_base = &pc;
	iov[0].iov_len = sizeof(pc);
	iov[1].iov_base = (void *)env;
	iov[1].iov_len = len;
	if (msg_composev(launcher_chan, PROC_KEEP_CALL, id, -1, iov, 2) == -1)
		fatal("a keep call to the parent");
	launcher_send(launcher_chan);
	/* The box then sees the channel hang up, or the stop, and is removed. */
	if ((r = child_await(&m)) != 1) {
		*why = r == 0 ? "sandcastled's parent is gone" :
		    "sandcastled is stopping";
		return -1;
	}
	if (m.type != PROC_KEEP_ANSWER && m.type != PROC_KEEP_DOWN)
		fatalx("the parent sent %s (id %u) while the launcher waited "
		    "for the keep", proc_msg_name(m.type), m.id);
	if (m.id != id)
		fatalx("the parent answered keep call %u for %u", m.id, id);
	if (m.type == PROC_KEEP_DOWN) {
		(void)snprintf(down, sizeof(down), "the keep does not answer: "
		    "%.*s", (int)m.len, (char *)m.data);
		*why = down;
		msg_free(&m);
		return -1;
	}
	if (keepcli_answer_take(&m, a) == -1)
		fatalx("the parent sent a keep answer whose lengths do not add "
		    "up");
	msg_free(&m);
	return 0;
}

static void
launcher_done(uint32_t id, const struct job_outcome *o)
{
	if (outcome_send(launcher_chan, PROC_JOB_DONE, id, o, NULL, 0) == -1)
		fatal("a job's outcome to the parent");
	launcher_send(launcher_chan);
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

/*
 * The input by the claim's memfd, whose sender is not trusted either:
 * sealed as a keep's body, the span inside it.  0, or -1 and why.
 */
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

/* The input mapped, its memfd closed: the job's children get none. */
static int
launcher_map(struct msg *m, const struct proc_job *j,
    struct keepbody_span *in, struct job_outcome *o)
{
	int	 r;

	if ((r = keepbody_span_map(m->fd, j->input_off, j->inputlen,
	    in)) == -1) {
		o->status = JOB_RELEASED;
		o->word = JW_RELEASED;
		(void)snprintf(o->error, sizeof(o->error), "its input could "
		    "not be mapped: %s", strerror(errno));
	}
	if (m->fd != -1) {
		close(m->fd);
		m->fd = -1;
	}
	return r;
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

/* A keep's answer comes only while a job waits for it (launcher_keep()). */
void
launcher_job(struct proc *p, struct msg *m)
{
	struct proc_job		 j;
	struct job_outcome	 o;
	struct keepbody_span	 in;
	const char		*why;

	memcpy(&j, m->data, sizeof(j));
	if (launcher_input(&j, m->fd, &why) == -1)
		fatalx("the parent sent a job that does not add up: %s", why);
	if (j.cap >= CAP_COUNT || !launcher_conf->caps[j.cap].enabled)
		fatalx("the parent sent a job that does not add up");
	memset(&o, 0, sizeof(o));
	if (launcher_map(m, &j, &in, &o) == 0) {
		if (launcher_boxes_ok())
			job_run(launcher_conf, j.cap, JOB_RUN, in.bytes,
			    j.inputlen, j.timeout, reader_lock, launcher_keep,
			    NULL, &o);
		else
			launcher_no_box(&o);
		keepbody_span_unmap(&in);
	}
	launcher_done(m->id, &o);
	job_outcome_free(&o);
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
 * Another sandcastled's launcher, its parent killed, may still own a
 * box: the runtime folder's lock comes before removing a crash's boxes,
 * held for life.  A record lock, so that no podman child holds it.
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

/* podman made ready before the filter; 0, or -1 with launcher_why. */
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

/* "ready: claude on, ocr off": each capability, in the table's order. */
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

/* Its filter alone, no Landlock ruleset (sandbox.c says why). */
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
	box_stop_when(child_stopping(), chan->fd);
}
