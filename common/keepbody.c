/* An answer's body as a sealed memfd: the seals are checked before its size. */
#include <sys/types.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "atomicio.h"
#include "keep.h"
#include "keepbody.h"

int
keepbody_open(size_t size, void **map)
{
	int	 fd, save;

	*map = NULL;
	if ((fd = memfd_create("keep-body", MFD_CLOEXEC |
	    MFD_ALLOW_SEALING)) == -1)
		return -1;
	/* Sparse: a page is only taken once the body reaches it. */
	if (ftruncate(fd, size) == -1)
		goto fail;
	if (size > 0 && (*map = mmap(NULL, size, PROT_READ | PROT_WRITE,
	    MAP_SHARED, fd, 0)) == MAP_FAILED) {
		*map = NULL;
		goto fail;
	}
	return fd;
fail:
	save = errno;
	close(fd);
	errno = save;
	return -1;
}

/* F_SEAL_WRITE needs the writable mapping gone first. */
int
keepbody_seal(int fd, void *map, size_t size, size_t len)
{
	if ((map != NULL && munmap(map, size) == -1) ||
	    ftruncate(fd, len) == -1 ||
	    fcntl(fd, F_ADD_SEALS, KEEP_BODY_SEALS) == -1)
		return -1;
	return 0;
}

int
keepbody_make(const void *body, size_t len)
{
	void	*map;
	int	 fd, save;

	if ((fd = keepbody_open(len, &map)) == -1)
		return -1;
	if (len > 0)
		memcpy(map, body, len);
	if (keepbody_seal(fd, map, len, len) == -1) {
		save = errno;
		close(fd);
		errno = save;
		return -1;
	}
	return fd;
}

static int
keepbody_sealed(int fd, size_t *size, const char **why)
{
	struct stat	 st;
	int		 seals;

	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) || st.st_size < 0) {
		*why = "the body is not a file";
		return -1;
	}
	if ((seals = fcntl(fd, F_GET_SEALS)) == -1 ||
	    (seals & KEEP_BODY_SEALS) != KEEP_BODY_SEALS) {
		*why = "the body's file is not sealed";
		return -1;
	}
	*size = st.st_size;
	return 0;
}

int
keepbody_check(int fd, size_t len, const char **why)
{
	size_t	 size;

	if (keepbody_sealed(fd, &size, why) == -1)
		return -1;
	if (size != len) {
		*why = "the body's file is not of the length announced";
		return -1;
	}
	return 0;
}

int
keepbody_span_check(int fd, size_t off, size_t len, const char **why)
{
	size_t	 size;

	if (keepbody_sealed(fd, &size, why) == -1)
		return -1;
	if (off > size || len > size - off) {
		*why = "the span lies past the end of the body's file";
		return -1;
	}
	return 0;
}

/* From the page off lies in: mmap(2) takes an offset of whole pages. */
int
keepbody_span_map(int fd, size_t off, size_t len, struct keepbody_span *s)
{
	size_t	 page = (size_t)sysconf(_SC_PAGESIZE), start;

	memset(s, 0, sizeof(s[0]));
	if (len == 0) {
		s->bytes = "";
		return 0;
	}
	start = off - off % page;
	s->maplen = off - start + len;
	if ((s->map = mmap(NULL, s->maplen, PROT_READ, MAP_SHARED |
	    MAP_POPULATE, fd, start)) == MAP_FAILED) {
		s->map = NULL;
		return -1;
	}
	s->bytes = (const char *)s->map + (off - start);
	return 0;
}

void
keepbody_span_unmap(struct keepbody_span *s)
{
	if (s->map != NULL)
		(void)munmap(s->map, s->maplen);
	memset(s, 0, sizeof(s[0]));
}

/* pread(2): the offset is shared with its sender; sealed, so never short. */
int
keepbody_read(int fd, void *buf, size_t len)
{
	return pread_all(fd, buf, len, 0);
}
