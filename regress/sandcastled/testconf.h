/*
 * For the scheduler's tests: a source added to a configuration built in
 * memory, with the fields the scheduler reads.  Included by one test
 * program each.
 */
#ifndef REGRESS_TESTCONF_H
#define REGRESS_TESTCONF_H

#include <stdlib.h>
#include <string.h>

#include <atf-c.h>

#include "config.h"

static struct source * __attribute__((unused))
add_source(struct config *conf, const char *name, uint32_t poll,
    uint32_t perhour, unsigned int caps)
{
	struct source	*src;

	ATF_REQUIRE((src = calloc(1, sizeof(*src))) != NULL);
	(void)strlcpy(src->name, name, sizeof(src->name));
	src->poll_interval = poll;
	src->max_jobs_per_hour = perhour;
	src->job_timeout = 300;
	src->capabilities = caps;
	TAILQ_INSERT_TAIL(&conf->sources, src, entry);
	conf->nsources++;
	return src;
}

#endif
