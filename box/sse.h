/*
 * Server-sent events, as WHATWG HTML reads an event stream, over a body
 * whole in memory.  An event left unfinished at the end is handed out
 * marked cut, for the caller to judge, where the standard drops it.
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
	int		 given;
};

struct sse_event {
	const char	*type;		/* "message" when the event named none */
	size_t		 typelen;	/* the name may hold a NUL */
	int		 named;
	int		 cut;		/* 1: the stream ended inside it */
	const char	*data;		/* NUL-terminated; may hold a NUL */
	size_t		 datalen;
};

void	 sse_init(struct sse *, const char *buf, size_t len, size_t max);
/* 1 and the next event, valid until the next call; 0 at the end; -1, why. */
int	 sse_next(struct sse *, struct sse_event *, const char **why);
void	 sse_free(struct sse *);

#endif
