/*
 * The job records.  Every path is one openat() per component with
 * O_NOFOLLOW, from names checked first: no hostile id or planted link
 * leads anywhere else.  Hostile texts are stored escaped, never logged.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atomicio.h"
#include "config.h"
#include "contract.h"
#include "json.h"
#include "log.h"
#include "records.h"
#include "values.h"

#define DIRFLAGS	(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
#define DAY		86400

struct names {
	char	**v;
	size_t	  n;
};

static int	 sub_open(int, const char *, int, const char *, char *, size_t);
static int	 job_open(int, const char *, const char *, int, char *, size_t);
static int	 write_file(int, const char *, const char *, size_t, char *,
		    size_t);
static char	*read_file(int, const char *, size_t, size_t *);
static char	*meta_render(const struct records_meta *, size_t *);
static int	 meta_write(int, const struct records_meta *, char *, size_t);
static void	 meta_from_job(struct records_meta *, const struct records_job *);
static char	*input_digest(const struct records_job *, size_t *);
static int	 write_input(int, const struct records_job *, const char *,
		    char *, size_t);
static int	 dir_names(int, int (*)(const char *), struct names *);
static void	 names_clear(struct names *);
static int	 job_remove(int, const char *, int);

const char *
records_status_name(enum records_status s)
{
	static const char *const names[] = { "running", "succeeded", "failed",
	    "released" };

	return (unsigned int)s < 4 ? names[s] : "unknown";
}

const char *
records_result_name(enum records_result r)
{
	static const char *const names[] = { "pending", "sent", "gone" };

	return (unsigned int)r < 3 ? names[r] : "unknown";
}

int
records_time(time_t t, char *buf, size_t bufsz)
{
	struct tm	 tm;

	if (gmtime_r(&t, &tm) == NULL ||
	    strftime(buf, bufsz, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		return -1;
	return 0;
}

int
records_time_parse(const char *s, time_t *t)
{
	struct tm	 tm;
	const char	*end;

	memset(&tm, 0, sizeof(tm));
	if ((end = strptime(s, "%Y-%m-%dT%H:%M:%SZ", &tm)) == NULL ||
	    *end != '\0' || strlen(s) != 20)
		return -1;
	*t = timegm(&tm);
	return 0;
}

/* A folder below fd, made 0700 when create is set and it is missing. */
static int
sub_open(int fd, const char *name, int create, const char *what, char *why,
    size_t whysz)
{
	int	 sfd;

	if (create && mkdirat(fd, name, 0700) == 0)
		(void)fsync(fd);
	else if (create && errno != EEXIST)
		return failwhy(why, whysz, "%s: cannot be made: %s", what,
		    strerror(errno));
	if ((sfd = openat(fd, name, DIRFLAGS)) == -1)
		return failwhy(why, whysz, "%s: %s", what, errno == ELOOP ||
		    errno == ENOTDIR ? "is not a folder (a link is never "
		    "followed): remove it" : strerror(errno));
	return sfd;
}

/* data_dir/source/id, from a valid name and a valid id only. */
static int
job_open(int dfd, const char *source, const char *id, int create, char *why,
    size_t whysz)
{
	char		 what[NAME_LEN + CONTRACT_ID_MAX + 16];
	const char	*nwhy;
	int		 sfd, jfd;

	if (name_valid(source, &nwhy) == -1)
		return failwhy(why, whysz, "source %s: %s", source, nwhy);
	if (!contract_id_valid(id))
		return failwhy(why, whysz, "source %s: a job id that is not "
		    "valid", source);
	(void)snprintf(what, sizeof(what), "data_dir/%s", source);
	if ((sfd = sub_open(dfd, source, create, what, why, whysz)) == -1)
		return -1;
	(void)snprintf(what, sizeof(what), "data_dir/%s/%s", source, id);
	jfd = sub_open(sfd, id, create, what, why, whysz);
	(void)close(sfd);
	return jfd;
}

