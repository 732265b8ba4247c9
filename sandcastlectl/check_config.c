/*
 * check: the configuration, as config_load() finds it, and data_dir.
 */
#include <sys/queue.h>
#include <sys/statvfs.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "check.h"
#include "ctlcmd.h"

static char	*sources_joined(const struct config *);
static char	*caps_joined(const struct config *);

static char *
sources_joined(const struct config *conf)
{
	const struct source	*src;
	char			*s = NULL;
	size_t			 len;
	FILE			*f;

	if ((f = open_memstream(&s, &len)) == NULL)
		err(1, NULL);
	TAILQ_FOREACH(src, &conf->sources, entry)
		fprintf(f, "%s%s", src == TAILQ_FIRST(&conf->sources) ?
		    "" : ", ", src->name);
	if (fclose(f) == EOF)
		err(1, NULL);
	return s;
}

static char *
caps_joined(const struct config *conf)
{
	char	*s = NULL;
	size_t	 len;
	FILE	*f;
	int	 i, n = 0;

	if ((f = open_memstream(&s, &len)) == NULL)
		err(1, NULL);
	for (i = 0; i < CAP_COUNT; i++) {
		if (conf->caps[i].enabled)
			fprintf(f, "%s%s", n++ ? ", " : "", cap_name(i));
	}
	if (n == 0)
		fprintf(f, "none");
	if (fclose(f) == EOF)
		err(1, NULL);
	return s;
}

/* A file as big as a small record, written, synced and removed: 0, or errno. */
static int
data_dir_write(int dfd)
{
	static const char	 zero[4096];
	char			 name[64];
	int			 fd, e = 0;

	(void)snprintf(name, sizeof(name), ".check.%ld", (long)getpid());
	if ((fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) == -1)
		return errno;
	if (write(fd, zero, sizeof(zero)) != (ssize_t)sizeof(zero))
		e = errno != 0 ? errno : EIO;
	else if (fsync(fd) == -1)
		e = errno;
	(void)close(fd);
	(void)unlinkat(dfd, name, 0);
	return e;
}

/* On a full disk the core holds every result (sandcastled(8), RECORDS). */
static void
check_data_dir(struct check *c)
{
	const char	*dir = c->conf->data_dir;
	struct statvfs	 sv;
	int		 dfd, e;

	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		if (errno == ENOENT)
			check_line(c, MARK_OK, "data_dir: %s: not made yet; "
			    "the core makes it when it starts", dir);
		else
			check_line(c, MARK_FAIL, "data_dir: %s: %s", dir,
			    strerror(errno));
		return;
	}
	if ((e = data_dir_write(dfd)) != 0)
		check_line(c, MARK_FAIL, "data_dir: %s: a record cannot be "
		    "written (%s): free space there; until then the core "
		    "holds each result until its record is written, and "
		    "claims no job", dir, strerror(e));
	else if (fstatvfs(dfd, &sv) == 0)
		check_line(c, MARK_OK, "data_dir: %s: writable, %llu MiB free",
		    dir, (unsigned long long)sv.f_bavail * sv.f_frsize >> 20);
	else
		check_line(c, MARK_OK, "data_dir: %s: writable", dir);
	(void)close(dfd);
}

int
check_configuration(struct check *c)
{
	struct conferrs	 errs;
	struct conferr	*e;
	const char	*dir = c->env->confdir;
	char		*srcs, *caps;

	TAILQ_INIT(&errs);
	if ((c->conf = config_load(dir, &errs)) == NULL) {
		if (TAILQ_EMPTY(&errs))
			check_line(c, MARK_FAIL, "configuration: %s: %s", dir,
			    strerror(errno));
		TAILQ_FOREACH(e, &errs, entry)
			check_line(c, MARK_FAIL, "configuration: %s", e->line);
		conferrs_free(&errs);
		return -1;
	}
	conferrs_free(&errs);
	srcs = sources_joined(c->conf);
	caps = caps_joined(c->conf);
	check_line(c, MARK_OK, "configuration: %s: %zu source(s) (%s); "
	    "capabilities %s", dir, c->conf->nsources, srcs, caps);
	free(srcs);
	free(caps);
	check_data_dir(c);
	return 0;
}
