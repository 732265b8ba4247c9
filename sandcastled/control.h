/* The control socket sandcastlectl speaks to (control.c). */
#ifndef SANDCASTLED_CONTROL_H
#define SANDCASTLED_CONTROL_H

#include <poll.h>
#include <stddef.h>
#include <time.h>

int		 control_open(const char *path);
void		 control_close(void);
int		 control_pollfds(struct pollfd *, size_t);
size_t		 control_maxfds(void);
void		 control_dispatch(struct pollfd *, size_t);
time_t		 control_started(void);

#endif
