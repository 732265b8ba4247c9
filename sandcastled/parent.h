/* The parent (parent.c): its loop, and its takes of the children's messages. */
#ifndef SANDCASTLED_PARENT_H
#define SANDCASTLED_PARENT_H

#include "msg.h"
#include "proc.h"

__attribute__((noreturn)) void
		 parent_main(struct config *, const struct options *, int exefd);
void		 parent_dispatch(struct proc *, struct msg *);
void		 parent_ready(void *proc, struct msg *);
void		 parent_sources(void *proc, struct msg *);
void		 parent_round_done(void *proc, struct msg *);

#endif
