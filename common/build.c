/*
 * The build id: one SHA-256 over the installed binaries, so that any
 * change to any of them makes new box images and refuses old ones.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <sha2.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "build.h"
#include "cap.h"

#ifndef SANDCASTLE_COMMIT
#define SANDCASTLE_COMMIT	"unknown"
#endif

/* In this order, always, then each box in cap_table's: the id depends on it. */
static const char *const build_bins[] = {
	"sandcastled", "sandcastlectl", "keepd", "gated"
};
#define NBINS	(sizeof(build_bins) / sizeof(build_bins[0]))

static int	build_hash_file(SHA2_CTX *, int, const char *);

const char *
build_binary(size_t i)
{
	if (i < NBINS)
		return build_bins[i];
	return i - NBINS < CAP_COUNT ? cap_table[i - NBINS].box : NULL;
}

const char *
build_commit(void)
{
	return SANDCASTLE_COMMIT[0] != '\0' ? SANDCASTLE_COMMIT : "unknown";
}

/*
 * Name and length before the bytes: no two sets of files hash alike by
 * moving bytes from one file to the next.
 */
static int
build_hash_file(SHA2_CTX *ctx, int fd, const char *name)
{
	struct stat	st;
	uint8_t		buf[65536], len[8];
	uint64_t	size, done = 0;
	ssize_t		n;
	int		i;

	if (fstat(fd, &st) == -1)
		return -1;
	if (!S_ISREG(st.st_mode))
		return -2;
	size = (uint64_t)st.st_size;
	for (i = 0; i < 8; i++)
		len[i] = (uint8_t)(size >> (56 - 8 * i));
	SHA256Update(ctx, (const uint8_t *)name, strlen(name) + 1);
	SHA256Update(ctx, len, sizeof(len));
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		SHA256Update(ctx, buf, n);
		done += n;
	}
	if (done != size) {
		/* It changed while it was read: the id would name neither. */
		errno = EAGAIN;
		return -1;
	}
	return 0;
}

int
build_id(const char *bindir, char id[BUILD_ID_LEN + 1], char *why,
    size_t whysz)
{
	SHA2_CTX	ctx;
	const char	*bin;
	uint8_t		digest[SHA256_DIGEST_LENGTH];
	char		path[4096];
	size_t		i;
	int		fd, r, n;

	SHA256Init(&ctx);
	for (i = 0; (bin = build_binary(i)) != NULL; i++) {
		n = snprintf(path, sizeof(path), "%s/%s", bindir, bin);
		if (n < 0 || (size_t)n >= sizeof(path)) {
			(void)snprintf(why, whysz, "%s/%s: path too long",
			    bindir, bin);
			return -1;
		}
		r = -1;
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1 ||
		    (r = build_hash_file(&ctx, fd, bin)) != 0) {
			(void)snprintf(why, whysz, "%s: %s", path,
			    r == -2 ? "is not a regular file" :
			    strerror(errno));
			if (fd != -1)
				(void)close(fd);
			return -1;
		}
		(void)close(fd);
	}
	SHA256Final(digest, &ctx);
	for (i = 0; i < BUILD_ID_LEN / 2; i++)
		(void)snprintf(id + 2 * i, 3, "%02x", digest[i]);
	return 0;
}

int
self_bindir(char *buf, size_t bufsz)
{
	char	exe[4096];
	ssize_t	n;

	if ((n = readlink("/proc/self/exe", exe, sizeof(exe))) == -1)
		return -1;
	if ((size_t)n >= sizeof(exe)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	exe[n] = '\0';
	if (strlcpy(buf, dirname(exe), bufsz) >= bufsz) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}
