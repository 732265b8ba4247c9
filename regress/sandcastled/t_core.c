/*
 * The core's hourly prune of the records (sandcastled(8) FILES): due
 * whatever the core waits for, a keep that is down, a call in flight
 * or a job, and done then.  The core runs here in the test's process,
 * its channel to a parent played by the test, and its monotonic clock
 * set forward by the test: the build links the core's objects'
 * clock_gettime(2) to __wrap_clock_gettime below (ld --wrap).  The results a source took
 * after a long absence: their records kept past retention_days, and a
 * record gone never holding the claims.  And the core's wait table
 * (core_takes): each wait takes its own answers and no other.  A job's
 * input through the parent to the launcher by the claim's memfd.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <atf-c.h>

#include "config.h"
#include "../../sandcastled/ask.h"
#include "../../sandcastled/child.h"
#include "../../sandcastled/core.h"
#include "../../sandcastled/corebase.h"
#include "../../sandcastled/launcher.h"
#include "../../sandcastled/parent.h"
#include "../../sandcastled/proc.h"
#include "../../sandcastled/proctab.h"
#include "../../sandcastled/proto.h"
#include "keepbody.h"
#include "keepcli.h"
#include "msg.h"
#include "outcome.h"
#include "records.h"
#include "testconf.h"
#include "../lib/hop.h"

int	 __wrap_clock_gettime(clockid_t, struct timespec *);

static time_t	 ahead;		/* seconds the monotonic clock is set forward */

int
__wrap_clock_gettime(clockid_t id, struct timespec *ts)
{
	if (syscall(SYS_clock_gettime, id, ts) == -1)
		return -1;
	if (id == CLOCK_MONOTONIC)
		ts->tv_sec += ahead;
	return 0;
}

static struct msgchan	 core_chan, parent_chan;

/* A configuration of notes, claude's, with its records under ./data. */
static struct config *
core_conf(void)
{
	struct config	*conf;
	char		 cwd[PATH_MAX], dir[PATH_MAX + 8];

	ATF_REQUIRE(getcwd(cwd, sizeof(cwd)) != NULL);
	(void)snprintf(dir, sizeof(dir), "%s/data", cwd);
	ATF_REQUIRE((conf = config_new(cwd)) != NULL);
	free(conf->data_dir);
	ATF_REQUIRE((conf->data_dir = strdup(dir)) != NULL);
	conf->retention_days = 30;
	add_source(conf, "notes", 30, 30, 1U << 0);
	return conf;
}

static void	 core_with(struct config *);

/* The core made and ready, its parent the test's. */
static void
core_up(void)
{
	core_with(core_conf());
}

static void
core_with(struct config *conf)
{
	int	 sv[2];

	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	msgchan_init(&core_chan, sv[0], PROC_MAXPAYLOAD);
	msgchan_init(&parent_chan, sv[1], PROC_MAXPAYLOAD);
	core_init(conf, &core_chan);
	core_ready();
}

/* A job's record 40 days old, past retention_days. */
static void
old_record(void)
{
	struct timespec	 old[2];

	ATF_REQUIRE(mkdir("data/notes", 0700) == 0 || errno == EEXIST);
	ATF_REQUIRE(mkdir("data/notes/old", 0700) == 0);
	old[0].tv_sec = old[1].tv_sec = time(NULL) - 40 * 86400;
	old[0].tv_nsec = old[1].tv_nsec = 0;
	ATF_REQUIRE(utimensat(AT_FDCWD, "data/notes/old", old, 0) == 0);
}

static int
pruned(void)
{
	struct stat	 st;

	return stat("data/notes/old", &st) == -1 && errno == ENOENT;
}

/* The next message the core sent its parent, of type type. */
static uint32_t
sent(uint32_t type)
{
	struct msg	 m;
	uint32_t	 id;

	ATF_REQUIRE(msgchan_flush_all(&core_chan) == 0);
	ATF_REQUIRE(msg_read_one(&parent_chan, &m) == 1);
	ATF_REQUIRE_EQ(m.type, type);
	id = m.id;
	msg_free(&m);
	return id;
}

