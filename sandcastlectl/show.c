/*
 * sandcastlectl show status, and the control socket's helpers (show.h)
 * that show sources shares: asks sandcastled over control.sock (common/ctl.h)
 * and prints its answer.  Every message it gets is checked against the
 * table below before a byte of it is used.
 */
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

#include <err.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"
#include "msg.h"
#include "paths.h"
#include "sandcastlectl.h"
#include "show.h"
#include "usock.h"

static const struct msg_rule show_rules[] = {
	{ CTL_HELLO,	   "hello",	  sizeof(struct ctl_hello),
	    sizeof(struct ctl_hello), 0 },
	{ CTL_ERROR,	   "error",	  1, CTL_MAXPAYLOAD, 0 },
	{ CTL_END,	   "end",	  0, 0, 0 },
	{ CTL_STATUS_PROC, "status proc", sizeof(struct ctl_proc),
	    sizeof(struct ctl_proc), 0 },
	{ CTL_SOURCE,	   "source",	  sizeof(struct ctl_source),
	    sizeof(struct ctl_source), 0 },
};

static int	show_connect(const char *);
static void	show_proc(const struct ctl_proc *);
static const char *state_name(int32_t);

static int
show_connect(const char *path)
{
	int	fd;

	if ((fd = usock_connect(path)) == -1)
		errx(1, "sandcastled does not answer at %s: %s", path,
		    strerror(errno));
	return fd;
}

void
show_send(struct show_conn *sc, uint32_t type, const void *data, size_t len)
{
	if (msg_compose(&sc->chan, type, 0, -1, data, len) == -1 ||
	    msgchan_flush_all(&sc->chan) == -1)
		err(1, "control.sock");
}

void
show_get(struct show_conn *sc, struct msg *m)
{
	const struct msg_rule	*r;
	const char		*path = sc->path;
	int			 n;

	if ((n = msg_read_one(&sc->chan, m)) == -1)
		err(1, "%s", path);
	if (n == 0)
		errx(1, "%s: sandcastled closed the connection", path);
	r = msg_rule_find(show_rules, sizeof(show_rules) /
	    sizeof(show_rules[0]), m->type);
	if (r == NULL || m->len < r->minlen || m->len > r->maxlen ||
	    m->fd != -1)
		errx(1, "%s: sandcastled sent a message of type %u and "
		    "%zu bytes that this sandcastlectl does not take", path,
		    m->type, m->len);
	if (m->type == CTL_ERROR) {
		((char *)m->data)[m->len - 1] = '\0';
		errx(1, "sandcastled: %s", (char *)m->data);
	}
}

static const char *
state_name(int32_t state)
{
	switch (state) {
	case CTL_PROC_RUNNING:
		return "running";
	case CTL_PROC_STARTING:
		return "starting";
	}
	return "unknown";
}

static void
show_proc(const struct ctl_proc *p)
{
	char		title[sizeof(p->title) + 1], since[32];
	time_t		t = (time_t)p->started;
	struct tm	tm;

	memcpy(title, p->title, sizeof(p->title));
	title[sizeof(p->title)] = '\0';
	if (localtime_r(&t, &tm) == NULL ||
	    strftime(since, sizeof(since), "%Y-%m-%d %H:%M:%S", &tm) == 0)
		(void)strlcpy(since, "-", sizeof(since));
	printf("%-16s %8d %-9s %s\n", title, (int)p->pid,
	    state_name(p->state), since);
}

void
show_open(struct show_conn *sc)
{
	struct ctl_hello	hello = { CTL_VERSION };
	struct msg		m;

	if (path_runtime_file(CONTROL_SOCK, sc->path, sizeof(sc->path)) == -1)
		errx(1, "%s", path_why());
	msgchan_init(&sc->chan, show_connect(sc->path), CTL_MAXPAYLOAD);
	show_send(sc, CTL_HELLO, &hello, sizeof(hello));
	show_get(sc, &m);
	if (m.type != CTL_HELLO ||
	    ((struct ctl_hello *)m.data)->version != CTL_VERSION)
		errx(1, "%s: sandcastled speaks another protocol version; "
		    "run the sandcastlectl of the same build", sc->path);
	msg_free(&m);
}

void
show_close(struct show_conn *sc)
{
	(void)close(sc->chan.fd);
	msgchan_clear(&sc->chan);
}

int
ctl_show_status(void)
{
	struct show_conn	sc;
	struct msg		m;

	show_open(&sc);
	show_send(&sc, CTL_SHOW_STATUS, NULL, 0);
	printf("%-16s %8s %-9s %s\n", "PROCESS", "PID", "STATE", "SINCE");
	for (;;) {
		show_get(&sc, &m);
		if (m.type == CTL_END)
			break;
		if (m.type != CTL_STATUS_PROC)
			errx(1, "%s: sandcastled answered out of turn", sc.path);
		show_proc(m.data);
		msg_free(&m);
	}
	msg_free(&m);
	show_close(&sc);
	return 0;
}
