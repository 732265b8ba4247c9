/* The box's reader: a forked child holds a box's pipes under its own lock,
 * so the launcher never reads a byte of a box.  Its death fails the job. */
#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "deadline.h"
#include "jobread.h"
#include "keep.h"
#include "keepcli.h"
#include "log.h"

#define JR_FD_IN	3
#define JR_FD_OUT	4
#define JR_FD_ERR	5
#define JR_FD_CHAN	6

#define JR_EXIT_CHAN	3	/* the reader's exit: its channel failed */

struct jobread_serve {
	struct job_ctx	*x;
	struct msgchan	*chan;
	int		 calls;
	int		 result;	/* 1 the outcome came, -1 with why */
	char		 why[256];
};

static void	 jobread_call(void *, struct msg *);
static void	 jobread_take(void *, struct msg *);

const struct msg_rule jobread_rules[] = {
	{ JR_KEEP, "JR_KEEP", 2, KEEP_MAXENVELOPE, 0, JR_READER, 0,
	    jobread_call },
	{ JR_ANSWER, "JR_ANSWER", KEEPCLI_WIRE_MIN, KEEPCLI_WIRE_MAX, 2,
	    JR_LAUNCHER, JR_KEEP, NULL },
	{ JR_DOWN, "JR_DOWN", 1, JR_DOWN_MAX, 0, JR_LAUNCHER, JR_KEEP, NULL },
	{ JR_DONE, "JR_DONE", sizeof(struct outcome_wire) +
	    sizeof(struct jobread_done), MSG_MAXPAYLOAD, 0, JR_READER, 0,
	    jobread_take },
};
const size_t jobread_nrules = sizeof(jobread_rules) /
    sizeof(jobread_rules[0]);

static int
jobread_ask(const char *env, size_t len, struct keepcli_answer *a, void *arg,
    const char **why)
{
	static char	 down[JR_DOWN_MAX + 1];
	struct msgchan	*chan = arg;
	struct msg	 m;
	char		 mwhy[128];

	if (msg_compose(chan, JR_KEEP, 0, -1, env, len) == -1 ||
	    msgchan_flush_all(chan) == -1 || msg_read_one(chan, &m) != 1 ||
	    msg_check_set(jobread_rules, jobread_nrules, msg_takes(jobread_rules,
	    jobread_nrules, JR_READER), &m, mwhy, sizeof(mwhy)) == -1)
		_exit(JR_EXIT_CHAN);
	if (m.type == JR_DOWN) {
		memcpy(down, m.data, m.len);
		down[m.len] = '\0';
		*why = down;
		msg_free(&m);
		return -1;
	}
	if (keepcli_answer_take(&m, a) == -1)
		_exit(JR_EXIT_CHAN);
	msg_free(&m);
	if (keepcli_answer_map(a) == -1) {
		*why = "its body could not be mapped";
		keepcli_answer_free(a);
		return -1;
	}
	return 0;
}

static void
jobread_done(struct msgchan *chan, const struct job_ctx *x)
{
	static struct jobread_done	 d;
	const struct box		*b = x->box;

	memset(&d, 0, sizeof(d));
	d.hello = x->hello;
	d.last = x->last;
	d.decided = x->decided;
	d.failed = b->failed;
	d.timed_out = b->timed_out;
	(void)strlcpy(d.why, b->why, sizeof(d.why));
	d.errlen = b->errlen;
	memcpy(d.errhead, b->errhead, b->errlen);
	if (outcome_send(chan, JR_DONE, 0, x->o, &d, sizeof(d)) == -1 ||
	    msgchan_flush_all(chan) == -1)
		_exit(JR_EXIT_CHAN);
}

/* fd to want, which is free or one of the reader's own above it. */
static void
jobread_fd(int fd, int want)
{
	if (fd != want && dup2(fd, want) == -1)
		_exit(JR_EXIT_CHAN);
}

