/* The core (core.c): its row's columns. */
#ifndef SANDCASTLED_CORE_H
#define SANDCASTLED_CORE_H

#include "corebase.h"
#include "msg.h"

void	 core_init(struct config *, struct msgchan *);
void	 core_sandbox(void);
void	 core_ready(void);
int	 core_timer(void);

#endif
