/*
 * The box's side of the exchange: a launcher that breaks the protocol gets
 * a failure line when the box can still speak, and exit 1.
 */
#ifdef BOX_TEST_HOOKS
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box.h"

static int	say(struct box_io *, enum proto_type, const char *, size_t,
		    size_t);
static int	say_hello(struct box_io *, const struct box_env *);
static int	say_failure_early(struct box_io *, enum job_word, int,
		    const char *);
static int	read_job(struct box_io *, struct proto_msg *, char **, char *,
		    size_t);
static int	job_run(const struct box_env *, struct box_io *,
		    struct proto_msg *);
static char	*last_text(const struct box_outcome *, int);
#ifdef BOX_TEST_HOOKS
static int	 test_hook(struct box_job *, struct box_outcome *);
static void	 test_request(struct box_job *, struct box_outcome *);
static void	 test_word(struct box_job *, struct box_outcome *);
#endif

void
box_fail(struct box_outcome *o, enum job_word word, int release,
    const char *fmt, ...)
{
	va_list	 ap;

	o->failed = 1;
	o->word = word;
	o->release = release;
	va_start(ap, fmt);
	(void)vsnprintf(o->error, sizeof(o->error), fmt, ap);
	va_end(ap);
	free(o->output);
	o->output = NULL;
}

void
box_outcome_free(struct box_outcome *o)
{
	free(o->output);
	free(o->usage);
	free(o->record);
	free(o->reply);
	memset(o, 0, sizeof(*o));
}

char *
box_raw_dup(const struct json *j, size_t tok)
{
	const char	*raw;
	size_t		 len;

	raw = json_raw(j, tok, &len);
	return strndup(raw, len);
}

static char *
last_text(const struct box_outcome *o, int with_reply)
{
	struct json_writer	 w;
	size_t			 len;

	json_writer_init(&w);
	json_write_object(&w);
	json_write_key(&w, "type");
	json_write_string(&w, o->failed ? "failure" : "result");
	if (o->failed) {
		json_write_key(&w, "release");
		json_write_bool(&w, o->release);
		json_write_key(&w, "word");
		json_write_string(&w, job_word_name(o->word));
		json_write_key(&w, "error");
		json_write_string(&w, o->error);
		if (with_reply && o->reply != NULL) {
			json_write_key(&w, "reply");
			json_write_raw(&w, o->reply, strlen(o->reply));
		}
	} else {
		json_write_key(&w, "output");
		json_write_raw(&w, o->output, strlen(o->output));
	}
	if (o->usage != NULL) {
		json_write_key(&w, "usage");
		json_write_raw(&w, o->usage, strlen(o->usage));
	}
	if (o->record != NULL) {
		json_write_key(&w, "record");
		json_write_raw(&w, o->record, strlen(o->record));
	}
	json_write_close(&w);
	return json_writer_finish(&w, &len);
}

char *
box_last_line(struct box_outcome *o, uint64_t max, size_t *len)
{
	char	*s;

	if (!o->failed && o->output == NULL)
		box_fail(o, JW_BOX, 0, "the box side gave no output");
	if ((s = last_text(o, 1)) == NULL)
		return NULL;
	*len = strlen(s);
	if (*len + 1 <= max)
		return s;
	free(s);
	if (!o->failed)
		box_fail(o, JW_BOX, 0,
		    "the output is %zu bytes, more than max_output %llu", *len,
		    (unsigned long long)max);
	if ((s = last_text(o, 0)) == NULL)
		return NULL;
	*len = strlen(s);
	if (*len + 1 <= max)
		return s;
	free(s);
	return NULL;
}

static int
say(struct box_io *io, enum proto_type t, const char *text, size_t len,
    size_t max)
{
	const char	*why;

	if (proto_seq_next(&io->seq, t, &why) == -1)
		return -1;
	return proto_write_line(io->out, text, len, max, &why);
}

static int
say_hello(struct box_io *io, const struct box_env *env)
{
	struct json_writer	 w;
	char			*s;
	size_t			 len;
	int			 r;

	json_writer_init(&w);
	json_write_object(&w);
	json_write_key(&w, "type");
	json_write_string(&w, "hello");
	json_write_key(&w, "build");
	json_write_string(&w, env->build);
	json_write_key(&w, "capability");
	json_write_string(&w, cap_name(env->cap));
	json_write_close(&w);
	if ((s = json_writer_finish(&w, &len)) == NULL)
		return -1;
	r = say(io, PROTO_HELLO, s, len, proto_line_max(PROTO_HELLO, NULL));
	free(s);
	return r;
}

