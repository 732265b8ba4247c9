/* The keep's parts, shared inside keepd (keepd(8)). */
#ifndef SANDCASTLE_KEEPD_H
#define SANDCASTLE_KEEPD_H

#include <sys/types.h>
#include <sys/queue.h>

#include <poll.h>
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
struct conn;

/* Its connection made ready up to the handshake, inherited by each child. */
struct keep_dest {
	const struct destination *d;
	const struct cap_credential *auth;	/* its secret's header */
	const char *const	 *headers;	/* beyond cap_headers */
	struct conn		 *conn;
};

/*
 * Between a request's child and keepd, framed with msg.h, a row each in
 * fetchtab.c.  keepd sends FETCH_DEST once (a spare has none) and the
 * first FETCH_TUNNEL with it, then FETCH_SECRET and FETCH_REQUEST per
 * request, which the child awaits in that order (fetch.c); keepd takes
 * the child's by their rows' takes (client.c).
 */
enum fetch_msg {
	FETCH_DEST = 1,		/* keepd: the destination's name */
	FETCH_SECRET,		/* keepd: its secret's value */
	FETCH_REQUEST,		/* keepd: the envelope */
	FETCH_TUNNEL,		/* keepd: the gate's socket or why; the child: empty, asks one */
	FETCH_LOCATION,		/* child: a redirect's location, for the log */
	FETCH_KEEP,		/* child: it stays warm, before its answer */
	FETCH_ANSWER,		/* child: keep.h's KEEP_ANSWER's payload and memfd */
	FETCH_REFUSED,		/* child: keep.h's KEEP_REFUSED's payload */
	FETCH_MSG_END
};
#define FETCH_KEEPD	0x1	/* the sides: keepd */
#define FETCH_CHILD	0x2	/* and a request's child */
struct client;
struct fetch_msgrow {
	struct msg_rule	 rule;		/* its type, bytes, descriptor, senders */
	/* keepd's take: 0 the request goes on, 2 answered, 1 ended otherwise */
	int		(*take)(struct client *, struct msg *);
};
extern const struct fetch_msgrow fetch_msgtab[];	/* fetchtab.c */
/* fetchmsg.c */
void		 fetch_msgs_use(const struct fetch_msgrow *);
const struct fetch_msgrow *fetch_msg(uint32_t type);
int		 fetch_check(uint32_t side, const struct msg *, char *why,
		    size_t whysz);
/* libtls and the libraries under it, by their file names' starts. */
extern const char *const	keepd_tls_libs[];
/* Its first, and one more when a kept connection had ended. */
#define FETCH_TUNNELS_MAX	2
#define FETCH_LOCATION_MAX	512
#define FETCH_MAXPAYLOAD	MSG_MAXPAYLOAD	/* an envelope, or a body */
#define KEEP_REASON_MAX		512	/* bytes of a refusal's reason */
#define CONN_HANDSHAKE_SECS	10	/* for a destination's TLS handshake */
#define WARM_IDLE_SECONDS	5	/* a warm child waits, then ends */
/* Warm children at most, a gate tunnel each: a ninth ends the oldest. */
#define WARM_MAX		8

/* dest.c */
void		 dest_init(const struct config *);
const struct keep_dest *dest_find(const char *name);
size_t		 dest_count(void);
const char *const *dest_known(const char *name, void *arg);

/* listen.c */
int		 keepsock_open(const char *path);
void		 keepsock_close(void);

/* netns.c */
void		 netns_enter(void);

/* sandbox.c: a ruleset's function returns the ABI it used, 0 for none. */
void		 sandbox_keepd(int secretsfd);
void		 sandbox_fetch(void);
int		 landlock_keepd(int secretsfd, const char *secretsdir,
		    const char *sockdir);
int		 landlock_fetch(void);

struct fetcher {
	TAILQ_ENTRY(fetcher)	 entry;		/* among the warm, while idle */
	const struct keep_dest	*kd;		/* its one destination, or NULL */
	pid_t			 pid;
	struct msgchan		 chan;		/* its socketpair */
	struct timespec		 idle_end;	/* ended then, while warm */
	int			 tunnels;	/* given for this request */
};

