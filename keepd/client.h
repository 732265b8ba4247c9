/* A client of keep.sock and its request (client.c). */
#ifndef KEEPD_CLIENT_H
#define KEEPD_CLIENT_H

#include <sys/types.h>
#include <sys/queue.h>

#include <stdint.h>
#include <time.h>

#include "config.h"
#include "envelope.h"
#include "msg.h"

struct fetcher;

struct client {
	TAILQ_ENTRY(client)	 entry;
	struct msgchan		 chan;
	pid_t			 peer;		/* SO_PEERCRED's, for the log */
	int			 hello;
	int			 closing;	/* ends once its answers are sent */
	struct fetcher		*f;
	int			 keep;		/* it sent FETCH_KEEP */
	uint32_t		 id;
	struct timespec		 deadline;
	uint32_t		 seconds;	/* the call's, to its deadline */
	char			*location;
	char			 what[NAME_LEN + ENVELOPE_PATH_MAX + 16];
};
TAILQ_HEAD(clientlist, client);

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

#endif