/* The keep answers: the parent's PROC_KEEP_STATE to the core's probe. */
static void
keep_answers(uint32_t id)
{
	struct msg	 m;
	uint32_t	 up = 1;

	memset(&m, 0, sizeof(m));
	m.type = PROC_KEEP_STATE;
	m.id = id;
	m.fd = -1;
	m.len = sizeof(up);
	m.data = &up;
	ask_answer(&m);
}

/* The parent's message of type, of len bytes of data, to the core. */
static void
deliver(uint32_t type, uint32_t id, const void *data, size_t len)
{
	struct msg	 m;

	memset(&m, 0, sizeof(m));
	m.type = type;
	m.id = id;
	m.fd = -1;
	m.len = len;
	m.data = (void *)(uintptr_t)data;
	ask_answer(&m);
}

/* An hour on: the prune due, the core's timer runs. */
static int
an_hour_on(void)
{
	ahead += CORE_PRUNE_EVERY;
	return core_timer();
}

/* Job id of notes, finished days ago, its result not sent yet. */
static void
owed_record(const char *id, int days)
{
	struct records_job	 j = { "notes", id, 1, CAP_CLAUDE, "{}", 2, 0 };
	struct job_outcome	 o;
	char			 why[RECORDS_WHY_MAX];
	int			 dfd;

	ATF_REQUIRE(mkdir("data", 0700) == 0 || errno == EEXIST);
	ATF_REQUIRE((dfd = open("data", O_RDONLY | O_DIRECTORY)) != -1);
	j.started_at = time(NULL) - days * 86400 - 60;
	memset(&o, 0, sizeof(o));
	o.status = JOB_SUCCEEDED;
	o.output = "{\"tag\":\"recipes\"}";
	o.box_started = 1;
	ATF_REQUIRE_MSG(records_begin(dfd, &j, why, sizeof(why)) == 0 &&
	    records_finish(dfd, &j, &o, j.started_at + 60, why,
	    sizeof(why)) == 0, "%s", why);
	close(dfd);
}

/*
 * The core's next call to the keep, its summaries passed over: its id,
 * its envelope checked for what; 0 when it made none.
 */
static uint32_t
call_sent(const char *what)
{
	struct pollfd	 pfd = { parent_chan.fd, POLLIN, 0 };
	struct msg	 m;
	uint32_t	 id;
	int		 r;

	ATF_REQUIRE(msgchan_flush_all(&core_chan) == 0);
	for (;;) {
		while ((r = msg_get(&parent_chan, &m)) == 1) {
			if (m.type == PROC_SOURCES) {
				msg_free(&m);
				continue;
			}
			ATF_REQUIRE_EQ(m.type, PROC_KEEP_CALL);
			ATF_CHECK_MSG(memmem(m.data, m.len, what,
			    strlen(what)) != NULL, "the call is not to %s",
			    what);
			id = m.id;
			msg_free(&m);
			return id;
		}
		ATF_REQUIRE(r == 0);
		if (poll(&pfd, 1, 0) != 1)
			return 0;
		ATF_REQUIRE(msgchan_read(&parent_chan) > 0);
	}
}

/*
 * The keep's answer of HTTP status to call id, through the parent; a
 * body, when not NULL, by a sealed memfd as keepd hands it over.
 */
