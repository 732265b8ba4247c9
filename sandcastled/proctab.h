/* sandcastled's tables (proctab.c): main() hands them down at start. */
#ifndef SANDCASTLED_PROCTAB_H
#define SANDCASTLED_PROCTAB_H

#include "proc.h"
#include "proto.h"

extern struct proc		 proc_children[PROC_COUNT];
extern const struct proc_msgrow	 proc_msgtab[PROC_MSG_END];

#endif
