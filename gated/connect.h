/*
 * The gate's CONNECT parser: what keepd sends on gate.sock before a
 * tunnel opens.  It is fed bytes as they come and never reads past the
 * empty line that ends the header section.
 *
 *	CONNECT name:port HTTP/1.1 CRLF
 *	(token ":" value CRLF) x 0..32
 *	CRLF
 *
 * Every limit is checked here; a request that passes gives a host that
 * is a DNS name (lower case, no trailing dot, never an IP literal in
 * any spelling) and a port in 1..65535.  Header lines must be well
 * formed but are otherwise ignored: Host is not trusted.
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
	CONNECT_MORE,		/* every byte taken; feed more */
	CONNECT_DONE,		/* host and port hold the request */
	CONNECT_ERROR		/* why holds a short, fixed reason */
};

struct connect_req {
	char		 host[HOST_LEN + 1];
	uint16_t	 port;
	const char	*why;
	int		 literal;	/* refused as an IP literal */

	/* the parser's own */
	enum connect_state state;
	int		 in_headers;
	int		 cr;		/* the last byte was a CR */
	size_t		 linelen;
	size_t		 hdrbytes;	/* of the header lines done */
	int		 nheaders;
	char		 line[CONNECT_HEADERS_MAX + 1];
};

void	connect_init(struct connect_req *);

/*
 * connect_feed() reads from buf and sets *used to exactly the number of
 * bytes it consumed: all of them on CONNECT_MORE, up to and including
 * the LF of the empty line on CONNECT_DONE, up to the offending byte on
 * CONNECT_ERROR.  What follows the empty line is the caller's, who must
 * not forward a byte of it before the gate has decided.  Once done or
 * failed, it consumes nothing and returns the same state.
 */
enum connect_state connect_feed(struct connect_req *, const void *buf,
		    size_t len, size_t *used);

/*
 * "name:port" alone, as in the request line: host gets the normalised
 * name.  Returns 0, or -1 with *why set; *literal is 1 when the target
 * was refused for naming an IP address.  *port is the port whenever it
 * is valid, even on a refusal (a literal's is recorded), and 0 if not.
 */
int	connect_target(const char *target, char *host, size_t hostsz,
	    uint16_t *port, const char **why, int *literal);

#endif