static void
call_answers(uint32_t id, uint32_t status, const char *body)
{
	struct keepcli_answer	 a;
	struct msg		 m;

	memset(&a, 0, sizeof(a));
	a.status = status;
	if (body != NULL) {
		a.body_len = strlen(body);
		ATF_REQUIRE((a.body_fd = keepbody_make(body, a.body_len)) != -1);
	}
	ATF_REQUIRE(keepcli_answer_send(&parent_chan, PROC_KEEP_ANSWER, id,
	    &a) == 0);
	keepcli_answer_free(&a);
	ATF_REQUIRE(msgchan_flush_all(&parent_chan) == 0);
	ATF_REQUIRE(msg_read_one(&core_chan, &m) == 1);
	ask_answer(&m);
	msg_free(&m);
}

/* The core's log from now on, in the file err. */
static void
log_to_err(void)
{
	int	 fd;

	ATF_REQUIRE((fd = open("err", O_WRONLY | O_CREAT | O_TRUNC,
	    0600)) != -1);
	ATF_REQUIRE(dup2(fd, 2) == 2);
	close(fd);
}

/* The keep up, the core's first call out. */
static uint32_t
first_call(const char *what)
{
	(void)core_timer();
	keep_answers(sent(PROC_KEEP_PROBE));
	(void)core_timer();
	return call_sent(what);
}

/*
 * A source away longer than retention_days, then back (issue 35): the
 * record of its pending result outlives the prune at start, the result
 * goes out, the record says it was taken, and the claims go on.
 */
ATF_TC_WITHOUT_HEAD(away_past_retention);
ATF_TC_BODY(away_past_retention, tc)
{
	uint32_t	 id;

	owed_record("5", 40);
	core_up();
	ATF_CHECK_MSG(atf_utils_file_exists("data/notes/5/meta.json"),
	    "the record of a pending result was pruned at start");
	ATF_REQUIRE((id = first_call("/jobs/5/result")) != 0);
	call_answers(id, 200, NULL);
	ATF_CHECK_MSG(atf_utils_file_exists("data/notes/5/meta.json") &&
	    atf_utils_grep_file("\"result\":\"sent\"",
	    "data/notes/5/meta.json"), "the record does not say sent");
	(void)core_timer();
	ATF_CHECK_MSG(call_sent("/jobs/claim") != 0, "no claim after the "
	    "result was taken: the claims are held");
}

/*
 * A result whose record is gone when the source answers (deleted by
 * hand meanwhile; before issue 35, pruned) counts as done, the log
 * saying so, and holds no claim.  Control, result_record_held: a record
 * there that cannot say it yet still holds them.
 */
ATF_TC_WITHOUT_HEAD(result_record_gone);
ATF_TC_BODY(result_record_gone, tc)
{
	uint32_t	 id;

	owed_record("5", 1);
	core_up();
	log_to_err();
	ATF_REQUIRE((id = first_call("/jobs/5/result")) != 0);
	ATF_REQUIRE(unlink("data/notes/5/meta.json") == 0 &&
	    unlink("data/notes/5/input.json") == 0 &&
	    unlink("data/notes/5/output.json") == 0 &&
	    rmdir("data/notes/5") == 0);
	call_answers(id, 409, NULL);
	ATF_CHECK(atf_utils_grep_file("source notes job 5: the source no "
	    "longer held the job \\(409\\), but its record is gone", "err"));
	(void)core_timer();
	ATF_CHECK_MSG(call_sent("/jobs/claim") != 0, "a result whose record "
	    "is gone holds the claims");
}

/*
 * A record there whose meta.json cannot be read holds the claims until
 * it says the result was taken, then lets them go.
 */
