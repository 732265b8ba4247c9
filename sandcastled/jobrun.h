/* A job in its box, from the launcher (jobrun.c). */
#ifndef SANDCASTLED_JOBRUN_H
#define SANDCASTLED_JOBRUN_H

#include <stddef.h>

#include "config.h"
#include "job.h"
#include "outcome.h"

/* timeout 0 is the capability's; keep NULL answers requests unreachable. */
void		 job_run(const struct config *, enum cap_id, enum job_mode,
		    const char *input, size_t inputlen, unsigned int timeout,
		    void (*lock)(void), job_keep_fn *keep, void *arg,
		    struct job_outcome *o);

#endif