/* fetcher.c */
void		 fetcher_init(const char *gatepath);
/* The spare made, unless one waits or too many ended untaken. */
void		 fetcher_spare(void);
/* To kd's warm child, else a new one; NULL when none could take it. */
struct fetcher	*fetcher_start(const struct keep_dest *kd, const void *env,
		    size_t envlen, const struct secret *);
/* Killed: serve_reap() reaps it. */
void		 fetcher_end(struct fetcher *);
void		 fetcher_keep(struct fetcher *);	/* warm, or ended */
size_t		 fetcher_warm_pollfds(struct pollfd *, struct fetcher **,
		    size_t max);
void		 fetcher_warm_input(struct fetcher *);
void		 fetcher_warm_expire(const struct timespec *now);
const struct timespec *fetcher_warm_first(void);
void		 fetcher_end_all(void);
/* The tunnel asked by f's child, sent to it: -1 when it cannot be. */
int		 fetcher_tunnel(struct fetcher *f);
/* Whether pid is a request's child not yet reaped; reaped, it is not. */
int		 fetcher_is_child(pid_t pid);
void		 fetcher_reaped(pid_t pid);

struct client {
	TAILQ_ENTRY(client)	 entry;
	struct msgchan		 chan;
	pid_t			 peer;		/* SO_PEERCRED's, for the log */
	int			 hello;		/* its KEEP_HELLO came */
	int			 closing;	/* ends once its answers are sent */
	struct fetcher		*f;		/* its child, or NULL */
	int			 keep;		/* it sent FETCH_KEEP */
	uint32_t		 id;		/* of the request being served */
	struct timespec		 deadline;
	uint32_t		 seconds;	/* the call's, to its deadline */
	char			*location;	/* a redirect's, for the log */
	char			 what[NAME_LEN + ENVELOPE_PATH_MAX + 16];
};
TAILQ_HEAD(clientlist, client);

/* serve.c */
void		 serve(int listenfd, int secretsfd, const char *gatepath);

/* client.c */
void		 client_init(int secretsfd);
void		 client_accept(int listenfd, struct clientlist *);
void		 client_drop(struct clientlist *, struct client *);
void		 client_input(struct client *);
void		 client_output(struct client *);
void		 client_child_input(struct client *);
void		 client_expire(struct client *, const struct timespec *);
int		 client_done(const struct client *);

void		 client_child_output(struct client *);
/* The takes of the child's messages (fetchtab.c's rows). */
int		 client_location(struct client *, struct msg *);
int		 client_kept(struct client *, struct msg *);
int		 client_tunnel(struct client *, struct msg *);
int		 client_answered(struct client *, struct msg *);
int		 client_refused(struct client *, struct msg *);

/* fetch.c: a request's child, a spare until keepd names its destination. */
__attribute__((noreturn)) void
		 fetch_run(int fd);

/* tunnel.c */
/* keepd's half: gate.sock connected and the CONNECT written, or -1 with why. */
int		 tunnel_request(const char *gatepath, const char *host,
		    uint16_t port, char *why, size_t whysz);
/* 0, or -1 with why and *code (KEEP_R_REFUSED or KEEP_R_GATE), fd closed. */
int		 tunnel_await(int fd, char *why, size_t whysz,
		    uint32_t *code);
/* 0 opened, KEEP_R_REFUSED for the gate's 403, KEEP_R_GATE otherwise. */
int		 tunnel_answer(const char *head, size_t len, char *why,
		    size_t whysz);

/* tls.c: a connection inside the tunnel, TLS or plain. */
struct tls;
struct conn {
	int		 fd;		/* -1 when none is open */
	struct tls	*tls;		/* NULL for plain HTTP, or none ready */
	struct tls_config *cfg;		/* the destination's; NULL for plain */
	const char	*host;		/* its SNI and the certificate's name */
	size_t		 roff, rlen;	/* what of conn_rbuf libtls has read */
};
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

/* what.c: "<destination> <METHOD> <path>" of a refused envelope, or "-". */
void		 envelope_what(const char *, size_t, char *, size_t);

/* answer.c */
uint32_t	 answer_retry_after(const char *, time_t now);
int		 answer_check(const void *data, size_t len, int fd,
		    uint32_t *status);
int		 refused_check(const void *data, size_t len);

#endif