ATF_TC_WITHOUT_HEAD(result_record_held);
ATF_TC_BODY(result_record_held, tc)
{
	static const char	 bad[] = "{\"source\": \"notes\", \"job\": ";
	uint32_t		 id;
	char			*meta;
	int			 fd;

	owed_record("5", 1);
	core_up();
	log_to_err();
	ATF_REQUIRE((id = first_call("/jobs/5/result")) != 0);
	ATF_REQUIRE((fd = open("data/notes/5/meta.json", O_RDWR)) != -1);
	ATF_REQUIRE((meta = calloc(1, 4096)) != NULL);
	ATF_REQUIRE(read(fd, meta, 4095) > 0);
	ATF_REQUIRE(pwrite(fd, bad, sizeof(bad) - 1, 0) ==
	    (ssize_t)sizeof(bad) - 1 && ftruncate(fd, sizeof(bad) - 1) == 0);
	call_answers(id, 200, NULL);
	ATF_CHECK(atf_utils_grep_file("the record cannot say the result was "
	    "taken", "err"));
	(void)core_timer();
	ATF_CHECK_MSG(call_sent("/jobs/claim") == 0, "a claim while a record "
	    "could not say its result was taken");
	ATF_REQUIRE(pwrite(fd, meta, strlen(meta), 0) ==
	    (ssize_t)strlen(meta));
	close(fd);
	free(meta);
	ahead += CORE_RECORD_RETRY;
	(void)core_timer();
	ATF_CHECK(atf_utils_grep_file("source notes job 5: the record says it "
	    "now", "err"));
	ATF_CHECK_MSG(call_sent("/jobs/claim") != 0, "no claim once the "
	    "record said it");
}

ATF_TC_WITHOUT_HEAD(prune_keep_down);
ATF_TC_BODY(prune_keep_down, tc)
{
	int	 ms;

	core_up();
	old_record();
	/* The keep is asked and does not answer yet: the core waits. */
	ms = core_timer();
	(void)sent(PROC_KEEP_PROBE);
	ATF_CHECK_MSG(ms != -1 && ms <= CORE_PRUNE_EVERY * 1000,
	    "the core's timer, waiting for the keep, is %d ms: the prune "
	    "is not woken for", ms);
	ATF_CHECK_MSG(!pruned(), "pruned before it was due");
	(void)an_hour_on();
	ATF_CHECK_MSG(pruned(), "the prune fell due with the keep down and "
	    "did not happen");
}

ATF_TC_WITHOUT_HEAD(prune_call_in_flight);
ATF_TC_BODY(prune_call_in_flight, tc)
{
	core_up();
	(void)core_timer();
	keep_answers(sent(PROC_KEEP_PROBE));
	/* The control: the keep up and the core idle, the prune is done. */
	old_record();
	(void)an_hour_on();
	ATF_CHECK_MSG(pruned(), "idle, the keep up: not pruned");
	/* That same turn asked the source; its answer does not come. */
	(void)sent(PROC_KEEP_CALL);
	old_record();
	(void)an_hour_on();
	ATF_CHECK_MSG(pruned(), "the prune fell due during a call to the "
	    "keep and did not happen");
}

/* In a child of the test: the message delivered ends the core, said. */
static void
delivered_ends(uint32_t type, uint32_t id, const void *data, size_t len)
{
	char	 line[128];
	pid_t	 pid;
	int	 st, fd;

	ATF_REQUIRE((pid = fork()) != -1);
	if (pid == 0) {
		if ((fd = open("err", O_WRONLY | O_CREAT | O_TRUNC, 0600)) ==
		    -1 || dup2(fd, 2) == -1)
			_exit(2);
		deliver(type, id, data, len);
		_exit(0);
	}
	ATF_REQUIRE(waitpid(pid, &st, 0) == pid);
	ATF_CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 1, "the core took "
	    "%s (id %u)", proc_msg_name(type), id);
	(void)snprintf(line, sizeof(line), "%s \\(id %u\\), which answers "
	    "no question asked with that id", proc_msg_name(type), id);
	ATF_CHECK_MSG(atf_utils_grep_file("%s", "err", line), "no line %s",
	    line);
}

/*
 * An answer goes to the question asked with its id, by its row (ask.c):
 * during the claim, a question's type, or an answer whose row pays
 * another question than the claim's (the keep's state), each with the
 * claim's id, ends the core, its log naming the type.  Control: the
 * claim's PROC_KEEP_DOWN is taken.
 */
