/*
 * make bench: a 32 MiB keep body's trip from keepd's answer to its
 * readers, a process for each: a fake keep hands the sealed memfd as
 * keepd does; the keep-frontend's keepcli, the parent's
 * parent_dispatch(), the core, and the launcher and its box reader as a
 * claude job has them; then a job's input from the core to the launcher,
 * by the same memfd.  Each reader reads every byte.  Medians; not a test.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "keep.h"
#include "keepbody.h"
#include "keepcli.h"
#include "msg.h"
#include "outcome.h"
#include "../../sandcastled/jobread.h"
#include "../../sandcastled/keepfe.h"
#include "../../sandcastled/launcher.h"
#include "../../sandcastled/parent.h"
#include "../../sandcastled/proc.h"
#include "../../sandcastled/proctab.h"
#include "../../sandcastled/proto.h"

#define ROUNDS	21
#define READ_ID	0x52454144	/* the reader's "read it all" back */

static int	 bodyfd;

static void
die(const char *what)
{
	fprintf(stderr, "bench_hops: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void
pair(struct msgchan *a, struct msgchan *b)
{
	int	 sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1)
		die("socketpair");
	msgchan_init(a, sv[0], MSG_MAXPAYLOAD);
	msgchan_init(b, sv[1], MSG_MAXPAYLOAD);
}

/* One message, the bytes its socket carried added to *n. */
static void
get(struct msgchan *c, struct msg *m, size_t *n)
{
	ssize_t	 r;
	int	 got;

	while ((got = msg_get(c, m)) == 0) {
		if ((r = msgchan_read(c)) <= 0)
			exit(0);
		if (n != NULL)
			*n += r;
	}
	if (got == -1)
		die("msg_get");
}

static void
put(struct msgchan *c)
{
	if (msgchan_flush_all(c) == -1)
		die("flush");
}

/* Every byte read, as a reader of the body would. */
static uint64_t
sum_bytes(const char *p, size_t len)
{
	uint64_t	 s = 0, w;
	size_t		 i;

	for (i = 0; i + 8 <= len; i += 8) {
		memcpy(&w, p + i, 8);
		s += w;
	}
	return s;
}

static uint64_t
sum(struct keepcli_answer *a)
{
	/* Built on main too, for the before: there keepcli read it. */
#ifdef KEEPCLI_WIRE_MAX
	if (keepcli_answer_map(a) == -1)
		die("keepcli_answer_map");
#endif
	return sum_bytes(a->body, a->body_len);
}

/* keepd: a hello, then each request's answer, the body's memfd dup'd. */
static void
keep(struct msgchan *c)
{
	struct keep_hello	 h = { KEEP_VERSION, 1 };
	struct keep_answer	 a = { 200, 0, 16, KEEP_MAXBODY };
	struct iovec		 iov[2];
	struct msg		 m;
	int			 fd;

	get(c, &m, NULL);
	msg_free(&m);
	if (msg_compose(c, KEEP_HELLO, 0, -1, &h, sizeof(h)) == -1)
		die("hello");
	put(c);
	iov[0].iov_base = &a;
	iov[0].iov_len = sizeof(a);
	iov[1].iov_base = "application/json";
	iov[1].iov_len = 16;
	for (;;) {
		get(c, &m, NULL);
		if ((fd = dup(bodyfd)) == -1 ||
		    msg_composev(c, KEEP_ANSWER, m.id, fd, iov, 2) == -1)
			die("answer");
		msg_free(&m);
		put(c);
	}
}

/* The keep-frontend's keepfe_call(), its destination check aside. */
static void
keepfe(struct msgchan *p, int keepsock)
{
	struct keepcli_answer	 a;
	struct keepcli		*k;
	struct msg		 m;
	const char		*why;

	if ((k = keepcli_fdopen(keepsock, &why)) == NULL) {
		fprintf(stderr, "bench_hops: %s\n", why);
		exit(1);
	}
	for (;;) {
		get(p, &m, NULL);
		if (keepcli_request(k, "{}", 2, 0, &a, &why) == -1) {
			fprintf(stderr, "bench_hops: %s\n", why);
			exit(1);
		}
		if (keepcli_answer_send(p, PROC_KEEP_ANSWER, m.id, &a) == -1)
			die("PROC_KEEP_ANSWER");
		keepcli_answer_free(&a);
		msg_free(&m);
		put(p);
	}
}

/* The parent: parent_dispatch() for each child's message. */
static void
parent(void)
{
	struct proc	*t = proc_table();
	struct pollfd	 pfd[PROC_COUNT];
	struct msg	 m;
	size_t		 i;

	for (;;) {
		for (i = 0; i < PROC_COUNT; i++) {
			pfd[i].fd = t[i].chan.fd;
			pfd[i].events = POLLIN;
		}
		if (poll(pfd, PROC_COUNT, -1) == -1)
			die("poll");
		for (i = 0; i < PROC_COUNT; i++) {
			if (pfd[i].revents == 0)
				continue;
			get(&t[i].chan, &m, NULL);
			parent_dispatch(&t[i], &m);
			msg_free(&m);
			while (msg_get(&t[i].chan, &m) == 1) {
				parent_dispatch(&t[i], &m);
				msg_free(&m);
			}
		}
		for (i = 0; i < PROC_COUNT; i++)
			put(&t[i].chan);
	}
}

/* The box reader: JR_ANSWER taken and read, its sum back. */
static void
reader(struct msgchan *l)
{
	struct keepcli_answer	 a;
	struct msg		 m;
	uint64_t		 s;
	size_t			 n;

	for (;;) {
		n = 0;
		get(l, &m, &n);
		if (keepcli_answer_take(&m, &a) == -1)
			die("JR_ANSWER");
		msg_free(&m);
		s = sum(&a);
		keepcli_answer_free(&a);
		if (msg_compose(l, READ_ID, 0, -1, &s, sizeof(s)) == -1 ||
		    msg_compose(l, READ_ID, 1, -1, &n, sizeof(n)) == -1)
			die("back");
		put(l);
	}
}

static double
now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* A keep call through the parent; its answer's socket bytes in *n. */
static void
call(struct msgchan *p, uint32_t id, struct keepcli_answer *a, size_t *n)
{
	struct proc_keep_call	 pc = { 30 };
	struct iovec		 iov[2];
	struct msg		 m;

	iov[0].iov_base = &pc;
	iov[0].iov_len = sizeof(pc);
	iov[1].iov_base = "{}";
	iov[1].iov_len = 2;
	if (msg_composev(p, PROC_KEEP_CALL, id, -1, iov, 2) == -1)
		die("PROC_KEEP_CALL");
	put(p);
	get(p, &m, n);
	if (m.type != PROC_KEEP_ANSWER || keepcli_answer_take(&m, a) == -1)
		die("PROC_KEEP_ANSWER");
	msg_free(&m);
}

static int
cmp(const void *a, const void *b)
{
	double	 x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void
report(const char *what, double *ms, size_t bytes)
{
	qsort(ms, ROUNDS, sizeof(ms[0]), cmp);
	printf("bench: %s: %.1f ms median (%.1f to %.1f), %.0f MiB/s; "
	    "%zu bytes on its last socket\n", what, ms[ROUNDS / 2], ms[0],
	    ms[ROUNDS - 1], KEEP_MAXBODY / 1048576.0 / (ms[ROUNDS / 2] / 1e3),
	    bytes);
}

/* The core's claim, then the launcher's call through to its reader. */
static void
drive(struct msgchan *core, struct msgchan *launcher, struct msgchan *rd,
    uint64_t want)
{
	struct keepcli_answer	 a;
	struct msg		 m;
	double			 tc[ROUNDS], tr[ROUNDS], t0;
	size_t			 nc = 0, nr = 0, i;
	uint64_t		 s;

	for (i = 0; i < ROUNDS; i++) {
		t0 = now_ms();
		nc = 0;
		call(core, i + 1, &a, &nc);
		s = sum(&a);
		keepcli_answer_free(&a);
		tc[i] = now_ms() - t0;
		if (s != want)
			die("the core's body");
		t0 = now_ms();
		call(launcher, PROC_ID_LAUNCHER | (i + 1), &a, NULL);
		if (keepcli_answer_send(rd, JR_ANSWER, 0, &a) == -1)
			die("JR_ANSWER");
		keepcli_answer_free(&a);
		put(rd);
		get(rd, &m, NULL);
		memcpy(&s, m.data, sizeof(s));
		msg_free(&m);
		get(rd, &m, NULL);
		memcpy(&nr, m.data, sizeof(nr));
		msg_free(&m);
		tr[i] = now_ms() - t0;
		if (s != want)
			die("the reader's body");
	}
	report("32 MiB keep body to the core", tc, nc);
	report("32 MiB keep body to the box reader", tr, nr);
}

/* The launcher's job done, back through the parent: what it owes paid. */
static void
job_done(struct msgchan *core, struct msgchan *launcher, uint32_t id)
{
	struct job_outcome	 o;
	struct msg		 m;

	memset(&o, 0, sizeof(o));
	o.status = JOB_RELEASED;
	if (outcome_send(launcher, PROC_JOB_DONE, id, &o, NULL, 0) == -1)
		die("PROC_JOB_DONE");
	put(launcher);
	get(core, &m, NULL);
	if (m.type != PROC_JOB_DONE)
		die("PROC_JOB_DONE");
	msg_free(&m);
}

/*
 * A job's 32 MiB input, the core's PROC_JOB_RUN to the launcher: the
 * claim's memfd dup'd as corejob_send() does, checked and mapped by the
 * launcher's own functions, and read.
 */
static void
drive_job(struct msgchan *core, struct msgchan *launcher, uint64_t want)
{
	struct keepbody_span	 in;
	struct proc_job		 pj;
	struct msg		 m;
	double			 t[ROUNDS], t0;
	size_t			 n = 0, i;
	uint64_t		 s;
	const char		*why;
	int			 fd;

	memset(&pj, 0, sizeof(pj));
	pj.inputlen = KEEP_MAXBODY;
	for (i = 0; i < ROUNDS; i++) {
		t0 = now_ms();
		if ((fd = fcntl(bodyfd, F_DUPFD_CLOEXEC, 0)) == -1 ||
		    msg_compose(core, PROC_JOB_RUN, i + 1, fd, &pj,
		    sizeof(pj)) == -1)
			die("PROC_JOB_RUN");
		put(core);
		n = 0;
		get(launcher, &m, &n);
		if (launcher_input(&pj, m.fd, &why) == -1 ||
		    keepbody_span_map(m.fd, pj.input_off, pj.inputlen,
		    &in) == -1)
			die("the launcher's input");
		s = sum_bytes(in.bytes, pj.inputlen);
		keepbody_span_unmap(&in);
		msg_free(&m);
		t[i] = now_ms() - t0;
		if (s != want)
			die("the launcher's input");
		job_done(core, launcher, i + 1);
	}
	report("32 MiB job input from the core to the launcher", t, n);
}

static pid_t
child(void)
{
	pid_t	 pid;

	if ((pid = fork()) == -1)
		die("fork");
	return pid;
}

int
main(void)
{
	struct proc	*t;
	struct msgchan	 kk, kf, pk, fk, pc, cp, pl, lp, lr, rl;
	pid_t		 pids[4];
	uint64_t	 want = 0, w;
	char		*body;
	size_t		 i;

	proc_use(proc_children);
	proc_msgs_use(proc_msgtab);
	t = proc_table();
	if ((body = malloc(KEEP_MAXBODY)) == NULL)
		die("malloc");
	for (i = 0; i < KEEP_MAXBODY; i++)
		body[i] = 'a' + i % 26;
	for (i = 0; i < KEEP_MAXBODY; i += 8) {
		memcpy(&w, body + i, 8);
		want += w;
	}
	if ((bodyfd = keepbody_make(body, KEEP_MAXBODY)) == -1)
		die("keepbody_make");
	free(body);
	pair(&kk, &kf);		/* keepd, keep-frontend */
	pair(&pk, &fk);		/* parent, keep-frontend */
	pair(&pc, &cp);		/* parent, core */
	pair(&pl, &lp);		/* parent, launcher */
	pair(&lr, &rl);		/* launcher, reader */
	t[PROC_KEEPFE].chan = pk;
	TAILQ_INIT(&t[PROC_KEEPFE].chan.outq);
	t[PROC_CORE].chan = pc;
	TAILQ_INIT(&t[PROC_CORE].chan.outq);
	t[PROC_LAUNCHER].chan = pl;
	TAILQ_INIT(&t[PROC_LAUNCHER].chan.outq);
	signal(SIGPIPE, SIG_IGN);
	if ((pids[0] = child()) == 0)
		keep(&kk);
	if ((pids[1] = child()) == 0)
		keepfe(&fk, kf.fd);
	if ((pids[2] = child()) == 0)
		parent();
	if ((pids[3] = child()) == 0)
		reader(&rl);
	close(kk.fd);
	close(kf.fd);
	close(fk.fd);
	close(rl.fd);
	printf("bench: a 32 MiB keep body, keepd's sealed memfd to each "
	    "reader, %d rounds\n", ROUNDS);
	drive(&cp, &lp, &lr, want);
	drive_job(&cp, &lp, want);
	for (i = 0; i < 4; i++) {
		(void)kill(pids[i], SIGKILL);
		(void)waitpid(pids[i], NULL, 0);
	}
	return 0;
}
