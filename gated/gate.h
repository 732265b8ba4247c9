/* The gate's own pieces, in the order gated(8) starts them. */
#ifndef SANDCASTLE_GATE_H
#define SANDCASTLE_GATE_H

#include <sys/types.h>

#include <netinet/in.h>
#include <limits.h>
#include <stddef.h>

#include "barrier.h"
#include "config.h"

#define GATE_CHILDREN_MAX	32
#define GATE_REQUEST_SECS	10	/* to send the whole CONNECT */
#define GATE_CONNECT_SECS	10	/* to reach the destination */
/* Idle, in all; a longer call's own plus a margin: the keep ends it first. */
#define GATE_IDLE_SECS		60
#define GATE_TOTAL_SECS		300
#define GATE_CALL_MARGIN	30
#define GATE_READY_SECS		10	/* for pasta to configure the namespace */
#define GATE_OWN_MAX		64	/* the machine's own IPv4 addresses */
#define GATE_ADDRS_MAX		16
#define GATE_SPARE_LOST_MAX	3	/* spares ended untaken, then none */
#define GATE_SPARE_QUIET_MS	10

struct gate {
	struct destination	*dests;
	size_t			 ndests;
	struct barrier		 barrier;
	struct in_addr		 own[GATE_OWN_MAX];
	size_t			 nown;
	struct in_addr		 resolver;	/* where pasta forwards DNS */
	char			 sock[PATH_MAX];
	char			 refusals[PATH_MAX];
	int			 listenfd;
	int			 refusalfd;	/* O_APPEND, for the children */
	pid_t			 pasta;
	pid_t			 self;		/* gated, not a child */
	pid_t			 children[GATE_CHILDREN_MAX + 1];
	size_t			 nchildren;	/* the spare's among them */
	pid_t			 spare;
	int			 sparefd;
	int			 spare_lost;	/* ended untaken in a row */
};

int	listen_open(const char *path);
void	listen_remove(const char *path);

void	own_read(struct gate *);

pid_t	netns_enter(void);
void	netns_end_pasta(pid_t);

int	route_wait_link(pid_t pasta);
void	route_install(const struct gate *, int ifindex);
void	route_verify(const struct gate *);

struct in_addr resolve_pick(void);
void	resolve_prepare(const struct gate *);
size_t	resolve_name(const char *, struct in_addr *, size_t max,
	    const char **why);
/* The A records of a DNS answer, each once; 0 when it cannot be read. */
size_t	resolve_parse(const unsigned char *, size_t, struct in_addr *,
	    size_t max);

/* sandbox.c: the filters, and the Landlock rulesets (the ABI used, 0: none) */
void	filter_gate(void);
void	filter_tunnel(void);
int	landlock_gate(const struct gate *);
int	landlock_tunnel(void);

void	serve(struct gate *);
void	serve_end_children(struct gate *);

__attribute__((noreturn)) void
	tunnel(const struct gate *, int fd);

void	relay(int client, int server, const void *pending, size_t npending,
	    unsigned int idle);

#endif
