/* An answer's body: a memfd sealed so no byte changes once checked (keep.h). */
#ifndef SANDCASTLE_KEEPBODY_H
#define SANDCASTLE_KEEPBODY_H

#include <stddef.h>

/* Mapped at *map, or -1; keepbody_seal() unmaps, cuts to len and seals. */
int	keepbody_open(size_t size, void **map);
int	keepbody_seal(int fd, void *map, size_t size, size_t len);
int	keepbody_make(const void *body, size_t len);
/* 0 when fd is a memfd of exactly len bytes with every seal, else -1 and why. */
int	keepbody_check(int fd, size_t len, const char **why);
/* 0 when fd has every seal and holds at least off + len bytes, else -1 and why. */
int	keepbody_span_check(int fd, size_t off, size_t len, const char **why);
struct keepbody_span {
	void		*map;
	size_t		 maplen;
	const char	*bytes;
};
int	keepbody_span_map(int fd, size_t off, size_t len, struct keepbody_span *);
void	keepbody_span_unmap(struct keepbody_span *);
int	keepbody_read(int fd, void *buf, size_t len);

#endif
