/*
 * HTTP/1.1 as the keep speaks it to a destination, with no I/O: the
 * request's bytes, and a parser of the answer fed as it arrives.
 *
 * The parser is strict (keepd(8), HTTP): a status line "HTTP/1.1 " or
 * "HTTP/1.0 ", CRLF line endings only, no folded lines, a header section
 * of at most 32 KiB and 100 lines, and one framing: Content-Length
 * (plain digits, once), Transfer-Encoding: chunked, or the end of the
 * connection.  It never takes a byte past the end of the answer.
 *
 * A 1xx answer is an error.  A redirect (3xx) is an answer like any
 * other: the parser stops after its header section with the status and
 * the location and reads none of its body; the caller returns the
 * status (the keep never follows a redirect).  204, 304 and the answer
 * to a HEAD have no body either.
 *
 * The request asks for nothing about the connection: HTTP/1.1 keeps it
 * open by default.  http_response_reusable() says whether the answer
 * left it fit for another request.
 */
#ifndef SANDCASTLE_HTTP_H
#define SANDCASTLE_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "envelope.h"
#include "keep.h"

#define HTTP_HEAD_MAX		(32 * 1024)	/* the header section, and the trailers */
#define HTTP_MAXLINES		100		/* header lines, and trailer lines */
#define HTTP_BODY_MAX		KEEP_MAXBODY	/* 32 MiB */
#define HTTP_CHUNKLINE_MAX	1024		/* a chunk's size line, with its extensions */

/* How the secret goes on the request. */
enum http_auth {
	HTTP_AUTH_API_KEY = 1,		/* x-api-key: <secret> (claude) */
	HTTP_AUTH_BEARER		/* Authorization: Bearer <secret> (a source) */
};

/*
 * The whole request, head and body, in a new buffer for
 * http_request_free().  The destination's address, the envelope and
 * the secret are checked again here, so that none can split a header
 * whoever built them: -1 and why, a fixed phrase that never holds the
 * secret.
 */
int	http_request_build(const struct destination *,
	    const struct envelope *, enum http_auth, const char *secret,
	    size_t secretlen, char **req, size_t *reqlen, const char **why);
void	http_request_free(char *req, size_t reqlen);	/* zeroes it: it holds the secret */

#define HTTP_MORE	0
#define HTTP_DONE	1
#define HTTP_ERROR	(-1)

struct http_response {
	int		 status;
	char		*content_type;		/* NULL when absent */
	char		*retry_after;
	char		*location;		/* for the log line of a redirect */
	int64_t		 content_length;	/* -1 when absent */
	int		 chunked;
	int		 http11;		/* the status line's HTTP/1.1 */
	int		 close;			/* Connection: close */
	unsigned char	*body;
	size_t		 bodylen;
	const char	*why;			/* after HTTP_ERROR */

	/* The parser's own. */
	int		 state;
	int		 nobody;		/* the request was a HEAD */
	size_t		 seclen;		/* bytes of this header or trailer section */
	size_t		 nlines;
	size_t		 left;			/* bytes of the body or the chunk to come */
	size_t		 bodysize;
	int		 bodyfixed;		/* the body is the caller's buffer */
	int		 bodyfd;		/* or written to this file */
	size_t		 linelen;
	char		 line[HTTP_HEAD_MAX + 1];
};

/* head != 0 when the request was a HEAD. */
void	http_response_init(struct http_response *, int head);
/*
 * After init: the body goes into buf, size bytes (HTTP_BODY_MAX for any
 * body the parser takes), which stays the caller's; without it the
 * parser allocates the body itself.
 */
void	http_response_body_in(struct http_response *, void *buf, size_t size);
/*
 * Or written to fd as it comes, from its offset, up to HTTP_BODY_MAX:
 * r->body stays NULL.
 */
void	http_response_body_to(struct http_response *, int fd);
/*
 * Takes bytes of the answer: HTTP_MORE when it needs more, HTTP_DONE
 * when the answer is complete, HTTP_ERROR (r->why) when it breaks a
 * rule.  *used gets how many bytes it took: after HTTP_DONE the rest
 * belongs to no answer.
 */
int	http_response_feed(struct http_response *, const void *, size_t,
	    size_t *used);
/* The peer closed: HTTP_DONE for a body that ends there, else HTTP_ERROR. */
int	http_response_eof(struct http_response *);
/*
 * After HTTP_DONE: 1 when the connection may carry the next request, an
 * HTTP/1.1 answer without Connection: close whose end its framing gave
 * (Content-Length, chunks, or none by its status) and whose body was
 * read whole; 0 for an answer that ended with the connection, or a
 * redirect, whose body the parser never reads.
 */
int	http_response_reusable(const struct http_response *);
void	http_response_free(struct http_response *);

#endif
