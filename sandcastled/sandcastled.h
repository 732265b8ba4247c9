/* sandcastled's parent and children (sandcastled(8)). */
#ifndef SANDCASTLED_H
#define SANDCASTLED_H

#include <sys/types.h>

#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>

#include "msg.h"
#include "sandbox.h"

#define PROC_FD		3	/* a child's channel to the parent */

struct config;
struct proc_job;

struct options {
	char		 confdir[PATH_MAX];
	char		 secretsdir[PATH_MAX];
	int		 foreground;
	int		 verbose;
	int		 once;		/* -1: one round, then exit */
	char		*digests;	/* -D: the files the parent read (config_digests()) */
};

enum proc_id {
	PROC_CORE,
	PROC_KEEPFE,
	PROC_LAUNCHER,
	PROC_COUNT
};

#define PROC_BIT(id)	(1U << (id))

/*
 * A row is a child's whole life: init opens, sandbox locks, ready runs
 * once filtered, timer bounds each wait; what it takes and sends is
 * derived from proc_msgs at start, and the parent stops it by stop.
 */
struct proc {
	enum proc_id	 id;
	const char	*title;
	void		(*init)(struct config *, struct msgchan *);
	void		(*sandbox)(void);
	void		(*ready)(void);
	void		(*answer)(struct msg *);	/* its wait's, NULL: taken inside a take */
	int		(*timer)(void);	/* ms to the next turn, -1 none */
	uint32_t	 takes;		/* MSG_BIT()s: proc_msgs' rows to it */
	uint32_t	 sends;		/* and those from it */
	int		 deathsig;	/* sent to it when the parent dies */
	int		 stop_order;	/* the stop ends the children of 0 first */
	int		 stop_grace;	/* seconds from its turn to SIGKILL */
	int		 stop_early;	/* SIGTERM at the stop's start, before its turn */
	int		 own_sigterm;	/* it ends when it sees child_stopping(), else at once */
	pid_t		 pid;
	int		 pidfd;		/* the parent signals it by this alone */
	int		 is_ready;	/* PROC_READY came: its filter is on */
	time_t		 started;
	struct msgchan	 chan;
};

/*
 * proctab.c: a message's row says all of it; procmsg.c looks it up.  A
 * question (to a child, with its standin) is paid by the answers whose
 * pays it is; if the child that owes it ends, the parent sends the
 * standin (stop.c).
 */
#define ROUTE_PARENT	(-1)	/* the parent takes it */
#define ROUTE_ASKER	(-2)	/* the child that asked what it pays */
struct proc_msgrow {
	struct msg_rule	 rule;		/* its type, name, least and most bytes */
	uint32_t	 from;		/* PROC_BIT()s of the children that send it */
	int		 to;		/* enum proc_id, ROUTE_PARENT or ROUTE_ASKER */
	uint32_t	 pays;		/* ROUTE_ASKER: the question it answers */
	int		(*standin)(struct msgchan *, uint32_t id);	/* a question's */
	void		(*take)(struct proc *, struct msg *);	/* the parent's or to's */
	int		 id_names_sender;	/* PROC_ID_LAUNCHER set: the launcher's */
};
extern const struct proc_msgrow proc_msgtab[];	/* proctab.c */
void		 proc_msgs_use(const struct proc_msgrow *);
const struct proc_msgrow *proc_msg(uint32_t type);
const struct proc_msgrow *proc_msg_next(uint32_t type);

/* proc.c, on proctab.c's proc_children */
extern struct proc proc_children[];
void		 proc_use(struct proc *);
struct proc	*proc_table(void);
struct proc	*proc_by_title(const char *);
struct proc	*proc_by_pid(pid_t);
void		 proc_start_all(int exefd, const struct options *);
void		 proc_kill_all(int sig);
void		 proc_signal(struct proc *, int sig);
int		 proc_reap(int stopping, void (*)(struct proc *));
int		 proc_running(void);
void		 proc_describe_exit(const struct proc *, int status, char *, size_t);

/* child.c: what every child does around its row's columns */
extern int	 child_once;		/* sandcastled -1: one round */
__attribute__((noreturn)) void
		 child_main(const char *title, const struct options *);
const volatile sig_atomic_t *
		 child_stopping(void);
int		 child_await(struct msg *);
void		 child_take(struct proc *, struct msg *);

/* parent.c */
__attribute__((noreturn)) void
		 parent_main(struct config *, const struct options *, int exefd);
void		 parent_dispatch(struct proc *, struct msg *);
void		 parent_ready(struct proc *, struct msg *);
void		 parent_sources(struct proc *, struct msg *);
void		 parent_round_done(struct proc *, struct msg *);

/* stop.c: the parent's stop, and the answers a child gone owed */
void		 stop_owe(uint32_t type, enum proc_id asker, uint32_t id);
int		 stop_paid(uint32_t type, uint32_t id, enum proc_id *asker);
int		 stop_standin_state(struct msgchan *, uint32_t id);
int		 stop_standin_down(struct msgchan *, uint32_t id);
int		 stop_standin_job(struct msgchan *, uint32_t id);
void		 stop_orphans(void);
void		 stop_begin(int status);
int		 stop_running(void);
void		 stop_step(void);
int		 stop_timeout(void);

/* control.c */
int		 control_open(const char *path);
void		 control_close(void);
int		 control_pollfds(struct pollfd *, size_t);
size_t		 control_maxfds(void);
void		 control_dispatch(struct pollfd *, size_t);
time_t		 control_started(void);

/* refused.c: refused control connections, held until they read why */
void		 refused_hold(int fd, const char *reason);
size_t		 refused_pollfds(struct pollfd *, size_t);
void		 refused_dispatch(struct pollfd *, size_t);
int		 refused_timeout(void);
size_t		 refused_maxfds(void);

/* core.c, keepfe.c, launcher.c: each child's columns */
void		 core_init(struct config *, struct msgchan *);
void		 core_sandbox(void);
void		 core_ready(void);
void		 core_answer(struct msg *);
int		 core_timer(void);
void		 keepfe_init(struct config *, struct msgchan *);
void		 keepfe_sandbox(void);
void		 keepfe_ready(void);
void		 keepfe_probe(struct proc *, struct msg *);
void		 keepfe_call(struct proc *, struct msg *);
void		 launcher_init(struct config *, struct msgchan *);
void		 launcher_sandbox(void);
void		 launcher_ready(void);
void		 launcher_job(struct proc *, struct msg *);
int		 launcher_input(const struct proc_job *, int fd, const char **);

/* destrule.c: 0 when the envelope names a destination its caller may use */
int		 keepfe_may(const struct config *, const char *envelope,
		    size_t len, int launcher, char *why, size_t whysz);

/* sandbox.c, and readlock.c the children's base and the reader's lock */
void		 sandbox_core(void);
void		 sandbox_keepfe(void);
void		 sandbox_launcher(void);
void		 sandbox_reader(void);
scmp_filter_ctx	 sandbox_child_list(void);
/* The Landlock rulesets beside them: each the ABI it used, 0 for none. */
int		 landlock_core(int datafd, const char *datadir);
int		 landlock_keepfe(void);
int		 landlock_reader(void);
void		 sandbox_parent(void);
int		 landlock_parent(const char *rundir);

#endif
