/*
 * The box's protocol: each line parsed once, every field checked
 * against its type's table, and the exchange's order; both sides use it.
 */
#include <sys/uio.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "boxproto.h"
#include "log.h"

#define T(x)		(1U << (x))
#define T_ANY		(T(JSON_OBJECT) | T(JSON_ARRAY) | T(JSON_STRING) | \
			    T(JSON_NUMBER) | T(JSON_TRUE) | T(JSON_FALSE) | \
			    T(JSON_NULL))
#define F(x)		(1U << (x))
#define READ_CHUNK	(64U * 1024)

static const struct {
	const char	*name;
	unsigned int	 types;
} fields[PF_NFIELDS] = {
	[PF_BUILD] =		{ "build", T(JSON_STRING) },
	[PF_CAPABILITY] =	{ "capability", T(JSON_STRING) },
	[PF_MODE] =		{ "mode", T(JSON_STRING) },
	[PF_LIMITS] =		{ "limits", T(JSON_OBJECT) },
	[PF_SETTINGS] =		{ "settings", T(JSON_OBJECT) },
	[PF_INPUT] =		{ "input", T(JSON_OBJECT) },
	[PF_METHOD] =		{ "method", T(JSON_STRING) },
	[PF_PATH] =		{ "path", T(JSON_STRING) },
	[PF_HEADERS] =		{ "headers", T(JSON_OBJECT) },
	[PF_BODY] =		{ "body", T_ANY },
	[PF_STATUS] =		{ "status", T(JSON_NUMBER) },
	[PF_CONTENT_TYPE] =	{ "content_type", T(JSON_STRING) },
	[PF_RETRY_AFTER] =	{ "retry_after", T(JSON_NUMBER) },
	[PF_ERROR] =		{ "error", T(JSON_STRING) },
	[PF_WORD] =		{ "word", T(JSON_STRING) },
	[PF_OUTPUT] =		{ "output", T_ANY },
	[PF_USAGE] =		{ "usage", T(JSON_OBJECT) },
	[PF_RECORD] =		{ "record", T(JSON_OBJECT) },
	[PF_RELEASE] =		{ "release", T(JSON_TRUE) | T(JSON_FALSE) },
	[PF_REPLY] =		{ "reply", T_ANY },
};

/*
 * Each type's fields, and the most bytes of its line, the newline
 * included (0: the job's max_output, PROTO_SLACK before the job).
 */
static const struct {
	const char	*name;
	unsigned int	 required, optional;
	size_t		 max;
} types[PROTO_NTYPES] = {
	[PROTO_HELLO] =		{ "hello", F(PF_BUILD) | F(PF_CAPABILITY), 0,
				    PROTO_SLACK },
	[PROTO_JOB] =		{ "job", F(PF_MODE) | F(PF_BUILD) |
				    F(PF_LIMITS) | F(PF_SETTINGS), F(PF_INPUT),
				    PROTO_JOB_MAX },
	[PROTO_REQUEST] =	{ "request", F(PF_METHOD) | F(PF_PATH) |
				    F(PF_HEADERS), F(PF_BODY),
				    PROTO_REQUEST_MAX },
	[PROTO_ANSWER] =	{ "answer", F(PF_STATUS) | F(PF_CONTENT_TYPE) |
				    F(PF_RETRY_AFTER) | F(PF_BODY), 0,
				    PROTO_ANSWER_MAX },
	[PROTO_UNREACHABLE] =	{ "unreachable", F(PF_ERROR), 0,
				    PROTO_ANSWER_MAX },
	[PROTO_RESULT] =	{ "result", F(PF_OUTPUT),
				    F(PF_USAGE) | F(PF_RECORD), 0 },
	[PROTO_FAILURE] =	{ "failure", F(PF_RELEASE) | F(PF_WORD) |
				    F(PF_ERROR),
				    F(PF_REPLY) | F(PF_USAGE) | F(PF_RECORD), 0 },
};

static int	parse_type(struct proto_msg *, char *, size_t);
static int	parse_fields(struct proto_msg *, char *, size_t);
static int	check_hello(struct proto_msg *, char *, size_t);
static int	check_job(struct proto_msg *, char *, size_t);
static int	check_limits(struct proto_msg *, char *, size_t);
static int	check_request(struct proto_msg *, char *, size_t);
static int	check_answer(struct proto_msg *, char *, size_t);
static int	check_failure(struct proto_msg *, char *, size_t);
static int	check_strings(const struct json *, size_t);

const char *
proto_type_name(enum proto_type t)
{
	if (t < PROTO_HELLO || t >= PROTO_NTYPES)
		return "unknown";
	return types[t].name;
}

