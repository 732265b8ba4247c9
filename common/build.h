/* This build: its version, its commit, and the id that names its box images. */
#ifndef SANDCASTLE_BUILD_H
#define SANDCASTLE_BUILD_H

#include <stddef.h>

#define BUILD_ID_LEN	12		/* hex digits */

/* Over the binaries of bindir and of its libexec folder. */
int		 build_id(const char *bindir, char id[BUILD_ID_LEN + 1],
		    char *why, size_t whysz);
/* Beside bin/, for the programs an operator never runs. */
#define BUILD_LIBEXEC	"libexec/sandcastle"

/* The installed binaries in the id's order: the i-th, NULL past the last. */
const char	*build_binary(size_t i);
int		 build_libexec(size_t i);
int		 build_libexecdir(const char *bindir, char *buf, size_t bufsz);
int		 build_path(const char *bindir, size_t i, char *buf,
		    size_t bufsz);
const char	*build_commit(void);	/* "unknown" outside a git checkout */
const char	*build_version(void);
/* -V's line: "name version (build id, commit sha)", on stdout. */
void		 build_print(const char *name);
int		 self_bindir(char *buf, size_t bufsz);	/* folder of /proc/self/exe */

#endif
