/* The Unix sockets: one way to bind, one to reach, one check of the peer. */
#ifndef SANDCASTLE_USOCK_H
#define SANDCASTLE_USOCK_H

#include <sys/types.h>

#include <stddef.h>

/* A blocking, close-on-exec connection to path; -1 and errno. */
int	usock_connect(const char *path);

/*
 * Mode 0600.  A socket there that nothing answers on is removed; one
 * that answers is EADDRINUSE, "... already answers at <path>".
 */
int	usock_listen(const char *path, int backlog, char *why, size_t whysz);

/* 0 when the peer runs as our own uid; -1 with its uid (or -1 unknown). */
int	usock_peer_is_self(int fd, uid_t *peer);

#endif
