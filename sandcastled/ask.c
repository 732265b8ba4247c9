/* A child's questions in flight, each answer held to the row it pays. */
#include <sys/types.h>

#include <stdlib.h>

#include "ask.h"
#include "log.h"
#include "msg.h"
#include "proc.h"
#include "proto.h"

struct ask {
	uint32_t	 id;
	uint32_t	 type;
	ask_take_fn	*take;		/* NULL: forgotten, dropped */
	void		*arg;
};

static struct ask	*asks;
static size_t		 nasks, asks_size;
static uint32_t		 ask_seq;
static int		 ask_me = -1;

void
ask_use(int proc_id)
{
	ask_me = proc_id;
}

static uint32_t
ask_next_id(uint32_t type)
{
	const struct proc_msgrow	*r = proc_msg(type);

	ask_seq = (ask_seq + 1) & ~PROC_ID_LAUNCHER;
	if (ask_seq == 0)
		ask_seq = 1;
	if (r != NULL && r->id_names_sender && ask_me == PROC_LAUNCHER)
		return ask_seq | PROC_ID_LAUNCHER;
	return ask_seq;
}

uint32_t
ask_send(struct msgchan *chan, uint32_t type, int fd,
    const struct iovec *iov, int iovcnt, ask_take_fn *take, void *arg)
{
	struct ask	*a;
	uint32_t	 id = ask_next_id(type);

	if (nasks == asks_size) {
		if ((a = reallocarray(asks, asks_size + 8, sizeof(*a))) == NULL)
			fatal("the questions in flight");
		asks = a;
		asks_size += 8;
	}
	if (msg_composev(chan, type, id, fd, iov, iovcnt) == -1)
		fatal("%s to the parent", proc_msg_name(type));
	asks[nasks++] = (struct ask){ id, type, take, arg };
	return id;
}

void
ask_answer(struct msg *m)
{
	const struct proc_msgrow	*r = proc_msg(m->type);
	struct ask			 a;
	size_t				 i;

	for (i = 0; i < nasks; i++)
		if (asks[i].id == m->id)
			break;
	if (i == nasks || r == NULL || r->to != ROUTE_ASKER ||
	    !(r->rule.pays & MSG_BIT(asks[i].type)))
		fatalx("the parent sent %s (id %u), which answers no question "
		    "asked with that id", proc_msg_name(m->type), m->id);
	a = asks[i];
	asks[i] = asks[--nasks];
	if (a.take != NULL)
		a.take(a.arg, m);
}

void
ask_forget(const void *arg)
{
	size_t	 i;

	for (i = 0; i < nasks; i++)
		if (asks[i].arg == arg)
			asks[i].take = NULL;
}

size_t
ask_pending(uint32_t type)
{
	size_t	 i, n = 0;

	for (i = 0; i < nasks; i++)
		n += asks[i].type == type;
	return n;
}
