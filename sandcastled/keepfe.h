/* The keep-frontend (keepfe.c): its row's columns and its takes. */
#ifndef SANDCASTLED_KEEPFE_H
#define SANDCASTLED_KEEPFE_H

#include <stdint.h>

#include "msg.h"
#include "proc.h"

void		 keepfe_init(struct config *, struct msgchan *);
void		 keepfe_sandbox(void);
void		 keepfe_ready(void);
void		 keepfe_probe(void *proc, struct msg *);
void		 keepfe_call(void *proc, struct msg *);
/* What the parent answers in the keep-frontend's place once it ended. */
int		 keepfe_standin_state(struct msgchan *, uint32_t id);
int		 keepfe_standin_down(struct msgchan *, uint32_t id);

#endif
