/* What every child of sandcastled does around its row's columns (child.c). */
#ifndef SANDCASTLED_CHILD_H
#define SANDCASTLED_CHILD_H

#include <signal.h>

#include "msg.h"
#include "proc.h"

extern int	 child_once;		/* sandcastled -1: one round */
__attribute__((noreturn)) void
		 child_main(const char *title, const struct options *);
const volatile sig_atomic_t *
		 child_stopping(void);
void		 child_take(struct proc *, struct msg *);

#endif