ATF_TC_WITHOUT_HEAD(wait_takes);
ATF_TC_BODY(wait_takes, tc)
{
	static const char	 down[] = "no keep";
	uint32_t		 id, up = 1;

	core_up();
	(void)core_timer();
	keep_answers(sent(PROC_KEEP_PROBE));
	(void)core_timer();
	id = sent(PROC_KEEP_CALL);
	delivered_ends(PROC_KEEP_PROBE, id, NULL, 0);
	delivered_ends(PROC_KEEP_STATE, id, &up, sizeof(up));
	delivered_ends(PROC_KEEP_DOWN, id + 1, down, sizeof(down) - 1);
	deliver(PROC_KEEP_DOWN, id, down, sizeof(down) - 1);
	ATF_CHECK_EQ(ask_pending(PROC_KEEP_CALL), 0);
}

/* The sealed memfds of keep bodies this process holds open. */
static int
bodies_held(void)
{
	struct dirent	*e;
	DIR		*d;
	char		 path[PATH_MAX], link[PATH_MAX];
	ssize_t		 n;
	int		 held = 0;

	ATF_REQUIRE((d = opendir("/proc/self/fd")) != NULL);
	while ((e = readdir(d)) != NULL) {
		(void)snprintf(path, sizeof(path), "/proc/self/fd/%s",
		    e->d_name);
		if ((n = readlink(path, link, sizeof(link) - 1)) == -1)
			continue;
		link[n] = '\0';
		held += strncmp(link, "/memfd:keep-body", 16) == 0;
	}
	closedir(d);
	return held;
}

/* What the core sent before: its summaries read and let go. */
static void
core_drained(void)
{
	struct pollfd	 pfd = { parent_chan.fd, POLLIN, 0 };
	struct msg	 m;

	ATF_REQUIRE(msgchan_flush_all(&core_chan) == 0);
	for (;;) {
		while (msg_get(&parent_chan, &m) == 1) {
			ATF_REQUIRE_EQ(m.type, PROC_SOURCES);
			msg_free(&m);
		}
		if (poll(&pfd, 1, 0) != 1)
			return;
		ATF_REQUIRE(msgchan_read(&parent_chan) > 0);
	}
}

/*
 * A job's input from the core through the parent to the launcher: each
 * socket carries the header of PROC_JOB_RUN alone, and the launcher
 * maps the input's bytes from the claim's memfd.  The core holds the
 * memfd while the job runs and lets it go at its end.
 */
