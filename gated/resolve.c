/*
 * The gate resolves names itself, IPv4 only, from inside its network
 * namespace.  Everything the resolver reads is read once before the
 * filter goes on: /etc/resolv.conf is loaded and then never reloaded
 * (RES_NORELOAD), and a filtered child that tries to open /etc/hosts
 * gets EACCES, so only DNS answers.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <resolv.h>

#include <stdio.h>
#include <string.h>

#include "gate.h"
#include "log.h"

#define RESOLV_CONF	"/etc/resolv.conf"

/* 1 for an IPv4 resolver off loopback, which the namespace can reach. */
static int
resolver_reachable(const char *ns)
{
	struct in_addr	in;

	if (inet_pton(AF_INET, ns, &in) != 1)
		return 0;
	return (ntohl(in.s_addr) >> 24) != 127;
}

/*
 * pasta gives the namespace the machine's network but not its
 * loopback, where a local stub resolver (systemd-resolved's 127.0.0.53)
 * listens: with only such a resolver, every name would fail to resolve.
 */
static void
resolvconf_check(void)
{
	char	 line[512], ns[256], seen[256] = "";
	FILE	*fp;
	int	 reachable = 0;

	if ((fp = fopen(RESOLV_CONF, "re")) == NULL)
		fatal("%s: the gate needs a resolver", RESOLV_CONF);
	while (fgets(line, sizeof(line), fp) != NULL) {
		if (sscanf(line, " nameserver %255s", ns) != 1)
			continue;
		if (resolver_reachable(ns))
			reachable = 1;
		else if (seen[0] == '\0')
			strlcpy(seen, ns, sizeof(seen));
	}
	fclose(fp);
	if (reachable)
		return;
	if (seen[0] == '\0')
		fatalx("%s names no resolver: the gate needs an IPv4 "
		    "resolver that is not on loopback; see gated(8)",
		    RESOLV_CONF);
	fatalx("%s names only resolvers the gate's network cannot reach "
	    "(%s: loopback or IPv6): point it at an IPv4 resolver off "
	    "loopback; see gated(8)", RESOLV_CONF, seen);
}

size_t
resolve_name(const char *name, struct in_addr *addrs, size_t max,
    const char **why)
{
	struct addrinfo	 hints, *res, *ai;
	struct in_addr	 a;
	size_t		 n = 0, i;
	int		 r;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	*why = NULL;
	if ((r = getaddrinfo(name, NULL, &hints, &res)) != 0) {
		*why = gai_strerror(r);
		return 0;
	}
	for (ai = res; ai != NULL && n < max; ai = ai->ai_next) {
		a = ((struct sockaddr_in *)ai->ai_addr)->sin_addr;
		for (i = 0; i < n && addrs[i].s_addr != a.s_addr; i++)
			continue;
		if (i == n)
			addrs[n++] = a;
	}
	freeaddrinfo(res);
	return n;
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

	resolvconf_check();
	if (res_init() == -1)
		fatalx("%s: the resolver cannot start", RESOLV_CONF);
	if ((name = resolve_first(g)) != NULL) {
		if (resolve_name(name, addrs, GATE_ADDRS_MAX, &why) == 0)
			log_warnx("%s does not resolve yet (%s): serving "
			    "anyway", name, why ? why : "no address");
		else
			log_debug("%s resolves: the resolver is ready", name);
	}
	_res.options |= RES_NORELOAD;
}
