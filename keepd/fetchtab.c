/* The messages with a request's child, a row each; main() hands them down. */
#include <sys/types.h>

#include "client.h"
#include "fetchmsg.h"
#include "fetchtab.h"
#include "keep.h"
#include "msg.h"
#include "secrets.h"

/* A row: type, least and most bytes, descriptor, senders, keepd's take. */
#define M(t, least, most, fd, from, take)	[FETCH_ ## t] = { \
	{ FETCH_ ## t, "FETCH_" #t, (least), (most), (fd), (from), 0, NULL }, \
	(take) }
#define CHILD	FETCH_CHILD
#define KEEPD	FETCH_KEEPD

const struct fetch_msgrow fetch_msgtab[FETCH_MSG_END] = {
	M(DEST, 1, NAME_LEN, 0, KEEPD, NULL),
	M(SECRET, 1, SECRET_MAX, 0, KEEPD, NULL),
	M(REQUEST, 1, KEEP_MAXENVELOPE, 0, KEEPD, NULL),
	M(TUNNEL, 0, KEEP_REASON_MAX, 2, CHILD | KEEPD, client_tunnel),
	M(LOCATION, 0, FETCH_LOCATION_MAX, 0, CHILD, client_location),
	M(KEEP, 0, 0, 0, CHILD, client_kept),
	M(ANSWER, sizeof(struct keep_answer), sizeof(struct keep_answer) +
	    KEEP_CTYPE_MAX, 2, CHILD, client_answered),
	M(REFUSED, sizeof(struct keep_refused), sizeof(struct keep_refused) +
	    KEEP_REASON_MAX, 0, CHILD, client_refused),
};