static __attribute__((noreturn)) void
jobread_child(struct job_ctx *x, const char *input, size_t inputlen,
    int sock, pid_t parent)
{
	struct box	*b = x->box;
	struct msgchan	 chan;
	int		 fds[4], i;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1 || getppid() != parent)
		_exit(JR_EXIT_CHAN);
	/* Above every target first, so that no dup2 closes one still wanted. */
	fds[0] = fcntl(b->in, F_DUPFD_CLOEXEC, JR_FD_CHAN + 1);
	fds[1] = fcntl(b->out, F_DUPFD_CLOEXEC, JR_FD_CHAN + 1);
	fds[2] = fcntl(b->err, F_DUPFD_CLOEXEC, JR_FD_CHAN + 1);
	fds[3] = fcntl(sock, F_DUPFD_CLOEXEC, JR_FD_CHAN + 1);
	for (i = 0; i < 4; i++)
		if (fds[i] == -1)
			_exit(JR_EXIT_CHAN);
	for (i = 0; i < 4; i++)
		jobread_fd(fds[i], JR_FD_IN + i);
	(void)close(STDIN_FILENO);
	(void)close(STDOUT_FILENO);
	closefrom(JR_FD_CHAN + 1);
	b->in = JR_FD_IN;
	b->out = JR_FD_OUT;
	b->err = JR_FD_ERR;
	/* The launcher's stop and its parent's channel are the launcher's. */
	box_stop_when(NULL, -1);
	/* Its log on stderr: syslog(3) would open a socket. */
	log_init(getprogname(), 1, log_verbose());
	log_procname("box reader");
	x->lock();
	msgchan_init(&chan, JR_FD_CHAN, MSG_MAXPAYLOAD);
	if (x->keep != NULL) {
		x->ask = jobread_ask;
		x->arg = &chan;
	}
	job_talk(x, input, inputlen);
	box_drain(b);
	jobread_done(&chan, x);
	_exit(0);
}

static void
jobread_take(void *arg, struct msg *m)
{
	static struct jobread_done	 d;
	struct jobread_serve		*s = arg;
	struct job_ctx			*x = s->x;
	struct job_outcome		 r, *o = x->o;
	struct box			*b = x->box;

	if (outcome_take(m, &r, &d, sizeof(d)) == -1 ||
	    d.errlen > sizeof(d.errhead) ||
	    memchr(d.why, '\0', sizeof(d.why)) == NULL) {
		(void)snprintf(s->why, sizeof(s->why), "its outcome does not "
		    "add up");
		s->result = -1;
		return;
	}
	s->result = 1;
	x->hello = d.hello != 0;
	x->last = d.last != 0;
	x->decided = d.decided != 0;
	o->status = r.status;
	o->word = r.word;
	memcpy(o->error, r.error, sizeof(o->error));
	o->usage = r.usage;
	o->output = r.output;
	o->reply = r.reply;
	o->record = r.record;
	memcpy(b->errhead, d.errhead, d.errlen);
	b->errlen = d.errlen;
	if (d.failed || d.timed_out) {
		b->failed = d.failed != 0;
		b->timed_out = d.timed_out != 0;
		(void)strlcpy(b->why, d.why, sizeof(b->why));
	}
}

static unsigned int
jobread_seconds(const struct job_ctx *x)
{
	int	 left = deadline_ms(&x->box->deadline) / 1000;

	/* check's look-up answers at once, or tells of a fault: a source's. */
	if (x->mode == JOB_CHECK && left > KEEP_CALL_SECONDS + JOB_CALL_END)
		return KEEP_CALL_SECONDS;
	return left > JOB_CALL_END ? left - JOB_CALL_END : 1;
}

/* The launcher's own clock: the reader's word is not taken for it. */
static void
jobread_call(void *arg, struct msg *m)
{
	struct jobread_serve	*s = arg;
	struct job_ctx		*x = s->x;
	struct msgchan		*chan = s->chan;
	struct keepcli_answer	 a;
	const char		*kwhy = "no keep is configured";
	int			 r;

	if (x->keep == NULL || !cap_table[x->cap]->request || ++s->calls > 1) {
		(void)snprintf(s->why, sizeof(s->why), "a request the box may "
		    "not make");
		s->result = -1;
		return;
	}
	memset(&a, 0, sizeof(a));
	if (x->keep(m->data, m->len, jobread_seconds(x), &a, x->arg,
	    &kwhy) == -1)
		r = msg_compose(chan, JR_DOWN, 0, -1, kwhy,
		    strnlen(kwhy, JR_DOWN_MAX - 1) + 1);
	else {
		/* The keep read it, not the box: a box cannot make it rest. */
		if (!a.refused)
			x->o->rest = a.retry_after < JOB_REST_MAX ?
			    a.retry_after : JOB_REST_MAX;
		r = keepcli_answer_send(chan, JR_ANSWER, 0, &a);
	}
	keepcli_answer_free(&a);
	if (r == -1 || msgchan_flush_all(chan) == -1) {
		(void)snprintf(s->why, sizeof(s->why), "the keep's answer "
		    "could not go to it: %s", strerror(errno));
		s->result = -1;
	}
}

