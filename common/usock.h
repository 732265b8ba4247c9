/*
 * The Unix sockets every piece listens on or connects to (control.sock,
 * keep.sock, gate.sock): one way to bind them, one to reach them, and
 * one check of who is at the other end.
 */
#ifndef SANDCASTLE_USOCK_H
#define SANDCASTLE_USOCK_H

#include <sys/types.h>

#include <stddef.h>

/* A blocking, close-on-exec connection to path; -1 and errno. */
int	usock_connect(const char *path);

/*
 * Binds and listens on path, non-blocking and close-on-exec, mode 0600.
 * A socket left there is removed when nothing answers on it; when
 * something does, -1 with errno EADDRINUSE and why "… already answers
 * at <path>".
 */
int	usock_listen(const char *path, int backlog, char *why, size_t whysz);

/* 0 when the peer runs as our own uid; -1 with its uid (or -1 unknown). */
int	usock_peer_is_self(int fd, uid_t *peer);

#endif
