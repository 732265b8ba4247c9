/* The keep-frontend (keepfe.c): its row's columns and its takes. */
#ifndef SANDCASTLED_KEEPFE_H
#define SANDCASTLED_KEEPFE_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "msg.h"
#include "proc.h"

/* Calls at once, at most: every job's, and the core's. */
#define KEEPFE_CONNS	40

void		 keepfe_init(struct config *, struct msgchan *);
void		 keepfe_sandbox(void);
void		 keepfe_ready(void);
void		 keepfe_probe(void *proc, struct msg *);
size_t		 keepfe_pollfds(struct pollfd *, size_t);
void		 keepfe_dispatch(struct pollfd *, size_t);
int		 keepfe_timer(void);
void		 keepfe_call(void *proc, struct msg *);
/* What the parent answers in the keep-frontend's place once it ended. */
int		 keepfe_standin_state(struct msgchan *, uint32_t id);
int		 keepfe_standin_down(struct msgchan *, uint32_t id);

#endif
