/*
 * The gate's first barrier.  Pure: the caller resolves (IPv4 only).  A
 * mixed answer is refused whole (REFUSAL_PARTLY): a name that resolves
 * partly inside is the sign of DNS rebinding.
 */
#ifndef SANDCASTLE_POLICY_H
#define SANDCASTLE_POLICY_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#include "config.h"

/* Why the gate said no; refusal.c keeps the advice and the record. */
enum refusal {
	REFUSAL_NONE = 0,
	REFUSAL_UNLISTED,	/* no destination has that name and port */
	REFUSAL_LITERAL,	/* the request named an IP address */
	REFUSAL_UNRESOLVED,	/* the answer was empty */
	REFUSAL_INTERNAL,	/* private or shared (CGNAT) ranges */
	REFUSAL_PARTLY,		/* a mixed answer */
	REFUSAL_SELF,		/* one of the machine's own addresses */
	REFUSAL_UNSPECIFIED,	/* sealed: 0.0.0.0/8, "this network" */
	REFUSAL_LOOPBACK,	/* sealed: 127.0.0.0/8 */
	REFUSAL_LINK_LOCAL,	/* sealed: 169.254.0.0/16 */
	REFUSAL_PROTOCOL,	/* sealed: 192.0.0.0/24, IETF assignments */
	REFUSAL_DOCUMENTATION,	/* sealed: the three TEST-NETs */
	REFUSAL_6TO4,		/* sealed: 192.88.99.0/24 */
	REFUSAL_BENCHMARK,	/* sealed: 198.18.0.0/15 */
	REFUSAL_MULTICAST,	/* sealed: 224.0.0.0/4 */
	REFUSAL_RESERVED,	/* sealed: 240.0.0.0/4 */
	REFUSAL_BROADCAST,	/* sealed: 255.255.255.255 */
	REFUSAL_COUNT
};

struct bogon {
	const char	*cidr;		/* as ip-route(8) takes it */
	uint32_t	 net;		/* host byte order */
	int		 prefixlen;
	enum refusal	 refusal;
};

/* Refused after resolving; the second barrier's prohibit routes too. */
#define NBOGONS	14
extern const struct bogon bogons[NBOGONS];

const struct destination *policy_match(const struct destination *dests,
		    size_t n, const char *name, uint16_t port);

enum refusal	policy_address(struct in_addr addr,
		    const struct in_addr *own, size_t nown);

/*
 * With an internal exception, exactly its ip:port (the name is not
 * resolved).  Otherwise every address must be allowed; *chosen is the
 * first, or the one refused (INADDR_ANY for an empty answer).
 */
enum refusal	policy_check(const struct destination *dest,
		    const struct in_addr *addrs, size_t naddrs,
		    const struct in_addr *own, size_t nown,
		    struct sockaddr_in *chosen, const char **reason);

/* "the name resolves to the internal network", ...; "" for REFUSAL_NONE. */
const char	*policy_reason(enum refusal);

#endif
