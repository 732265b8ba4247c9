/*
 * The units install writes, and atomic writes (a temporary name, fsync,
 * rename, the folder's fsync): a reader sees the old file or the new.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomicio.h"
#include "build.h"
#include "ctlcmd.h"
#include "paths.h"
#include "units.h"

const struct unit_text unit_texts[UNIT_COUNT] = {
#include "unitdata.h"
};

static int	unit_path_ok(const char *, char *, size_t);

int
units_dir(char *buf, size_t bufsz)
{
	const char	*x = getenv("XDG_CONFIG_HOME");
	char		 tmp[PATH_MAX];

	if (x != NULL && x[0] == '/') {
		if ((size_t)snprintf(buf, bufsz, "%s/systemd/user", x) >= bufsz)
			return -1;
		return 0;
	}
	if (path_expand_home("~/.config/systemd/user", tmp, sizeof(tmp)) ==
	    -1 || strlcpy(buf, tmp, bufsz) >= bufsz)
		return -1;
	return 0;
}

int
units_localbin(char *buf, size_t bufsz)
{
	char	tmp[PATH_MAX];

	if (path_expand_home("~/.local/bin", tmp, sizeof(tmp)) == -1 ||
	    strlcpy(buf, tmp, bufsz) >= bufsz)
		return -1;
	return 0;
}

int
units_packaged(void)
{
	char	self[PATH_MAX];

	return self_bindir(self, sizeof(self)) == 0 &&
	    strcmp(self, UNITS_PACKAGE_BINDIR) == 0;
}

/* dpkg alone replaces the package's binaries: the units run them there. */
int
units_bindir(char *buf, size_t bufsz)
{
	if (!units_packaged())
		return units_localbin(buf, bufsz);
	return strlcpy(buf, UNITS_PACKAGE_BINDIR, bufsz) < bufsz ? 0 : -1;
}

int
units_libexecdir(char *buf, size_t bufsz)
{
	char	bin[PATH_MAX];

	if (units_bindir(bin, sizeof(bin)) == -1)
		return -1;
	return build_libexecdir(bin, buf, bufsz);
}

/* A path goes into ExecStart= as it is: no quoting, no specifier. */
static int
unit_path_ok(const char *path, char *why, size_t whysz)
{
	const char	*p;

	if (path[0] != '/') {
		(void)snprintf(why, whysz, "%s: not an absolute path", path);
		return 0;
	}
	for (p = path; *p != '\0'; p++)
		if (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "0123456789/._+@,:-", *p) == NULL) {
			(void)snprintf(why, whysz, "%s: a unit cannot name a "
			    "path holding '%c' (systemd would read it as a "
			    "quote, a specifier or a space); use a folder "
			    "without it", path, *p);
			return 0;
		}
	return 1;
}

/* text with each @NAME@ of the unit's folders put in from vals. */
static void
unit_subst(FILE *f, const char *text, const char *const vals[4])
{
	static const char *const names[] = { "@BINDIR@", "@LIBEXECDIR@",
	    "@CONFDIR@", "@SECDIR@" };
	const char	*p, *at;
	size_t		 i;

	for (p = text; (at = strchr(p, '@')) != NULL; ) {
		fwrite(p, 1, at - p, f);
		for (i = 0; i < 4; i++)
			if (strncmp(at, names[i], strlen(names[i])) == 0)
				break;
		if (i < 4) {
			fputs(vals[i], f);
			p = at + strlen(names[i]);
		} else {
			fputc('@', f);
			p = at + 1;
		}
	}
	fputs(p, f);
}

