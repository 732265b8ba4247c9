/*
 * The second barrier as the kernel's route lookup answers it, asked by
 * gated before it serves and by sandcastlectl check of a running gate.
 */
#ifndef SANDCASTLE_BARRIER_H
#define SANDCASTLE_BARRIER_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#define BARRIER_IFNAME		"egress"	/* pasta's tap */
#define BARRIER_MTU		65520		/* pasta's own default */
#define BARRIER_ADDR		"169.254.77.2"	/* the gate's namespace */
#define BARRIER_PEER		"169.254.77.1"	/* pasta's side, the gateway */
#define BARRIER_DNS		"169.254.77.53"	/* pasta's DNS forward */
#define BARRIER_DNS_TABLE	4750
#define BARRIER_DNS_PREF	100
#define BARRIER_MACHINE_MAX	80	/* own addresses and routers */
#define BARRIER_EXC_MAX		256

struct barrier_exc {
	struct in_addr	 ip;
	const char	*dest;
};

struct barrier {
	struct in_addr	 machine[BARRIER_MACHINE_MAX];
	int		 router[BARRIER_MACHINE_MAX];	/* else an address */
	size_t		 nmachine;
	struct barrier_exc exc[BARRIER_EXC_MAX];
	size_t		 nexc;
};

struct barrier_route {
	int		 err;		/* the kernel's errno, or 0 */
	unsigned char	 type;		/* RTN_* */
	struct in_addr	 dst;
	int		 len;
	int		 has_gw;
	struct in_addr	 gw;
	int		 oif;
	uint32_t	 table;
};

struct in_addr barrier_ip4(const char *);
void	barrier_machine(struct barrier *);
void	barrier_add_machine(struct barrier *, struct in_addr, int router);
const char *barrier_machine_what(const struct barrier *, size_t);
void	barrier_add_exc(struct barrier *, struct in_addr, const char *dest);
int	barrier_in_bogon(struct in_addr);

/* As connect(2) would look it up (IPPROTO_UDP with dport for DNS). */
void	barrier_lookup(int nlfd, struct in_addr, int proto, uint16_t dport,
	    struct barrier_route *r);
void	barrier_route_str(const struct barrier_route *, char *, size_t);

/* gated(8)'s read-back: the number of lookups, or -1 with why. */
int	barrier_verify(int nlfd, const struct barrier *, char *why,
	    size_t whysz);

#endif
