/* This build: its commit, and the id that names its box images. */
#ifndef SANDCASTLE_BUILD_H
#define SANDCASTLE_BUILD_H

#include <stddef.h>

#define BUILD_ID_LEN	12		/* hex digits */

/* 0 and id (12 hex digits), or -1 with why naming the binary. */
int		 build_id(const char *bindir, char id[BUILD_ID_LEN + 1],
		    char *why, size_t whysz);
/* The installed binaries in the id's order: the i-th, NULL past the last. */
const char	*build_binary(size_t i);
const char	*build_commit(void);	/* "unknown" outside a git checkout */
int		 self_bindir(char *buf, size_t bufsz);	/* folder of /proc/self/exe */

#endif
