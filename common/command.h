/*
 * A program run and what it printed taken, never through a shell
 * (command.c).
 */
#ifndef SANDCASTLE_COMMAND_H
#define SANDCASTLE_COMMAND_H

#include <stddef.h>

/*
 * argv[0] by its path, or found in PATH; stdin /dev/null; stdout, and
 * stderr when both (else /dev/null), into out, NUL-ended, what does not
 * fit read and dropped; no other descriptor.  0 with its wait status in
 * *status, or -1 and errno.
 */
int	command_capture(char *const argv[], char *const envp[], int both,
	    char *out, size_t outsz, int *status);

#endif
