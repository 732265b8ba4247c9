/* All of a buffer written or read, as OpenSSH's atomicio() does. */
#ifndef SANDCASTLE_ATOMICIO_H
#define SANDCASTLE_ATOMICIO_H

#include <sys/types.h>

#include <stddef.h>

/* 0, or -1 with errno set: EIO for a write that took nothing. */
int	write_all(int fd, const void *buf, size_t len);
/* 0, or -1 with errno set: EPIPE for an end of file before len bytes. */
int	read_all(int fd, void *buf, size_t len);
/* The same at off, the offset untouched (pread(2)): EIO for an end. */
int	pread_all(int fd, void *buf, size_t len, off_t off);

#endif
