/* What every process of sandcastled shares: the children's rows (proc.c). */
#ifndef SANDCASTLED_PROC_H
#define SANDCASTLED_PROC_H

#include <sys/types.h>

#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <time.h>

#include "msg.h"

#define PROC_FD		3	/* a child's channel to the parent */

struct config;

struct options {
	char		 confdir[PATH_MAX];
	char		 secretsdir[PATH_MAX];
	int		 foreground;
	int		 verbose;
	int		 once;		/* -1: one round, then exit */
	char		*digests;	/* -D: the files the parent read */
};

enum proc_id {
	PROC_CORE,
	PROC_KEEPFE,
	PROC_LAUNCHER,
	PROC_COUNT
};

#define PROC_BIT(id)	(1U << (id))

/* A row is a child's whole life; what it takes and sends is proc_msgtab's. */
struct proc {
	enum proc_id	 id;
	const char	*title;
	void		(*init)(struct config *, struct msgchan *);
	void		(*sandbox)(void);
	void		(*ready)(void);
	int		(*timer)(void);	/* ms to the next turn, -1 none */
	size_t		(*pollfds)(struct pollfd *, size_t);
	void		(*dispatch)(struct pollfd *, size_t);
	uint32_t	 takes;		/* MSG_BIT()s: proc_msgtab's rows to it */
	uint32_t	 sends;
	int		 deathsig;	/* sent to it when the parent dies */
	int		 stop_order;	/* the stop ends the children of 0 first */
	int		 stop_grace;	/* seconds from its turn to SIGKILL */
	int		 stop_early;	/* SIGTERM at the stop's start */
	int		 own_sigterm;
	pid_t		 pid;
	int		 pidfd;		/* the parent signals it by this alone */
	int		 is_ready;
	time_t		 started;
	struct msgchan	 chan;
};

void		 proc_use(struct proc *);
struct proc	*proc_table(void);
struct proc	*proc_by_title(const char *);
struct proc	*proc_by_pid(pid_t);
void		 proc_start_all(int exefd, const struct options *);
void		 proc_kill_all(int sig);
void		 proc_signal(struct proc *, int sig);
int		 proc_reap(int stopping, void (*)(struct proc *));
int		 proc_running(void);
void		 proc_describe_exit(const struct proc *, int status, char *,
		    size_t);

#endif
