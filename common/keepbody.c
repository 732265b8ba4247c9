/*
 * The body of a keep's answer as a sealed memfd (keepbody.h).  The
 * request's child writes it once and seals it; keepd and the client
 * check the seals before they trust its size, since the child parsed a
 * hostile answer and may be the hostile one: with F_SEAL_WRITE, SHRINK
 * and GROW on, what they checked is what they read.
 */
#include <sys/types.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "keep.h"
#include "keepbody.h"

int
keepbody_make(const void *body, size_t len)
{
	const char	*p = body;
	ssize_t		 n;
	int		 fd, save;

	if ((fd = memfd_create("keep-body", MFD_CLOEXEC |
	    MFD_ALLOW_SEALING)) == -1)
		return -1;
	while (len > 0) {
		if ((n = write(fd, p, len)) == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			goto fail;
		p += n;
		len -= n;
	}
	if (fcntl(fd, F_ADD_SEALS, KEEP_BODY_SEALS) == -1)
		goto fail;
	return fd;
fail:
	save = errno;
	close(fd);
	errno = save;
	return -1;
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

/* By a mapping: the file's offset is shared with whoever sent it. */
int
keepbody_read(int fd, void *buf, size_t len)
{
	void	*p;

	if (len == 0)
		return 0;
	if ((p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED)
		return -1;
	memcpy(buf, p, len);
	munmap(p, len);
	return 0;
}
