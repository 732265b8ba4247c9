/* The lookups of fetchtab.c's rows, keepd's and its request child's. */
#include <sys/types.h>

#include <stdio.h>

#include "fetchmsg.h"
#include "msg.h"

static const struct fetch_msgrow	*fetch_msgs;

void
fetch_msgs_use(const struct fetch_msgrow *rows)
{
	fetch_msgs = rows;
}

const struct fetch_msgrow *
fetch_msg(uint32_t type)
{
	if (fetch_msgs == NULL || type == 0 || type >= FETCH_MSG_END ||
	    fetch_msgs[type].rule.type != type)
		return NULL;
	return &fetch_msgs[type];
}

/* 0 when m is of a row another side sends, of its size; else why. */
int
fetch_check(uint32_t side, const struct msg *m, char *why, size_t whysz)
{
	const struct fetch_msgrow	*r;

	if ((r = fetch_msg(m->type)) == NULL || !(r->rule.from & ~side)) {
		(void)snprintf(why, whysz, "%s", r == NULL ? "unknown type" :
		    "not a message this process takes");
		return -1;
	}
	return msg_check(&r->rule, 1, m, why, whysz);
}
