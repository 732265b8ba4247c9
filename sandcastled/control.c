/* The control socket that sandcastlectl speaks to (ctl.h).  The peer's uid
 * is checked before a byte is read; a bad message closes that client. */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "control.h"
#include "ctl.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "proto.h"
#include "refused.h"
#include "summary.h"
#include "usock.h"

#define CONTROL_MAXCLIENTS	16
/* The largest message either way, CTL_SOURCE; the rules hold a client's to CTL_HELLO. */
#define CONTROL_MAXMSG		sizeof(struct ctl_source)
#define CONTROL_MAXOUTQ		160	/* answers left unread: two of 64 sources */

struct ctl_client {
	int		 used;
	int		 hello;		/* its CTL_HELLO had our version */
	int		 closing;	/* answered CTL_ERROR: close once sent */
	pid_t		 pid;
	struct msgchan	 chan;
};

static struct ctl_client control_clients[CONTROL_MAXCLIENTS];
static int		 control_map[CONTROL_MAXCLIENTS];	/* pollfd -> client */
static size_t		 control_nclients;
static int		 control_fd = -1;
static char		 control_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
static time_t		 control_start;

int
control_open(const char *path)
{
	char	 why[PATH_MAX + 64];
	int	 fd;

	if ((fd = usock_listen(path, CONTROL_MAXCLIENTS, why,
	    sizeof(why))) == -1)
		fatalx("%s", why);
	strlcpy(control_path, path, sizeof(control_path));
	control_fd = fd;
	control_start = time(NULL);
	return fd;
}

void
control_close(void)
{
	if (control_fd == -1)
		return;
	close(control_fd);
	control_fd = -1;
	if (unlink(control_path) == -1 && errno != ENOENT)
		log_warn("%s: cannot remove it", control_path);
}

time_t
control_started(void)
{
	return control_start;
}

static void
control_drop(struct ctl_client *c)
{
	close(c->chan.fd);
	msgchan_clear(&c->chan);
	memset(c, 0, sizeof(*c));
}

