/* All of len bytes read or written through EINTR and short counts. */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include "atomicio.h"

/* f is read, write (off < 0) or pread; eof the errno of a 0 count. */
static int
atomicio(ssize_t (*f)(int, void *, size_t, off_t), int fd, void *buf,
    size_t len, off_t off, int eof)
{
	char	*p = buf;
	ssize_t	 n;

	while (len > 0) {
		if ((n = f(fd, p, len, off)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0) {
			errno = eof;
			return -1;
		}
		p += n;
		if (off >= 0)
			off += n;
		len -= (size_t)n;
	}
	return 0;
}

static ssize_t
io_read(int fd, void *p, size_t len, off_t off)
{
	return read(fd, p, len);
}

static ssize_t
io_write(int fd, void *p, size_t len, off_t off)
{
	return write(fd, p, len);
}

int
write_all(int fd, const void *buf, size_t len)
{
	return atomicio(io_write, fd, (void *)(uintptr_t)buf, len, -1, EIO);
}

int
read_all(int fd, void *buf, size_t len)
{
	return atomicio(io_read, fd, buf, len, -1, EPIPE);
}

int
pread_all(int fd, void *buf, size_t len, off_t off)
{
	return atomicio(pread, fd, buf, len, off, EIO);
}
