/* The parent's stop, and the answers a child gone owed (stop.c). */
#ifndef SANDCASTLED_STOP_H
#define SANDCASTLED_STOP_H

#include <stdint.h>

#include "msg.h"
#include "proc.h"

void		 stop_owe(uint32_t type, enum proc_id asker, uint32_t id);
int		 stop_paid(uint32_t type, uint32_t id, enum proc_id *asker);
size_t		 stop_owed(enum proc_id asker);
void		 stop_orphans(void);
void		 stop_begin(int status);
int		 stop_running(void);
void		 stop_step(void);
int		 stop_timeout(void);

#endif
