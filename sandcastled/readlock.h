/* The filter each child starts from, and the lock of a box's reader
 * (readlock.c). */
#ifndef SANDCASTLED_READLOCK_H
#define SANDCASTLED_READLOCK_H

#include <seccomp.h>

scmp_filter_ctx	 sandbox_child_list(void);
void		 sandbox_reader(void);
int		 landlock_reader(void);
void		 reader_lock(void);

#endif