static int
jobread_messages(struct jobread_serve *s)
{
	const struct msg_rule	*rule;
	struct msg		 m;
	int			 got = 0;

	while (s->result == 0 && (got = msg_get(s->chan, &m)) == 1) {
		if (msg_check_set(jobread_rules, jobread_nrules,
		    msg_takes(jobread_rules, jobread_nrules, JR_LAUNCHER), &m,
		    s->why, sizeof(s->why)) == -1)
			s->result = -1;
		else {
			rule = msg_rule_find(jobread_rules, jobread_nrules,
			    m.type);
			rule->take(s, &m);
		}
		msg_free(&m);
	}
	if (s->result == 0 && got == -1) {
		(void)snprintf(s->why, sizeof(s->why), "its messages: %s",
		    strerror(errno));
		s->result = -1;
	}
	return s->result;
}

/* 1 with the outcome in x, 0 on time or stop (b says which), -1 with why. */
static int
jobread_serve(struct jobread_serve *s)
{
	ssize_t		 n;
	int		 r;

	for (;;) {
		if ((r = box_await(s->x->box, s->chan->fd)) == -1)
			return 0;
		if (r == 0)
			continue;
		if ((n = msgchan_read(s->chan)) == 0) {
			(void)snprintf(s->why, sizeof(s->why), "it ended "
			    "without an outcome");
			return -1;
		}
		if (n == -1 && errno != EAGAIN && errno != EINTR) {
			(void)snprintf(s->why, sizeof(s->why), "its channel: "
			    "%s", strerror(errno));
			return -1;
		}
		if ((r = jobread_messages(s)) != 0)
			return r;
	}
}

static void
jobread_status(int status, char *buf, size_t bufsz)
{
	if (WIFSIGNALED(status))
		(void)snprintf(buf, bufsz, "killed by signal %d%s",
		    WTERMSIG(status), WTERMSIG(status) == SIGSYS ? ", its "
		    "filter denied a call" : "");
	else
		(void)snprintf(buf, bufsz, "exit %d", WEXITSTATUS(status));
}

void
jobread_run(struct job_ctx *x, const char *input, size_t inputlen)
{
	struct jobread_serve	 s;
	struct msgchan		 chan;
	struct box		*b = x->box;
	char			 how[64];
	pid_t		 pid, self = getpid();
	int		 sv[2], status, r;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1 ||
	    (pid = fork()) == -1) {
		job_decide(x, JOB_RELEASED, JW_RELEASED, "the box's reader "
		    "cannot start: %s", strerror(errno));
		b->failed = 1;
		(void)snprintf(b->why, sizeof(b->why), "no reader");
		return;
	}
	if (pid == 0) {
		close(sv[0]);
		jobread_child(x, input, inputlen, sv[1], self);
	}
	close(sv[1]);
	box_hand_off(b);
	if (fcntl(sv[0], F_SETFL, O_NONBLOCK) == -1)
		fatal("the box's reader: O_NONBLOCK");
	msgchan_init(&chan, sv[0], MSG_MAXPAYLOAD);
	memset(&s, 0, sizeof(s));
	s.x = x;
	s.chan = &chan;
	r = jobread_serve(&s);
	(void)kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	msgchan_clear(&chan);
	close(sv[0]);
	if (r != -1)
		return;
	jobread_status(status, how, sizeof(how));
	log_warnx("the reader of box %s: %s (%s): the job fails", b->name,
	    s.why, how);
	job_decide(x, JOB_FAILED, JW_PROTOCOL, "the box's reader failed: %s "
	    "(%s)", s.why, how);
	b->failed = 1;
	(void)snprintf(b->why, sizeof(b->why), "its reader failed");
}
