/*
 * Lists of secret names, the destinations' and the secrets folder's: that
 * is only read with readdir(3), never a file opened; listing is not reading.
 */
#include <sys/queue.h>
#include <sys/types.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "names.h"

static int	names_add(struct namelist *, const char *);
static int	names_cmp(const void *, const void *);
static void	names_sort(struct namelist *);

static int
names_add(struct namelist *l, const char *name)
{
	char	**v;

	if ((v = reallocarray(l->names, l->n + 1, sizeof(*v))) == NULL)
		return -1;
	l->names = v;
	if ((l->names[l->n] = strdup(name)) == NULL)
		return -1;
	l->n++;
	return 0;
}

static int
names_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted, each name once: two destinations may share a secret. */
static void
names_sort(struct namelist *l)
{
	size_t	i, j;

	if (l->n == 0)
		return;
	qsort(l->names, l->n, sizeof(*l->names), names_cmp);
	for (i = 1, j = 1; i < l->n; i++) {
		if (strcmp(l->names[i], l->names[j - 1]) == 0)
			free(l->names[i]);
		else
			l->names[j++] = l->names[i];
	}
	l->n = j;
}

int
names_configured(const struct config *conf, struct namelist *l)
{
	size_t	 i;

	memset(l, 0, sizeof(*l));
	for (i = 0; i < conf->ndests; i++)
		if (conf->dests[i]->secret[0] != '\0' &&
		    names_add(l, conf->dests[i]->secret) == -1)
			return -1;
	names_sort(l);
	return 0;
}

/* Dot files are skipped: ".tmp-*" is a secret being written. */
int
names_in_folder(int dirfd, struct namelist *l)
{
	struct dirent	*de;
	DIR		*dir;
	int		 fd, r = 0;

	memset(l, 0, sizeof(*l));
	if ((fd = dup(dirfd)) == -1)
		return -1;
	if ((dir = fdopendir(fd)) == NULL) {
		(void)close(fd);
		return -1;
	}
	rewinddir(dir);
	while (r == 0 && (errno = 0, de = readdir(dir)) != NULL) {
		if (de->d_name[0] != '.')
			r = names_add(l, de->d_name);
	}
	if (de == NULL && errno != 0)
		r = -1;
	(void)closedir(dir);
	names_sort(l);
	return r;
}

int
names_has(const struct namelist *l, const char *name)
{
	return l->n > 0 && bsearch(&name, l->names, l->n,
	    sizeof(*l->names), names_cmp) != NULL;
}

void
names_free(struct namelist *l)
{
	size_t	i;

	for (i = 0; i < l->n; i++)
		free(l->names[i]);
	free(l->names);
	l->names = NULL;
	l->n = 0;
}

struct config *
ctl_config_load(const char *dir)
{
	struct conferrs	 errs;
	struct conferr	*e;
	struct config	*conf;

	TAILQ_INIT(&errs);
	if ((conf = config_load(dir, &errs)) != NULL) {
		conferrs_free(&errs);
		return conf;
	}
	if (TAILQ_EMPTY(&errs))
		warn("the configuration %s cannot be read", dir);
	TAILQ_FOREACH(e, &errs, entry)
		warnx("%s", e->line);
	conferrs_free(&errs);
	return NULL;
}
