/*
 * The body of a keep's answer as a sealed memfd.  The child that wrote
 * it parsed a hostile answer: the receivers check the seals (WRITE,
 * SHRINK, GROW) before they trust its size.
 */
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

int
keepbody_check(int fd, size_t len, const char **why)
{
	struct stat	 st;
	int		 seals;

	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		*why = "the body is not a file";
		return -1;
	}
	if ((seals = fcntl(fd, F_GET_SEALS)) == -1 ||
	    (seals & KEEP_BODY_SEALS) != KEEP_BODY_SEALS) {
		*why = "the body's file is not sealed";
		return -1;
	}
	if (st.st_size < 0 || (unsigned long long)st.st_size != len) {
		*why = "the body's file is not of the length announced";
		return -1;
	}
	return 0;
}

/*
 * A copy by pread(2): the file's offset is shared with whoever sent it.
 * It is sealed against shrinking: an end before len cannot happen.
 * sandcastled's readers map the body instead (keepcli_answer_map()).
 */
int
keepbody_read(int fd, void *buf, size_t len)
{
	return pread_all(fd, buf, len, 0);
}
