/*
 * An answer's body between the keep's processes and its clients (keep.h,
 * version 3): a memfd sealed so that no byte of it can change once the
 * receiver has checked it, passed with the answer's message.
 */
#ifndef SANDCASTLE_KEEPBODY_H
#define SANDCASTLE_KEEPBODY_H

#include <stddef.h>

/*
 * A memfd for a body of at most size bytes, mapped for writing at *map,
 * or -1 with errno; keepbody_seal() unmaps it, cuts it to the len bytes
 * written and seals it (0, or -1 with errno).
 */
int	keepbody_open(size_t size, void **map);
int	keepbody_seal(int fd, void *map, size_t size, size_t len);
/* The sealed memfd holding len bytes of body, or -1 with errno. */
int	keepbody_make(const void *body, size_t len);
/* 0 when fd is a memfd of exactly len bytes with every seal, else -1 and why. */
int	keepbody_check(int fd, size_t len, const char **why);
/* The len bytes of a checked body into buf: 0, or -1 and errno. */
int	keepbody_read(int fd, void *buf, size_t len);

#endif