ATF_TC_WITHOUT_HEAD(job_input_by_memfd);
ATF_TC_BODY(job_input_by_memfd, tc)
{
	static const char	 input[] = "{\"text\":\"a recipe\"}";
	struct proc		*t = proc_table();
	struct keepbody_span	 span;
	struct job_outcome	 o;
	struct msgchan		 launcher;
	struct proc_job		 j;
	struct msg		 m;
	const size_t		 one = sizeof(struct msg_hdr) + sizeof(j);
	const char		*why;
	char			 body[256], rwhy[128];
	size_t			 n;
	uint32_t		 id;
	int			 sv[2];

	(void)snprintf(body, sizeof(body), "{\"jobs\":[{\"id\":12,"
	    "\"capability\":\"claude\",\"input\":%s}]}", input);
	core_up();
	id = first_call("/jobs/claim");
	core_drained();
	call_answers(id, 200, body);
	/* The parent: its side of the core's channel, and the launcher's. */
	t[PROC_CORE].chan = parent_chan;
	TAILQ_INIT(&t[PROC_CORE].chan.outq);
	ATF_REQUIRE(socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
	msgchan_init(&t[PROC_LAUNCHER].chan, sv[0], PROC_MAXPAYLOAD);
	msgchan_init(&launcher, sv[1], PROC_MAXPAYLOAD);

	n = hop(&core_chan, &t[PROC_CORE].chan, &m);
	ATF_REQUIRE_EQ(m.type, PROC_JOB_RUN);
	ATF_CHECK_MSG(n == one && m.fd != -1, "core to parent: %zu bytes, "
	    "memfd %d", n, m.fd);
	parent_dispatch(&t[PROC_CORE], &m);
	msg_free(&m);
	n = hop(&t[PROC_LAUNCHER].chan, &launcher, &m);
	ATF_CHECK_MSG(n == one && m.fd != -1, "parent to launcher: %zu bytes, "
	    "memfd %d", n, m.fd);
	ATF_CHECK_MSG(msg_check_set(&proc_msg(PROC_JOB_RUN)->rule, 1,
	    t[PROC_LAUNCHER].takes, &m, rwhy, sizeof(rwhy)) == 0, "%s", rwhy);
	memcpy(&j, m.data, sizeof(j));
	id = m.id;
	ATF_CHECK_STREQ(j.id, "12");
	ATF_REQUIRE_MSG(launcher_input(&j, m.fd, &why) == 0, "%s", why);
	ATF_REQUIRE(keepbody_span_map(m.fd, j.input_off, j.inputlen,
	    &span) == 0);
	ATF_CHECK(j.inputlen == strlen(input) &&
	    memcmp(span.bytes, input, j.inputlen) == 0);
	keepbody_span_unmap(&span);
	msg_free(&m);

	/* The job done, back through the parent: the core lets it go. */
	memset(&o, 0, sizeof(o));
	o.status = JOB_RELEASED;
	o.word = JW_RELEASED;
	ATF_REQUIRE(outcome_send(&launcher, PROC_JOB_DONE, id, &o, NULL,
	    0) == 0);
	(void)hop(&launcher, &t[PROC_LAUNCHER].chan, &m);
	parent_dispatch(&t[PROC_LAUNCHER], &m);
	msg_free(&m);
	(void)hop(&t[PROC_CORE].chan, &core_chan, &m);
	ATF_REQUIRE_EQ(m.type, PROC_JOB_DONE);
	ATF_CHECK_EQ_MSG(bodies_held(), 1, "the core let the claim's memfd go "
	    "while its job ran");
	ask_answer(&m);
	msg_free(&m);
	ATF_CHECK_EQ_MSG(bodies_held(), 0, "the core holds the claim's memfd "
	    "past its job");
}

/*
 * A claim whose job fails before any box, or that holds no job, keeps
 * no memfd: the control of job_input_by_memfd's end.
 */
ATF_TC_WITHOUT_HEAD(job_failed_lets_go);
ATF_TC_BODY(job_failed_lets_go, tc)
{
	core_up();
	call_answers(first_call("/jobs/claim"), 200, "{\"jobs\":[{\"id\":13,"
	    "\"capability\":\"ocr\",\"input\":{}}]}");
	ATF_CHECK_MSG(atf_utils_file_exists("data/notes/13/meta.json"),
	    "the failed job has no record");
	ATF_CHECK_EQ_MSG(bodies_held(), 0, "a job failed before its run "
	    "holds the claim's memfd");
}

/* The core's PROC_JOB_RUN to its parent, its summaries passed over: its id. */
static uint32_t
job_run_sent(void)
{
	struct msg	 m;
	uint32_t	 id;

	ATF_REQUIRE(msgchan_flush_all(&core_chan) == 0);
	do {
		ATF_REQUIRE(msg_read_one(&parent_chan, &m) == 1);
		id = m.id;
		if (m.type != PROC_JOB_RUN)
			ATF_REQUIRE_EQ(m.type, PROC_SOURCES);
		msg_free(&m);
	} while (m.type != PROC_JOB_RUN);
	return id;
}

/* The launcher's outcome of job id, failed, through the parent. */
static void
job_failed(uint32_t id)
{
	struct job_outcome	 o;
	struct msg		 m;

	memset(&o, 0, sizeof(o));
	o.status = JOB_FAILED;
	o.word = JW_INPUT;
	(void)strlcpy(o.error, "a test's failure", sizeof(o.error));
	ATF_REQUIRE(outcome_send(&parent_chan, PROC_JOB_DONE, id, &o, NULL,
	    0) == 0);
	ATF_REQUIRE(msgchan_flush_all(&parent_chan) == 0);
	ATF_REQUIRE(msg_read_one(&core_chan, &m) == 1);
	ask_answer(&m);
	msg_free(&m);
}

static const char claude_job[] = "{\"jobs\":[{\"id\":21,"
    "\"capability\":\"claude\",\"input\":{}}]}";

/*
 * sandcastled -1 at jobs 2, claude's 1: while notes' claude job runs,
 * recipes, whose one capability has no slot, waits, not asked; once
 * that job ended and its result went out, it is asked, naming claude.
 * Asked then, it would have had a box the launcher refuses, and claude
 * a rest for nothing.
 */
ATF_TC_WITHOUT_HEAD(once_capability_slot);
ATF_TC_BODY(once_capability_slot, tc)
{
	struct config	*conf = core_conf();
	uint32_t	 run, id;

	conf->jobs = 2;
	conf->caps[CAP_CLAUDE].jobs = 1;
	add_source(conf, "recipes", 30, 30, CAP_BIT(CAP_CLAUDE));
	child_once = 1;
	core_with(conf);
	call_answers(first_call("\"notes\""), 200, claude_job);
	run = job_run_sent();
	(void)core_timer();
	ATF_CHECK_EQ_MSG(call_sent("/jobs/claim"), 0, "recipes was asked "
	    "for claude while notes' claude job held its one slot");
	job_failed(run);
	(void)core_timer();
	ATF_REQUIRE((id = call_sent("/jobs/21/result")) != 0);
	call_answers(id, 200, "{}");
	(void)core_timer();
	ATF_REQUIRE((id = call_sent("\"recipes\"")) != 0);
	call_answers(id, 200, "{\"jobs\":[]}");
}

/*
 * sandcastled -1 at jobs 2, its one source asked: the core waits for
 * its job's end (a summary's minute at most), never spins.
 */
ATF_TC_WITHOUT_HEAD(once_waits_for_jobs);
ATF_TC_BODY(once_waits_for_jobs, tc)
{
	struct config	*conf = core_conf();
	uint32_t	 run;
	int		 ms;

	conf->jobs = 2;
	child_once = 1;
	core_with(conf);
	call_answers(first_call("/jobs/claim"), 200, claude_job);
	run = job_run_sent();
	ms = core_timer();
	ATF_CHECK_MSG(ms > 1000, "the core's next step is in %d ms while "
	    "its job runs and no source is left to ask", ms);
	/* Control: its end wakes the core, whose result goes out. */
	job_failed(run);
	(void)core_timer();
	ATF_CHECK(call_sent("/jobs/21/result") != 0);
}

ATF_TP_ADD_TCS(tp)
{
	/* The rows, as main() hands them down before any case runs. */
	proc_use(proc_children);
	proc_msgs_use(proc_msgtab);
	ATF_TP_ADD_TC(tp, prune_keep_down);
	ATF_TP_ADD_TC(tp, prune_call_in_flight);
	ATF_TP_ADD_TC(tp, away_past_retention);
	ATF_TP_ADD_TC(tp, result_record_gone);
	ATF_TP_ADD_TC(tp, result_record_held);
	ATF_TP_ADD_TC(tp, wait_takes);
	ATF_TP_ADD_TC(tp, job_input_by_memfd);
	ATF_TP_ADD_TC(tp, job_failed_lets_go);
	ATF_TP_ADD_TC(tp, once_capability_slot);
	ATF_TP_ADD_TC(tp, once_waits_for_jobs);
	return atf_no_error();
}
