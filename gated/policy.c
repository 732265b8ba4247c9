/*
 * The first barrier's rules.  Its bogon table is also the second barrier's
 * prohibit routes; t_policy holds it to values.h's.
 */
#include <arpa/inet.h>
#include <netinet/in.h>

#include <string.h>

#include "policy.h"

const struct bogon bogons[NBOGONS] = {
	{ "0.0.0.0/8",		0x00000000, 8,	REFUSAL_UNSPECIFIED },
	{ "10.0.0.0/8",		0x0a000000, 8,	REFUSAL_INTERNAL },
	{ "100.64.0.0/10",	0x64400000, 10,	REFUSAL_INTERNAL },
	{ "169.254.0.0/16",	0xa9fe0000, 16,	REFUSAL_LINK_LOCAL },
	{ "172.16.0.0/12",	0xac100000, 12,	REFUSAL_INTERNAL },
	{ "192.0.0.0/24",	0xc0000000, 24,	REFUSAL_PROTOCOL },
	{ "192.0.2.0/24",	0xc0000200, 24,	REFUSAL_DOCUMENTATION },
	{ "192.88.99.0/24",	0xc0586300, 24,	REFUSAL_6TO4 },
	{ "192.168.0.0/16",	0xc0a80000, 16,	REFUSAL_INTERNAL },
	{ "198.18.0.0/15",	0xc6120000, 15,	REFUSAL_BENCHMARK },
	{ "198.51.100.0/24",	0xc6336400, 24,	REFUSAL_DOCUMENTATION },
	{ "203.0.113.0/24",	0xcb007100, 24,	REFUSAL_DOCUMENTATION },
	{ "224.0.0.0/4",	0xe0000000, 4,	REFUSAL_MULTICAST },
	{ "240.0.0.0/4",	0xf0000000, 4,	REFUSAL_RESERVED },
};

static const char *const reasons[REFUSAL_COUNT] = {
	[REFUSAL_NONE] = "",
	[REFUSAL_UNLISTED] = "the name is not on the gate's list",
	[REFUSAL_LITERAL] = "the request names an IP literal",
	[REFUSAL_UNRESOLVED] = "the name does not resolve",
	[REFUSAL_INTERNAL] = "the name resolves to the internal network",
	[REFUSAL_PARTLY] = "the name resolves partly to the internal network",
	[REFUSAL_SELF] = "the name resolves to this machine",
	[REFUSAL_UNSPECIFIED] =
	    "the name resolves to a sealed address (unspecified)",
	[REFUSAL_LOOPBACK] = "the name resolves to a sealed address (loopback)",
	[REFUSAL_LINK_LOCAL] =
	    "the name resolves to a sealed address (link-local)",
	[REFUSAL_PROTOCOL] =
	    "the name resolves to a sealed address (IETF protocol assignments)",
	[REFUSAL_DOCUMENTATION] =
	    "the name resolves to a sealed address (documentation)",
	[REFUSAL_6TO4] = "the name resolves to a sealed address (6to4 relay)",
	[REFUSAL_BENCHMARK] =
	    "the name resolves to a sealed address (benchmarking)",
	[REFUSAL_MULTICAST] =
	    "the name resolves to a sealed address (multicast)",
	[REFUSAL_RESERVED] = "the name resolves to a sealed address (reserved)",
	[REFUSAL_BROADCAST] =
	    "the name resolves to a sealed address (broadcast)",
};

const char *
policy_reason(enum refusal r)
{
	if ((unsigned int)r >= REFUSAL_COUNT)
		return "unknown";
	return reasons[r];
}

const struct destination *
policy_match(const struct destination *dests, size_t n, const char *name,
    uint16_t port)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (dests[i].port == port && strcmp(dests[i].host, name) == 0)
			return &dests[i];
	}
	return NULL;
}

static int
in_range(uint32_t h, uint32_t net, int prefixlen)
{
	uint32_t	mask = prefixlen == 0 ? 0 : ~0U << (32 - prefixlen);

	return (h & mask) == net;
}

/* Own addresses first: "this machine" tells more than the range does. */
enum refusal
policy_address(struct in_addr addr, const struct in_addr *own, size_t nown)
{
	uint32_t	h = ntohl(addr.s_addr);
	size_t		i;

	for (i = 0; i < nown; i++) {
		if (own[i].s_addr == addr.s_addr)
			return REFUSAL_SELF;
	}
	if (h == INADDR_BROADCAST)
		return REFUSAL_BROADCAST;
	if (in_range(h, 0x7f000000, 8))
		return REFUSAL_LOOPBACK;
	for (i = 0; i < NBOGONS; i++) {
		if (in_range(h, bogons[i].net, bogons[i].prefixlen))
			return bogons[i].refusal;
	}
	return REFUSAL_NONE;
}

static void
set_chosen(struct sockaddr_in *sin, struct in_addr addr, uint16_t port)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr = addr;
	sin->sin_port = htons(port);
}

static enum refusal
decide(enum refusal r, const char **reason)
{
	*reason = policy_reason(r);
	return r;
}

enum refusal
policy_check(const struct destination *dest, const struct in_addr *addrs,
    size_t naddrs, const struct in_addr *own, size_t nown,
    struct sockaddr_in *chosen, const char **reason)
{
	struct in_addr	 none = { .s_addr = htonl(INADDR_ANY) };
	enum refusal	 r, first = REFUSAL_NONE;
	size_t		 i, refused = 0, allowed = naddrs;

	if (dest->has_internal) {
		set_chosen(chosen, dest->internal_ip, dest->internal_port);
		return decide(REFUSAL_NONE, reason);
	}
	set_chosen(chosen, none, dest->port);
	if (naddrs == 0)
		return decide(REFUSAL_UNRESOLVED, reason);
	for (i = 0; i < naddrs; i++) {
		r = policy_address(addrs[i], own, nown);
		if (r == REFUSAL_NONE && allowed == naddrs)
			allowed = i;
		else if (r != REFUSAL_NONE && first == REFUSAL_NONE) {
			first = r;
			refused = i;
		}
	}
	if (first == REFUSAL_NONE) {
		chosen->sin_addr = addrs[allowed];
		return decide(REFUSAL_NONE, reason);
	}
	chosen->sin_addr = addrs[refused];
	return decide(allowed < naddrs ? REFUSAL_PARTLY : first, reason);
}
