/*
 * The gate's CONNECT parser, fed bytes as they come: "CONNECT name:port
 * HTTP/1.1", 0 to 32 header lines (token ":" value), an empty line, each
 * ending in CRLF.  The host is never an IP literal; Host is not trusted.
 */
#ifndef SANDCASTLE_CONNECT_H
#define SANDCASTLE_CONNECT_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"

#define CONNECT_LINE_MAX	512	/* the request line, with its CRLF */
#define CONNECT_HEADERS_MAX	4096	/* every header line and the empty one */
#define CONNECT_NHEADERS_MAX	32

enum connect_state {
	CONNECT_MORE,
	CONNECT_DONE,
	CONNECT_ERROR		/* why holds a short, fixed reason */
};

struct connect_req {
	char		 host[HOST_LEN + 1];
	uint16_t	 port;
	const char	*why;
	int		 literal;

	enum connect_state state;
	int		 in_headers;
	int		 cr;
	size_t		 linelen;
	size_t		 hdrbytes;	/* of the header lines done */
	int		 nheaders;
	char		 line[CONNECT_HEADERS_MAX + 1];
};

void	connect_init(struct connect_req *);

/* *used ends at the empty line's LF: what follows waits for the decision. */
enum connect_state connect_feed(struct connect_req *, const void *buf,
		    size_t len, size_t *used);

/* *literal: refused as an IP address; *port kept even then, for the record. */
int	connect_target(const char *target, char *host, size_t hostsz,
	    uint16_t *port, const char **why, int *literal);

#endif
