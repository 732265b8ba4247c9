/*
 * gate.sock.  One that answers belongs to a running gate: two gates
 * would each believe they hold the list.
 */
#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <unistd.h>

#include "gate.h"
#include "log.h"
#include "usock.h"

int
listen_open(const char *path)
{
	char	 why[PATH_MAX + 64];
	int	 fd;

	if ((fd = usock_listen(path, GATE_CHILDREN_MAX, why,
	    sizeof(why))) == -1) {
		if (errno == EADDRINUSE)
			fatalx("%s: another gate is running: stop it first",
			    path);
		fatalx("%s", why);
	}
	return fd;
}

void
listen_remove(const char *path)
{
	if (unlink(path) == -1 && errno != ENOENT)
		log_warn("%s: cannot remove", path);
}
