/*
 * DNS alone, IPv4 only, by UDP to BARRIER_DNS, which pasta forwards: the
 * resolver stays behind the prohibit routes.  Each try from a new port; a
 * truncated answer is taken as far as it came, TCP being closed.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <netdb.h>
#include <netinet/in.h>
#include <resolv.h>

#include <stdio.h>
#include <string.h>

#include "barrier.h"
#include "gate.h"
#include "log.h"

#define RESOLV_CONF	"/etc/resolv.conf"
#define RESOLVE_ANSWER	4096

/* Seconds each try waits: RESOLVE_SECS in all. */
static const int	resolve_tries[] = { 1, 1, 2, 2 };
#define RESOLVE_NTRIES	(sizeof(resolve_tries) / sizeof(resolve_tries[0]))

static int
resolver_usable(const char *ns, struct in_addr *in)
{
	if (inet_pton(AF_INET, ns, in) != 1)
		return 0;
	return (ntohl(in->s_addr) >> 24) != 127 && in->s_addr != INADDR_ANY;
}

/* Debian 12's pasta forwards nothing to a loopback one (127.0.0.53). */
struct in_addr
resolve_pick(void)
{
	struct in_addr	 in;
	char		 line[512], ns[256], seen[256] = "";
	FILE		*fp;

	if ((fp = fopen(RESOLV_CONF, "re")) == NULL)
		fatal("%s: the gate needs a resolver", RESOLV_CONF);
	while (fgets(line, sizeof(line), fp) != NULL) {
		if (sscanf(line, " nameserver %255s", ns) != 1)
			continue;
		if (resolver_usable(ns, &in)) {
			fclose(fp);
			return in;
		}
		if (seen[0] == '\0')
			strlcpy(seen, ns, sizeof(seen));
	}
	fclose(fp);
	if (seen[0] == '\0')
		fatalx("%s names no resolver: the gate needs an IPv4 "
		    "resolver that is not on loopback; see gated(8)",
		    RESOLV_CONF);
	fatalx("%s names only resolvers the gate's network cannot reach "
	    "(%s: loopback or IPv6): point it at an IPv4 resolver off "
	    "loopback; see gated(8)", RESOLV_CONF, seen);
}

size_t
resolve_parse(const unsigned char *ans, size_t len, struct in_addr *addrs,
    size_t max)
{
	ns_msg		 msg;
	ns_rr		 rr;
	struct in_addr	 a;
	size_t		 n = 0, i;
	int		 k, count;

	if (len > RESOLVE_ANSWER || ns_initparse(ans, len, &msg) == -1)
		return 0;
	count = ns_msg_count(msg, ns_s_an);
	for (k = 0; k < count && n < max; k++) {
		if (ns_parserr(&msg, ns_s_an, k, &rr) == -1)
			break;
		if (ns_rr_type(rr) != ns_t_a || ns_rr_class(rr) != ns_c_in ||
		    ns_rr_rdlen(rr) != sizeof(a))
			continue;
		memcpy(&a, ns_rr_rdata(rr), sizeof(a));
		for (i = 0; i < n && addrs[i].s_addr != a.s_addr; i++)
			continue;
		if (i == n)
			addrs[n++] = a;
	}
	return n;
}

static const char *
resolve_why(int herr)
{
	switch (herr) {
	case HOST_NOT_FOUND:
		return "the name does not exist";
	case NO_DATA:
		return "the name has no IPv4 address";
	case TRY_AGAIN:
		return "the resolver did not answer";
	default:
		return "the resolver refused the query";
	}
}

size_t
resolve_name(const char *name, struct in_addr *addrs, size_t max,
    const char **why)
{
	unsigned char	 ans[RESOLVE_ANSWER];
	size_t		 i, n;
	int		 len;

	*why = NULL;
	for (i = 0; i < RESOLVE_NTRIES; i++) {
		_res.retrans = resolve_tries[i];
		_res.retry = 1;
		len = res_query(name, ns_c_in, ns_t_a, ans, sizeof(ans));
		if (len >= 0) {
			if ((n = resolve_parse(ans, len, addrs, max)) == 0)
				*why = "the answer holds no IPv4 address";
			if (i > 0)
				log_debug("%s: answered at try %zu", name,
				    i + 1);
			return n;
		}
		*why = resolve_why(h_errno);
		if (h_errno != TRY_AGAIN)
			return 0;
	}
	log_warnx("%s: %s after %zu tries", name, *why, RESOLVE_NTRIES);
	return 0;
}

/* The first name the gate resolves, or NULL when every one has an exception. */
static const char *
resolve_first(const struct gate *g)
{
	size_t	i;

	for (i = 0; i < g->ndests; i++) {
		if (!g->dests[i].has_internal)
			return g->dests[i].host;
	}
	return NULL;
}

void
resolve_prepare(const struct gate *g)
{
	struct in_addr	 addrs[GATE_ADDRS_MAX];
	const char	*name, *why;

	if (res_init() == -1)
		fatalx("%s: the resolver cannot start", RESOLV_CONF);
	_res.nscount = 1;
	memset(&_res.nsaddr_list[0], 0, sizeof(_res.nsaddr_list[0]));
	_res.nsaddr_list[0].sin_family = AF_INET;
	_res.nsaddr_list[0].sin_port = htons(NAMESERVER_PORT);
	if (inet_pton(AF_INET, BARRIER_DNS,
	    &_res.nsaddr_list[0].sin_addr) != 1)
		fatalx("%s: not an address", BARRIER_DNS);
	_res.options &= ~(RES_DNSRCH | RES_DEFNAMES | RES_USEVC);
	_res.options |= RES_NORELOAD | RES_IGNTC;
	log_info("the gate resolves through pasta's forward to %s",
	    inet_ntoa(g->resolver));
	if ((name = resolve_first(g)) != NULL) {
		if (resolve_name(name, addrs, GATE_ADDRS_MAX, &why) == 0)
			log_warnx("%s does not resolve yet (%s): serving "
			    "anyway", name, why ? why : "no address");
		else
			log_debug("%s resolves: the resolver is ready", name);
	}
}
