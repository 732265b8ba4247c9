/*
 * The configuration folder into struct config (sandcastle.conf(5)).
 * Every problem of every file is collected; the configuration is handed
 * out only when there is none.
 */
#include <sys/queue.h>
#include <sys/stat.h>

#include <arpa/inet.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "values.h"
#include "config.h"
#include "confparse.h"
#include "keep.h"
#include "log.h"
#include "paths.h"
#include "yamltree.h"

#define SOURCES_MAX	64
#define DATA_DIR	"~/.local/share/sandcastle/jobs"

static void	 config_dests(struct config *);

static const char *const main_keys[] = {
	"data_dir", "retention_days", "jobs", "capabilities", NULL
};
static const char *const source_keys[] = {
	"name", "destination", "poll_interval", "capabilities",
	"max_jobs_per_hour", "job_timeout", "jobs", NULL
};

static void
conf_capabilities(struct yfile *yf, struct ynode *n, struct config *cfg)
{
	static const char *keys[CAP_COUNT + 1];
	struct ynode	*c;
	int		 i;

	if (ymap(yf, n, "{ ocr: { languages: [eng] } }") == -1)
		return;
	for (i = 0; i < CAP_COUNT; i++)
		keys[i] = cap_table[i]->name;
	ymap_known(yf, n, keys);
	if (n->nkids == 0)
		yerr(yf, n, "is empty: enable at least one capability, as "
		    "capabilities: { ocr: {} }");
	for (i = 0; i < CAP_COUNT; i++) {
		if ((c = yget(n, cap_table[i]->name)) == NULL)
			continue;
		cfg->caps[i].enabled = 1;
		cap_table[i]->parse(yf, c, cfg);
	}
}

/* A capability's jobs, as the jobs key when unset, at most that. */
static void
conf_cap_jobs(struct yfile *yf, struct ynode *n, struct config *cfg)
{
	struct ynode	*c;
	int		 i;

	for (i = 0; i < CAP_COUNT; i++) {
		c = n != NULL && n->type == YNODE_MAP ? yget(n, cap_table[i]->name) :
		    NULL;
		conf_jobs(yf, c != NULL && c->type == YNODE_MAP ? yget(c, "jobs") :
		    NULL, cfg->jobs, &cfg->caps[i].jobs);
	}
}

static void
conf_main(struct yfile *yf, struct ynode *root, struct config *cfg)
{
	struct ynode	*n;

	if (ymap(yf, root, "{ capabilities: … }") == -1)
		return;
	ymap_known(yf, root, main_keys);
	if ((n = yget(root, "data_dir")) != NULL)
		conf_path(yf, n, &cfg->data_dir);
	else if (cfg->data_dir == NULL)
		yerr_line(yf, root->line, "data_dir", "cannot be expanded from "
		    "its default %s: set HOME, or write data_dir", DATA_DIR);
	conf_u32(yf, yget(root, "retention_days"), 1, 3650,
	    &cfg->retention_days);
	conf_u32(yf, yget(root, "jobs"), 1, JOBS_MAX, &cfg->jobs);
	conf_capabilities(yf, yneed(yf, root, "capabilities", "enable at "
	    "least one capability, as capabilities: { ocr: {} }"), cfg);
	conf_cap_jobs(yf, yget(root, "capabilities"), cfg);
}

/* *read is 0 when the file was not YAML at all. */
static int
parse_main(struct config *cfg, const char *file, const char *buf,
    size_t len, struct conferrs *errs, int *read)
{
	struct yfile	 yf;
	struct ynode	*root;

	yfile_init(&yf, file, errs);
	if ((root = yparse(&yf, buf, len)) != NULL)
		conf_main(&yf, root, cfg);
	*read = root != NULL;
	yfree(root);
	return yfile_done(&yf) == 0 ? 0 : -1;
}

int
config_parse_main(struct config *cfg, const char *file, const char *buf,
    size_t len, struct conferrs *errs)
{
	int	 read, rv;

	rv = parse_main(cfg, file, buf, len, errs, &read);
	config_dests(cfg);
	return rv;
}

static void
conf_source_cap(struct yfile *yf, struct ynode *n, const struct config *cfg,
    struct source *src)
{
	const char	*s;
	int		 c;

	if (ystring(yf, n, "a capability, as claude", &s) == -1)
		return;
	if ((c = cap_from_name(s)) == -1)
		yerr_value(yf, n, "is not a capability: write %s",
		    cap_names());
	else if (src->capabilities & CAP_BIT(c))
		yerr_value(yf, n, "is listed twice: keep one");
	else if (!cfg->caps[c].enabled)
		yerr(yf, n, "%s is not enabled: add capabilities.%s to "
		    "config.yaml", s, s);
	else
		src->capabilities |= CAP_BIT(c);
}

