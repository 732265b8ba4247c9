/*
 * The keep's parts, shared inside keepd: the destinations it serves,
 * keep.sock, its namespaces and filters, the loop that serves clients,
 * and the per-request child that speaks to a destination through the
 * gate.  keepd(8) says what each one promises.
 */
#ifndef SANDCASTLE_KEEPD_H
#define SANDCASTLE_KEEPD_H

#include <sys/types.h>
#include <sys/queue.h>

#include <time.h>

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "envelope.h"
#include "http.h"
#include "keep.h"
#include "msg.h"
#include "secrets.h"

struct tls_config;

/* A destination as the keep serves it: its auth, its TLS prepared at start. */
struct keep_dest {
	const struct destination *d;
	enum http_auth		  auth;
	struct tls_config	 *tls;		/* NULL for http:// */
};

/*
 * Between a per-request child and keepd, on a socketpair, framed with
 * msg.h: at most one FETCH_LOCATION (a redirect's, for the log line),
 * then exactly one KEEP_ANSWER (with its body's memfd) or KEEP_REFUSED,
 * payloads as keep.h.
 */
#define FETCH_LOCATION		100
#define FETCH_LOCATION_MAX	512
#define KEEP_REASON_MAX		512	/* bytes of a refusal's reason */
#define CONN_HANDSHAKE_SECS	10	/* for a destination's TLS handshake */

/* dest.c */
void		 dest_init(const struct config *);
const struct keep_dest *dest_find(const char *name);
size_t		 dest_count(void);
int		 dest_known(const char *name, void *arg);

/* listen.c */
int		 keepsock_open(const char *path);
void		 keepsock_close(void);

/* netns.c */
void		 netns_enter(void);

/*
 * sandbox.c: the filters and the Landlock rulesets, each for good; a
 * ruleset's function returns the ABI it used, 0 for none.
 */
void		 sandbox_keepd(int secretsfd);
void		 sandbox_fetch(void);
int		 landlock_keepd(int secretsfd, const char *secretsdir,
		    const char *sockdir);
int		 landlock_fetch(void);

/* One connection on keep.sock, and the request it waits on. */
struct client {
	TAILQ_ENTRY(client)	 entry;
	struct msgchan		 chan;
	pid_t			 peer;		/* SO_PEERCRED's, for the log */
	int			 hello;		/* its KEEP_HELLO came */
	int			 closing;	/* ends once its answers are sent */
	pid_t			 pid;		/* the request's child, or -1 */
	struct msgchan		 child;		/* its socketpair; fd -1 when none */
	uint32_t		 id;		/* of the request being served */
	struct timespec		 deadline;
	char			*location;	/* a redirect's, for the log */
	char			 what[NAME_LEN + ENVELOPE_PATH_MAX + 16];
};
TAILQ_HEAD(clientlist, client);

/* serve.c */
void		 serve(int listenfd, int secretsfd, const char *gatepath);

/* client.c */
void		 client_init(int secretsfd, const char *gatepath);
void		 client_accept(int listenfd, struct clientlist *);
void		 client_drop(struct clientlist *, struct client *);
void		 client_input(struct client *);
void		 client_output(struct client *);
void		 client_child_input(struct client *);
void		 client_expire(struct client *, const struct timespec *);
int		 client_done(const struct client *);

/* fetch.c: the per-request child; never returns. */
__attribute__((noreturn)) void
		 fetch_run(int fd, const struct keep_dest *,
		    const struct envelope *, struct secret *,
		    const char *gatepath);

/* tunnel.c */
/* The tunnel, or -1 with why and *code (KEEP_R_REFUSED or KEEP_R_GATE). */
int		 tunnel_open(const char *gatepath, const char *host,
		    uint16_t port, char *why, size_t whysz, uint32_t *code);
/*
 * The gate's answer to CONNECT: 0 when it opened; KEEP_R_REFUSED when
 * the gate refused by its rules (403), KEEP_R_GATE otherwise, with why.
 */
int		 tunnel_answer(const char *head, size_t len, char *why,
		    size_t whysz);

/* tls.c: a connection inside the tunnel, TLS or plain. */
struct tls;
struct conn {
	int		 fd;
	struct tls	*tls;		/* NULL for plain HTTP */
};
int		 conn_prepare(struct conn *, const struct keep_dest *,
		    char *why, size_t whysz);
int		 conn_start(struct conn *, int fd, const char *host,
		    char *why, size_t whysz);
int		 conn_write(struct conn *, const char *, size_t);
ssize_t		 conn_read(struct conn *, void *, size_t, char *why,
		    size_t whysz);
const char	*conn_error(struct conn *);

/* what.c: "<destination> <METHOD> <path>" of a refused envelope, or "-". */
void		 envelope_what(const char *, size_t, char *, size_t);

/* answer.c */
uint32_t	 answer_retry_after(const char *, time_t now);
int		 answer_check(const void *data, size_t len, int fd,
		    uint32_t *status);
int		 refused_check(const void *data, size_t len);

#endif
