/*
 * The systemd user units install writes (etc/systemd/, as unitdata.h): a
 * marker line names the build, how check and uninstall know them.
 */
#ifndef SANDCASTLECTL_UNITS_H
#define SANDCASTLECTL_UNITS_H

#include <sys/types.h>

#include <stddef.h>

#include "build.h"

#define UNIT_COUNT	4
#define UNIT_TARGET	"sandcastle.target"
#define UNIT_MARKER	"# sandcastle build "

struct unit_text {
	const char	*name;
	const char	*text;		/* with @BINDIR@ and the folders' @NAME@s */
};

struct ctl_env;

extern const struct unit_text unit_texts[UNIT_COUNT];

/* The Debian package's bin/: a sandcastlectl there is the package's. */
#define UNITS_PACKAGE_BINDIR	"/usr/bin"

/* The folders install and the units use: the package's when run from it. */
int	 units_dir(char *, size_t);
int	 units_localbin(char *, size_t);
int	 units_packaged(void);
int	 units_bindir(char *, size_t);
int	 units_libexecdir(char *, size_t);
/* The unit as install writes it for this build, malloc'd; NULL and why. */
char	*unit_render(const struct unit_text *, const char *build,
	    const struct ctl_env *, char *why, size_t whysz);
/* 1 when text starts with install's marker, its build copied out. */
int	 unit_marker(const char *text, char build[BUILD_ID_LEN + 1]);
/* A file's whole text, NUL-terminated, at most max bytes; NULL and errno. */
char	*file_read(const char *path, size_t max, size_t *lenp);
int	 file_write_atomic(const char *dir, const char *name, const char *data,
	    size_t len, mode_t mode, char *why, size_t whysz);
int	 file_copy_atomic(const char *src, const char *dir, const char *name,
	    mode_t mode, char *why, size_t whysz);

#endif