/* The whole file under a temporary name, synced, then renamed over name. */
static int
write_file(int jfd, const char *name, const char *buf, size_t len, char *why,
    size_t whysz)
{
	char	 tmp[64];
	int	 fd, saved;

	(void)snprintf(tmp, sizeof(tmp), ".%s.%08x", name, arc4random());
	if ((fd = openat(jfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) == -1)
		return failwhy(why, whysz, "%s: %s", name, strerror(errno));
	if (write_all(fd, buf, len) == -1 || fsync(fd) == -1 ||
	    close(fd) == -1 || renameat(jfd, tmp, jfd, name) == -1) {
		saved = errno;
		(void)close(fd);
		(void)unlinkat(jfd, tmp, 0);
		return failwhy(why, whysz, "%s: cannot be written: %s", name,
		    strerror(saved));
	}
	(void)fsync(jfd);
	return 0;
}

/* A regular file of at most max bytes, NUL-terminated; NULL (errno set) otherwise. */
static char *
read_file(int jfd, const char *name, size_t max, size_t *len)
{
	struct stat	 st;
	char		*buf;
	ssize_t		 n;
	int		 fd;

	if ((fd = openat(jfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return NULL;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    (size_t)st.st_size > max) {
		errno = S_ISREG(st.st_mode) ? EFBIG : EINVAL;
		(void)close(fd);
		return NULL;
	}
	if ((buf = malloc((size_t)st.st_size + 1)) == NULL) {
		(void)close(fd);
		return NULL;
	}
	for (*len = 0; *len < (size_t)st.st_size; *len += (size_t)n)
		if ((n = read(fd, buf + *len, (size_t)st.st_size - *len)) <= 0)
			break;
	buf[*len] = '\0';
	(void)close(fd);
	return buf;
}

static void
write_time(struct json_writer *w, const char *key, time_t t)
{
	char	 ts[32];

	json_write_key(w, key);
	if (t == 0 || records_time(t, ts, sizeof(ts)) == -1)
		json_write_null(w);
	else
		json_write_string(w, ts);
}

static void
write_usage(struct json_writer *w, const struct job_usage *u)
{
	if (!u->has)
		return;
	json_write_key(w, "usage");
	json_write_object(w);
	json_write_key(w, "model");
	json_write_string(w, u->model);
	json_write_key(w, "input_tokens");
	json_write_uint(w, u->input_tokens);
	json_write_key(w, "output_tokens");
	json_write_uint(w, u->output_tokens);
	json_write_close(w);
}

void
records_json_names(struct json_writer *w, const struct records_meta *m)
{
	json_write_key(w, "source");
	json_write_string(w, m->source);
	json_write_key(w, "job");
	if (m->numeric)
		json_write_raw(w, m->job, strlen(m->job));
	else
		json_write_string(w, m->job);
	json_write_key(w, "capability");
	if (m->cap == -1)
		json_write_null(w);
	else
		json_write_string(w, cap_name(m->cap));
	json_write_key(w, "status");
	json_write_string(w, records_status_name(m->status));
}

static char *
meta_render(const struct records_meta *m, size_t *len)
{
	struct json_writer	 w;
	char			*s;

	json_writer_init(&w);
	json_write_object(&w);
	records_json_names(&w, m);
	json_write_key(&w, "error");
	json_write_string(&w, m->error);
	json_write_key(&w, "stderr");
	json_write_string_len(&w, m->stderr_head, m->stderr_len);
	write_time(&w, "started_at", m->started_at);
	write_time(&w, "finished_at", m->finished_at);
	write_usage(&w, &m->usage);
	json_write_key(&w, "result");
	json_write_string(&w, records_result_name(m->result));
	if (m->note[0] != '\0') {
		json_write_key(&w, "note");
		json_write_string(&w, m->note);
	}
	json_write_close(&w);
	s = json_writer_finish(&w, len);
	json_writer_free(&w);
	return s;
}

static int
meta_write(int jfd, const struct records_meta *m, char *why, size_t whysz)
{
	char	*s;
	size_t	 len;
	int	 rv;

	if ((s = meta_render(m, &len)) == NULL)
		return failwhy(why, whysz, "meta.json: out of memory");
	rv = write_file(jfd, "meta.json", s, len, why, whysz);
	free(s);
	return rv;
}

static void
meta_from_job(struct records_meta *m, const struct records_job *j)
{
	memset(m, 0, sizeof(*m));
	(void)strlcpy(m->source, j->source, sizeof(m->source));
	(void)strlcpy(m->job, j->id, sizeof(m->job));
	m->numeric = j->numeric;
	m->cap = j->cap;
	m->status = RECORDS_RUNNING;
	m->started_at = j->started_at;
	m->result = RECORDS_PENDING;
}

/* Whether input.json keeps the input as sent (cap -1: none offered). */
static int
records_keeps_input(int cap)
{
	return cap >= 0 && cap < CAP_COUNT &&
	    cap_table[cap]->keeps == CAP_KEEPS_INPUT;
}

/* Not kept as sent: the input's size and SHA-256 only, never its bytes. */
static char *
input_digest(const struct records_job *j, size_t *len)
{
	struct json_writer	 w;
	char			 hex[SHA256_DIGEST_STRING_LENGTH], *s;

	(void)SHA256Data((const uint8_t *)j->input, j->inputlen, hex);
	json_writer_init(&w);
	json_write_object(&w);
	json_write_key(&w, "input");
	json_write_object(&w);
	json_write_key(&w, "bytes");
	json_write_uint(&w, j->inputlen);
	json_write_key(&w, "sha256");
	json_write_string(&w, hex);
	json_write_close(&w);
	json_write_close(&w);
	s = json_writer_finish(&w, len);
	json_writer_free(&w);
	return s;
}

/* input.json: claude's input as sent; the box's record; else a digest. */
static int
write_input(int jfd, const struct records_job *j, const char *record,
    char *why, size_t whysz)
{
	char	*s;
	size_t	 len;
	int	 rv;

	if (records_keeps_input(j->cap))
		return write_file(jfd, "input.json", j->input, j->inputlen,
		    why, whysz);
	if (record != NULL)
		return write_file(jfd, "input.json", record, strlen(record),
		    why, whysz);
	if ((s = input_digest(j, &len)) == NULL)
		return failwhy(why, whysz, "input.json: out of memory");
	rv = write_file(jfd, "input.json", s, len, why, whysz);
	free(s);
	return rv;
}

/* A number id is digits alone: it is written into meta.json as it is. */
static int
job_numeric_ok(const struct records_job *j, char *why, size_t whysz)
{
	size_t	 len = strlen(j->id);

	if (j->numeric && (len == 0 || len > CONTRACT_NUMID_MAX ||
	    strspn(j->id, "0123456789") != len))
		return failwhy(why, whysz, "source %s: a number id that is not "
		    "digits", j->source);
	return 0;
}

/*
 * A half-made note is taken back whole, or the folder would say what
 * did not happen.  Removing takes no space: it works on a full disk.
 */
static void
job_discard(int dfd, const char *source, const char *id)
{
	int	 sfd, jfd;

	if ((sfd = openat(dfd, source, DIRFLAGS)) == -1)
		return;
	if ((jfd = openat(sfd, id, DIRFLAGS)) != -1) {
		(void)job_remove(sfd, id, jfd);
		(void)close(jfd);
		(void)fsync(sfd);
	}
	(void)close(sfd);
}

int
records_begin(int dfd, const struct records_job *j, char *why, size_t whysz)
{
	struct records_meta	 m;
	int			 jfd, rv;

	if (job_numeric_ok(j, why, whysz) == -1 ||
	    (jfd = job_open(dfd, j->source, j->id, 1, why, whysz)) == -1)
		return -1;
	/* What an earlier claim of the same id left must not pass for this one's. */
	(void)unlinkat(jfd, "output.json", 0);
	meta_from_job(&m, j);
	rv = write_input(jfd, j, NULL, why, whysz);
	if (rv == 0)
		rv = meta_write(jfd, &m, why, whysz);
	(void)close(jfd);
	if (rv == -1)
		job_discard(dfd, j->source, j->id);
	return rv;
}

static void
meta_from_outcome(struct records_meta *m, const struct job_outcome *o)
{
	m->status = o->status == JOB_SUCCEEDED ? RECORDS_SUCCEEDED :
	    o->status == JOB_FAILED ? RECORDS_FAILED : RECORDS_RELEASED;
	(void)strlcpy(m->error, o->error, sizeof(m->error));
	m->stderr_len = o->stderr_len < RECORDS_STDERR_MAX ? o->stderr_len :
	    RECORDS_STDERR_MAX;
	memcpy(m->stderr_head, o->stderr_head, m->stderr_len);
	m->usage = o->usage;
}

int
records_finish(int dfd, const struct records_job *j,
    const struct job_outcome *o, time_t finished_at, char *why, size_t whysz)
{
	struct records_meta	 m;
	const char		*out;
	int			 jfd, rv = 0;

	if (job_numeric_ok(j, why, whysz) == -1 ||
	    (jfd = job_open(dfd, j->source, j->id, 1, why, whysz)) == -1)
		return -1;
	meta_from_job(&m, j);
	meta_from_outcome(&m, o);
	m.finished_at = finished_at;
	out = o->status == JOB_SUCCEEDED ? o->output : o->reply;
	if (!records_keeps_input(j->cap) && o->record != NULL)
		rv = write_input(jfd, j, o->record, why, whysz);
	if (rv == 0 && out != NULL)
		rv = write_file(jfd, "output.json", out, strlen(out), why,
		    whysz);
	/* One an attempt that failed before its meta.json left: not this outcome's. */
	if (rv == 0 && out == NULL && unlinkat(jfd, "output.json", 0) == 0)
		(void)fsync(jfd);
	if (rv == 0)
		rv = meta_write(jfd, &m, why, whysz);
	(void)close(jfd);
	return rv;
}

static int
meta_enum(const struct json *j, long v, const char *const *names, int n)
{
	int	 i;

	if (v == -1 || j->toks[v].type != JSON_STRING)
		return -1;
	for (i = 0; i < n; i++)
		if (json_streq(j, v, names[i]))
			return i;
	return -1;
}

static int
meta_cap(const struct json *j, long v)
{
	char	 name[NAME_LEN + 1];
	size_t	 len;

	if (v == -1 || j->toks[v].type != JSON_STRING ||
	    json_string_copy(j, v, name, sizeof(name), &len) == -1 ||
	    len != strlen(name))
		return -1;
	return cap_from_name(name);
}

/* A string field: cut short when it is longer (a hostile text, stored cut). */
static int
meta_text(const struct json *j, long v, char *out, size_t outsz, size_t *len)
{
	size_t	 n;

	if (v == -1 || j->toks[v].type != JSON_STRING)
		return -1;
	(void)json_string_copy(j, v, out, outsz, &n);
	if (len != NULL)
		*len = n;
	return 0;
}

static int
meta_timefield(const struct json *j, long v, time_t *t, int nullok)
{
	char	 ts[32];
	size_t	 n;

	*t = 0;
	if (v != -1 && nullok && j->toks[v].type == JSON_NULL)
		return 0;
	if (v == -1 || j->toks[v].type != JSON_STRING ||
	    json_string_copy(j, v, ts, sizeof(ts), &n) == -1 ||
	    records_time_parse(ts, t) == -1)
		return -1;
	return 0;
}

static int
meta_job(const struct json *j, long v, struct records_meta *m)
{
	const char	*raw;
	size_t		 len;

	if (v != -1 && j->toks[v].type == JSON_NUMBER) {
		raw = json_raw(j, v, &len);
		if (len > CONTRACT_NUMID_MAX || strspn(raw, "0123456789") < len)
			return -1;
		memcpy(m->job, raw, len);
		m->job[len] = '\0';
		m->numeric = 1;
		return 0;
	}
	if (v == -1 || j->toks[v].type != JSON_STRING ||
	    json_string_copy(j, v, m->job, sizeof(m->job), &len) == -1 ||
	    strlen(m->job) != len || !contract_id_valid(m->job))
		return -1;
	return 0;
}

static int
meta_usage(const struct json *j, long v, struct job_usage *u)
{
	int64_t	 in, out;

	if (v == -1)
		return 0;
	if (j->toks[v].type != JSON_OBJECT ||
	    meta_text(j, json_find(j, v, "model"), u->model,
	    sizeof(u->model), NULL) == -1 ||
	    json_find(j, v, "input_tokens") == -1 ||
	    json_int(j, json_find(j, v, "input_tokens"), 0, INT64_MAX,
	    &in) == -1 || json_find(j, v, "output_tokens") == -1 ||
	    json_int(j, json_find(j, v, "output_tokens"), 0, INT64_MAX,
	    &out) == -1)
		return -1;
	u->has = 1;
	u->input_tokens = (uint64_t)in;
	u->output_tokens = (uint64_t)out;
	return 0;
}

static const char *
meta_fields(const struct json *j, struct records_meta *m)
{
	static const char *const st[] = { "running", "succeeded", "failed",
	    "released" };
	static const char *const res[] = { "pending", "sent", "gone" };
	long	 v;
	int	 e;

	if (meta_text(j, json_find(j, 0, "source"), m->source,
	    sizeof(m->source), NULL) == -1)
		return "no source";
	if (meta_job(j, json_find(j, 0, "job"), m) == -1)
		return "no job, or an id that is not valid";
	v = json_find(j, 0, "capability");
	if (v != -1 && j->toks[v].type == JSON_NULL)
		m->cap = -1;
	else if ((m->cap = meta_cap(j, v)) == -1)
		return "no capability";
	if ((e = meta_enum(j, json_find(j, 0, "status"), st, 4)) == -1)
		return "no status";
	m->status = e;
	if ((e = meta_enum(j, json_find(j, 0, "result"), res, 3)) == -1)
		return "no result";
	m->result = e;
	if (meta_timefield(j, json_find(j, 0, "started_at"), &m->started_at,
	    0) == -1 || meta_timefield(j, json_find(j, 0, "finished_at"),
	    &m->finished_at, 1) == -1)
		return "no started_at or finished_at in RFC 3339 UTC";
	if (meta_usage(j, json_find(j, 0, "usage"), &m->usage) == -1)
		return "a usage without model, input_tokens and output_tokens";
	(void)meta_text(j, json_find(j, 0, "error"), m->error,
	    sizeof(m->error), NULL);
	(void)meta_text(j, json_find(j, 0, "note"), m->note, sizeof(m->note),
	    NULL);
	if (meta_text(j, json_find(j, 0, "stderr"), m->stderr_head,
	    sizeof(m->stderr_head), &m->stderr_len) == -1)
		m->stderr_len = 0;
	return NULL;
}

int
records_meta_parse(const char *buf, size_t len, struct records_meta *m,
    char *why, size_t whysz)
{
	struct json	 j;
	const char	*jwhy;

	memset(m, 0, sizeof(*m));
	if (json_parse(&j, buf, len, &jwhy) == -1)
		return failwhy(why, whysz, "not JSON: %s at byte %zu", jwhy,
		    j.erroff);
	if (j.toks[0].type != JSON_OBJECT)
		jwhy = "not a JSON object";
	else
		jwhy = meta_fields(&j, m);
	json_free(&j);
	if (jwhy != NULL)
		return failwhy(why, whysz, "%s", jwhy);
	return 0;
}

int
records_read(int dfd, const char *source, const char *id,
    struct records_meta *m, char *why, size_t whysz)
{
	char	*buf, mwhy[RECORDS_WHY_MAX];
	size_t	 len;
	int	 jfd, rv;

	if ((jfd = job_open(dfd, source, id, 0, why, whysz)) == -1)
		return -1;
	buf = read_file(jfd, "meta.json", RECORDS_META_MAX, &len);
	(void)close(jfd);
	if (buf == NULL)
		return failwhy(why, whysz, "%s/%s/meta.json: %s", source, id,
		    strerror(errno));
	rv = records_meta_parse(buf, len, m, mwhy, sizeof(mwhy));
	free(buf);
	if (rv == -1)
		return failwhy(why, whysz, "%s/%s/meta.json: %s", source, id,
		    mwhy);
	return 0;
}

/* 1 when data_dir/source/id, or its meta.json, is not there at all. */
static int
job_missing(int dfd, const char *source, const char *id)
{
	const char	*nwhy;
	int		 sfd, jfd, fd, missing;

	if (name_valid(source, &nwhy) == -1 || !contract_id_valid(id))
		return 0;
	if ((sfd = openat(dfd, source, DIRFLAGS)) == -1)
		return errno == ENOENT;
	jfd = openat(sfd, id, DIRFLAGS);
	missing = jfd == -1 && errno == ENOENT;
	(void)close(sfd);
	if (jfd == -1)
		return missing;
	fd = openat(jfd, "meta.json", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	missing = fd == -1 && errno == ENOENT;
	if (fd != -1)
		(void)close(fd);
	(void)close(jfd);
	return missing;
}

int
records_result(int dfd, const char *source, const char *id,
    enum records_result r, char *why, size_t whysz)
{
	struct records_meta	 m;
	int			 jfd, rv;

	if (records_read(dfd, source, id, &m, why, whysz) == -1)
		return job_missing(dfd, source, id) ? 1 : -1;
	m.result = r;
	if (r == RECORDS_GONE)
		(void)strlcpy(m.note, RECORDS_NOTE_GONE, sizeof(m.note));
	if ((jfd = job_open(dfd, source, id, 0, why, whysz)) == -1)
		return -1;
	rv = meta_write(jfd, &m, why, whysz);
	(void)close(jfd);
	return rv;
}

/* The entries of a folder that pass valid(), read whole before any is touched. */
static int
dir_names(int fd, int (*valid)(const char *), struct names *nl)
{
	struct dirent	 *de;
	DIR		 *d;
	char		**v;
	int		  dup;

	memset(nl, 0, sizeof(*nl));
	if ((dup = openat(fd, ".", DIRFLAGS)) == -1)
		return -1;
	if ((d = fdopendir(dup)) == NULL) {
		(void)close(dup);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (!valid(de->d_name))
			continue;
		if ((v = reallocarray(nl->v, nl->n + 1, sizeof(*v))) == NULL ||
		    (v[nl->n] = strdup(de->d_name)) == NULL) {
			if (v != NULL)
				nl->v = v;
			(void)closedir(d);
			names_clear(nl);
			errno = ENOMEM;
			return -1;
		}
		nl->v = v;
		nl->n++;
	}
	(void)closedir(d);
	return 0;
}

static void
names_clear(struct names *nl)
{
	size_t	 i;

	for (i = 0; i < nl->n; i++)
		free(nl->v[i]);
	free(nl->v);
	memset(nl, 0, sizeof(*nl));
}

static int
source_name(const char *s)
{
	const char	*why;

	return name_valid(s, &why) == 0;
}

static int
add_ref(struct records_ref **refs, size_t *n, const struct records_meta *m)
{
	struct records_ref	*r;

	if ((r = reallocarray(*refs, *n + 1, sizeof(*r))) == NULL)
		return -1;
	*refs = r;
	r += (*n)++;
	(void)strlcpy(r->source, m->source, sizeof(r->source));
	(void)strlcpy(r->job, m->job, sizeof(r->job));
	r->numeric = m->numeric;
	r->status = m->status;
	r->result = m->result;
	return 0;
}

/* The unfinished jobs of one source folder. */
static int
unfinished_in(int dfd, const char *source, struct records_ref **refs,
    size_t *n, size_t *unreadable)
{
	struct records_meta	 m;
	struct names		 ids;
	size_t			 i;
	int			 sfd, rv = 0;

	if ((sfd = openat(dfd, source, DIRFLAGS)) == -1)
		return 0;
	if (dir_names(sfd, contract_id_valid, &ids) == -1) {
		(void)close(sfd);
		return -1;
	}
	(void)close(sfd);
	for (i = 0; i < ids.n && rv == 0; i++) {
		if (records_read(dfd, source, ids.v[i], &m, NULL, 0) == -1)
			(*unreadable)++;
		else if ((m.status == RECORDS_RUNNING ||
		    m.result == RECORDS_PENDING) &&
		    strcmp(m.source, source) == 0 &&
		    strcmp(m.job, ids.v[i]) == 0)
			rv = add_ref(refs, n, &m);
	}
	names_clear(&ids);
	return rv;
}

int
records_unfinished(int dfd, struct records_ref **refs, size_t *n,
    size_t *unreadable, char *why, size_t whysz)
{
	struct names	 srcs;
	size_t		 i;
	int		 rv = 0;

	*refs = NULL;
	*n = *unreadable = 0;
	if (dir_names(dfd, source_name, &srcs) == -1)
		return failwhy(why, whysz, "data_dir: %s", strerror(errno));
	for (i = 0; i < srcs.n && rv == 0; i++)
		rv = unfinished_in(dfd, srcs.v[i], refs, n, unreadable);
	names_clear(&srcs);
	if (rv == -1) {
		free(*refs);
		*refs = NULL;
		*n = 0;
		return failwhy(why, whysz, "data_dir: %s", strerror(errno));
	}
	return 0;
}

/*
 * When the job folder finished: finished_at, else its mtime; -1, never
 * old enough, while its job runs or its result has not gone out.
 */
static time_t
job_age(int dfd, const char *source, const char *id, int jfd)
{
	struct records_meta	 m;
	struct stat		 st;

	if (records_read(dfd, source, id, &m, NULL, 0) == 0) {
		/* All that says a result is owed, to a source away for long. */
		if (m.status == RECORDS_RUNNING || m.result == RECORDS_PENDING)
			return -1;
		if (m.finished_at != 0)
			return m.finished_at;
	}
	if (fstat(jfd, &st) == -1)
		return -1;
	return st.st_mtime;
}

/* Every entry but a folder, then the folder: a link is removed, never followed. */
static int
job_remove(int sfd, const char *id, int jfd)
{
	struct dirent	*de;
	DIR		*d;
	int		 dup;

	if ((dup = openat(jfd, ".", DIRFLAGS)) == -1 ||
	    (d = fdopendir(dup)) == NULL) {
		if (dup != -1)
			(void)close(dup);
		return -1;
	}
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			(void)unlinkat(jfd, de->d_name, 0);
	(void)closedir(d);
	return unlinkat(sfd, id, AT_REMOVEDIR);
}

static int
time_cmp(const void *a, const void *b)
{
	time_t	 x = *(const time_t *)a, y = *(const time_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * meta.json is renamed in when the job starts: a folder last changed
 * before since holds no later start, and is not read.
 */
/* A job's folder written at since or later: a start it may hold. */
static int
changed_since(int sfd, const char *id, time_t since)
{
	struct stat	 st;
	int		 jfd, r;

	if ((jfd = openat(sfd, id, DIRFLAGS)) == -1)
		return 0;
	r = fstat(jfd, &st) == 0 && st.st_mtime >= since;
	(void)close(jfd);
	return r;
}

int
records_starts(int dfd, const char *source, time_t since, time_t now,
    time_t **starts, size_t *n, size_t *unreadable, char *why, size_t whysz)
{
	struct records_meta	 m;
	struct names		 ids;
	time_t			*v = NULL, *nv;
	size_t			 i, nv_len = 0;
	int			 sfd;

	*starts = NULL;
	*n = 0;
	*unreadable = 0;
	if ((sfd = openat(dfd, source, DIRFLAGS)) == -1) {
		if (errno == ENOENT)
			return 0;
		return failwhy(why, whysz, "data_dir/%s: %s", source,
		    strerror(errno));
	}
	if (dir_names(sfd, contract_id_valid, &ids) == -1) {
		(void)close(sfd);
		return failwhy(why, whysz, "data_dir/%s: %s", source,
		    strerror(errno));
	}
	for (i = 0; i < ids.n; i++) {
		if (!changed_since(sfd, ids.v[i], since))
			continue;
		if (records_read(dfd, source, ids.v[i], &m, NULL, 0) == -1 ||
		    strcmp(m.source, source) != 0) {
			(*unreadable)++;
			continue;
		}
		if (m.started_at < since || m.started_at > now)
			continue;
		if ((nv = reallocarray(v, nv_len + 1, sizeof(*v))) == NULL) {
			free(v);
			names_clear(&ids);
			(void)close(sfd);
			return failwhy(why, whysz, "%s", strerror(errno));
		}
		v = nv;
		v[nv_len++] = m.started_at;
	}
	names_clear(&ids);
	(void)close(sfd);
	if (nv_len > 0)
		qsort(v, nv_len, sizeof(*v), time_cmp);
	*starts = v;
	*n = nv_len;
	return 0;
}

static long
prune_source(int dfd, const char *source, time_t before)
{
	struct names	 ids;
	size_t		 i;
	time_t		 t;
	long		 n = 0;
	int		 sfd, jfd;

	if ((sfd = openat(dfd, source, DIRFLAGS)) == -1)
		return 0;
	if (dir_names(sfd, contract_id_valid, &ids) == -1) {
		(void)close(sfd);
		return -1;
	}
	for (i = 0; i < ids.n; i++) {
		if ((jfd = openat(sfd, ids.v[i], DIRFLAGS)) == -1)
			continue;
		t = job_age(dfd, source, ids.v[i], jfd);
		if (t != -1 && t < before && job_remove(sfd, ids.v[i],
		    jfd) == 0)
			n++;
		(void)close(jfd);
	}
	names_clear(&ids);
	(void)close(sfd);
	return n;
}

long
records_prune(int dfd, uint32_t days, time_t now, char *why, size_t whysz)
{
	struct names	 srcs;
	size_t		 i;
	long		 n = 0, k;

	if (dir_names(dfd, source_name, &srcs) == -1)
		return failwhy(why, whysz, "data_dir: %s", strerror(errno));
	for (i = 0; i < srcs.n; i++) {
		if ((k = prune_source(dfd, srcs.v[i],
		    now - (time_t)days * DAY)) == -1) {
			names_clear(&srcs);
			return failwhy(why, whysz, "data_dir/%s: %s", srcs.v[i],
			    strerror(errno));
		}
		n += k;
	}
	names_clear(&srcs);
	return n;
}
