/* A program run, never through a shell, and what it printed taken. */
#ifndef SANDCASTLE_COMMAND_H
#define SANDCASTLE_COMMAND_H

#include <stddef.h>

/*
 * argv[0] by path or PATH; stdin /dev/null; stdout (and stderr when both)
 * into out, NUL-ended, the rest read and dropped: 0 and *status, or -1.
 */
int	command_capture(char *const argv[], char *const envp[], int both,
	    char *out, size_t outsz, int *status);

#endif
