/* Unix sockets (usock.h). */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "usock.h"

static int
usock_addr(const char *path, struct sockaddr_un *sun)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (strlcpy(sun->sun_path, path, sizeof(sun->sun_path)) >=
	    sizeof(sun->sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int
usock_connect(const char *path)
{
	struct sockaddr_un	sun;
	int			fd, saved;

	if (usock_addr(path, &sun) == -1)
		return -1;
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

/* A socket left at path: in use when it answers, else removed. */
static int
usock_stale(const char *path, char *why, size_t whysz)
{
	struct stat	 st;
	int		 fd;

	if (lstat(path, &st) == -1) {
		if (errno == ENOENT)
			return 0;
		(void)snprintf(why, whysz, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISSOCK(st.st_mode)) {
		(void)snprintf(why, whysz, "%s: is not a socket: remove it",
		    path);
		return -1;
	}
	if ((fd = usock_connect(path)) != -1) {
		close(fd);
		(void)snprintf(why, whysz, "another process already answers "
		    "at %s", path);
		errno = EADDRINUSE;
		return -1;
	}
	if ((errno != ECONNREFUSED && errno != ENOENT) ||
	    (unlink(path) == -1 && errno != ENOENT)) {
		(void)snprintf(why, whysz, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int
usock_listen(const char *path, int backlog, char *why, size_t whysz)
{
	struct sockaddr_un	sun;
	mode_t			old;
	int			fd, r;

	if (usock_addr(path, &sun) == -1) {
		(void)snprintf(why, whysz, "%s: too long for a socket", path);
		return -1;
	}
	if (usock_stale(path, why, whysz) == -1)
		return -1;
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1) {
		(void)snprintf(why, whysz, "socket: %s", strerror(errno));
		return -1;
	}
	old = umask(0177);
	r = bind(fd, (struct sockaddr *)&sun, sizeof(sun));
	umask(old);
	if (r == -1 || listen(fd, backlog) == -1) {
		(void)snprintf(why, whysz, "%s: %s", path,
		    errno == EADDRINUSE ? "another process took it" :
		    strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

int
usock_peer_is_self(int fd, uid_t *peer)
{
	struct ucred	cred;
	socklen_t	len = sizeof(cred);

	*peer = (uid_t)-1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == -1 ||
	    len != sizeof(cred))
		return -1;
	*peer = cred.uid;
	return cred.uid == geteuid() ? 0 : -1;
}
