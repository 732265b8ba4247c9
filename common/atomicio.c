/*
 * The one loop each program had written again: a read or write of all
 * of len bytes, taking short counts and EINTR in its stride.
 */
#include <errno.h>
#include <unistd.h>

#include "atomicio.h"

int
write_all(int fd, const void *buf, size_t len)
{
	const char	*p = buf;
	ssize_t		 n;

	while (len > 0) {
		if ((n = write(fd, p, len)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int
read_all(int fd, void *buf, size_t len)
{
	char	*p = buf;
	ssize_t	 n;

	while (len > 0) {
		if ((n = read(fd, p, len)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0) {
			errno = EPIPE;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* At off, the file's offset left alone: EIO for an end before len. */
int
pread_all(int fd, void *buf, size_t len, off_t off)
{
	char	*p = buf;
	ssize_t	 n;

	while (len > 0) {
		if ((n = pread(fd, p, len, off)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0) {
			errno = EIO;
			return -1;
		}
		p += n;
		off += n;
		len -= (size_t)n;
	}
	return 0;
}
