/* A wait held to a deadline on the monotonic clock, for poll(2). */
#ifndef SANDCASTLE_DEADLINE_H
#define SANDCASTLE_DEADLINE_H

#include <time.h>

void	deadline_set(struct timespec *, unsigned int seconds);
/* Milliseconds left before it, for poll(2): 0 once it passed. */
int	deadline_ms(const struct timespec *);

#endif
