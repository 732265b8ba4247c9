/* HTTP/1.1 as the keep speaks it, with no I/O: strict (keepd(8), HTTP). */
#ifndef SANDCASTLE_HTTP_H
#define SANDCASTLE_HTTP_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "envelope.h"
#include "keep.h"

#define HTTP_HEAD_MAX		(32 * 1024)	/* the header section, and the trailers */
#define HTTP_MAXLINES		100		/* header lines, and trailer lines */
#define HTTP_BODY_MAX		KEEP_MAXBODY
#define HTTP_CHUNKLINE_MAX	1024

/* A source's secret; a capability's is its row's (cap.h). */
extern const struct cap_credential http_bearer;

/* All checked again, so that none splits a header; why holds no secret. */
int	http_request_build(const struct destination *,
	    const struct envelope *, const struct cap_credential *,
	    const char *secret,
	    size_t secretlen, char **req, size_t *reqlen, const char **why);
void	http_request_free(char *req, size_t reqlen);	/* zeroes it: it holds the secret */

#define HTTP_MORE	0
#define HTTP_DONE	1
#define HTTP_ERROR	(-1)

struct http_response {
	int		 status;
	char		*content_type;
	char		*retry_after;
	char		*location;
	int64_t		 content_length;	/* -1 when absent */
	int		 chunked;
	int		 http11;
	int		 close;			/* Connection: close */
	unsigned char	*body;
	size_t		 bodylen;
	const char	*why;			/* after HTTP_ERROR */

	int		 state;
	int		 nobody;		/* the request was a HEAD */
	size_t		 seclen;		/* bytes of this header or trailer section */
	size_t		 nlines;
	size_t		 left;			/* bytes of the body or the chunk to come */
	size_t		 bodysize;
	int		 bodyfixed;		/* the body is the caller's buffer */
	int		 bodyfd;
	size_t		 linelen;
	char		 line[HTTP_HEAD_MAX + 1];
};

void	http_response_init(struct http_response *, int head);
/* buf, size bytes, stays the caller's; without it the parser allocates. */
void	http_response_body_in(struct http_response *, void *buf, size_t size);
/* Or written to fd from its offset: r->body stays NULL. */
void	http_response_body_to(struct http_response *, int fd);
/* *used: after HTTP_DONE, the rest belongs to no answer. */
int	http_response_feed(struct http_response *, const void *, size_t,
	    size_t *used);
/* The peer closed: HTTP_DONE for a body that ends there, else HTTP_ERROR. */
int	http_response_eof(struct http_response *);
/* After HTTP_DONE: 1 when framed, not closing and not a redirect. */
int	http_response_reusable(const struct http_response *);
void	http_response_free(struct http_response *);

#endif
