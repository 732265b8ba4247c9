/* Deadlines on the monotonic clock (deadline.h). */
#include <limits.h>
#include <time.h>

#include "deadline.h"

void
deadline_set(struct timespec *d, unsigned int seconds)
{
	clock_gettime(CLOCK_MONOTONIC, d);
	d->tv_sec += seconds;
}

int
deadline_ms(const struct timespec *d)
{
	struct timespec	 now;
	long long	 ms;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (long long)(d->tv_sec - now.tv_sec) * 1000 +
	    (d->tv_nsec - now.tv_nsec) / 1000000;
	return ms <= 0 ? 0 : ms > INT_MAX ? INT_MAX : (int)ms;
}
