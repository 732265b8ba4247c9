/* The launcher's side of the box protocol, spoken in the box's reader, and
 * the verdict that overrules the box's.  What the box says is never logged. */
#include <sys/types.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boxproto.h"
#include "boxrun.h"
#include "capreq.h"
#include "job.h"
#include "json.h"
#include "log.h"
#include "values.h"
#include "word.h"

static char	 job_build_id[BUILD_ID_LEN + 1];
static char	 job_init_why[256] = "job_init() was not called";

static int	 job_hello(struct job_ctx *);
static int	 job_send(struct job_ctx *, const char *, size_t);
static void	 job_lines(struct job_ctx *);
static int	 job_line_one(struct job_ctx *, const char *, size_t);
static void	 job_request(struct job_ctx *, const struct proto_msg *,
		    const char *, size_t);
static void	 job_last(struct job_ctx *, const struct proto_msg *);
static void	 job_usage(struct job_usage *, const char *);
static void	 job_word_refused(struct job_ctx *, const char *);

const char *
job_status_name(enum job_status s)
{
	return s == JOB_SUCCEEDED ? "succeeded" : s == JOB_FAILED ? "failed" :
	    "released";
}

int
job_init(const char *build, char *why, size_t whysz)
{
	if (!proto_build_valid(build, strlen(build))) {
		(void)snprintf(why, whysz, "the build id %s is not 12 hex "
		    "digits", build);
		return -1;
	}
	if (box_init(build, why, whysz) == -1) {
		(void)strlcpy(job_init_why, why, sizeof(job_init_why));
		return -1;
	}
	(void)strlcpy(job_build_id, build, sizeof(job_build_id));
	return 0;
}

const char *
job_build(void)
{
	return job_build_id;
}

const char *
job_no_build(void)
{
	return job_build_id[0] == '\0' ? job_init_why : NULL;
}

/* The launcher's verdict: the box's last line, if any, no longer counts. */
void
job_decide(struct job_ctx *x, enum job_status st, enum job_word word,
    const char *fmt, ...)
{
	va_list	 ap;

	if (x->decided)
		return;
	x->decided = 1;
	x->o->status = st;
	x->o->word = word;
	va_start(ap, fmt);
	(void)vsnprintf(x->o->error, sizeof(x->o->error), fmt, ap);
	va_end(ap);
	free(x->o->output);
	x->o->output = NULL;
}

void
job_talk(struct job_ctx *x, const char *input, size_t inputlen)
{
	if (job_hello(x) == 0 && job_send(x, input, inputlen) == 0)
		job_lines(x);
}

static int
job_parse(struct job_ctx *x, const char *line, size_t len, const char *what,
    struct proto_msg *m)
{
	const char	*why;
	char		 pwhy[PROTO_WHY_MAX];

	if (proto_parse(m, line, len, pwhy, sizeof(pwhy)) == -1) {
		job_decide(x, JOB_FAILED, JW_PROTOCOL, "%s: %s", what, pwhy);
		return -1;
	}
	if (proto_seq_next(&x->seq, m->type, &why) == -1) {
		job_decide(x, JOB_FAILED, JW_PROTOCOL, "the box's %s line: %s",
		    proto_type_name(m->type), why);
		proto_msg_free(m);
		return -1;
	}
	return 0;
}

static int
job_hello(struct job_ctx *x)
{
	struct proto_msg	 m;
	const char		*line;
	char			 build[BUILD_ID_LEN + 1];
	size_t			 len;

	if (box_read_line(x->box, &line, &len) != 1)
		return -1;
	if (len + 1 > proto_line_max(PROTO_HELLO, NULL)) {
		job_decide(x, JOB_FAILED, JW_PROTOCOL, "the box's first line is "
		    "longer than 64 KiB");
		return -1;
	}
	if (job_parse(x, line, len, "the box's first line", &m) == -1)
		return -1;
	if (m.type == PROTO_FAILURE) {
		job_last(x, &m);
		proto_msg_free(&m);
		return -1;
	}
	x->hello = 1;
	(void)json_string_copy(&m.j, m.f[PF_BUILD], build, sizeof(build), &len);
	if (!json_streq(&m.j, m.f[PF_CAPABILITY], cap_name(x->cap)))
		job_decide(x, JOB_FAILED, JW_PROTOCOL, "the box of "
		    "sandcastle-%s says it is another capability's",
		    cap_name(x->cap));
	else if (strcmp(build, job_build_id) != 0)
		job_decide(x, JOB_RELEASED, JW_BUILD, "box of build %s, this "
		    "build %s: run sandcastlectl install", build, job_build_id);
	proto_msg_free(&m);
	return x->decided ? -1 : 0;
}