static void
conf_source_caps(struct yfile *yf, struct ynode *n, const struct config *cfg,
    struct source *src)
{
	struct ynode	*item;

	if (n == NULL || yseq(yf, n, "[claude]") == -1)
		return;
	if (n->nkids == 0)
		yerr(yf, n, "is empty: list what this source may use, "
		    "as [claude]");
	TAILQ_FOREACH(item, &n->kids, entry)
		conf_source_cap(yf, item, cfg, src);
}

static void
conf_source_name(struct yfile *yf, struct ynode *n, const char *stem,
    struct source *src)
{
	if (n == NULL || conf_name(yf, n, src->name, sizeof(src->name)) == -1)
		return;
	if (cap_from_name(src->name) != -1 &&
	    cap_table[cap_from_name(src->name)]->destination != NULL)
		yerr_value(yf, n, "is the name of %s's destination: "
		    "choose another name, and name the file after it",
		    src->name);
	else if (strcmp(src->name, stem) != 0)
		yerr_value(yf, n, "is not the file's name: name the file "
		    "sources/%s.yaml, or write the file's name here",
		    src->name);
}

static void
conf_source(struct yfile *yf, struct ynode *root, const struct config *cfg,
    const char *stem, struct source *src)
{
	static const char hint[] = "every key of a source is required";

	if (ymap(yf, root, "{ name: …, destination: … }") == -1)
		return;
	ymap_known(yf, root, source_keys);
	conf_source_name(yf, yneed(yf, root, "name", hint), stem, src);
	conf_destination(yf, yneed(yf, root, "destination", hint), stem,
	    &src->dest);
	conf_duration(yf, yneed(yf, root, "poll_interval", hint), 5, 86400,
	    &src->poll_interval);
	conf_source_caps(yf, yneed(yf, root, "capabilities", hint), cfg, src);
	conf_u32(yf, yneed(yf, root, "max_jobs_per_hour", hint), 1, 3600,
	    &src->max_jobs_per_hour);
	conf_duration(yf, yneed(yf, root, "job_timeout", hint), 1, 3600,
	    &src->job_timeout);
	conf_jobs(yf, yget(root, "jobs"), cfg->jobs, &src->jobs);
}

static void
source_free(struct source *src)
{
	destination_free(&src->dest);
	free(src->file);
	free(src);
}

/* The source goes into cfg, in name order; NULL when anything is wrong. */
struct source *
config_parse_source(struct config *cfg, const char *file, const char *name,
    const char *buf, size_t len, struct conferrs *errs)
{
	struct yfile	 yf;
	struct ynode	*root;
	struct source	*src, *s;

	yfile_init(&yf, file, errs);
	if ((src = calloc(1, sizeof(*src))) == NULL)
		fatal("configuration");
	src->file = conf_strdup(file);
	if ((root = yparse(&yf, buf, len)) != NULL)
		conf_source(&yf, root, cfg, name, src);
	yfree(root);
	if (yfile_done(&yf) != 0) {
		source_free(src);
		return NULL;
	}
	TAILQ_FOREACH(s, &cfg->sources, entry)
		if (strcmp(src->name, s->name) < 0)
			break;
	if (s == NULL)
		TAILQ_INSERT_TAIL(&cfg->sources, src, entry);
	else
		TAILQ_INSERT_BEFORE(s, src, entry);
	cfg->nsources++;
	config_dests(cfg);
	return src;
}

struct config *
config_new(const char *dir)
{
	struct config	*cfg;
	char		 buf[PATH_MAX];
	int		 c;

	if ((cfg = calloc(1, sizeof(*cfg))) == NULL)
		return NULL;
	cfg->dir = conf_strdup(dir);
	if (path_expand_home(DATA_DIR, buf, sizeof(buf)) == 0 &&
	    buf[0] == '/')
		cfg->data_dir = conf_strdup(buf);
	cfg->retention_days = 30;
	cfg->jobs = 1;
	for (c = 0; c < CAP_COUNT; c++) {
		cfg->caps[c] = cap_table[c]->defaults;
		cap_table[c]->init(cfg);
	}
	TAILQ_INIT(&cfg->sources);
	return cfg;
}

void
config_free(struct config *cfg)
{
	struct source	*src;
	int		 c;

	if (cfg == NULL)
		return;
	while ((src = TAILQ_FIRST(&cfg->sources)) != NULL) {
		TAILQ_REMOVE(&cfg->sources, src, entry);
		source_free(src);
	}
	for (c = 0; c < CAP_COUNT; c++)
		cap_table[c]->free(cfg);
	free(cfg->dests);
	free(cfg->files);
	free(cfg->data_dir);
	free(cfg->dir);
	free(cfg);
}

