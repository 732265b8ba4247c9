/*
 * The gate's first barrier, pure: the caller resolves, IPv4 only.  A mixed
 * answer is refused whole (REFUSAL_PARTLY), the sign of DNS rebinding.
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
	REFUSAL_UNLISTED,
	REFUSAL_LITERAL,
	REFUSAL_UNRESOLVED,
	REFUSAL_INTERNAL,
	REFUSAL_PARTLY,
	REFUSAL_SELF,
	REFUSAL_UNSPECIFIED,
	REFUSAL_LOOPBACK,
	REFUSAL_LINK_LOCAL,
	REFUSAL_PROTOCOL,
	REFUSAL_DOCUMENTATION,
	REFUSAL_6TO4,
	REFUSAL_BENCHMARK,
	REFUSAL_MULTICAST,
	REFUSAL_RESERVED,
	REFUSAL_BROADCAST,
	REFUSAL_COUNT
};

struct bogon {
	const char	*cidr;
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
 * An internal exception's ip:port, unresolved; else every address must be
 * allowed: *chosen the first, or the one refused (INADDR_ANY: none).
 */
enum refusal	policy_check(const struct destination *dest,
		    const struct in_addr *addrs, size_t naddrs,
		    const struct in_addr *own, size_t nown,
		    struct sockaddr_in *chosen, const char **reason);

const char	*policy_reason(enum refusal);

#endif
