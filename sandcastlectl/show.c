/*
 * sandcastlectl show status and the control socket's helpers: every
 * message is checked against the table below before a byte is used.
 */
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/un.h>

#include <err.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"
#include "ctlcmd.h"
#include "msg.h"
#include "output.h"
#include "paths.h"
#include "show.h"
#include "usock.h"

struct show_conn {
	struct msgchan	 chan;
	char		 path[PATH_MAX];
};

static int	show_connect(const char *);
static void	show_open(struct show_conn *);
static void	show_send(struct show_conn *, uint32_t, const void *, size_t);
static void	show_get(struct show_conn *, struct msg *);
static void	show_close(struct show_conn *);

static int
show_connect(const char *path)
{
	int	fd;

	if ((fd = usock_connect(path)) == -1)
		errx(1, "sandcastled does not answer at %s: %s", path,
		    strerror(errno));
	return fd;
}

static void
show_send(struct show_conn *sc, uint32_t type, const void *data, size_t len)
{
	if (msg_compose(&sc->chan, type, 0, -1, data, len) == -1 ||
	    msgchan_flush_all(&sc->chan) == -1)
		err(1, "control.sock");
}

static void
show_get(struct show_conn *sc, struct msg *m)
{
	const char		*path = sc->path;
	char			 why[128];
	int			 n;

	if ((n = msg_read_one(&sc->chan, m)) == -1)
		err(1, "%s", path);
	if (n == 0)
		errx(1, "%s: sandcastled closed the connection", path);
	if (msg_check_set(ctl_rules, ctl_nrules, msg_takes(ctl_rules,
	    ctl_nrules, CTL_CLIENT), m, why, sizeof(why)) == -1)
		errx(1, "%s: sandcastled sent a message of type %u and "
		    "%zu bytes that this sandcastlectl does not take (%s)", path,
		    m->type, m->len, why);
	if (m->type == CTL_ERROR) {
		((char *)m->data)[m->len - 1] = '\0';
		errx(1, "sandcastled: %s", (char *)m->data);
	}
}

void
show_text(char *field, size_t size)
{
	size_t	 i;

	for (i = 0; i + 1 < size && field[i] != '\0'; i++)
		if (field[i] < 0x20 || field[i] >= 0x7f)
			field[i] = '?';
	field[i] = '\0';
}

static void
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

static void
show_close(struct show_conn *sc)
{
	(void)close(sc->chan.fd);
	msgchan_clear(&sc->chan);
}

/* m's data added to the answers of its type; 0, or -1 when none wants it. */
static int
show_keep(struct show_answers *want, size_t nwant, const struct msg *m)
{
	struct show_answers	*w;
	char			*nv;
	size_t			 k;

	for (k = 0; k < nwant; k++) {
		w = &want[k];
		if (w->type != m->type)
			continue;
		if ((nv = reallocarray(w->v, w->n + 1, w->size)) == NULL)
			errx(1, "out of memory");
		w->v = nv;
		memcpy(nv + w->n++ * w->size, m->data, w->size);
		return 0;
	}
	return -1;
}

void
show_ask_all(uint32_t ask, struct show_answers *want, size_t nwant)
{
	struct show_conn	 sc;
	struct msg		 m;

	show_open(&sc);
	show_send(&sc, ask, NULL, 0);
	for (;;) {
		show_get(&sc, &m);
		if (m.type == CTL_END)
			break;
		if (!msg_answers(ctl_rules, ctl_nrules, ask, &m) ||
		    show_keep(want, nwant, &m) == -1)
			errx(1, "%s: sandcastled answered out of turn", sc.path);
		msg_free(&m);
	}
	msg_free(&m);
	show_close(&sc);
}

void *
show_ask(uint32_t ask, uint32_t type, size_t size, size_t *np)
{
	struct show_answers	 want = { type, size, NULL, 0 };

	show_ask_all(ask, &want, 1);
	*np = want.n;
	return want.v;
}

int
ctl_show_status(const struct parse_result *res, const struct ctl_env *env)
{
	struct show_answers	 want[] = {
		{ CTL_STATUS_PROC, sizeof(struct ctl_proc), NULL, 0 },
		{ CTL_STATUS_JOBS, sizeof(struct ctl_jobs), NULL, 0 },
	};
	struct ctl_proc		*p;
	struct ctl_jobs		*j;
	size_t			 i;

	show_ask_all(CTL_SHOW_STATUS, want, 2);
	p = want[0].v;
	j = want[1].v;
	for (i = 0; i < want[0].n; i++)
		show_text(p[i].title, sizeof(p[i].title));
	for (i = 0; i < want[1].n; i++)
		show_text(j[i].name, sizeof(j[i].name));
	output_of(res)->status(p, want[0].n, j, want[1].n);
	free(p);
	free(j);
	return 0;
}
