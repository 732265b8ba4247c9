/* The lookups of proctab.c's rows, the parent's messages. */
#include <sys/types.h>

#include <stdio.h>

#include "log.h"
#include "msg.h"
#include "proto.h"

static const struct proc_msgrow	*proc_msgs;

void
proc_msgs_use(const struct proc_msgrow *rows)
{
	proc_msgs = rows;
}

const struct proc_msgrow *
proc_msg(uint32_t type)
{
	if (proc_msgs == NULL || type == 0 || type >= PROC_MSG_END ||
	    proc_msgs[type].rule.type != type)
		return NULL;
	return &proc_msgs[type];
}

/* The row after type's, in type order; from 0, the first. */
const struct proc_msgrow *
proc_msg_next(uint32_t type)
{
	const struct proc_msgrow	*r;

	while (++type < PROC_MSG_END)
		if ((r = proc_msg(type)) != NULL)
			return r;
	return NULL;
}

const char *
proc_msg_name(uint32_t type)
{
	static char			 num[32];
	const struct proc_msgrow	*r;

	if ((r = proc_msg(type)) != NULL)
		return r->rule.name;
	(void)snprintf(num, sizeof(num), "message type %u", type);
	return num;
}

/* fatalx unless m's type is in set, its size and descriptor its row's. */
void
proc_verify(uint32_t set, const struct msg *m, const char *peer)
{
	const struct proc_msgrow	*r = proc_msg(m->type);

	msg_verify_set(r != NULL ? &r->rule : NULL, r != NULL, set, m, peer);
}
