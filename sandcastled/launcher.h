/* The box launcher (launcher.c): its row's columns and its take. */
#ifndef SANDCASTLED_LAUNCHER_H
#define SANDCASTLED_LAUNCHER_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>

#include "msg.h"
#include "proc.h"
#include "proto.h"

void		 launcher_init(struct config *, struct msgchan *);
void		 launcher_sandbox(void);
void		 launcher_ready(void);
void		 launcher_job(void *proc, struct msg *);
size_t		 launcher_pollfds(struct pollfd *, size_t);
void		 launcher_dispatch(struct pollfd *, size_t);
int		 launcher_timer(void);
/* What the parent answers in the launcher's place once it ended. */
int		 launcher_standin_job(struct msgchan *, uint32_t id);
int		 launcher_input(const struct proc_job *, int fd, const char **);

#endif
