/* The questions a child has in flight to another: each answer is checked
 * against the question of its id and goes to the take it was asked with. */
#ifndef SANDCASTLED_ASK_H
#define SANDCASTLED_ASK_H

#include <sys/uio.h>

#include <stddef.h>
#include <stdint.h>

#include "msg.h"

typedef void	 ask_take_fn(void *arg, struct msg *);

/* Whose questions: the launcher's keep calls carry PROC_ID_LAUNCHER. */
void		 ask_use(int proc_id);
uint32_t	 ask_send(struct msgchan *, uint32_t type, int fd,
		    const struct iovec *, int iovcnt, ask_take_fn *, void *arg);
/* Its take, when a row pays the question of its id; fatal otherwise. */
void		 ask_answer(struct msg *);
/* The questions arg asked: their answers are dropped when they come. */
void		 ask_forget(const void *arg);
size_t		 ask_pending(uint32_t type);

#endif