/* cfg->dests anew, after each file read. */
static void
config_dests(struct config *cfg)
{
	struct destination	*d;
	struct source		*src;
	size_t			 n = 0;
	int			 c;

	free(cfg->dests);
	cfg->dests = calloc(CAP_COUNT + cfg->nsources, sizeof(*cfg->dests));
	if (cfg->dests == NULL)
		fatal("configuration");
	for (c = 0; c < CAP_COUNT; c++) {
		if (!cfg->caps[c].enabled || cap_table[c]->destination == NULL)
			continue;
		/* cfg's own memory: the row hands it back read-only. */
		d = (struct destination *)cap_table[c]->destination(cfg);
		d->cap = c;
		/* A streamed reply still takes minutes to be whole. */
		d->call_seconds = cfg->caps[c].timeout;
		cfg->dests[n++] = d;
	}
	TAILQ_FOREACH(src, &cfg->sources, entry) {
		src->dest.cap = -1;
		src->dest.call_seconds = KEEP_CALL_SECONDS;
		cfg->dests[n++] = &src->dest;
	}
	cfg->ndests = n;
}

void
conferrs_free(struct conferrs *errs)
{
	struct conferr	*e;

	while ((e = TAILQ_FIRST(errs)) != NULL) {
		TAILQ_REMOVE(errs, e, entry);
		free(e->line);
		free(e);
	}
}

void
conferrs_print(FILE *fp, const struct conferrs *errs)
{
	const struct conferr *e;

	TAILQ_FOREACH(e, errs, entry)
		fprintf(fp, "%s\n", e->line);
}

const struct destination *
config_destination(const struct config *cfg, const char *name)
{
	const struct source	*src;
	int			 c;

	c = cap_from_name(name);
	if (c != -1 && cap_table[c]->destination != NULL)
		return cfg->caps[c].enabled ? cap_table[c]->destination(cfg) :
		    NULL;
	TAILQ_FOREACH(src, &cfg->sources, entry)
		if (strcmp(src->name, name) == 0)
			return &src->dest;
	return NULL;
}

/*
 * Reading the folder.  A file is opened without following a link and
 * checked on its descriptor, so that what is checked is what is read.
 */
static const char *
base_of(const char *path)
{
	const char	*slash = strrchr(path, '/');

	return slash == NULL ? path : slash + 1;
}

static int
open_err(struct conferrs *errs, const char *path, int missing_ok)
{
	const char	*base = base_of(path);

	if (errno == ELOOP)
		conferr_add(errs, path, 1, base, "is a symbolic link: "
		    "put the file itself in the folder");
	else if (errno == ENOENT && !missing_ok)
		conferr_add(errs, path, 1, base, "is missing: copy "
		    "examples/config.yaml to start from");
	else
		conferr_add(errs, path, 1, base, "cannot be opened: %s",
		    strerror(errno));
	return -1;
}

static int
read_fd(int fd, const char *path, char **bufp, size_t *lenp,
    struct conferrs *errs)
{
	char	*buf;
	size_t	 len = 0;
	ssize_t	 n;

	if ((buf = malloc(YAML_FILE_MAX + 1)) == NULL)
		fatal("configuration");
	while (len <= YAML_FILE_MAX &&
	    (n = read(fd, buf + len, YAML_FILE_MAX + 1 - len)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			conferr_add(errs, path, 1, base_of(path),
			    "cannot be read: %s", strerror(errno));
			free(buf);
			return -1;
		}
		len += (size_t)n;
	}
	*bufp = buf;
	*lenp = len;
	return 0;
}

static int
read_file(int dfd, const char *rel, const char *path, char **bufp,
    size_t *lenp, struct conferrs *errs)
{
	struct stat	 st;
	int		 fd, r = -1;

	fd = openat(dfd, rel, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd == -1)
		return open_err(errs, path, 0);
	if (fstat(fd, &st) == -1)
		conferr_add(errs, path, 1, base_of(path), "cannot be read: %s",
		    strerror(errno));
	else if (!S_ISREG(st.st_mode))
		conferr_add(errs, path, 1, base_of(path),
		    "is not a regular file: write the file itself");
	else if (st.st_size > YAML_FILE_MAX)
		conferr_add(errs, path, 1, base_of(path), "is larger than "
		    "1 MiB: a configuration file is smaller");
	else
		r = read_fd(fd, path, bufp, lenp, errs);
	close(fd);
	return r;
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in the folder, sorted, without . and .. */
static char **
list_dir(int fd, size_t *np)
{
	DIR		*d;
	struct dirent	*de;
	char		**names = NULL;
	size_t		 n = 0;
	int		 dfd;

	if ((dfd = dup(fd)) == -1 || (d = fdopendir(dfd)) == NULL)
		fatal("sources");
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if ((names = reallocarray(names, n + 1, sizeof(*names))) == NULL)
			fatal("sources");
		names[n++] = conf_strdup(de->d_name);
	}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof(*names), name_cmp);
	*np = n;
	return names;
}

