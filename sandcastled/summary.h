/* The core's last summary of the sources, kept by the parent. */
#ifndef SANDCASTLED_SUMMARY_H
#define SANDCASTLED_SUMMARY_H

#include <stddef.h>
#include <time.h>

#include "config.h"
#include "ctl.h"
#include "schedule.h"

#define SUMMARY_WHY_MAX		128

/* The core: fills v[0 .. s->n - 1] at the monotonic mono, the time(3) wall. */
void	 summary_make(const struct sched *, time_t mono, time_t wall,
	    struct ctl_source *v);
/* 0 when data is one ctl_source for each of conf's sources, in order; -1 and why. */
int	 summary_check(const struct config *, const void *data, size_t len,
	    char *why, size_t whysz);
void	 summary_init(const struct config *);
int	 summary_keep(const void *data, size_t len, char *why, size_t whysz);
/* 1 and the copy kept with its count; 0 before the first came. */
int	 summary_last(const struct ctl_source **, size_t *n);
/* Row i of the jobs running (ctl.h's order): 0, or -1 past the last. */
int	 summary_jobs(size_t i, struct ctl_jobs *);

#endif