/* {...} becomes {...,"input":<input>}, the input on the line's one line. */
static char *
line_with_input(const char *head, size_t hlen, const char *input,
    size_t inputlen, size_t *len)
{
	char	*line;
	size_t	 i;

	if ((line = malloc(hlen + inputlen + 16)) == NULL)
		return NULL;
	memcpy(line, head, hlen - 1);
	memcpy(line + hlen - 1, ",\"input\":", 9);
	memcpy(line + hlen + 8, input, inputlen);
	for (i = hlen + 8; i < hlen + 8 + inputlen; i++)
		if (line[i] == '\n' || line[i] == '\r')
			line[i] = ' ';
	line[hlen + 8 + inputlen] = '}';
	*len = hlen + 9 + inputlen;
	line[*len] = '\0';
	return line;
}

char *
job_line(const struct config *conf, enum cap_id cap, enum job_mode mode,
    const char *input, size_t inputlen, size_t *len)
{
	const struct capability	*c = &conf->caps[cap];
	struct json_writer	 w;
	char			*head, *line;
	size_t			 hlen;

	json_writer_init(&w);
	json_write_object(&w);
	json_write_key(&w, "type");
	json_write_string(&w, "job");
	json_write_key(&w, "mode");
	json_write_string(&w, mode == JOB_RUN ? "run" : "check");
	json_write_key(&w, "build");
	json_write_string(&w, job_build_id);
	json_write_key(&w, "limits");
	json_write_object(&w);
	json_write_key(&w, "max_input");
	json_write_uint(&w, c->max_input);
	json_write_key(&w, "max_output");
	json_write_uint(&w, c->max_output);
	json_write_close(&w);
	json_write_key(&w, "settings");
	json_write_object(&w);
	cap_table[cap]->settings(&w, conf);
	json_write_close(&w);
	json_write_close(&w);
	if ((head = json_writer_finish(&w, &hlen)) == NULL)
		return NULL;
	if (mode == JOB_CHECK) {
		*len = hlen;
		return head;
	}
	line = line_with_input(head, hlen, input, inputlen, len);
	free(head);
	return line;
}

static int
job_send(struct job_ctx *x, const char *input, size_t inputlen)
{
	const char	*why;
	char		*line;
	size_t		 len;
	int		 r;

	if ((line = job_line(x->conf, x->cap, x->mode, input, inputlen,
	    &len)) == NULL) {
		job_decide(x, JOB_RELEASED, JW_RELEASED, "out of memory for "
		    "the job line");
		return -1;
	}
	if (proto_seq_next(&x->seq, PROTO_JOB, &why) == -1)
		fatalx("job: %s", why);
	/* A box that ends before it reads it: its end says why. */
	r = box_write_line(x->box, line, len);
	free(line);
	return r;
}

static void
job_lines(struct job_ctx *x)
{
	const char	*line;
	size_t		 len;

	while (!x->decided && box_read_line(x->box, &line, &len) == 1)
		if (job_line_one(x, line, len) == -1)
			break;
}

static int
job_line_one(struct job_ctx *x, const char *line, size_t len)
{
	struct proto_msg	 m;

	if (x->last) {
		job_decide(x, JOB_FAILED, JW_PROTOCOL, "the box wrote a line "
		    "after its last");
		return -1;
	}
	if (job_parse(x, line, len, "a line from the box", &m) == -1)
		return -1;
	if (m.type == PROTO_REQUEST)
		job_request(x, &m, line, len);
	else
		job_last(x, &m);
	proto_msg_free(&m);
	return x->decided ? -1 : 0;
}

