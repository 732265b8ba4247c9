/*
 * A box's request held to the one its box sends: checked by the
 * launcher and again by the keep frontend.  The operator's settings are
 * compared byte for byte; what the job may choose (prompt, schema) is
 * held to its shape.
 */
#ifndef SANDCASTLE_CAPREQ_H
#define SANDCASTLE_CAPREQ_H

#include <stddef.h>

struct config;
struct json;

/* The roles a request may be of: a job's, a check's, or either. */
#define CAPREQ_RUN	0x1
#define CAPREQ_CHECK	0x2
#define CAPREQ_ANY	(CAPREQ_RUN | CAPREQ_CHECK)

/* The Messages API's version, which claude's box says in each request. */
#define CAPREQ_ANTHROPIC_VERSION	"2023-06-01"

/* The request's values in one parsed document: 0 when one is absent. */
struct capreq {
	const struct json *j;
	size_t		 method;
	size_t		 path;
	size_t		 headers;
	size_t		 body;
};

/* The request's values of the object obj: a box's line or an envelope. */
void	 capreq_of(struct capreq *, const struct json *, size_t obj);
/* claude's check: its row's request_check. */
int	 capreq_claude(const struct config *, unsigned int roles,
	    const struct capreq *, char *why, size_t whysz);

#endif
