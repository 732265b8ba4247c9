/* Each process's lock, its seccomp filter and Landlock ruleset (lock.c). */
#ifndef SANDCASTLED_LOCK_H
#define SANDCASTLED_LOCK_H

void		 sandbox_core(void);
void		 sandbox_keepfe(void);
void		 sandbox_launcher(void);
void		 sandbox_parent(void);
/* Each the Landlock ABI it used, 0 for none. */
int		 landlock_core(int datafd, const char *datadir);
int		 landlock_keepfe(void);
int		 landlock_parent(const char *rundir);

#endif
