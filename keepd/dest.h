/* The destinations the keep serves, read once (dest.c). */
#ifndef KEEPD_DEST_H
#define KEEPD_DEST_H

#include <stddef.h>

struct cap_credential;
struct config;
struct conn;
struct destination;

/* Its connection made ready up to the handshake, inherited by each child. */
struct keep_dest {
	const struct destination *d;
	const struct cap_credential *auth;
	const char *const	 *headers;	/* beyond cap_headers */
	struct conn		 *conn;
};

void		 dest_init(const struct config *);
const struct keep_dest *dest_find(const char *name);
size_t		 dest_count(void);
const char *const *dest_known(const char *name, void *arg);

#endif
