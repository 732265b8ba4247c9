/*
 * sandcastlectl show jobs [SOURCE] [-j] and show job SOURCE ID: the job
 * records read straight from the configuration's data_dir with the
 * core's own reader (sandcastled/records.c), newest first.  A record
 * that cannot be read is one line on stderr and the exit status 1,
 * never the end of the listing.  What a box or a source wrote is
 * printed only as JSON the records' writer escaped.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "json.h"
#include "sandcastlectl.h"
#include "contract.h"
#include "records.h"

#define DIRFLAGS	(O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

struct joblist {
	struct records_meta	*v;
	size_t			 n;
	int			 bad;	/* records that could not be read */
};

static const struct source *configured(const struct config *, const char *);
static int	 data_open(const struct config *, int *);
static void	 list_source(int, const char *, struct joblist *);
static int	 newest_first(const void *, const void *);
static void	 print_table(const struct joblist *);
static void	 print_json(const struct joblist *);
static void	 print_safe(const char *, size_t);
static int	 job_folder(int, const char *, const char *);

static const struct source *
configured(const struct config *conf, const char *name)
{
	const struct source	*src;

	TAILQ_FOREACH(src, &conf->sources, entry)
		if (strcmp(src->name, name) == 0)
			return src;
	fprintf(stderr, "sandcastlectl: source %s: not a configured source "
	    "(sources/%s.yaml is missing)\n", name, name);
	return NULL;
}

/* 0 and *dfd (-1 when data_dir does not exist yet), or -1. */
static int
data_open(const struct config *conf, int *dfd)
{
	if ((*dfd = open(conf->data_dir, DIRFLAGS)) != -1)
		return 0;
	if (errno == ENOENT)
		return 0;
	fprintf(stderr, "sandcastlectl: data_dir %s: %s\n", conf->data_dir,
	    strerror(errno));
	return -1;
}

static void
add_meta(struct joblist *jl, const struct records_meta *m)
{
	struct records_meta	*v;

	if ((v = reallocarray(jl->v, jl->n + 1, sizeof(*v))) == NULL) {
		fprintf(stderr, "sandcastlectl: out of memory\n");
		exit(1);
	}
	jl->v = v;
	jl->v[jl->n++] = *m;
}

