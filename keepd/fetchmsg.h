/* What keepd and its request children share: their messages (fetchmsg.c). */
#ifndef KEEPD_FETCHMSG_H
#define KEEPD_FETCHMSG_H

#include <stddef.h>
#include <stdint.h>

#include "msg.h"

/* Sent in order: DEST with a TUNNEL once, then a request's SECRET, REQUEST. */
enum fetch_msg {
	FETCH_DEST = 1,		/* keepd: the destination's name */
	FETCH_SECRET,		/* keepd: its secret's value */
	FETCH_REQUEST,		/* keepd: the envelope */
	FETCH_TUNNEL,		/* keepd: the gate's socket or why; the child: empty, asks one */
	FETCH_LOCATION,		/* child: a redirect's location, for the log */
	FETCH_KEEP,		/* child: it stays warm, before its answer */
	FETCH_ANSWER,		/* child: keep.h's KEEP_ANSWER's payload and memfd */
	FETCH_REFUSED,		/* child: keep.h's KEEP_REFUSED's payload */
	FETCH_MSG_END
};
#define FETCH_KEEPD	0x1	/* a row's senders */
#define FETCH_CHILD	0x2

/* Its first, and one more when a kept connection had ended. */
#define FETCH_TUNNELS_MAX	2
#define FETCH_LOCATION_MAX	512
#define FETCH_MAXPAYLOAD	MSG_MAXPAYLOAD
#define KEEP_REASON_MAX		512	/* bytes of a refusal's reason */

struct client;
struct fetch_msgrow {
	struct msg_rule	 rule;
	/* keepd's: 0 the request goes on, 2 answered, 1 ended otherwise */
	int		(*take)(struct client *, struct msg *);
};

void		 fetch_msgs_use(const struct fetch_msgrow *);
const struct fetch_msgrow *fetch_msg(uint32_t type);
int		 fetch_check(uint32_t side, const struct msg *, char *why,
		    size_t whysz);

#endif
