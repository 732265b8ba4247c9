/* The Unix sockets: one way to bind, one to reach, one check of the peer. */
#ifndef SANDCASTLE_USOCK_H
#define SANDCASTLE_USOCK_H

#include <sys/types.h>

#include <stddef.h>

int	usock_connect(const char *path);

/* Mode 0600; a socket there nothing answers on is removed, else EADDRINUSE. */
int	usock_listen(const char *path, int backlog, char *why, size_t whysz);

/* 0 when the peer runs as our own uid; -1 with its uid (or -1 unknown). */
int	usock_peer_is_self(int fd, uid_t *peer);

#endif
