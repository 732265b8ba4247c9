/* What the keep gives back of an answer (answer.c). */
#ifndef KEEPD_ANSWER_H
#define KEEPD_ANSWER_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

uint32_t	 answer_retry_after(const char *, time_t now);
int		 answer_check(const void *data, size_t len, int fd,
		    uint32_t *status);
int		 refused_check(const void *data, size_t len);

#endif