char *
unit_render(const struct unit_text *u, const char *build,
    const struct ctl_env *env, char *why, size_t whysz)
{
	const char	*vals[4];
	char		 bindir[PATH_MAX], libexecdir[PATH_MAX], *out = NULL;
	size_t		 len, i;
	FILE		*f;

	if (units_bindir(bindir, sizeof(bindir)) == -1) {
		(void)snprintf(why, whysz, "~/.local/bin: %s", path_why());
		return NULL;
	}
	if (build_libexecdir(bindir, libexecdir, sizeof(libexecdir)) == -1) {
		(void)snprintf(why, whysz, "%s's %s: %s", bindir, BUILD_LIBEXEC,
		    strerror(errno));
		return NULL;
	}
	vals[0] = bindir;
	vals[1] = libexecdir;
	vals[2] = env->confdir;
	vals[3] = env->secdir;
	for (i = 0; i < 4; i++)
		if (!unit_path_ok(vals[i], why, whysz))
			return NULL;
	if ((f = open_memstream(&out, &len)) == NULL) {
		(void)snprintf(why, whysz, "%s", strerror(errno));
		return NULL;
	}
	fprintf(f, "%s%s, written by sandcastlectl install: change this "
	    "unit with a drop-in in %s.d/, never here\n", UNIT_MARKER, build,
	    u->name);
	unit_subst(f, u->text, vals);
	if (fclose(f) == EOF) {
		free(out);
		(void)snprintf(why, whysz, "%s", strerror(errno));
		return NULL;
	}
	return out;
}

int
unit_marker(const char *text, char build[BUILD_ID_LEN + 1])
{
	size_t	i, n = strlen(UNIT_MARKER);

	if (strncmp(text, UNIT_MARKER, n) != 0)
		return 0;
	for (i = 0; i < BUILD_ID_LEN; i++)
		if (strchr("0123456789abcdef", text[n + i]) == NULL ||
		    text[n + i] == '\0')
			return 0;
	if (text[n + BUILD_ID_LEN] != ',')
		return 0;
	memcpy(build, text + n, BUILD_ID_LEN);
	build[BUILD_ID_LEN] = '\0';
	return 1;
}

char *
file_read(const char *path, size_t max, size_t *lenp)
{
	char	*buf;
	size_t	 len = 0;
	ssize_t	 r;
	int	 fd, e;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return NULL;
	if ((buf = malloc(max + 2)) == NULL) {
		e = errno;
		close(fd);
		errno = e;
		return NULL;
	}
	while (len <= max && (r = read(fd, buf + len, max + 1 - len)) != 0) {
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			e = errno;
			free(buf);
			close(fd);
			errno = e;
			return NULL;
		}
		len += r;
	}
	close(fd);
	if (len > max) {
		free(buf);
		errno = EFBIG;
		return NULL;
	}
	buf[len] = '\0';
	if (lenp != NULL)
		*lenp = len;
	return buf;
}

int
file_write_atomic(const char *dir, const char *name, const char *data,
    size_t len, mode_t mode, char *why, size_t whysz)
{
	char	 tmp[PATH_MAX], dst[PATH_MAX];
	int	 fd, dfd, e;

	if ((size_t)snprintf(tmp, sizeof(tmp), "%s/.%s.XXXXXX", dir, name) >=
	    sizeof(tmp) || (size_t)snprintf(dst, sizeof(dst), "%s/%s", dir,
	    name) >= sizeof(dst)) {
		(void)snprintf(why, whysz, "%s/%s: path too long", dir, name);
		return -1;
	}
	if ((fd = mkostemp(tmp, O_CLOEXEC)) == -1) {
		(void)snprintf(why, whysz, "%s: %s", tmp, strerror(errno));
		return -1;
	}
	if (write_all(fd, data, len) == -1 || fchmod(fd, mode) == -1 ||
	    fsync(fd) == -1 || close(fd) == -1) {
		e = errno;
		(void)close(fd);
		(void)unlink(tmp);
		(void)snprintf(why, whysz, "%s: %s", tmp, strerror(e));
		return -1;
	}
	if (rename(tmp, dst) == -1) {
		e = errno;
		(void)unlink(tmp);
		(void)snprintf(why, whysz, "rename to %s: %s", dst,
		    strerror(e));
		return -1;
	}
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1) {
		(void)fsync(dfd);
		(void)close(dfd);
	}
	return 0;
}

int
file_copy_atomic(const char *src, const char *dir, const char *name,
    mode_t mode, char *why, size_t whysz)
{
	char	*data;
	size_t	 len;
	int	 rc;

	/* The binaries are a few MiB; 256 MiB is far past any of them. */
	if ((data = file_read(src, 256u << 20, &len)) == NULL) {
		(void)snprintf(why, whysz, "%s: %s", src, strerror(errno));
		return -1;
	}
	rc = file_write_atomic(dir, name, data, len, mode, why, whysz);
	free(data);
	return rc;
}
