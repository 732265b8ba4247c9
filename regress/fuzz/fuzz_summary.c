/*
 * libFuzzer target for summary_check(), the parent's check of the
 * core's PROC_SOURCES against a configuration of two sources: a summary
 * it takes is one entry per source, in order, each name and error
 * ending within its field in printable ASCII, its counts adding up, its
 * jobs running within their jobs; a summary it refuses is never kept.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "ctl.h"
#include "../../sandcastled/summary.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct config *conf;

static void
add_source(const char *name, uint32_t perhour, unsigned int caps)
{
	struct source	*src;

	if ((src = calloc(1, sizeof(*src))) == NULL)
		abort();
	(void)strlcpy(src->name, name, sizeof(src->name));
	src->poll_interval = 30;
	src->max_jobs_per_hour = perhour;
	src->capabilities = caps;
	TAILQ_INSERT_TAIL(&conf->sources, src, entry);
	conf->nsources++;
}

static void
text_sound(const char *t, size_t size)
{
	size_t	 i;

	for (i = 0; i < size && t[i] != '\0'; i++)
		if (t[i] < 0x20 || t[i] >= 0x7f)
			abort();
	if (i == size)
		abort();
}

/* Its jobs running within its jobs and config.yaml's, by its capabilities. */
static void
entry_sound(const struct ctl_source *v, const struct source *src)
{
	uint64_t	 sum = 0;
	int		 c;

	text_sound(v->name, sizeof(v->name));
	text_sound(v->error, sizeof(v->error));
	if (strcmp(v->name, src->name) != 0 || v->jobs_hour > v->max_jobs ||
	    v->max_jobs != src->max_jobs_per_hour)
		abort();
	for (c = 0; c < CTL_MAXCAPS; c++) {
		if (c >= CAP_COUNT && (v->rest[c] != 0 || v->caprun[c] != 0))
			abort();
		if (c < CAP_COUNT && v->caprun[c] != 0 &&
		    (src->capabilities & CAP_BIT(c)) == 0)
			abort();
		sum += v->caprun[c];
	}
	if (sum != v->running || v->running > v->jobs ||
	    v->jobs > config_jobs_of(conf, 0))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct ctl_source	*got;
	const struct source	*src;
	struct ctl_source	 v;
	char			 why[SUMMARY_WHY_MAX];
	size_t			 n, i = 0, before;
	int			 had;

	if (conf == NULL) {
		if ((conf = config_new("/nonexistent")) == NULL)
			abort();
		conf->jobs = 4;
		add_source("notes", 10, CAP_BIT(CAP_CLAUDE));
		add_source("recipes", 2, CAP_BIT(CAP_CLAUDE) | CAP_BIT(CAP_OCR));
		summary_init(conf);
	}
	had = summary_last(&got, &before);
	if (summary_check(conf, data, size, why, sizeof(why)) == -1) {
		if (why[0] == '\0' || memchr(why, '\0', sizeof(why)) == NULL)
			abort();
		if (summary_keep(data, size, why, sizeof(why)) != -1 ||
		    summary_last(&got, &n) != had || n != before)
			abort();
		return 0;
	}
	TAILQ_FOREACH(src, &conf->sources, entry) {
		memcpy(&v, data + i++ * sizeof(v), sizeof(v));
		entry_sound(&v, src);
	}
	if (summary_keep(data, size, why, sizeof(why)) != 0 ||
	    summary_last(&got, &n) != 1 || n != conf->nsources ||
	    memcmp(got, data, size) != 0)
		abort();
	return 0;
}
