/*
 * Server-sent events (the WHATWG HTML standard's "event stream
 * interpretation") over a body already whole in memory: lines end in
 * CR, LF or CRLF and at no other byte, a line from ':' is a comment,
 * each "data" line is joined to the event's data with LF, a blank line
 * dispatches.  An event left unfinished at the end (its blank line, or
 * its last line's end, missing) is handed out marked cut, for the
 * caller to judge, where the standard drops it.  "id" and "retry" only
 * serve a reconnection, which the box never makes, and are ignored as
 * every other field is.  Bounded: an event's type by SSE_TYPE_MAX, its
 * data by the caller's max; past either the stream is refused.
 */
#ifndef SANDCASTLE_BOX_SSE_H
#define SANDCASTLE_BOX_SSE_H

#include <stddef.h>

#define SSE_TYPE_MAX	64

struct sse {
	const char	*buf;
	size_t		 len, off;
	size_t		 max;		/* bytes of one event's data */
	char		 type[SSE_TYPE_MAX + 1];
	size_t		 typelen;
	char		*data;
	size_t		 datalen, datasz;
	int		 given;		/* the event is handed out */
};

struct sse_event {
	const char	*type;		/* "message" when the event named none */
	size_t		 typelen;	/* the name may hold a NUL */
	int		 named;		/* 0: the event named none */
	int		 cut;		/* 1: the stream ended inside it */
	const char	*data;		/* NUL-terminated; may hold a NUL */
	size_t		 datalen;
};

void	 sse_init(struct sse *, const char *buf, size_t len, size_t max);
/*
 * 1 and the next event, valid until the next call; 0 at the end; -1
 * and why (a bound passed, out of memory).
 */
int	 sse_next(struct sse *, struct sse_event *, const char **why);
void	 sse_free(struct sse *);

#endif