char *
job_envelope(enum cap_id cap, const char *request, size_t len, size_t *outlen,
    const char **why)
{
	static char		 pwhy[PROTO_WHY_MAX];
	struct proto_msg	 m;
	struct json_writer	 w;
	const char		*raw;
	size_t			 n;
	char			*s;
	int			 f;
	static const int	 keys[] = { PF_METHOD, PF_PATH, PF_HEADERS,
				    PF_BODY };
	static const char *const names[] = { "method", "path", "headers",
				    "body" };

	if (proto_parse(&m, request, len, pwhy, sizeof(pwhy)) == -1) {
		*why = pwhy;
		return NULL;
	}
	if (m.type != PROTO_REQUEST) {
		proto_msg_free(&m);
		*why = "not a request";
		return NULL;
	}
	json_writer_init(&w);
	json_write_object(&w);
	json_write_key(&w, "destination");
	json_write_string(&w, cap_name(cap));
	for (f = 0; f < 4; f++) {
		if (m.f[keys[f]] == 0)
			continue;
		raw = json_raw(&m.j, m.f[keys[f]], &n);
		json_write_key(&w, names[f]);
		json_write_raw(&w, raw, n);
	}
	json_write_close(&w);
	proto_msg_free(&m);
	if ((s = json_writer_finish(&w, outlen)) == NULL)
		*why = "out of memory";
	return s;
}

/* The body as it came when it is JSON (newlines made spaces), else a string. */
static void
job_answer_body(struct json_writer *w, const struct keepcli_answer *a)
{
	struct json	 j;
	const char	*why;
	char		*copy;
	size_t		 i, max = proto_line_max(PROTO_ANSWER, NULL) - 4096;

	if (a->body_len > 0 && json_parse(&j, a->body, a->body_len,
	    &why) == 0) {
		json_free(&j);
		if ((copy = malloc(a->body_len)) == NULL) {
			w->failed = 1;
			return;
		}
		for (i = 0; i < a->body_len; i++)
			copy[i] = a->body[i] == '\n' || a->body[i] == '\r' ?
			    ' ' : a->body[i];
		json_write_raw(w, copy, a->body_len);
		free(copy);
	} else
		json_write_string_len(w, a->body != NULL ? a->body : "",
		    a->body_len > max ? max : a->body_len);
}

/* The answer line for the box: ok 0 means the keep gave nothing (why). */
char *
job_answer_line(const struct keepcli_answer *a, int ok, const char *why,
    size_t *len)
{
	struct json_writer	 w;
	char			 err[KEEPCLI_REASON_MAX + 64];

	if (!ok)
		(void)snprintf(err, sizeof(err), "the keep does not answer: "
		    "%s", why);
	else if (a->refused)
		(void)snprintf(err, sizeof(err), "the keep refused the "
		    "request: %s", a->reason);
	else if (a->status < 100 || a->status > 599)
		(void)snprintf(err, sizeof(err), "the API answered with status "
		    "%u", a->status);
	json_writer_init(&w);
	json_write_object(&w);
	json_write_key(&w, "type");
	if (!ok || a->refused || a->status < 100 || a->status > 599) {
		json_write_string(&w, "unreachable");
		json_write_key(&w, "error");
		json_write_string(&w, err);
	} else {
		json_write_string(&w, "answer");
		json_write_key(&w, "status");
		json_write_uint(&w, a->status);
		json_write_key(&w, "content_type");
		json_write_string(&w, a->ctype != NULL ? a->ctype : "");
		json_write_key(&w, "retry_after");
		json_write_uint(&w, a->retry_after);
		json_write_key(&w, "body");
		job_answer_body(&w, a);
	}
	json_write_close(&w);
	return json_writer_finish(&w, len);
}

/* The call's time ran out at the keep: asking again would be billed again. */
static void
job_no_answer(struct job_ctx *x, unsigned int secs)
{
	const char	*api = cap_table[x->cap]->api;
	char		 call[32], box[32];

	duration_fmt(secs, call, sizeof(call));
	duration_fmt(x->box->timeout, box, sizeof(box));
	job_decide(x, JOB_FAILED, JW_TIME, "no answer from %s within %s, "
	    "the box's %s less %ds to end it", api != NULL ? api :
	    "its destination", call, box, JOB_CALL_END);
}