/*
 * Its newline included; job is the job's line once read, or NULL.  A
 * job line is at most max_input + PROTO_SLACK once its limits are known.
 */
size_t
proto_line_max(enum proto_type t, const struct proto_msg *job)
{
	if (t < PROTO_HELLO || t >= PROTO_NTYPES)
		return 0;
	if (t == PROTO_JOB && job != NULL)
		return job->max_input + PROTO_SLACK;
	if (types[t].max != 0)
		return types[t].max;
	return job != NULL ? job->max_output : PROTO_SLACK;
}

int
proto_build_valid(const char *s, size_t len)
{
	size_t	 i;

	if (len != BUILD_ID_LEN)
		return 0;
	for (i = 0; i < len; i++)
		if (strchr("0123456789abcdef", s[i]) == NULL || s[i] == '\0')
			return 0;
	return 1;
}

int
proto_parse(struct proto_msg *m, const char *line, size_t len, char *why,
    size_t whysz)
{
	static int	(*const checks[PROTO_NTYPES])(struct proto_msg *,
			    char *, size_t) = {
		[PROTO_HELLO] = check_hello,
		[PROTO_JOB] = check_job,
		[PROTO_REQUEST] = check_request,
		[PROTO_ANSWER] = check_answer,
		[PROTO_FAILURE] = check_failure,
	};
	const char	*jwhy;

	memset(m, 0, sizeof(*m));
	if (json_parse(&m->j, line, len, &jwhy) == -1)
		return failwhy(why, whysz, "not JSON: %s at byte %zu", jwhy,
		    m->j.erroff);
	if (m->j.toks[0].type != JSON_OBJECT) {
		proto_msg_free(m);
		return failwhy(why, whysz, "not a JSON object");
	}
	if (parse_type(m, why, whysz) == -1 ||
	    parse_fields(m, why, whysz) == -1 ||
	    (checks[m->type] != NULL && checks[m->type](m, why, whysz) == -1)) {
		proto_msg_free(m);
		return -1;
	}
	return 0;
}

void
proto_msg_free(struct proto_msg *m)
{
	json_free(&m->j);
}

static int
parse_type(struct proto_msg *m, char *why, size_t whysz)
{
	long	 t;
	int	 i;

	if ((t = json_find(&m->j, 0, "type")) == -1)
		return failwhy(why, whysz, "the line has no type");
	for (i = PROTO_HELLO; i < PROTO_NTYPES; i++)
		if (json_streq(&m->j, t, types[i].name)) {
			m->type = i;
			return 0;
		}
	return failwhy(why, whysz, "type: not a type of the protocol");
}

/* Each member is "type" or a field of the type, of its JSON type. */
static int
parse_fields(struct proto_msg *m, char *why, size_t whysz)
{
	const struct json	*j = &m->j;
	unsigned int		 allowed, seen = 0;
	size_t			 k, n;
	int			 f;

	allowed = types[m->type].required | types[m->type].optional;
	for (n = 0, k = 1; n < j->toks[0].size; n++, k = j->toks[k + 1].next) {
		if (json_streq(j, k, "type"))
			continue;
		for (f = 0; f < PF_NFIELDS; f++)
			if ((allowed & F(f)) && json_streq(j, k, fields[f].name))
				break;
		if (f == PF_NFIELDS)
			return failwhy(why, whysz, "a %s line has no such "
			    "field: %.*s", types[m->type].name,
			    (int)(j->toks[k].end - j->toks[k].start > 32 ? 32 :
			    j->toks[k].end - j->toks[k].start),
			    j->buf + j->toks[k].start);
		if (!(fields[f].types & T(j->toks[k + 1].type)))
			return failwhy(why, whysz, "%s: the wrong type",
			    fields[f].name);
		m->f[f] = k + 1;
		seen |= F(f);
	}
	for (f = 0; f < PF_NFIELDS; f++)
		if ((types[m->type].required & F(f)) && !(seen & F(f)))
			return failwhy(why, whysz, "a %s line needs %s",
			    types[m->type].name, fields[f].name);
	return 0;
}

static int
check_build(struct proto_msg *m, char *why, size_t whysz)
{
	size_t	 len;

	(void)json_raw(&m->j, m->f[PF_BUILD], &len);
	if (!proto_build_valid(m->j.buf + m->j.toks[m->f[PF_BUILD]].start,
	    len - 2))
		return failwhy(why, whysz,
		    "build: not 12 lower-case hex digits");
	return 0;
}

static int
check_hello(struct proto_msg *m, char *why, size_t whysz)
{
	char	 name[16];
	size_t	 len;

	if (check_build(m, why, whysz) == -1)
		return -1;
	if (json_string_copy(&m->j, m->f[PF_CAPABILITY], name, sizeof(name),
	    &len) == -1 || cap_from_name(name) == -1)
		return failwhy(why, whysz, "capability: not %s", cap_names());
	return 0;
}

