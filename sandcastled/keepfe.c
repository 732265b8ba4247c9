/*
 * The keep-frontend: the only process that talks to keepd.  A caller's
 * envelope must name a destination it may use (destrule.c); a broken
 * connection is made again at the next call.
 */
#include <sys/types.h>

#include <limits.h>
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

static struct config	*keepfe_conf;
static struct msgchan	*keepfe_chan;
static struct keepcli	*keepfe_keep;
static char		 keepfe_sock[PATH_MAX];
static int		 keepfe_was_down = -1;

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

static int
keepfe_connect(const char **why)
{
	if (keepfe_keep != NULL)
		return 0;
	if ((keepfe_keep = keepcli_open(keepfe_sock, why)) == NULL) {
		keepfe_state(1, *why);
		return -1;
	}
	keepfe_state(0, NULL);
	return 0;
}

static void
keepfe_send(uint32_t type, uint32_t id, const void *data, size_t len)
{
	if (msg_compose(keepfe_chan, type, id, -1, data, len) == -1)
		fatal("a message to the parent");
}

void
keepfe_call(void *proc, struct msg *m)
{
	struct keepcli_answer	 a;
	struct proc_keep_call	 pc;
	const char		*why, *env;
	char			 bad[256];
	size_t			 len;

	memcpy(&pc, m->data, sizeof(pc));
	env = (const char *)m->data + sizeof(pc);
	len = m->len - sizeof(pc);
	memset(&a, 0, sizeof(a));
	if (keepfe_may(keepfe_conf, env, len,
	    (m->id & PROC_ID_LAUNCHER) != 0, bad, sizeof(bad)) == -1) {
		log_warnx("refused a call: %s", bad);
		a.refused = 1;
		a.code = KEEP_R_ENVELOPE;
		(void)strlcpy(a.reason, bad, sizeof(a.reason));
	} else if (keepfe_connect(&why) == -1) {
		keepfe_send(PROC_KEEP_DOWN, m->id, why, strlen(why));
		return;
	} else if (keepcli_request(keepfe_keep, env, len, pc.seconds, &a,
	    &why) == -1) {
		keepcli_close(keepfe_keep);
		keepfe_keep = NULL;
		keepfe_state(1, why);
		keepfe_send(PROC_KEEP_DOWN, m->id, why, strlen(why));
		return;
	}
	if (keepcli_answer_send(keepfe_chan, PROC_KEEP_ANSWER, m->id, &a) == -1)
		fatal("a message to the parent");
	keepcli_answer_free(&a);
}

void
keepfe_probe(void *proc, struct msg *m)
{
	const char	*why;
	uint32_t	 up;

	up = keepfe_connect(&why) == 0;
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
