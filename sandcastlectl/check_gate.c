/*
 * check: the running gate, last: its route lookups repeated in its
 * namespaces, then its refusals of the last hour and what to do.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "paths.h"
#include "usock.h"
#include "../gated/barrier.h"
#include "../gated/netlink.h"
#include "../gated/refusal.h"
#include "check.h"

#define GATE_UNIT	"sandcastle-gate.service"
#define GATE_RESTART	"restart it: systemctl --user restart sandcastle-gate"
#define GATE_START	"start it: systemctl --user start sandcastle-gate; " \
			"its log: journalctl --user -u sandcastle-gate"

static void
check_refusal(const struct refusal_sum *sum, void *arg)
{
	struct check	*c = arg;
	char		 line[1024];

	if (refusal_format(sum, line, sizeof(line)) == -1)
		return;
	check_line(c, MARK_WARN, "%s", line);
}

/* The pid of the process serving gate.sock, as our namespace sees it. */
static int
gate_pid(const char *sock, pid_t *pid, char *why, size_t whysz)
{
	struct ucred	cr;
	socklen_t	len = sizeof(cr);
	int		fd;

	if ((fd = usock_connect(sock)) == -1) {
		(void)snprintf(why, whysz, "no gate answers at %s: %s", sock,
		    strerror(errno));
		return -1;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) == -1 ||
	    cr.pid <= 0 || cr.uid != getuid()) {
		(void)snprintf(why, whysz, "the process at %s is not the "
		    "gate of this account", sock);
		close(fd);
		return -1;
	}
	close(fd);
	*pid = cr.pid;
	return 0;
}

static int
join(pid_t pid, const char *ns, int type)
{
	char	path[64];
	int	fd, r;

	(void)snprintf(path, sizeof(path), "/proc/%ld/ns/%s", (long)pid, ns);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	r = setns(fd, type);
	close(fd);
	return r;
}

/* In a child: the gate's namespaces, then the lookups; the line on fd. */
static __attribute__((noreturn)) void
gate_lookups(pid_t pid, const struct barrier *b, int fd)
{
	char	why[512];
	int	nl, n;

	if (join(pid, "user", CLONE_NEWUSER) == -1 ||
	    join(pid, "net", CLONE_NEWNET) == -1) {
		dprintf(fd, "E cannot join the gate's network (pid %ld): %s",
		    (long)pid, strerror(errno));
		_exit(0);
	}
	nl = nl_open();
	if ((n = barrier_verify(nl, b, why, sizeof(why))) == -1)
		dprintf(fd, "F %s", why);
	else
		dprintf(fd, "O %d", n);
	_exit(0);
}

static int
gate_ask(pid_t pid, const struct barrier *b, char *out, size_t outsz)
{
	ssize_t	n;
	size_t	len = 0;
	pid_t	child;
	int	p[2], status;

	if (pipe2(p, O_CLOEXEC) == -1 || (child = fork()) == -1)
		return -1;
	if (child == 0) {
		close(p[0]);
		gate_lookups(pid, b, p[1]);
	}
	close(p[1]);
	while (len + 1 < outsz && (n = read(p[0], out + len,
	    outsz - len - 1)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			break;
		len += n;
	}
	out[len] = '\0';
	close(p[0]);
	while (waitpid(child, &status, 0) == -1 && errno == EINTR)
		continue;
	return len > 2 ? 0 : -1;
}

/* What to do: systemctl's where install wrote the unit, else by hand. */
static const char *
gate_advice(const struct check *c, pid_t restart, char *buf, size_t bufsz)
{
	char	cmd[3 * PATH_MAX];

	if (check_unit_installed(GATE_UNIT))
		return restart ? GATE_RESTART : GATE_START;
	check_by_hand(c, "gated", 0, cmd, sizeof(cmd));
	if (restart)
		(void)snprintf(buf, bufsz, "restart it: kill %ld, then start "
		    "it again in a terminal of its own: %s", (long)restart,
		    cmd);
	else
		(void)snprintf(buf, bufsz, "start it in a terminal of its "
		    "own: %s", cmd);
	return buf;
}

static void
check_gate_network(struct check *c)
{
	struct barrier		 b;
	char			 sock[PATH_MAX], why[PATH_MAX + 128];
	char			 out[640], advice[4 * PATH_MAX];
	pid_t			 pid;
	size_t			 i;

	if (path_runtime_file(GATE_SOCK, sock, sizeof(sock)) == -1) {
		if (c->keep)
			check_line(c, MARK_FAIL, "gate: %s", path_why());
		return;
	}
	/* A warn: each destination's line already fails without a gate. */
	if (gate_pid(sock, &pid, why, sizeof(why)) == -1) {
		if (c->keep)
			check_line(c, MARK_WARN, "gate: %s; its network was not "
			    "looked at; %s", why,
			    gate_advice(c, 0, advice, sizeof(advice)));
		return;
	}
	memset(&b, 0, sizeof(b));
	barrier_machine(&b);
	for (i = 0; i < c->conf->ndests; i++)
		if (c->conf->dests[i]->has_internal)
			barrier_add_exc(&b, c->conf->dests[i]->internal_ip,
			    c->conf->dests[i]->name);
	if (gate_ask(pid, &b, out, sizeof(out)) == -1)
		check_line(c, MARK_FAIL, "gate: its network could not be "
		    "looked at (pid %ld)", (long)pid);
	else if (out[0] == 'O')
		check_line(c, MARK_OK, "gate: its network refuses every bogon "
		    "and this machine (%s route lookups)", out + 2);
	else if (out[0] == 'F')
		check_line(c, MARK_FAIL, "gate: its network lets through: %s; "
		    "%s", out + 2, gate_advice(c, pid, advice, sizeof(advice)));
	else
		check_line(c, MARK_FAIL, "gate: %s", out + 2);
}

int
check_gate(struct check *c)
{
	char	 path[PATH_MAX];

	check_gate_network(c);
	if (path_state_dir(path, sizeof(path)) == -1 ||
	    strlcat(path, "/" REFUSAL_FILE, sizeof(path)) >= sizeof(path)) {
		check_line(c, MARK_WARN, "gate: the refusals cannot be read: "
		    "%s", path_why());
		return 0;
	}
	if (refusal_summary(path, time(NULL), check_refusal, c) == -1)
		check_line(c, MARK_WARN, "gate: the refusals cannot be read: "
		    "%s: %s", path, strerror(errno));
	return 0;
}
