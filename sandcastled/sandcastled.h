/*
 * sandcastled: the parent and its three children, each a re-exec of
 * the same binary with -P <title>.  See sandcastled(8).
 */
#ifndef SANDCASTLED_H
#define SANDCASTLED_H

#include <sys/types.h>

#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <time.h>

#include "msg.h"

#define PROC_FD		3	/* a child's channel to the parent */

struct config;

/* What the parent passes on to each child's command line. */
struct options {
	char		 confdir[PATH_MAX];
	char		 secretsdir[PATH_MAX];
	int		 foreground;
	int		 verbose;
	int		 once;		/* -1: one round, then exit */
};

enum proc_id {
	PROC_CORE,
	PROC_KEEPFE,
	PROC_LAUNCHER,
	PROC_COUNT
};

/* The table of children (proc.c): what each is, and the parent's view of it. */
struct proc {
	enum proc_id	 id;
	const char	*title;
	void		(*run)(struct config *, struct msgchan *);
	void		(*dispatch)(struct proc *, struct msg *);
	int		 deathsig;	/* sent to it when the parent dies */
	pid_t		 pid;
	int		 ready;		/* PROC_READY came: its filter is on */
	time_t		 started;
	struct msgchan	 chan;
};

/* proc.c */
struct proc	*proc_table(void);
struct proc	*proc_by_title(const char *);
struct proc	*proc_by_pid(pid_t);
void		 proc_start_all(int exefd, const struct options *);
void		 proc_kill_all(int sig);
int		 proc_reap(int stopping);
int		 proc_running(void);
void		 proc_describe_exit(const struct proc *, int status, char *, size_t);

/* child.c: what every child does, its filter aside */
extern int	 child_once;		/* sandcastled -1: one round */
__attribute__((noreturn)) void
		 child_main(const char *title, const struct options *);
void		 child_ready(struct msgchan *);
const volatile sig_atomic_t *
		 child_stopping(void);
__attribute__((noreturn)) void
		 child_loop(struct msgchan *, const struct msg_rule *, size_t,
		    const char *, void (*)(struct msg *));

/* parent.c */
__attribute__((noreturn)) void
		 parent_main(struct config *, const struct options *, int exefd);
void		 parent_dispatch_core(struct proc *, struct msg *);
void		 parent_dispatch_keepfe(struct proc *, struct msg *);
void		 parent_dispatch_launcher(struct proc *, struct msg *);

/* stop.c: the parent's stop, and the answers a child gone owed */
enum owe {
	OWE_PROBE,		/* the keep's state, to the core */
	OWE_CORE_CALL,		/* a keep call's answer, to the core */
	OWE_LAUNCHER_CALL,	/* a keep call's answer, to the launcher */
	OWE_JOB,		/* a job's outcome, to the core */
	OWE_COUNT
};
void		 stop_owe(enum owe, uint32_t id);
void		 stop_paid(enum owe);
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

/* core.c, keepfe.c, launcher.c: each child's work */
__attribute__((noreturn)) void
		 core_run(struct config *, struct msgchan *);
__attribute__((noreturn)) void
		 keepfe_run(struct config *, struct msgchan *);
__attribute__((noreturn)) void
		 launcher_run(struct config *, struct msgchan *);

/* destrule.c: 0 when the envelope names a destination its caller may use */
int		 keepfe_may(const struct config *, const char *envelope,
		    size_t len, int launcher, char *why, size_t whysz);

/* sandbox.c */
void		 sandbox_core(void);
void		 sandbox_keepfe(void);
void		 sandbox_launcher(void);
/* The Landlock rulesets beside them: each the ABI it used, 0 for none. */
int		 landlock_core(int datafd, const char *datadir);
int		 landlock_keepfe(void);

#endif