static int
check_job(struct proto_msg *m, char *why, size_t whysz)
{
	if (check_build(m, why, whysz) == -1 ||
	    check_limits(m, why, whysz) == -1)
		return -1;
	if (json_streq(&m->j, m->f[PF_MODE], "check"))
		m->check = 1;
	else if (!json_streq(&m->j, m->f[PF_MODE], "run"))
		return failwhy(why, whysz, "mode: neither run nor check");
	if (m->check && m->f[PF_INPUT] != 0)
		return failwhy(why, whysz, "input: a check has no input");
	if (!m->check && m->f[PF_INPUT] == 0)
		return failwhy(why, whysz,
		    "a job line of mode run needs input");
	return 0;
}

static int
check_limits(struct proto_msg *m, char *why, size_t whysz)
{
	const struct json	*j = &m->j;
	size_t			 lim = m->f[PF_LIMITS];
	long			 in, out;
	int64_t			 v;

	if (j->toks[lim].size != 2 ||
	    (in = json_find(j, lim, "max_input")) == -1 ||
	    (out = json_find(j, lim, "max_output")) == -1)
		return failwhy(why, whysz, "limits: max_input and max_output, "
		    "and nothing else");
	if (json_int(j, in, 1, PROTO_INPUT_MAX, &v) == -1)
		return failwhy(why, whysz, "limits: max_input: not a whole "
		    "number from 1 to %u", PROTO_INPUT_MAX);
	m->max_input = v;
	if (json_int(j, out, 1, PROTO_INPUT_MAX, &v) == -1)
		return failwhy(why, whysz, "limits: max_output: not a whole "
		    "number from 1 to %u", PROTO_INPUT_MAX);
	m->max_output = v;
	return 0;
}

/* Every value of the object is a string. */
static int
check_strings(const struct json *j, size_t obj)
{
	size_t	 k, n;

	for (n = 0, k = obj + 1; n < j->toks[obj].size;
	    n++, k = j->toks[k + 1].next)
		if (j->toks[k + 1].type != JSON_STRING)
			return -1;
	return 0;
}

static int
check_request(struct proto_msg *m, char *why, size_t whysz)
{
	int	 get;

	get = json_streq(&m->j, m->f[PF_METHOD], "GET");
	if (!get && !json_streq(&m->j, m->f[PF_METHOD], "POST"))
		return failwhy(why, whysz, "method: neither GET nor POST");
	if (check_strings(&m->j, m->f[PF_HEADERS]) == -1)
		return failwhy(why, whysz,
		    "headers: a value that is not a string");
	if (get && m->f[PF_BODY] != 0)
		return failwhy(why, whysz, "body: a GET has no body");
	if (!get && (m->f[PF_BODY] == 0 ||
	    m->j.toks[m->f[PF_BODY]].type != JSON_OBJECT))
		return failwhy(why, whysz, "body: a POST needs an object");
	return 0;
}

static int
check_answer(struct proto_msg *m, char *why, size_t whysz)
{
	if (json_int(&m->j, m->f[PF_STATUS], 100, 599, &m->status) == -1)
		return failwhy(why, whysz, "status: not a whole number from "
		    "100 to 599");
	if (json_int(&m->j, m->f[PF_RETRY_AFTER], 0, UINT32_MAX,
	    &m->retry_after) == -1)
		return failwhy(why, whysz, "retry_after: not a whole number of "
		    "seconds");
	return 0;
}

static int
check_failure(struct proto_msg *m, char *why, size_t whysz)
{
	size_t	 len;

	m->release = m->j.toks[m->f[PF_RELEASE]].type == JSON_TRUE;
	if (json_string_copy(&m->j, m->f[PF_WORD], m->word, sizeof(m->word),
	    &len) == -1 || len == 0 || strlen(m->word) != len ||
	    strspn(m->word, "abcdefghijklmnopqrstuvwxyz_") != len)
		return failwhy(why, whysz, "word: not 1 to %d of a-z and _",
		    PROTO_WORD_MAX);
	return 0;
}

void
proto_seq_init(struct proto_seq *s, enum cap_id cap)
{
	s->cap = cap;
	s->state = PS_HELLO;
}

