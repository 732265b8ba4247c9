/*
 * What the daemons (sandcastled, keepd, gated) do alike at start: read
 * the configuration or say every problem and exit, and move into a user
 * and network namespace of their own.
 */
#ifndef SANDCASTLE_DAEMON_H
#define SANDCASTLE_DAEMON_H

#include <signal.h>

struct config;

/* The configuration, or every problem on stderr and exit(1). */
struct config	*daemon_config(const char *dir);

/*
 * unshare(2) a user and a network namespace, the operator mapped to 0
 * and no one else in it; fatal when the machine allows none.
 */
void		 daemon_own_netns(void);

/*
 * SIGTERM, SIGINT and SIGCHLD go to handler, blocked everywhere but in
 * a ppoll(2) given *waitmask, so that none falls between the check of
 * its flag and the wait; SIGPIPE and SIGHUP are ignored.
 */
void		 daemon_signals(void (*handler)(int), sigset_t *waitmask);

#endif
