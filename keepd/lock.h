/* keepd's and a request child's seccomp filters and Landlock rulesets. */
#ifndef KEEPD_LOCK_H
#define KEEPD_LOCK_H

void		 sandbox_keepd(int secretsfd);
void		 sandbox_fetch(void);
/* Each the Landlock ABI it used, 0 for none. */
int		 landlock_keepd(int secretsfd, const char *secretsdir,
		    const char *sockdir);
int		 landlock_fetch(void);

#endif
