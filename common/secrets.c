/* The secrets' rules, on the descriptor then read; a reason shows no value. */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomicio.h"
#include "config.h"
#include "paths.h"
#include "secrets.h"
#include "values.h"

/* A value, its final line break and a byte to tell "too long" by. */
#define SECRET_BUFSZ	(SECRET_MAX + 2)

static int	secret_stat_ok(const struct stat *, char *, size_t);
static int	secret_open(int, const char *, char *, size_t);
static int	secret_content_ok(char *, size_t *, char *, size_t);
static int	secret_tmp_open(int, char *, size_t);
static int	secret_put(int, const char *, size_t);

int
secret_check_value(const char *value, size_t len, const char **why)
{
	size_t	i;

	if (len == 0) {
		*why = "is empty";
		return -1;
	}
	if (len > SECRET_MAX) {
		*why = "is larger than 16 KiB";
		return -1;
	}
	for (i = 0; i < len; i++) {
		if (value[i] == '\n') {
			*why = "holds a line break before its end";
			return -1;
		}
		if ((unsigned char)value[i] < 0x20 || value[i] == 0x7f) {
			*why = "holds a control character";
			return -1;
		}
	}
	return 0;
}

int
secret_name_check(const char *name, char *why, size_t whysz)
{
	const char	*reason = NULL;

	if (name_valid(name, &reason) == -1) {
		(void)snprintf(why, whysz, "%s", reason != NULL ? reason :
		    "is not a name");
		errno = EINVAL;
		return -1;
	}
	return 0;
}

static int
secret_stat_ok(const struct stat *st, char *why, size_t whysz)
{
	if (S_ISLNK(st->st_mode))
		(void)snprintf(why, whysz, "is a symbolic link");
	else if (!S_ISREG(st->st_mode))
		(void)snprintf(why, whysz, "is not a regular file");
	else if (st->st_uid != geteuid())
		(void)snprintf(why, whysz, "is not yours (owner uid %u)",
		    (unsigned int)st->st_uid);
	else if ((st->st_mode & 077) != 0)
		(void)snprintf(why, whysz, "group or others have access "
		    "(mode %04o)", (unsigned int)(st->st_mode & 07777));
	else if (st->st_size == 0)
		(void)snprintf(why, whysz, "is empty");
	else if (st->st_size > SECRET_MAX + 1)
		(void)snprintf(why, whysz, "is larger than 16 KiB");
	else
		return 0;
	errno = EPERM;
	return -1;
}

/* O_NONBLOCK: a FIFO named like a secret must not hang the reader. */
static int
secret_open(int dirfd, const char *name, char *why, size_t whysz)
{
	struct stat	st;
	int		fd, saved;

	fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
	if (fd != -1)
		return fd;
	saved = errno;
	if (saved == ELOOP)
		(void)snprintf(why, whysz, "is a symbolic link");
	else if (saved == ENOENT)
		(void)snprintf(why, whysz, "is not set");
	else if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
	    secret_stat_ok(&st, why, whysz) == 0)
		(void)snprintf(why, whysz, "cannot be opened: %s",
		    strerror(saved));
	errno = saved;
	return -1;
}

ssize_t
secret_slurp(int fd, char *buf, size_t bufsz)
{
	size_t	off = 0;
	ssize_t	n;

	while (off < bufsz) {
		n = read(fd, buf + off, bufsz - off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		if (n == 0)
			break;
		off += n;
	}
	return off;
}

static int
secret_content_ok(char *buf, size_t *len, char *why, size_t whysz)
{
	const char	*reason;

	if (*len > SECRET_MAX + 1 ||
	    (*len == SECRET_MAX + 1 && buf[SECRET_MAX] != '\n')) {
		(void)snprintf(why, whysz, "is larger than 16 KiB");
		return -1;
	}
	if (*len > 0 && buf[*len - 1] == '\n')
		(*len)--;
	buf[*len] = '\0';
	if (secret_check_value(buf, *len, &reason) == -1) {
		(void)snprintf(why, whysz, "%s", reason);
		return -1;
	}
	return 0;
}

int
secret_read(int dirfd, const char *name, struct secret *s, char *why,
    size_t whysz)
{
	struct stat	 st;
	char		*buf = NULL;
	ssize_t		 n;
	size_t		 len;
	int		 fd;

	s->value = NULL;
	s->len = 0;
	if (secret_name_check(name, why, whysz) == -1)
		return -1;
	if ((fd = secret_open(dirfd, name, why, whysz)) == -1)
		return -1;
	if (fstat(fd, &st) == -1) {
		(void)snprintf(why, whysz, "cannot be read: %s",
		    strerror(errno));
		goto fail;
	}
	if (secret_stat_ok(&st, why, whysz) == -1)
		goto fail;
	if ((buf = malloc(SECRET_BUFSZ)) == NULL ||
	    (n = secret_slurp(fd, buf, SECRET_BUFSZ)) == -1) {
		(void)snprintf(why, whysz, "cannot be read: %s",
		    strerror(errno));
		goto fail;
	}
	len = n;
	if (secret_content_ok(buf, &len, why, whysz) == -1)
		goto fail;
	(void)close(fd);
	s->value = buf;
	s->len = len;
	return 0;
fail:
	if (buf != NULL) {
		explicit_bzero(buf, SECRET_BUFSZ);
		free(buf);
	}
	(void)close(fd);
	errno = EPERM;
	return -1;
}

void
secret_free(struct secret *s)
{
	if (s->value != NULL) {
		explicit_bzero(s->value, SECRET_BUFSZ);
		free(s->value);
	}
	s->value = NULL;
	s->len = 0;
}

/* A new file ".tmp-XXXXXXXX" beside the secrets; its name is left in tmp. */
static int
secret_tmp_open(int dirfd, char *tmp, size_t tmpsz)
{
	int	fd, tries;

	for (tries = 0; tries < 16; tries++) {
		(void)snprintf(tmp, tmpsz, ".tmp-%08x", arc4random());
		fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd != -1 || errno != EEXIST)
			return fd;
	}
	return -1;
}