/* In place of the hello, or after a refused job line: no order holds. */
static int
say_failure_early(struct box_io *io, enum job_word word, int release,
    const char *error)
{
	struct box_outcome	 o;
	const char		*why;
	char			*s;
	size_t			 len, max;
	int			 r = -1;

	memset(&o, 0, sizeof(o));
	box_fail(&o, word, release, "%s", error);
	max = proto_line_max(PROTO_FAILURE, NULL);
	if ((s = box_last_line(&o, max, &len)) != NULL)
		r = proto_write_line(io->out, s, len, max, &why);
	free(s);
	io->seq.state = PS_DONE;
	return r;
}

/* Parsed over *copy: the reader's buffer holds the next line meanwhile. */
static int
read_job(struct box_io *io, struct proto_msg *m, char **copy, char *why,
    size_t whysz)
{
	const char	*rwhy;
	char		*line;
	size_t		 len;
	int		 r;

	*copy = NULL;
	if ((r = proto_read_line(&io->r, proto_line_max(PROTO_JOB, NULL),
	    &line, &len, &rwhy)) != 1) {
		if (r == -1)
			(void)snprintf(why, whysz, "%s", rwhy);
		return r;
	}
	if ((*copy = malloc(len + 1)) == NULL) {
		(void)snprintf(why, whysz, "out of memory for the job line");
		return -1;
	}
	memcpy(*copy, line, len + 1);
	if (proto_parse(m, *copy, len, why, whysz) == -1)
		return -1;
	if (proto_seq_next(&io->seq, m->type, &rwhy) == -1) {
		(void)snprintf(why, whysz, "the %s line: %s",
		    proto_type_name(m->type), rwhy);
		proto_msg_free(m);
		return -1;
	}
	if (len + 1 > proto_line_max(PROTO_JOB, m)) {
		(void)snprintf(why, whysz, "the job line is %zu bytes, more "
		    "than max_input + 64 KiB", len + 1);
		proto_msg_free(m);
		return -1;
	}
	return 1;
}

int
box_run(const struct box_env *env, int in, int out)
{
	struct box_io	 io;
	struct proto_msg job;
	char		 why[PROTO_WHY_MAX], err[PROTO_ERROR_MAX];
	char		*jobline;
	int		 r;

	memset(&io, 0, sizeof(io));
	proto_reader_init(&io.r, in);
	proto_seq_init(&io.seq, env->cap);
	io.out = out;
	if (env->build == NULL) {
		(void)snprintf(err, sizeof(err), "%s", env->build_why);
		return say_failure_early(&io, JW_BUILD, 1, err) == -1;
	}
	if (say_hello(&io, env) == -1)
		return 1;
	if ((r = read_job(&io, &job, &jobline, why, sizeof(why))) != 1) {
		if (r == -1) {
			(void)snprintf(err, sizeof(err), "protocol: %s", why);
			(void)say_failure_early(&io, JW_PROTOCOL, 0, err);
		}
		free(jobline);
		proto_reader_free(&io.r);
		return 1;
	}
	r = job_run(env, &io, &job);
	proto_msg_free(&job);
	free(jobline);
	proto_reader_free(&io.r);
	return r;
}

static int
job_run(const struct box_env *env, struct box_io *io, struct proto_msg *m)
{
	struct box_job		 job;
	struct box_outcome	 o;
	const char		*b, *why;
	char			*s;
	size_t			 len;
	int			 r = 1;

	memset(&o, 0, sizeof(o));
	memset(&job, 0, sizeof(job));
	job.cap = env->cap;
	job.j = &m->j;
	job.settings = m->f[PF_SETTINGS];
	job.input = m->f[PF_INPUT];
	job.check = m->check;
	job.max_input = m->max_input;
	job.max_output = m->max_output;
	job.loaded = env->loaded;
	job.io = io;
	b = m->j.buf + m->j.toks[m->f[PF_BUILD]].start;
	if (strncmp(b, env->build, BUILD_ID_LEN) != 0)
		box_fail(&o, JW_BUILD, 1,
		    "box of build %s, launcher of build %.*s", env->build,
		    BUILD_ID_LEN, b);
#ifdef BOX_TEST_HOOKS
	else if (test_hook(&job, &o))
		;
#endif
	else
		(void)env->run(&job, &o);
	/* After a broken answer no order holds: the failure goes out as it is. */
	if ((s = box_last_line(&o, job.max_output, &len)) != NULL &&
	    (io->broken ? proto_write_line(io->out, s, len, job.max_output,
	    &why) : say(io, o.failed ? PROTO_FAILURE : PROTO_RESULT, s, len,
	    job.max_output)) == 0)
		r = io->broken;
	free(s);
	box_outcome_free(&o);
	return r;
}

