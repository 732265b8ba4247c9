/*
 * gate.sock: the one way into the gate.  A socket left by a gate that
 * died is removed; one that answers belongs to a gate still running,
 * and two gates would each believe they hold the list.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "gate.h"
#include "log.h"

static void
sun_fill(struct sockaddr_un *sun, const char *path)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (strlcpy(sun->sun_path, path, sizeof(sun->sun_path)) >=
	    sizeof(sun->sun_path))
		fatalx("%s: path too long for a socket", path);
}

/* 1 when a gate answers on path. */
static int
listen_live(const struct sockaddr_un *sun)
{
	int	fd, live;

	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		fatal("socket");
	live = connect(fd, (const struct sockaddr *)sun, sizeof(*sun)) == 0;
	close(fd);
	return live;
}

static void
listen_clear(const struct sockaddr_un *sun)
{
	struct stat	st;

	if (lstat(sun->sun_path, &st) == -1) {
		if (errno == ENOENT)
			return;
		fatal("%s", sun->sun_path);
	}
	if (!S_ISSOCK(st.st_mode))
		fatalx("%s: is not a socket: remove it", sun->sun_path);
	if (listen_live(sun))
		fatalx("%s: another gate is running: stop it first",
		    sun->sun_path);
	if (unlink(sun->sun_path) == -1)
		fatal("%s: cannot remove a stale socket", sun->sun_path);
	log_debug("removed a stale %s", sun->sun_path);
}

int
listen_open(const char *path)
{
	struct sockaddr_un	sun;
	mode_t			old;
	int			fd;

	sun_fill(&sun, path);
	listen_clear(&sun);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
	    0)) == -1)
		fatal("socket");
	old = umask(0177);
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1)
		fatal("%s: bind", path);
	umask(old);
	if (chmod(path, 0600) == -1)
		fatal("%s: chmod", path);
	if (listen(fd, GATE_CHILDREN_MAX) == -1)
		fatal("%s: listen", path);
	return fd;
}

void
listen_remove(const char *path)
{
	if (unlink(path) == -1 && errno != ENOENT)
		log_warn("%s: cannot remove", path);
}
