/* A refused envelope's log line start (what.c). */
#ifndef KEEPD_WHAT_H
#define KEEPD_WHAT_H

#include <stddef.h>

/* "<destination> <METHOD> <path>" of a refused envelope, or "-". */
void		 envelope_what(const char *, size_t, char *, size_t);

#endif