int
proto_seq_next(struct proto_seq *s, enum proto_type t, const char **why)
{
	int	 last = t == PROTO_RESULT || t == PROTO_FAILURE;

	*why = NULL;
	switch (s->state) {
	case PS_HELLO:
		if (t == PROTO_HELLO)
			s->state = PS_JOB;
		else if (t == PROTO_FAILURE)
			s->state = PS_DONE;
		else
			*why = "the box's hello must come first";
		break;
	case PS_JOB:
		if (t == PROTO_JOB)
			s->state = PS_WORK;
		else
			*why = "a job line must follow the hello";
		break;
	case PS_WORK:
	case PS_LAST:
		if (last)
			s->state = PS_DONE;
		else if (t != PROTO_REQUEST)
			*why = "only a request, a result or a failure may come "
			    "from the box now";
		else if (s->state == PS_LAST)
			*why = "a second request: a job makes one at most";
		else if (!cap_table[s->cap]->request)
			*why = "a request from a capability that makes none";
		else
			s->state = PS_ANSWER;
		break;
	case PS_ANSWER:
		if (t == PROTO_ANSWER || t == PROTO_UNREACHABLE)
			s->state = PS_LAST;
		else
			*why = "an answer or unreachable must follow a request";
		break;
	case PS_DONE:
		*why = "a line after the box's last";
		break;
	}
	return *why == NULL ? 0 : -1;
}

void
proto_reader_init(struct proto_reader *r, int fd)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
}

void
proto_reader_free(struct proto_reader *r)
{
	free(r->buf);
	proto_reader_init(r, -1);
}

/* Room for want more bytes after what is kept; never more than max + 1. */
static int
reader_fill(struct proto_reader *r, size_t max, const char **why)
{
	size_t	 want, size;
	ssize_t	 n;
	char	*p;

	if (r->off > 0) {
		memmove(r->buf, r->buf + r->off, r->len - r->off);
		r->len -= r->off;
		r->off = 0;
	}
	want = max + 1 - r->len;
	if (want > READ_CHUNK)
		want = READ_CHUNK;
	if (r->size - r->len < want) {
		/* Doubled, so that a long line is not copied once a chunk. */
		size = r->len + want + 1;
		if (size < r->size * 2)
			size = r->size * 2 < max + 2 ? r->size * 2 : max + 2;
		if ((p = realloc(r->buf, size)) == NULL) {
			*why = "out of memory";
			return -1;
		}
		r->buf = p;
		r->size = size;
	}
	do
		n = read(r->fd, r->buf + r->len, want);
	while (n == -1 && errno == EINTR);
	if (n == -1) {
		*why = "read failed";
		return -1;
	}
	if (n == 0)
		r->eof = 1;
	r->len += n;
	return 0;
}

int
proto_read_line(struct proto_reader *r, size_t max, char **line,
    size_t *len, const char **why)
{
	char	*nl;

	for (;;) {
		/* Only what came since the last look: a long line is read once. */
		nl = r->len > r->off + r->seen ? memchr(r->buf + r->off +
		    r->seen, '\n', r->len - r->off - r->seen) : NULL;
		r->seen = r->len - r->off;
		if (nl != NULL || r->len - r->off > max || r->eof)
			break;
		if (reader_fill(r, max, why) == -1)
			return -1;
	}
	r->seen = 0;
	if (nl == NULL && r->len - r->off > max) {
		*why = "a line longer than its bound";
		return -1;
	}
	if (nl == NULL && r->len == r->off)
		return 0;
	if (nl == NULL) {
		*why = "the input ends inside a line";
		return -1;
	}
	if ((size_t)(nl - (r->buf + r->off)) + 1 > max) {
		*why = "a line longer than its bound";
		return -1;
	}
	*line = r->buf + r->off;
	*len = nl - *line;
	*nl = '\0';
	r->off += *len + 1;
	return 1;
}

int
proto_write_line(int fd, const char *text, size_t len, size_t max,
    const char **why)
{
	struct iovec	 iov[2];
	ssize_t		 n;
	size_t		 left = len + 1;

	if (len + 1 > max || memchr(text, '\n', len) != NULL) {
		*why = len + 1 > max ? "the line is larger than its bound" :
		    "a newline inside the line";
		return -1;
	}
	iov[0].iov_base = (void *)text;
	iov[0].iov_len = len;
	iov[1].iov_base = (void *)"\n";
	iov[1].iov_len = 1;
	while (left > 0) {
		n = writev(fd, iov[0].iov_len > 0 ? iov : iov + 1,
		    iov[0].iov_len > 0 ? 2 : 1);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			*why = "write failed";
			return -1;
		}
		left -= n;
		if ((size_t)n >= iov[0].iov_len) {
			n -= iov[0].iov_len;
			iov[0].iov_len = 0;
			iov[1].iov_base = (char *)iov[1].iov_base + n;
			iov[1].iov_len -= n;
		} else {
			iov[0].iov_base = (char *)iov[0].iov_base + n;
			iov[0].iov_len -= n;
		}
	}
	return 0;
}