static void
list_source(int dfd, const char *source, struct joblist *jl)
{
	struct records_meta	 m;
	struct dirent		*de;
	DIR			*d;
	char			 why[RECORDS_WHY_MAX];
	int			 sfd;

	if ((sfd = openat(dfd, source, DIRFLAGS)) == -1) {
		if (errno != ENOENT) {
			fprintf(stderr, "sandcastlectl: data_dir/%s: %s\n",
			    source, errno == ELOOP || errno == ENOTDIR ?
			    "is not a folder" : strerror(errno));
			jl->bad++;
		}
		return;
	}
	if ((d = fdopendir(sfd)) == NULL) {
		(void)close(sfd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (!contract_id_valid(de->d_name))
			continue;
		if (records_read(dfd, source, de->d_name, &m, why,
		    sizeof(why)) == 0)
			add_meta(jl, &m);
		else {
			fprintf(stderr, "sandcastlectl: %s/%s: the record "
			    "cannot be read: %s\n", source, de->d_name, why);
			jl->bad++;
		}
	}
	(void)closedir(d);
}

static int
newest_first(const void *a, const void *b)
{
	const struct records_meta	*x = a, *y = b;
	int				 c;

	if (x->started_at != y->started_at)
		return x->started_at < y->started_at ? 1 : -1;
	if ((c = strcmp(x->source, y->source)) != 0)
		return c;
	return strcmp(x->job, y->job);
}

static void
print_table(const struct joblist *jl)
{
	const struct records_meta	*m;
	struct tm			 tm;
	char				 t[32], secs[24], tokens[48];
	size_t				 i;

	printf("%-19s %-16s %-12s %-10s %-9s %7s %s\n", "TIME", "SOURCE",
	    "JOB", "CAPABILITY", "STATUS", "SECONDS", "TOKENS");
	for (i = 0; i < jl->n; i++) {
		m = &jl->v[i];
		if (localtime_r(&m->started_at, &tm) == NULL ||
		    strftime(t, sizeof(t), "%Y-%m-%d %H:%M:%S", &tm) == 0)
			(void)strlcpy(t, "-", sizeof(t));
		if (m->finished_at != 0)
			(void)snprintf(secs, sizeof(secs), "%lld",
			    (long long)(m->finished_at - m->started_at));
		else
			(void)strlcpy(secs, "-", sizeof(secs));
		if (m->usage.has)
			(void)snprintf(tokens, sizeof(tokens), "%llu+%llu",
			    (unsigned long long)m->usage.input_tokens,
			    (unsigned long long)m->usage.output_tokens);
		else
			(void)strlcpy(tokens, "-", sizeof(tokens));
		printf("%-19s %-16s %-12s %-10s %-9s %7s %s\n", t, m->source,
		    m->job, m->cap == -1 ? "-" : cap_name(m->cap),
		    records_status_name(m->status), secs, tokens);
	}
}

static void
json_job(struct json_writer *w, const struct records_meta *m)
{
	char	 t[32];

	json_write_object(w);
	json_write_key(w, "time");
	if (records_time(m->started_at, t, sizeof(t)) == 0)
		json_write_string(w, t);
	else
		json_write_null(w);
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
	json_write_key(w, "seconds");
	if (m->finished_at != 0)
		json_write_int(w, (int64_t)(m->finished_at - m->started_at));
	else
		json_write_null(w);
	json_write_key(w, "input_tokens");
	if (m->usage.has)
		json_write_uint(w, m->usage.input_tokens);
	else
		json_write_null(w);
	json_write_key(w, "output_tokens");
	if (m->usage.has)
		json_write_uint(w, m->usage.output_tokens);
	else
		json_write_null(w);
	json_write_close(w);
}

static void
print_json(const struct joblist *jl)
{
	struct json_writer	 w;
	char			*s;
	size_t			 i, len;

	json_writer_init(&w);
	json_write_array(&w);
	for (i = 0; i < jl->n; i++)
		json_job(&w, &jl->v[i]);
	json_write_close(&w);
	if ((s = json_writer_finish(&w, &len)) == NULL) {
		fprintf(stderr, "sandcastlectl: out of memory\n");
		exit(1);
	}
	printf("%s\n", s);
	free(s);
	json_writer_free(&w);
}

int
ctl_show_jobs(const struct ctl_env *env, const char *source, int json)
{
	struct config		*conf;
	const struct source	*src;
	struct joblist		 jl;
	int			 dfd, rv;

	if ((conf = ctl_config_load(env->confdir)) == NULL)
		return 1;
	memset(&jl, 0, sizeof(jl));
	if ((source != NULL && configured(conf, source) == NULL) ||
	    data_open(conf, &dfd) == -1) {
		config_free(conf);
		return 1;
	}
	TAILQ_FOREACH(src, &conf->sources, entry)
		if (dfd != -1 && (source == NULL ||
		    strcmp(source, src->name) == 0))
			list_source(dfd, src->name, &jl);
	if (jl.n > 0)
		qsort(jl.v, jl.n, sizeof(*jl.v), newest_first);
	if (json)
		print_json(&jl);
	else
		print_table(&jl);
	rv = jl.bad ? 1 : 0;
	free(jl.v);
	if (dfd != -1)
		(void)close(dfd);
	config_free(conf);
	return rv;
}

/* A C1 control, valid UTF-8 a terminal may obey, goes out as \u00XX. */
static void
print_safe(const char *s, size_t len)
{
	const unsigned char	*u = (const unsigned char *)s;
	size_t			 i;

	for (i = 0; i < len; i++) {
		if (u[i] == 0xc2 && i + 1 < len && u[i + 1] >= 0x80 &&
		    u[i + 1] <= 0x9f) {
			printf("\\u%04x", u[++i]);
			continue;
		}
		putchar(u[i]);
	}
	if (len == 0 || s[len - 1] != '\n')
		putchar('\n');
}

/* meta.json's bytes, after records_read() found them sound. */
static int
print_meta(int dfd, const char *source, const char *id)
{
	char	*buf;
	ssize_t	 n;
	size_t	 len = 0;
	int	 jfd, fd;

	if ((jfd = job_folder(dfd, source, id)) == -1)
		return -1;
	fd = openat(jfd, "meta.json", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	(void)close(jfd);
	if (fd == -1)
		return -1;
	if ((buf = malloc(RECORDS_META_MAX)) == NULL) {
		(void)close(fd);
		return -1;
	}
	while (len < RECORDS_META_MAX &&
	    (n = read(fd, buf + len, RECORDS_META_MAX - len)) > 0)
		len += (size_t)n;
	(void)close(fd);
	print_safe(buf, len);
	free(buf);
	return 0;
}

/* The job's folder, through no link: -1 with errno ENOENT when there is none. */
static int
job_folder(int dfd, const char *source, const char *id)
{
	int	 sfd, jfd, saved;

	if (dfd == -1) {
		errno = ENOENT;
		return -1;
	}
	if ((sfd = openat(dfd, source, DIRFLAGS)) == -1)
		return -1;
	jfd = openat(sfd, id, DIRFLAGS);
	saved = errno;
	(void)close(sfd);
	errno = saved;
	return jfd;
}

static void
print_files(const struct config *conf, int dfd, const char *source,
    const char *id)
{
	static const char *const files[] = { "input.json", "output.json",
	    "meta.json" };
	struct stat	 st;
	size_t		 i;
	int		 jfd;

	if ((jfd = job_folder(dfd, source, id)) == -1)
		return;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		if (fstatat(jfd, files[i], &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode))
			printf("%-12s %s/%s/%s/%s\n", files[i], conf->data_dir,
			    source, id, files[i]);
	(void)close(jfd);
}

static int
show_one(const struct config *conf, int dfd, const char *source,
    const char *id)
{
	struct records_meta	 m;
	char			 why[RECORDS_WHY_MAX];
	int			 jfd;

	if ((jfd = job_folder(dfd, source, id)) == -1 && errno == ENOENT) {
		fprintf(stderr, "sandcastlectl: %s/%s: no such job in %s\n",
		    source, id, conf->data_dir);
		return 1;
	}
	if (jfd != -1)
		(void)close(jfd);
	if (records_read(dfd, source, id, &m, why, sizeof(why)) == -1) {
		fprintf(stderr, "sandcastlectl: %s/%s: the record cannot be "
		    "read: %s\n", source, id, why);
		print_files(conf, dfd, source, id);
		return 1;
	}
	if (print_meta(dfd, source, id) == -1) {
		fprintf(stderr, "sandcastlectl: %s/%s/meta.json: %s\n", source,
		    id, strerror(errno));
		return 1;
	}
	print_files(conf, dfd, source, id);
	return 0;
}

int
ctl_show_job(const struct ctl_env *env, const char *source, const char *id)
{
	struct config	*conf;
	int		 dfd, rv = 1;

	if ((conf = ctl_config_load(env->confdir)) == NULL)
		return 1;
	if (configured(conf, source) == NULL) {
		config_free(conf);
		return 1;
	}
	if (!contract_id_valid(id))
		fprintf(stderr, "sandcastlectl: job %s: not a job id: an id "
		    "has 1 to %d printable characters, without space "
		    "/ \\ . ? # : %%\n", id, CONTRACT_ID_MAX);
	else if (data_open(conf, &dfd) == 0) {
		rv = show_one(conf, dfd, source, id);
		if (dfd != -1)
			(void)close(dfd);
	}
	config_free(conf);
	return rv;
}