int
box_exchange(struct box_job *job, const char *req, size_t len,
    struct proto_msg *answer, struct box_outcome *o)
{
	struct box_io	*io = job->io;
	const char	*rwhy;
	char		 why[PROTO_WHY_MAX], *line;
	size_t		 n;
	int		 r;

	if (len + 1 > proto_line_max(PROTO_REQUEST, NULL)) {
		box_fail(o, JW_BOX, 0,
		    "the request is %zu bytes, more than the keep takes",
		    len + 1);
		return -1;
	}
	if (io == NULL || say(io, PROTO_REQUEST, req, len,
	    proto_line_max(PROTO_REQUEST, NULL)) == -1) {
		box_fail(o, JW_PROTOCOL, 0,
		    "protocol: the request could not be sent");
		return -1;
	}
	if ((r = proto_read_line(&io->r, proto_line_max(PROTO_ANSWER, NULL),
	    &line, &n, &rwhy)) != 1) {
		io->broken = 1;
		box_fail(o, JW_PROTOCOL, 0, "protocol: %s", r == 0 ?
		    "the input ended before the answer" : rwhy);
		return -1;
	}
	if (proto_parse(answer, line, n, why, sizeof(why)) == -1) {
		io->broken = 1;
		box_fail(o, JW_PROTOCOL, 0, "protocol: %s", why);
		return -1;
	}
	if (proto_seq_next(&io->seq, answer->type, &rwhy) == -1) {
		io->broken = 1;
		box_fail(o, JW_PROTOCOL, 0, "protocol: the %s line: %s",
		    proto_type_name(answer->type), rwhy);
		proto_msg_free(answer);
		return -1;
	}
	return 0;
}

#ifdef BOX_TEST_HOOKS
/*
 * A test build's sandcastle_test: "open", "socket" or "execve" under the
 * filter, as taken-over code would, "request" or "word".  1 when one.
 */
static int
test_hook(struct box_job *job, struct box_outcome *o)
{
	char	*const argv[] = { "sandcastle-box", NULL }, *const envp[] = {
		    NULL };
	long	 k;
	int	 fd = -1;

	if (job->input == 0 || (k = json_find(job->j, job->input,
	    "sandcastle_test")) == -1)
		return 0;
	if (json_streq(job->j, k, "open"))
		fd = open(PROTO_BUILD_FILE, O_RDONLY);
	else if (json_streq(job->j, k, "socket"))
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
	else if (json_streq(job->j, k, "execve"))
		(void)execve("/sandcastle-box", argv, envp);
	else if (json_streq(job->j, k, "request")) {
		test_request(job, o);
		return 1;
	} else if (json_streq(job->j, k, "word")) {
		test_word(job, o);
		return 1;
	} else
		return 0;
	if (fd == -1)
		box_fail(o, JW_BOX, 0,
		    "test: the call failed: %s", strerror(errno));
	else
		box_fail(o, JW_BOX, 0, "test: the call succeeded");
	if (fd != -1)
		(void)close(fd);
	return 1;
}

/* The request line of the input's object, and the job fails saying how it went. */
static void
test_request(struct box_job *job, struct box_outcome *o)
{
	struct proto_msg	 a;
	const char		*raw;
	char			*line;
	size_t			 n;
	long			 r;
	int			 len;

	if ((r = json_find(job->j, job->input, "sandcastle_request")) == -1 ||
	    job->j->toks[r].type != JSON_OBJECT ||
	    job->j->toks[r].size == 0) {
		box_fail(o, JW_BOX, 0, "test: no sandcastle_request");
		return;
	}
	raw = json_raw(job->j, r, &n);
	if ((line = malloc(n + 32)) == NULL) {
		box_fail(o, JW_BOX, 0, "test: out of memory");
		return;
	}
	len = snprintf(line, n + 32, "{\"type\":\"request\",%.*s",
	    (int)(n - 1), raw + 1);
	if (box_exchange(job, line, len, &a, o) == 0) {
		box_fail(o, JW_BOX, 0, "test: the request was answered");
		proto_msg_free(&a);
	}
	free(line);
}

static void
test_word(struct box_job *job, struct box_outcome *o)
{
	char	 name[PROTO_WORD_MAX + 1];
	size_t	 n;
	long	 k;
	int	 w;

	if ((k = json_find(job->j, job->input, "sandcastle_word")) == -1 ||
	    json_string_copy(job->j, k, name, sizeof(name), &n) == -1 ||
	    (w = job_word_of_name(name)) == -1)
		box_fail(o, JW_BOX, 0, "test: no sandcastle_word");
	else
		box_fail(o, w, 0, "test: the word %s", name);
}
#endif
