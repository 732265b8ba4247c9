/* keep.sock: bound before anything hostile is read, 0600 in a 0700 folder. */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "listen.h"
#include "log.h"
#include "usock.h"

#define KEEPSOCK_BACKLOG	16

static char	keepsock_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
static int	keepsock_fd = -1;

int
keepsock_open(const char *path)
{
	char	 why[PATH_MAX + 64];
	int	 fd;

	if ((fd = usock_listen(path, KEEPSOCK_BACKLOG, why, sizeof(why))) == -1)
		fatalx("%s", why);
	strlcpy(keepsock_path, path, sizeof(keepsock_path));
	keepsock_fd = fd;
	return fd;
}

void
keepsock_close(void)
{
	if (keepsock_fd == -1)
		return;
	close(keepsock_fd);
	keepsock_fd = -1;
	if (unlink(keepsock_path) == -1 && errno != ENOENT)
		log_warn("%s: cannot remove it", keepsock_path);
}
