/*
 * sandcastlectl show jobs and show job, with the core's reader: a record
 * unreadable is a line on stderr and exit 1, not the listing's end.
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
#include "ctlcmd.h"
#include "json.h"
#include "contract.h"
#include "names.h"
#include "output.h"
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
static int	 job_folder(int, const char *, const char *);
static char	*meta_read(int, const char *, const char *, size_t *);

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

int
ctl_show_jobs(const struct parse_result *res, const struct ctl_env *env)
{
	const struct output	*out = output_of(res);
	const char		*source = res->name;
	struct config		*conf;
	const struct source	*src;
	struct joblist		 jl;
	size_t			 i;
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
	out->head(SHOW_JOBS);
	for (i = 0; i < jl.n; i++)
		out->job(&jl.v[i]);
	out->tail(SHOW_JOBS);
	rv = jl.bad ? 1 : 0;
	free(jl.v);
	if (dfd != -1)
		(void)close(dfd);
	config_free(conf);
	return rv;
}

/* A C1 control, which a terminal may obey, becomes \u00XX: still JSON. */
static char *
meta_safe(const char *s, size_t len, size_t *outlen)
{
	const unsigned char	*u = (const unsigned char *)s;
	char			*out;
	size_t			 i, n = 0;

	if ((out = malloc(len * 3 + 1)) == NULL)
		return NULL;
	for (i = 0; i < len; i++) {
		if (u[i] == 0xc2 && i + 1 < len && u[i + 1] >= 0x80 &&
		    u[i + 1] <= 0x9f) {
			n += (size_t)snprintf(out + n, 7, "\\u%04x", u[++i]);
			continue;
		}
		out[n++] = s[i];
	}
	*outlen = n;
	return out;
}

/* meta.json's bytes, after records_read() found them sound; NULL, errno. */
static char *
meta_read(int dfd, const char *source, const char *id, size_t *lenp)
{
	char	*buf;
	ssize_t	 n;
	size_t	 len = 0;
	int	 jfd, fd, saved;

	if ((jfd = job_folder(dfd, source, id)) == -1)
		return NULL;
	fd = openat(jfd, "meta.json", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	saved = errno;
	(void)close(jfd);
	errno = saved;
	if (fd == -1)
		return NULL;
	if ((buf = malloc(RECORDS_META_MAX)) == NULL) {
		(void)close(fd);
		return NULL;
	}
	while (len < RECORDS_META_MAX &&
	    (n = read(fd, buf + len, RECORDS_META_MAX - len)) > 0)
		len += (size_t)n;
	(void)close(fd);
	*lenp = len;
	return buf;
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
list_files(const struct config *conf, int dfd, const char *source,
    const char *id, struct job_shown *js)
{
	static const char *const files[JOB_FILES] = { "input.json",
	    "output.json", "meta.json" };
	struct job_file	*f;
	struct stat	 st;
	size_t		 i;
	int		 jfd;

	if ((jfd = job_folder(dfd, source, id)) == -1)
		return;
	for (i = 0; i < JOB_FILES; i++) {
		if (fstatat(jfd, files[i], &st, AT_SYMLINK_NOFOLLOW) == -1 ||
		    !S_ISREG(st.st_mode))
			continue;
		f = &js->files[js->nfiles];
		f->name = files[i];
		if (snprintf(f->path, sizeof(f->path), "%s/%s/%s/%s",
		    conf->data_dir, source, id, files[i]) < (int)sizeof(f->path))
			js->nfiles++;
	}
	(void)close(jfd);
}

/* 0; 1 and why when the record cannot be read; -1: no meta.json. */
static int
meta_load(int dfd, const char *source, const char *id, char **safe,
    size_t *safelen)
{
	struct json	 j;
	const char	*jwhy;
	char		*raw;
	size_t		 len;

	if ((raw = meta_read(dfd, source, id, &len)) == NULL) {
		fprintf(stderr, "sandcastlectl: %s/%s/meta.json: %s\n", source,
		    id, strerror(errno));
		return -1;
	}
	if (json_parse(&j, raw, len, &jwhy) == -1) {
		fprintf(stderr, "sandcastlectl: %s/%s: the record cannot be "
		    "read: meta.json: %s\n", source, id, jwhy);
		free(raw);
		return 1;
	}
	json_free(&j);
	*safe = meta_safe(raw, len, safelen);
	free(raw);
	if (*safe == NULL) {
		fprintf(stderr, "sandcastlectl: out of memory\n");
		exit(1);
	}
	return 0;
}

static int
show_one(const struct output *out, const struct config *conf, int dfd,
    const char *source, const char *id)
{
	struct records_meta	 m;
	struct job_shown	 js;
	char			 why[RECORDS_WHY_MAX], *safe = NULL;
	int			 jfd, rv;

	if ((jfd = job_folder(dfd, source, id)) == -1 && errno == ENOENT) {
		fprintf(stderr, "sandcastlectl: %s/%s: no such job in %s\n",
		    source, id, conf->data_dir);
		return 1;
	}
	if (jfd != -1)
		(void)close(jfd);
	memset(&js, 0, sizeof(js));
	if (records_read(dfd, source, id, &m, why, sizeof(why)) == -1) {
		fprintf(stderr, "sandcastlectl: %s/%s: the record cannot be "
		    "read: %s\n", source, id, why);
		rv = 1;
	} else if ((rv = meta_load(dfd, source, id, &safe, &js.metalen)) == -1)
		return 1;
	js.meta = safe;
	list_files(conf, dfd, source, id, &js);
	out->record(&js);
	free(safe);
	return rv;
}

int
ctl_show_job(const struct parse_result *res, const struct ctl_env *env)
{
	const char	*source = res->name, *id = res->id;
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
		rv = show_one(output_of(res), conf, dfd, source, id);
		if (dfd != -1)
			(void)close(dfd);
	}
	config_free(conf);
	return rv;
}
