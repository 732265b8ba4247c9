/*
 * check: the configuration.  Every problem is one FAIL line, as
 * config_load() found it ("file:line: key: what is wrong"); without a
 * configuration nothing after it can be checked.
 */
#include <sys/queue.h>

#include <err.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "check.h"
#include "sandcastlectl.h"

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
	return 0;
}
