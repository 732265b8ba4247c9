/* A library's code given back while a process rests (codeidle.c). */
#ifndef SANDCASTLE_CODEIDLE_H
#define SANDCASTLE_CODEIDLE_H

#include <stddef.h>

/* names: file names' starts, NULL-ended; the pages covered, mapped or not. */
size_t	code_idle(const char *const *names);
/* The same pages mapped again at once; those mapped, 0 without the call. */
size_t	code_busy(const char *const *names);

#endif
