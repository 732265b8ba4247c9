/*
 * t_recipe.sh's proof, built only in its scratch copy, where HACKING's
 * recipe added PROC_JOB_PING and PROC_JOB_PONG: the rows derived, the
 * launcher's take answering, the core's question taken, and an answer
 * to a question never asked ending its taker.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "log.h"
#include "msg.h"
#include "../../sandcastled/ask.h"
#include "../../sandcastled/child.h"
#include "../../sandcastled/core.h"
#include "../../sandcastled/launcher.h"
#include "../../sandcastled/proc.h"
#include "../../sandcastled/proctab.h"
#include "../../sandcastled/proto.h"

static void
pair(struct msgchan *a, struct msgchan *b)
{
	int	 sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1)
		fatal("socketpair");
	msgchan_init(a, sv[0], PROC_MAXPAYLOAD);
	msgchan_init(b, sv[1], PROC_MAXPAYLOAD);
}

static void
next(struct msgchan *from, struct msgchan *to, struct msg *m)
{
	if (msgchan_flush_all(from) == -1 || msg_read_one(to, m) != 1)
		fatalx("no message came");
}

static void
launcher_side(void)
{
	struct msgchan	 chan, parent;
	struct msg	 m;
	uint32_t	 up;

	pair(&chan, &parent);
	launcher_init(config_new("/nonexistent"), &chan);
	memset(&m, 0, sizeof(m));
	m.type = PROC_JOB_PING;
	m.id = 7;
	m.fd = -1;
	child_take(&proc_table()[PROC_LAUNCHER], &m);
	next(&chan, &parent, &m);
	memcpy(&up, m.data, sizeof(up));
	printf("launcher: %s %u\n", proc_msg_name(m.type), up);
	msg_free(&m);
}

static void
core_side(void)
{
	struct msgchan	 chan, parent;
	struct config	*conf;
	struct msg	 m;
	char		 cwd[PATH_MAX], dir[PATH_MAX + 8];
	uint32_t	 up = 1;
	uint32_t	 id;
	pid_t		 pid;
	int		 st;

	if (getcwd(cwd, sizeof(cwd)) == NULL)
		fatal("getcwd");
	(void)snprintf(dir, sizeof(dir), "%s/data", cwd);
	conf = config_new(cwd);
	free(conf->data_dir);
	conf->data_dir = strdup(dir);
	pair(&chan, &parent);
	core_init(conf, &chan);
	core_ready();
	next(&chan, &parent, &m);
	printf("core: asked %s\n", proc_msg_name(m.type));
	id = m.id;
	msg_free(&m);
	/* The control first, in a child: an answer no question asked. */
	if ((pid = fork()) == 0) {
		m.type = PROC_JOB_PONG;
		m.id = 999;
		m.data = &up;
		m.len = sizeof(up);
		ask_answer(&m);
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 1)
		fatalx("an answer to no question was taken");
	memset(&m, 0, sizeof(m));
	m.type = PROC_JOB_PONG;
	m.id = id;
	m.fd = -1;
	m.data = &up;
	m.len = sizeof(up);
	ask_answer(&m);
}

int
main(void)
{
	const struct proc	*t;

	log_init("recipe", 1, 0);
	proc_use(proc_children);
	proc_msgs_use(proc_msgtab);
	t = proc_table();
	if ((t[PROC_LAUNCHER].takes & MSG_BIT(PROC_JOB_PING)) &&
	    (t[PROC_CORE].takes & MSG_BIT(PROC_JOB_PONG)) &&
	    (t[PROC_CORE].sends & MSG_BIT(PROC_JOB_PING)) &&
	    !(t[PROC_KEEPFE].takes & MSG_BIT(PROC_JOB_PONG)))
		printf("rows: launcher takes PROC_JOB_PING, core takes "
		    "PROC_JOB_PONG\n");
	fflush(stdout);
	launcher_side();
	fflush(stdout);
	core_side();
	return 0;
}
