/* The keep-frontend: the only process that talks to keepd.  Each call in
 * flight has a connection of its own: keepd answers one at a time on each. */
#include <sys/types.h>

#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "config.h"
#include "destrule.h"
#include "keepcli.h"
#include "keepfe.h"
#include "lock.h"
#include "log.h"
#include "msg.h"
#include "paths.h"
#include "proc.h"
#include "proto.h"

struct keepfe_conn {
	struct keepcli	*k;		/* NULL: a free slot */
	uint32_t	 id;
};

static struct config		*keepfe_conf;
static struct msgchan		*keepfe_chan;
static char			 keepfe_sock[PATH_MAX];
static int			 keepfe_was_down = -1;
static struct keepfe_conn	 keepfe_conns[KEEPFE_CONNS];

/* One line when the keep comes or goes, not one per call. */
static void
keepfe_state(int down, const char *why)
{
	if (down == keepfe_was_down)
		return;
	keepfe_was_down = down;
	if (down)
		log_warnx("the keep does not answer on %s: %s; calls wait "
		    "for it", keepfe_sock, why);
	else
		log_info("the keep answers on %s", keepfe_sock);
}

static void
keepfe_drop(struct keepfe_conn *c)
{
	keepcli_close(c->k);
	c->k = NULL;
	c->id = 0;
}

static struct keepfe_conn *
keepfe_idle(const char **why)
{
	struct keepfe_conn	*c, *slot = NULL;
	size_t			 i;

	for (i = 0; i < KEEPFE_CONNS; i++) {
		c = &keepfe_conns[i];
		if (c->k != NULL && c->id == 0)
			return c;
		if (c->k == NULL && slot == NULL)
			slot = c;
	}
	if (slot == NULL) {
		*why = "every connection to the keep carries a call";
		return NULL;
	}
	if ((slot->k = keepcli_open(keepfe_sock, why)) == NULL) {
		keepfe_state(1, *why);
		return NULL;
	}
	if (fcntl(keepcli_fd(slot->k), F_SETFL, O_NONBLOCK) == -1)
		fatal("O_NONBLOCK on keep.sock");
	keepfe_state(0, NULL);
	return slot;
}

static void
keepfe_send(uint32_t type, uint32_t id, const void *data, size_t len)
{
	if (msg_compose(keepfe_chan, type, id, -1, data, len) == -1)
		fatal("a message to the parent");
}

static void
keepfe_answer(uint32_t id, struct keepcli_answer *a)
{
	if (keepcli_answer_send(keepfe_chan, PROC_KEEP_ANSWER, id, a) == -1)
		fatal("a message to the parent");
	keepcli_answer_free(a);
}

static void
keepfe_refuse(uint32_t id, const char *why)
{
	struct keepcli_answer	 a;

	log_warnx("refused a call: %s", why);
	memset(&a, 0, sizeof(a));
	a.body_fd = -1;
	a.refused = 1;
	a.code = KEEP_R_ENVELOPE;
	(void)strlcpy(a.reason, why, sizeof(a.reason));
	keepfe_answer(id, &a);
}

void
keepfe_call(void *proc, struct msg *m)
{
	struct keepfe_conn	*c;
	struct proc_keep_call	 pc;
	const char		*why, *env;
	char			 bad[256];
	size_t			 len;

	memcpy(&pc, m->data, sizeof(pc));
	env = (const char *)m->data + sizeof(pc);
	len = m->len - sizeof(pc);
	if (keepfe_may(keepfe_conf, env, len,
	    (m->id & PROC_ID_LAUNCHER) != 0, bad, sizeof(bad)) == -1) {
		keepfe_refuse(m->id, bad);
		return;
	}
	if ((c = keepfe_idle(&why)) == NULL) {
		keepfe_send(PROC_KEEP_DOWN, m->id, why, strlen(why));
		return;
	}
	if (keepcli_send(c->k, env, len, pc.seconds, &why) == -1) {
		keepfe_drop(c);
		keepfe_state(1, why);
		keepfe_send(PROC_KEEP_DOWN, m->id, why, strlen(why));
		return;
	}
	c->id = m->id;
}

/* A call's answer, or its end: the keep closed, broke it, or hung. */
static void
keepfe_receive(struct keepfe_conn *c)
{
	struct keepcli_answer	 a;
	const char		*why;
	int			 r;

	if ((r = keepcli_receive(c->k, &a, &why)) == 0)
		return;
	if (r == 1) {
		keepfe_answer(c->id, &a);
		c->id = 0;
		return;
	}
	keepfe_state(1, why);
	keepfe_send(PROC_KEEP_DOWN, c->id, why, strlen(why));
	keepfe_drop(c);
}

size_t
keepfe_pollfds(struct pollfd *pfd, size_t max)
{
	size_t	 i, n = 0;

	for (i = 0; i < KEEPFE_CONNS && n < max; i++) {
		if (keepfe_conns[i].id == 0)
			continue;
		pfd[n].fd = keepcli_fd(keepfe_conns[i].k);
		pfd[n++].events = POLLIN;
	}
	return n;
}

void
keepfe_dispatch(struct pollfd *pfd, size_t n)
{
	size_t	 i, k = 0;

	for (i = 0; i < KEEPFE_CONNS && k < n; i++) {
		if (keepfe_conns[i].id == 0)
			continue;
		if (pfd[k++].revents & (POLLIN | POLLHUP | POLLERR))
			keepfe_receive(&keepfe_conns[i]);
	}
}

/* The soonest a call's wait runs out; one that did ends as the keep's. */
int
keepfe_timer(void)
{
	struct keepfe_conn	*c;
	size_t			 i;
	int			 ms, soonest = -1;

	for (i = 0; i < KEEPFE_CONNS; i++) {
		c = &keepfe_conns[i];
		if (c->id == 0)
			continue;
		if ((ms = keepcli_wait_ms(c->k)) <= 0) {
			keepfe_receive(c);
			ms = c->id != 0 ? 0 : -1;
		}
		if (ms >= 0 && (soonest == -1 || ms < soonest))
			soonest = ms;
	}
	return soonest;
}

void
keepfe_probe(void *proc, struct msg *m)
{
	const char	*why;
	uint32_t	 up;

	up = keepfe_idle(&why) != NULL;
	keepfe_send(PROC_KEEP_STATE, m->id, &up, sizeof(up));
}

void
keepfe_init(struct config *conf, struct msgchan *chan)
{
	keepfe_conf = conf;
	keepfe_chan = chan;
	if (path_runtime_file(KEEP_SOCK, keepfe_sock,
	    sizeof(keepfe_sock)) == -1)
		fatalx("%s: it holds keepd's socket", path_why());
}

void
keepfe_sandbox(void)
{
	landlock_keepfe();
	sandbox_keepfe();
}

void
keepfe_ready(void)
{
	log_debug("ready: %zu sources, the keep on %s", keepfe_conf->nsources,
	    keepfe_sock);
}

/* In the keep-frontend's place, once it ended: the keep is down. */
int
keepfe_standin_state(struct msgchan *chan, uint32_t id)
{
	uint32_t	 up = 0;

	return msg_compose(chan, PROC_KEEP_STATE, id, -1, &up, sizeof(up));
}

int
keepfe_standin_down(struct msgchan *chan, uint32_t id)
{
	static const char	 down[] = "the keep-frontend ended";

	return msg_compose(chan, PROC_KEEP_DOWN, id, -1, down,
	    sizeof(down) - 1);
}