static int
secret_put(int fd, const char *value, size_t len)
{
	/* The umask may have taken bits away; the rules want exactly 0600. */
	if (fchmod(fd, 0600) == -1 || write_all(fd, value, len) == -1)
		return -1;
	return fsync(fd);
}

int
secret_write(int dirfd, const char *name, const char *value, size_t len,
    char *why, size_t whysz)
{
	const char	*reason;
	char		 tmp[32];
	int		 fd, ok, saved;

	if (secret_name_check(name, why, whysz) == -1)
		return -1;
	if (secret_check_value(value, len, &reason) == -1) {
		(void)snprintf(why, whysz, "%s", reason);
		errno = EINVAL;
		return -1;
	}
	if ((fd = secret_tmp_open(dirfd, tmp, sizeof(tmp))) == -1) {
		(void)snprintf(why, whysz, "cannot be written: %s",
		    strerror(errno));
		return -1;
	}
	ok = secret_put(fd, value, len);
	saved = errno;
	if (close(fd) == -1 && ok == 0) {
		ok = -1;
		saved = errno;
	}
	if (ok == 0 && (ok = renameat(dirfd, tmp, dirfd, name)) == -1)
		saved = errno;
	if (ok == -1) {
		(void)unlinkat(dirfd, tmp, 0);
		(void)snprintf(why, whysz, "cannot be written: %s",
		    strerror(saved));
		errno = saved;
		return -1;
	}
	/* The rename is only durable once the folder is on disk too. */
	(void)fsync(dirfd);
	return 0;
}

int
secret_remove(int dirfd, const char *name, char *why, size_t whysz)
{
	if (secret_name_check(name, why, whysz) == -1)
		return -1;
	if (unlinkat(dirfd, name, 0) == 0)
		return 0;
	if (errno == ENOENT)
		(void)snprintf(why, whysz, "not set");
	else
		(void)snprintf(why, whysz, "cannot be removed: %s",
		    strerror(errno));
	return -1;
}

/* why is "<path>: <rule>"; the descriptor checked is the caller's to keep. */
int
secrets_dir_open(const char *path, int create, char *why, size_t whysz)
{
	struct stat	st;
	int		fd, saved;

	if (create && path_private_dir(path, why, whysz) == -1)
		return -1;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1) {
		saved = errno;
		/* O_NOFOLLOW with O_DIRECTORY says ENOTDIR for a link too. */
		if ((errno == ELOOP || errno == ENOTDIR) &&
		    lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
			(void)snprintf(why, whysz, "%s: is a symbolic link",
			    path);
		else if (saved == ENOTDIR)
			(void)snprintf(why, whysz, "%s: is not a folder", path);
		else if (saved == ENOENT)
			(void)snprintf(why, whysz, "%s: does not exist; "
			    "sandcastlectl secret set makes it", path);
		else
			(void)snprintf(why, whysz, "%s: cannot be opened: %s",
			    path, strerror(saved));
		errno = saved;
		return -1;
	}
	if (fstat(fd, &st) == -1 ||
	    path_private_stat(&st, path, why, whysz) == -1) {
		(void)close(fd);
		errno = EPERM;
		return -1;
	}
	return fd;
}