static void
control_error(struct ctl_client *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
control_error(struct ctl_client *c, const char *fmt, ...)
{
	char	 reason[256];
	va_list	 ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	log_debug("control: client pid %d: %s", (int)c->pid, reason);
	if (msg_compose(&c->chan, CTL_ERROR, 0, -1, reason, strlen(reason) + 1)
	    == -1)
		log_warn("control: an answer to pid %d", (int)c->pid);
	c->closing = 1;
}

static void
control_accept(void)
{
	struct ucred	 cred;
	socklen_t	 len = sizeof(cred);
	char		 reason[64];
	size_t		 i;
	int		 fd;

	fd = accept4(control_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd == -1) {
		if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
			log_warn("control: accept");
		return;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == -1) {
		log_warn("control: SO_PEERCRED");
		close(fd);
		return;
	}
	if (cred.uid != geteuid()) {
		log_warnx("control: refused a client of uid %u (pid %d): "
		    "not the operator's", (unsigned)cred.uid, (int)cred.pid);
		snprintf(reason, sizeof(reason),
		    "refused: uid %u is not the operator's", (unsigned)cred.uid);
		refused_hold(fd, reason);
		return;
	}
	for (i = 0; i < CONTROL_MAXCLIENTS; i++)
		if (!control_clients[i].used)
			break;
	if (i == CONTROL_MAXCLIENTS) {
		log_warnx("control: %d clients already: refused pid %d",
		    CONTROL_MAXCLIENTS, (int)cred.pid);
		refused_hold(fd, "refused: too many clients, try again");
		return;
	}
	control_clients[i].used = 1;
	control_clients[i].pid = cred.pid;
	msgchan_init(&control_clients[i].chan, fd, CONTROL_MAXMSG);
	log_debug("control: client pid %d", (int)cred.pid);
}

static void
control_hello(void *arg, struct msg *m)
{
	struct ctl_client	*c = arg;
	struct ctl_hello	 h;

	memcpy(&h, m->data, sizeof(h));
	if (h.version != CTL_VERSION) {
		control_error(c, "protocol version %u, this sandcastled "
		    "speaks %d", h.version, CTL_VERSION);
		return;
	}
	c->hello = 1;
	h.version = CTL_VERSION;
	if (msg_compose(&c->chan, CTL_HELLO, m->id, -1, &h, sizeof(h)) == -1)
		log_warn("control: an answer to pid %d", (int)c->pid);
}

static void
control_proc(struct ctl_client *c, uint32_t id, const char *title, pid_t pid,
    int ready, time_t started)
{
	struct ctl_proc	 cp;

	memset(&cp, 0, sizeof(cp));
	strlcpy(cp.title, title, sizeof(cp.title));
	cp.pid = pid;
	cp.state = ready ? CTL_PROC_RUNNING : CTL_PROC_STARTING;
	cp.started = started;
	if (msg_compose(&c->chan, CTL_STATUS_PROC, id, -1, &cp, sizeof(cp))
	    == -1)
		log_warn("control: an answer to pid %d", (int)c->pid);
}

static void
control_status(void *arg, struct msg *m)
{
	struct ctl_client	*c = arg;
	struct proc		*p = proc_table();
	struct ctl_jobs		 row;
	uint32_t		 id = m->id;
	size_t			 i;

	control_proc(c, id, "parent", getpid(), 1, control_start);
	for (i = 0; i < PROC_COUNT; i++)
		control_proc(c, id, p[i].title, p[i].pid, p[i].is_ready,
		    p[i].started);
	for (i = 0; summary_jobs(i, &row) == 0; i++)
		if (msg_compose(&c->chan, CTL_STATUS_JOBS, id, -1, &row,
		    sizeof(row)) == -1)
			log_warn("control: an answer to pid %d", (int)c->pid);
	if (msg_compose(&c->chan, CTL_END, id, -1, NULL, 0) == -1)
		log_warn("control: an answer to pid %d", (int)c->pid);
}

/* From the core's last summary: a busy core keeps no client waiting. */
static void
control_sources(void *arg, struct msg *m)
{
	struct ctl_client	*c = arg;
	const struct ctl_source	*v;
	uint32_t		 id = m->id;
	size_t			 i, n;

	if (!summary_last(&v, &n)) {
		control_error(c, "sandcastled has not scheduled yet");
		return;
	}
	for (i = 0; i < n; i++)
		if (msg_compose(&c->chan, CTL_SOURCE, id, -1, &v[i],
		    sizeof(v[i])) == -1)
			log_warn("control: an answer to pid %d", (int)c->pid);
	if (msg_compose(&c->chan, CTL_END, id, -1, NULL, 0) == -1)
		log_warn("control: an answer to pid %d", (int)c->pid);
}

static const struct msg_rule control_rules[] = {
	CTL_ROWS(MSG_ROW)
};
#define CONTROL_NRULES	(sizeof(control_rules) / sizeof(control_rules[0]))

static int
control_handle(struct ctl_client *c, struct msg *m)
{
	char	 why[128];

	if (msg_check_set(control_rules, CONTROL_NRULES,
	    msg_takes(control_rules, CONTROL_NRULES, CTL_DAEMON), m, why,
	    sizeof(why)) == -1) {
		log_warnx("control: client pid %d sent a malformed message "
		    "(type %u, %zu bytes: %s): closed", (int)c->pid, m->type,
		    m->len, why);
		return -1;
	}
	if (!c->hello && m->type != CTL_HELLO) {
		control_error(c, "the first message must be CTL_HELLO");
		return 0;
	}
	msg_rule_find(control_rules, CONTROL_NRULES, m->type)->take(c, m);
	return 0;
}

static void
control_read(struct ctl_client *c)
{
	struct msg	 m;
	ssize_t		 n;
	int		 r = 0, bad;

	if ((n = msgchan_read(&c->chan)) == -1 &&
	    (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		if (n == -1)
			log_warnx("control: client pid %d: %s: closed",
			    (int)c->pid, strerror(errno));
		control_drop(c);
		return;
	}
	while (!c->closing && (r = msg_get(&c->chan, &m)) == 1) {
		bad = control_handle(c, &m) == -1;
		msg_free(&m);
		if (bad) {
			control_drop(c);
			return;
		}
	}
	if (r == -1) {
		log_warnx("control: client pid %d sent a malformed message "
		    "(%s): closed", (int)c->pid, strerror(errno));
		control_drop(c);
	}
}

static void
control_write(struct ctl_client *c)
{
	int	 r;

	if (c->chan.outqlen > CONTROL_MAXOUTQ) {
		log_warnx("control: client pid %d leaves its answers unread: "
		    "closed", (int)c->pid);
		control_drop(c);
		return;
	}
	if (c->chan.outqlen > 0 && (r = msgchan_flush(&c->chan)) == -1) {
		if (errno != EPIPE && errno != ECONNRESET)
			log_warn("control: client pid %d", (int)c->pid);
		control_drop(c);
		return;
	}
	if (c->closing && c->chan.outqlen == 0)
		control_drop(c);
}

int
control_pollfds(struct pollfd *pfd, size_t max)
{
	struct ctl_client	*c;
	size_t			 i, n = 0;

	if (control_fd == -1 || max == 0)
		return 0;
	pfd[n].fd = control_fd;
	pfd[n++].events = POLLIN;
	for (i = 0; i < CONTROL_MAXCLIENTS && n < max; i++) {
		c = &control_clients[i];
		if (!c->used)
			continue;
		pfd[n].fd = c->chan.fd;
		pfd[n].events = (c->closing ? 0 : POLLIN) |
		    (c->chan.outqlen > 0 ? POLLOUT : 0);
		control_map[n - 1] = i;
		n++;
	}
	control_nclients = n - 1;
	return n + refused_pollfds(pfd + n, max - n);
}

void
control_dispatch(struct pollfd *pfd, size_t n)
{
	struct ctl_client	*c;
	size_t			 i, nc;

	if (n == 0)
		return;
	nc = 1 + control_nclients;
	refused_dispatch(pfd + nc, n - nc);
	for (i = 1; i < nc; i++) {
		c = &control_clients[control_map[i - 1]];
		if (!c->used || pfd[i].revents == 0)
			continue;
		if ((pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) &&
		    !c->closing)
			control_read(c);
		else if (pfd[i].revents & (POLLHUP | POLLERR)) {
			control_drop(c);
			continue;
		}
		if (c->used)
			control_write(c);
	}
	if (pfd[0].revents & POLLIN)
		control_accept();
}

size_t
control_maxfds(void)
{
	return 1 + CONTROL_MAXCLIENTS + refused_maxfds();
}
