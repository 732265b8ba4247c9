/* Refused control connections, held until they read why (refused.c). */
#ifndef SANDCASTLED_REFUSED_H
#define SANDCASTLED_REFUSED_H

#include <poll.h>
#include <stddef.h>

void		 refused_hold(int fd, const char *reason);
size_t		 refused_pollfds(struct pollfd *, size_t);
void		 refused_dispatch(struct pollfd *, size_t);
int		 refused_timeout(void);
size_t		 refused_maxfds(void);

#endif
