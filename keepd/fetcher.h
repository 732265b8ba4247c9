/* The requests' children as keepd holds them (fetcher.c). */
#ifndef KEEPD_FETCHER_H
#define KEEPD_FETCHER_H

#include <sys/types.h>
#include <sys/queue.h>

#include <stddef.h>
#include <time.h>

#include "msg.h"

#define WARM_IDLE_SECONDS	5
/* Warm children at most, a gate tunnel each: a ninth ends the oldest. */
#define WARM_MAX		8

struct keep_dest;
struct pollfd;
struct secret;

struct fetcher {
	TAILQ_ENTRY(fetcher)	 entry;
	const struct keep_dest	*kd;
	pid_t			 pid;
	struct msgchan		 chan;
	struct timespec		 idle_end;
	int			 tunnels;	/* given for this request */
};

void		 fetcher_init(const char *gatepath);
/* The spare made, unless one waits or too many ended untaken. */
void		 fetcher_spare(void);
/* To kd's warm child, else a new one; NULL when none could take it. */
struct fetcher	*fetcher_start(const struct keep_dest *kd, const void *env,
		    size_t envlen, const struct secret *);
/* Killed: serve_reap() reaps it. */
void		 fetcher_end(struct fetcher *);
void		 fetcher_keep(struct fetcher *);	/* warm, or ended */
size_t		 fetcher_warm_pollfds(struct pollfd *, struct fetcher **,
		    size_t max);
void		 fetcher_warm_input(struct fetcher *);
void		 fetcher_warm_expire(const struct timespec *now);
const struct timespec *fetcher_warm_first(void);
void		 fetcher_end_all(void);
int		 fetcher_tunnel(struct fetcher *f);
int		 fetcher_is_child(pid_t pid);
void		 fetcher_reaped(pid_t pid);

#endif
