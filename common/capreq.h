/* A box's request held to its box's: settings exact, a job's choices shaped. */
#ifndef SANDCASTLE_CAPREQ_H
#define SANDCASTLE_CAPREQ_H

#include <stddef.h>

struct json;

/* The roles a request may be of: a job's, a check's, or either. */
#define CAPREQ_RUN	0x1
#define CAPREQ_CHECK	0x2
#define CAPREQ_ANY	(CAPREQ_RUN | CAPREQ_CHECK)

#define CAPREQ_QUOTE_MAX	64	/* bytes of a box's words quoted */

/* The request's values in one parsed document: 0 when one is absent. */
struct capreq {
	const struct json *j;
	size_t		 method;
	size_t		 path;
	size_t		 headers;
	size_t		 body;
};

void	 capreq_of(struct capreq *, const struct json *, size_t obj);
const char *capreq_quote(const struct json *, size_t tok, char *buf,
	    size_t bufsz);
/* 1 when tok is the string s; tok -1 or 0 is none. */
int	 capreq_string_is(const struct json *, long tok, const char *s);
int	 capreq_keys(const struct json *, size_t obj, const char *const *keys,
	    const char *what, char *why, size_t whysz);

#endif
