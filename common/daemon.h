/* What the daemons do alike at start: flags, configuration, own namespaces. */
#ifndef SANDCASTLE_DAEMON_H
#define SANDCASTLE_DAEMON_H

#include <limits.h>
#include <signal.h>

struct config;

struct daemon_start {
	const char	*name;		/* the program, its log's tag */
	const char	*usage;
	const char	*flags;		/* its own flags for getopt, beside c:dnVv */
	int		 secrets;
	/* one of its own flags; -1 is a usage error */
	int		(*flag)(struct daemon_start *, int, const char *);
	/* run, if set, once the start is logged and before the read */
	void		(*before_config)(struct daemon_start *);

	int		 foreground;
	int		 noaction;
	int		 verbose;
	char		 confdir[PATH_MAX];
	char		 secretsdir[PATH_MAX];
};

/* Refuses root, makes sure of fds 0 to 2, reads the configuration; -n ends. */
struct config	*daemon_start(struct daemon_start *, int argc, char *argv[]);

/* The configuration, or every problem on stderr and exit(1). */
struct config	*daemon_config(const char *dir);

/* A user and network namespace, the operator as 0; fatal when none is had. */
void		 daemon_own_netns(void);

/* Held from before the socket is made: a SIGTERM while the daemon starts
 * waits for its loop, which removes the socket. */
void		 daemon_hold_signals(void);
/* Blocked but in a ppoll(2) given *waitmask: none falls before the wait. */
void		 daemon_signals(void (*handler)(int), sigset_t *waitmask);

#endif
