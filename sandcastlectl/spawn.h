/* How install and uninstall run other programs (spawn.c). */
#ifndef SANDCASTLECTL_SPAWN_H
#define SANDCASTLECTL_SPAWN_H

#include <stddef.h>

/* argv from PATH; its exit status, or -1 (and errno) when it cannot run. */
int	spawn_wait(char *const argv[]);
/* The same with its stdout (and stderr when both) in out, one line, trimmed. */
int	spawn_capture(char *const argv[], int both, char *out, size_t outsz);

#endif
