/*
 * The build id: one SHA-256 over the installed binaries.  sandcastlectl's
 * copy (BUILD_EVP) uses libcrypto's SHA instructions, 3 ms where libmd takes
 * 20; the daemons keep libmd, as libcrypto's relocations cost 370 KiB each.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifdef BUILD_EVP
#include <openssl/evp.h>
#else
#include <sha2.h>
#endif

#include "build.h"
#include "cap.h"

#ifndef SANDCASTLE_COMMIT
#define SANDCASTLE_COMMIT	"unknown"
#endif
#ifndef SANDCASTLE_VERSION
#define SANDCASTLE_VERSION	"unknown"
#endif

/* In this order, then each box in cap_table's: the id depends on it. */
static const struct {
	const char	*name;
	int		 libexec;
} build_bins[] = {
	{ "sandcastled", 0 }, { "sandcastlectl", 0 }, { "keepd", 1 },
	{ "gated", 1 }
};
#define NBINS	(sizeof(build_bins) / sizeof(build_bins[0]))

#define DIGEST_LEN	32

#ifdef BUILD_EVP
typedef EVP_MD_CTX	*hash_ctx;

static int
hash_init(hash_ctx *h)
{
	if ((*h = EVP_MD_CTX_new()) == NULL)
		return -1;
	if (EVP_DigestInit_ex(*h, EVP_sha256(), NULL) != 1) {
		EVP_MD_CTX_free(*h);
		return -1;
	}
	return 0;
}

static void
hash_update(hash_ctx *h, const void *buf, size_t len)
{
	/* Fails only on a bad context, which hash_init() did not make. */
	(void)EVP_DigestUpdate(*h, buf, len);
}

static int
hash_final(hash_ctx *h, uint8_t digest[DIGEST_LEN])
{
	int	r;

	r = EVP_DigestFinal_ex(*h, digest, NULL) == 1 ? 0 : -1;
	EVP_MD_CTX_free(*h);
	return r;
}
#else
typedef SHA2_CTX	 hash_ctx;

static int
hash_init(hash_ctx *h)
{
	SHA256Init(h);
	return 0;
}

static void
hash_update(hash_ctx *h, const void *buf, size_t len)
{
	SHA256Update(h, buf, len);
}

static int
hash_final(hash_ctx *h, uint8_t digest[DIGEST_LEN])
{
	SHA256Final(digest, h);
	return 0;
}
#endif

static int	build_hash_file(hash_ctx *, int, const char *);

const char *
build_binary(size_t i)
{
	if (i < NBINS)
		return build_bins[i].name;
	return i - NBINS < CAP_COUNT ? cap_table[i - NBINS]->box : NULL;
}

int
build_libexec(size_t i)
{
	return i < NBINS ? build_bins[i].libexec : 1;
}

/* bindir's parent, then libexec/sandcastle: /usr/bin gives /usr/libexec/sandcastle. */
int
build_libexecdir(const char *bindir, char *buf, size_t bufsz)
{
	const char	*slash;
	int		 n;

	if ((slash = strrchr(bindir, '/')) == NULL) {
		errno = EINVAL;
		return -1;
	}
	n = snprintf(buf, bufsz, "%.*s/%s", (int)(slash - bindir), bindir,
	    BUILD_LIBEXEC);
	if (n < 0 || (size_t)n >= bufsz) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int
build_path(const char *bindir, size_t i, char *buf, size_t bufsz)
{
	char	dir[4096];
	int	n;

	if (build_binary(i) == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (!build_libexec(i))
		n = snprintf(buf, bufsz, "%s/%s", bindir, build_binary(i));
	else if (build_libexecdir(bindir, dir, sizeof(dir)) == -1)
		return -1;
	else
		n = snprintf(buf, bufsz, "%s/%s", dir, build_binary(i));
	if (n < 0 || (size_t)n >= bufsz) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

const char *
build_commit(void)
{
	return SANDCASTLE_COMMIT[0] != '\0' ? SANDCASTLE_COMMIT : "unknown";
}

const char *
build_version(void)
{
	return SANDCASTLE_VERSION;
}

/* keepd and gated run from libexec/sandcastle: the build's bin/ is beside it. */
void
build_print(const char *name)
{
	char	dir[4096], id[BUILD_ID_LEN + 1], why[4096 + 64];
	size_t	n, m = strlen("/" BUILD_LIBEXEC);
	int	r;

	if ((r = self_bindir(dir, sizeof(dir))) == 0 && (n = strlen(dir)) > m &&
	    strcmp(dir + n - m, "/" BUILD_LIBEXEC) == 0)
		(void)strlcpy(dir + n - m, "/bin", sizeof(dir) - (n - m));
	if (r == -1 || build_id(dir, id, why, sizeof(why)) == -1)
		(void)strlcpy(id, "unknown", sizeof(id));
	printf("%s %s (build %s, commit %s)\n", name, build_version(), id,
	    build_commit());
}

/* Name and length before the bytes: no two sets of files hash alike. */
static int
build_hash_file(hash_ctx *ctx, int fd, const char *name)
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
	hash_update(ctx, name, strlen(name) + 1);
	hash_update(ctx, len, sizeof(len));
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		hash_update(ctx, buf, n);
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
	hash_ctx	 ctx;
	const char	*bin;
	uint8_t		 digest[DIGEST_LEN];
	char		 path[4096];
	size_t		 i;
	int		 fd, r = 0;

	if (hash_init(&ctx) == -1) {
		(void)snprintf(why, whysz, "cannot start a SHA-256");
		return -1;
	}
	for (i = 0; r == 0 && (bin = build_binary(i)) != NULL; i++) {
		if (build_path(bindir, i, path, sizeof(path)) == -1) {
			(void)snprintf(why, whysz, "%s: the path of %s: %s",
			    bindir, bin, strerror(errno));
			r = -1;
			break;
		}
		r = -1;
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1 ||
		    (r = build_hash_file(&ctx, fd, bin)) != 0)
			(void)snprintf(why, whysz, "%s: %s", path,
			    r == -2 ? "is not a regular file" :
			    strerror(errno));
		if (fd != -1)
			(void)close(fd);
	}
	if (hash_final(&ctx, digest) == -1 && r == 0) {
		(void)snprintf(why, whysz, "cannot end a SHA-256");
		r = -1;
	}
	if (r != 0)
		return -1;
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
