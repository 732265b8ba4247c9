/* Which destination a caller of the keep-frontend may name (destrule.c). */
#ifndef SANDCASTLED_DESTRULE_H
#define SANDCASTLED_DESTRULE_H

#include <stddef.h>

struct config;

/* 0 when the envelope names a destination its caller may use. */
int		 keepfe_may(const struct config *, const char *envelope,
		    size_t len, int launcher, char *why, size_t whysz);

#endif