/* Any request but capreq.c's ends the job before the keep is asked. */
static void
job_request(struct job_ctx *x, const struct proto_msg *m, const char *line,
    size_t len)
{
	struct keepcli_answer	 a;
	struct capreq		 r;
	const char		*why = "no keep is configured", *swhy;
	char			*env, *ans, bad[PROTO_WHY_MAX];
	size_t			 elen, alen;
	int			 ok = 0;

	capreq_of(&r, &m->j, 0);
	if (capreq_check(x->conf, x->cap, x->mode == JOB_RUN ? CAPREQ_RUN :
	    CAPREQ_CHECK, &r, bad, sizeof(bad)) == -1) {
		job_decide(x, JOB_FAILED, JW_PROTOCOL, "the box's request is "
		    "not the one its box sends: %s", bad);
		return;
	}
	memset(&a, 0, sizeof(a));
	if ((env = job_envelope(x->cap, line, len, &elen, &why)) != NULL &&
	    x->ask != NULL)
		ok = x->ask(env, elen, &a, x->arg, &why) == 0;
	free(env);
	if (ok && a.refused && a.code == KEEP_R_TIMEOUT && x->mode == JOB_RUN) {
		job_no_answer(x, a.seconds);
		keepcli_answer_free(&a);
		return;
	}
	ans = job_answer_line(&a, ok, why, &alen);
	keepcli_answer_free(&a);
	if (ans == NULL || alen + 1 > proto_line_max(PROTO_ANSWER, NULL)) {
		free(ans);
		job_decide(x, JOB_RELEASED, JW_UNREACHABLE, "the keep's answer "
		    "does not fit an answer line");
		return;
	}
	if (proto_seq_next(&x->seq, PROTO_ANSWER, &swhy) == -1)
		fatalx("job: %s", swhy);
	(void)box_write_line(x->box, ans, alen);
	free(ans);
}

static char *
job_raw_dup(const struct proto_msg *m, enum proto_field f)
{
	const char	*raw;
	size_t		 n;
	char		*s;

	if (m->f[f] == 0)
		return NULL;
	raw = json_raw(&m->j, m->f[f], &n);
	if ((s = strndup(raw, n)) == NULL)
		fatal("job");
	return s;
}

/* A word its capability's row lacks: the box failed, whatever it said. */
static void
job_word_refused(struct job_ctx *x, const char *word)
{
	struct job_outcome	*o = x->o;
	char			 said[JOB_ERROR_MAX];

	(void)strlcpy(said, o->error, sizeof(said));
	o->status = JOB_FAILED;
	o->word = JW_BOX;
	(void)snprintf(o->error, sizeof(o->error), "the box's word %s is not "
	    "one %s's box may send: %.400s", word, cap_name(x->cap), said);
}

static void
job_last(struct job_ctx *x, const struct proto_msg *m)
{
	struct job_outcome	*o = x->o;
	size_t			 len, i;
	char			*usage;

	x->last = 1;
	if (m->type == PROTO_RESULT) {
		o->status = JOB_SUCCEEDED;
		o->word = JW_NONE;
		o->output = job_raw_dup(m, PF_OUTPUT);
	} else {
		o->status = m->release ? JOB_RELEASED : JOB_FAILED;
		(void)json_string_copy(&m->j, m->f[PF_ERROR], o->error,
		    sizeof(o->error), &len);
		for (i = 0; o->error[i] != '\0'; i++)
			if ((unsigned char)o->error[i] < 0x20)
				o->error[i] = ' ';
		if (job_word_of_box(x->cap, m->word, m->release,
		    &o->word) == -1)
			job_word_refused(x, m->word);
		o->reply = job_raw_dup(m, PF_REPLY);
	}
	o->record = job_raw_dup(m, PF_RECORD);
	if ((usage = job_raw_dup(m, PF_USAGE)) != NULL)
		job_usage(&o->usage, usage);
	free(usage);
}

/* {"model":"...","input_tokens":N,"output_tokens":N}, as far as it goes. */
static void
job_usage(struct job_usage *u, const char *text)
{
	struct json	 j;
	const char	*why;
	int64_t		 v;
	size_t		 len;
	long		 k;

	if (json_parse(&j, text, strlen(text), &why) == -1)
		return;
	if ((k = json_find(&j, 0, "model")) != -1)
		(void)json_string_copy(&j, k, u->model, sizeof(u->model), &len);
	if ((k = json_find(&j, 0, "input_tokens")) != -1 &&
	    json_int(&j, k, 0, INT64_MAX, &v) == 0)
		u->input_tokens = v;
	if ((k = json_find(&j, 0, "output_tokens")) != -1 &&
	    json_int(&j, k, 0, INT64_MAX, &v) == 0)
		u->output_tokens = v;
	u->has = 1;
	json_free(&j);
}
