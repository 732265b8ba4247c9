/* A connection inside the tunnel, TLS or plain (conn.c). */
#ifndef KEEPD_CONN_H
#define KEEPD_CONN_H

#include <sys/types.h>

#include <stddef.h>

#define CONN_HANDSHAKE_SECS	10

struct tls;
struct tls_config;

struct conn {
	int		 fd;		/* -1 when none is open */
	struct tls	*tls;		/* NULL for plain HTTP, or none ready */
	struct tls_config *cfg;
	const char	*host;		/* its SNI and the certificate's name */
	size_t		 roff, rlen;	/* what of conn_rbuf libtls has read */
};

/* libtls and the libraries under it, by their file names' starts. */
extern const char *const	keepd_tls_libs[];

int		 conn_prepare(struct conn *, struct tls_config *,
		    const char *host, char *why, size_t whysz);
int		 conn_start(struct conn *, int fd, char *why, size_t whysz);
int		 conn_write(struct conn *, const char *, size_t);
ssize_t		 conn_read(struct conn *, void *, size_t, char *why,
		    size_t whysz);
/* 1 when nothing came since the last answer, not even its end. */
int		 conn_alive(struct conn *);
void		 conn_close(struct conn *);
const char	*conn_error(struct conn *);

#endif
