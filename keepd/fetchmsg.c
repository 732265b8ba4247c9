/* The messages between keepd and a request's child, a row each. */
#include <sys/types.h>

#include <stdio.h>

#include "keep.h"
#include "keepd.h"
#include "msg.h"
#include "secrets.h"

#define M(t, least, most, fd)	[FETCH_ ## t] = { .rule = { FETCH_ ## t, \
				    "FETCH_" #t, (least), (most), (fd) }
#define CHILD	FETCH_TO_CHILD
#define KEEPD	FETCH_TO_KEEPD

static const struct fetch_msgrow fetch_msgs[FETCH_MSG_END] = {
	M(DEST, 1, NAME_LEN, 0), CHILD },
	M(SECRET, 1, SECRET_MAX, 0), CHILD },
	M(REQUEST, 1, KEEP_MAXENVELOPE, 0), CHILD },
	M(TUNNEL, 0, KEEP_REASON_MAX, 2), CHILD | KEEPD, client_tunnel },
	M(LOCATION, 0, FETCH_LOCATION_MAX, 0), KEEPD, client_location },
	M(KEEP, 0, 0, 0), KEEPD, client_kept },
	M(ANSWER, sizeof(struct keep_answer), sizeof(struct keep_answer) +
	    KEEP_CTYPE_MAX, 2), KEEPD, client_answered },
	M(REFUSED, sizeof(struct keep_refused), sizeof(struct keep_refused) +
	    KEEP_REASON_MAX, 0), KEEPD, client_refused },
};

const struct fetch_msgrow *
fetch_msg(uint32_t type)
{
	if (type == 0 || type >= FETCH_MSG_END ||
	    fetch_msgs[type].rule.type != type)
		return NULL;
	return &fetch_msgs[type];
}

/* 0 when m is of a row to to, of its size and descriptor; else why. */
int
fetch_check(int to, const struct msg *m, char *why, size_t whysz)
{
	const struct fetch_msgrow	*r;

	if ((r = fetch_msg(m->type)) == NULL || !(r->to & to)) {
		(void)snprintf(why, whysz, "%s", r == NULL ? "unknown type" :
		    "not a message this process takes");
		return -1;
	}
	return msg_check(&r->rule, 1, m, why, whysz);
}
