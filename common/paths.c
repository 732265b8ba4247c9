/* Where the folders are; a path that does not fit is an error, never cut. */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "paths.h"

static char	pathwhy[512];

static int	path_fail(int, const char *, ...)
		    __attribute__((format(printf, 2, 3)));
static int	path_join(char *, size_t, const char *, const char *);
static int	path_home(char *, size_t);
static int	path_mkdirs(const char *, char *, size_t);

const char *
path_why(void)
{
	return pathwhy;
}

static int
path_fail(int error, const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	(void)vsnprintf(pathwhy, sizeof(pathwhy), fmt, ap);
	va_end(ap);
	errno = error;
	return -1;
}

static int
path_join(char *buf, size_t bufsz, const char *a, const char *b)
{
	int	n;

	if (b == NULL)
		n = snprintf(buf, bufsz, "%s", a);
	else
		n = snprintf(buf, bufsz, "%s/%s", a, b);
	if (n < 0 || (size_t)n >= bufsz)
		return path_fail(ENAMETOOLONG, "%s%s%s: path too long", a,
		    b ? "/" : "", b ? b : "");
	return 0;
}

static int
path_home(char *buf, size_t bufsz)
{
	const char	*home;
	struct passwd	*pw;

	home = getenv("HOME");
	if (home == NULL || *home == '\0') {
		if ((pw = getpwuid(geteuid())) == NULL ||
		    pw->pw_dir == NULL || *pw->pw_dir == '\0')
			return path_fail(ENOENT, "no home folder: "
			    "HOME is not set and uid %u has no password entry",
			    (unsigned int)geteuid());
		home = pw->pw_dir;
	}
	return path_join(buf, bufsz, home, NULL);
}

int
path_expand_home(const char *in, char *buf, size_t bufsz)
{
	char	home[4096];

	if (in[0] != '~' || (in[1] != '\0' && in[1] != '/'))
		return path_join(buf, bufsz, in, NULL);
	if (path_home(home, sizeof(home)) == -1)
		return -1;
	if (in[1] == '\0')
		return path_join(buf, bufsz, home, NULL);
	return path_join(buf, bufsz, home, in + 2);
}

int
path_config_dir(const char *flag, char *buf, size_t bufsz)
{
	const char	*env;

	if (flag != NULL)
		return path_expand_home(flag, buf, bufsz);
	if ((env = getenv("SANDCASTLE_CONFIG")) != NULL && *env != '\0')
		return path_expand_home(env, buf, bufsz);
	return path_expand_home("~/.config/sandcastle", buf, bufsz);
}

int
path_secrets_dir(const char *flag, char *buf, size_t bufsz)
{
	if (flag != NULL)
		return path_expand_home(flag, buf, bufsz);
	return path_expand_home("~/.local/share/sandcastle/secrets", buf,
	    bufsz);
}

int
path_state_dir(char *buf, size_t bufsz)
{
	return path_expand_home("~/.local/state/sandcastle", buf, bufsz);
}

int
path_runtime_dir(char *buf, size_t bufsz)
{
	const char	*xdg;

	if ((xdg = getenv("XDG_RUNTIME_DIR")) == NULL || *xdg == '\0')
		return path_fail(ENOENT, "XDG_RUNTIME_DIR is not set");
	if (*xdg != '/')
		return path_fail(EINVAL, "XDG_RUNTIME_DIR is not an absolute "
		    "path: %s", xdg);
	return path_join(buf, bufsz, xdg, "sandcastle");
}

int
path_runtime_file(const char *name, char *buf, size_t bufsz)
{
	char	dir[4096];

	if (path_runtime_dir(dir, sizeof(dir)) == -1)
		return -1;
	return path_join(buf, bufsz, dir, name);
}

int
path_private_stat(const struct stat *st, const char *dir, char *why,
    size_t whysz)
{
	if (S_ISLNK(st->st_mode))
		(void)snprintf(why, whysz, "%s: is a symbolic link", dir);
	else if (!S_ISDIR(st->st_mode))
		(void)snprintf(why, whysz, "%s: is not a folder", dir);
	else if (st->st_uid != geteuid())
		(void)snprintf(why, whysz, "%s: is not yours (owner uid %u)",
		    dir, (unsigned int)st->st_uid);
	else if ((st->st_mode & 077) != 0)
		(void)snprintf(why, whysz, "%s: group or others have access "
		    "(mode %04o): chmod 700 %s", dir,
		    (unsigned int)(st->st_mode & 07777), dir);
	else
		return 0;
	return -1;
}

/* mkdir -p, each folder it makes 0700; folders already there are left as they are. */
static int
path_mkdirs(const char *dir, char *why, size_t whysz)
{
	char	 part[4096];
	char	*p, c;

	if (strlcpy(part, dir, sizeof(part)) >= sizeof(part)) {
		(void)snprintf(why, whysz, "%s: path too long", dir);
		errno = ENAMETOOLONG;
		return -1;
	}
	for (p = part + 1; ; p++) {
		if (*p != '/' && *p != '\0')
			continue;
		if (p[-1] != '/') {
			c = *p;
			*p = '\0';
			if (mkdir(part, 0700) == -1 && errno != EEXIST) {
				(void)snprintf(why, whysz, "%s: cannot be "
				    "made: %s", part, strerror(errno));
				return -1;
			}
			*p = c;
		}
		if (*p == '\0')
			return 0;
	}
}

int
path_private_dir(const char *dir, char *why, size_t whysz)
{
	struct stat	st;

	if (*dir == '\0') {
		(void)snprintf(why, whysz, "an empty folder name");
		errno = EINVAL;
		return -1;
	}
	if (path_mkdirs(dir, why, whysz) == -1)
		return -1;
	if (lstat(dir, &st) == -1) {
		(void)snprintf(why, whysz, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (path_private_stat(&st, dir, why, whysz) == -1) {
		errno = EPERM;
		return -1;
	}
	return 0;
}