/* 1 when name is a source file to read, 0 when refused (and said). */
static int
source_entry(int fd, const char *name, const char *path,
    struct conferrs *errs)
{
	struct stat	 st;
	size_t		 len = strlen(name);

	if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode)) {
		conferr_add(errs, path, 1, name, "is a folder: sources/ holds "
		    "only source files, sources/<name>.yaml");
		return 0;
	}
	if (name[0] == '.' || len <= 5 || strcmp(name + len - 5, ".yaml") != 0) {
		conferr_add(errs, path, 1, name, "is not a source: a source "
		    "file ends in .yaml");
		return 0;
	}
	return 1;
}

static void
load_source(struct config *cfg, int fd, const char *name, const char *path,
    struct conferrs *errs)
{
	char	*buf, *stem, rel[NAME_LEN + 16];
	size_t	 len;

	if (read_file(fd, name, path, &buf, &len, errs) == -1)
		return;
	(void)snprintf(rel, sizeof(rel), "sources/%s", name);
	config_file_add(cfg, rel, buf, len);
	stem = conf_strdup(name);
	stem[strlen(stem) - 5] = '\0';
	config_parse_source(cfg, path, stem, buf, len, errs);
	free(stem);
	free(buf);
}

static int
open_sources(int dfd, const char *sdir,
    struct conferrs *errs)
{
	int	 fd;

	fd = openat(dfd, "sources", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd != -1)
		return fd;
	if (errno == ENOENT)
		conferr_add(errs, sdir, 1, "sources", "no source: add "
		    "sources/<name>.yaml");
	else if (errno == ENOTDIR)
		conferr_add(errs, sdir, 1, "sources", "is not a folder, or is "
		    "a symbolic link: make sources/ a folder of its own");
	else
		open_err(errs, sdir, 1);
	return -1;
}

static void
load_sources(struct config *cfg, int dfd, struct conferrs *errs)
{
	char		 sdir[PATH_MAX], path[PATH_MAX];
	char		**names;
	size_t		 i, n, nsources = 0;
	int		 fd;

	snprintf(sdir, sizeof(sdir), "%s/sources", cfg->dir);
	if ((fd = open_sources(dfd, sdir, errs)) == -1)
		return;
	names = list_dir(fd, &n);
	for (i = 0; i < n; i++) {
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", sdir,
		    names[i]) >= sizeof(path))
			continue;
		if (!source_entry(fd, names[i], path, errs))
			continue;
		if (++nsources == SOURCES_MAX + 1)
			conferr_add(errs, sdir, 1, "sources", "holds more than "
			    "%d sources: remove some", SOURCES_MAX);
		if (nsources <= SOURCES_MAX)
			load_source(cfg, fd, names[i], path, errs);
	}
	if (nsources == 0)
		conferr_add(errs, sdir, 1, "sources", "no source: add "
		    "sources/<name>.yaml");
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	close(fd);
}

static size_t
conferrs_count(const struct conferrs *errs)
{
	const struct conferr *e;
	size_t		 n = 0;

	TAILQ_FOREACH(e, errs, entry)
		n++;
	return n;
}

struct config *
config_load(const char *dir, struct conferrs *errs)
{
	struct config	*cfg;
	char		 path[PATH_MAX], *buf;
	size_t		 len, before = conferrs_count(errs);
	int		 dfd, saved, read = 0, c;

	if ((cfg = config_new(dir)) == NULL)
		return NULL;
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		saved = errno;
		conferr_add(errs, dir, 1, "configuration folder", "cannot be "
		    "opened: %s: give it with -c DIR, or make it",
		    strerror(errno));
		config_free(cfg);
		errno = saved;
		return NULL;
	}
	snprintf(path, sizeof(path), "%s/config.yaml", dir);
	if (read_file(dfd, "config.yaml", path, &buf, &len, errs) == 0) {
		config_file_add(cfg, "config.yaml", buf, len);
		parse_main(cfg, path, buf, len, errs, &read);
		free(buf);
	}
	/* Without config.yaml the enabled capabilities are unknown. */
	for (c = 0; !read && c < CAP_COUNT; c++)
		cfg->caps[c].enabled = 1;
	load_sources(cfg, dfd, errs);
	close(dfd);
	config_dests(cfg);
	if (conferrs_count(errs) != before) {
		config_free(cfg);
		errno = 0;
		return NULL;
	}
	return cfg;
}

uint32_t
config_jobs_of(const struct config *cfg, uint32_t jobs)
{
	uint32_t	 all = cfg->jobs > 0 ? cfg->jobs : 1;

	return jobs > 0 && jobs < all ? jobs : all;
}
