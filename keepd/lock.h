/*
 * keepd's and its request child's locks, a seccomp filter and a Landlock
 * ruleset each (lock.c): a ruleset's function returns the ABI it used,
 * 0 for none.
 */
#ifndef KEEPD_LOCK_H
#define KEEPD_LOCK_H

void		 sandbox_keepd(int secretsfd);
void		 sandbox_fetch(void);
int		 landlock_keepd(int secretsfd, const char *secretsdir,
		    const char *sockdir);
int		 landlock_fetch(void);

#endif
