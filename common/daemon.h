/*
 * What the daemons (sandcastled, keepd, gated) do alike at start: the
 * flags, the configuration, a user and network namespace of their own.
 */
#ifndef SANDCASTLE_DAEMON_H
#define SANDCASTLE_DAEMON_H

#include <limits.h>
#include <signal.h>

struct config;

/* What a daemon's start has of its own; daemon_start() fills the rest. */
struct daemon_start {
	const char	*name;		/* the program, its log's tag */
	const char	*usage;		/* its flags, as usage: shows them */
	const char	*flags;		/* its own flags for getopt, beside c:dnVv */
	int		 secrets;	/* takes -s dir */
	/* one of its own flags; -1 is a usage error */
	int		(*flag)(struct daemon_start *, int, const char *);
	/* run, if set, once the start is logged and before the read */
	void		(*before_config)(struct daemon_start *);

	int		 foreground;	/* -d */
	int		 noaction;	/* -n */
	int		 verbose;	/* -v, counted */
	char		 confdir[PATH_MAX];	/* absolute */
	char		 secretsdir[PATH_MAX];	/* absolute, with secrets */
};

/*
 * Refuses root, makes sure descriptors 0 to 2 exist, logs to stderr,
 * reads the configuration; -n ends here (-nv prints it first).
 */
struct config	*daemon_start(struct daemon_start *, int argc, char *argv[]);

/* The configuration, or every problem on stderr and exit(1). */
struct config	*daemon_config(const char *dir);

/*
 * unshare(2) a user and a network namespace, the operator mapped to 0
 * and no one else in it; fatal when the machine allows none.
 */
void		 daemon_own_netns(void);

/*
 * Blocked everywhere but in a ppoll(2) given *waitmask, so that none
 * falls between the check of its flag and the wait.
 */
void		 daemon_signals(void (*handler)(int), sigset_t *waitmask);

#endif
