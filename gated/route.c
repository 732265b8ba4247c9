/*
 * The second barrier's routes: a prohibit route for each of the
 * fourteen bogons, so that a connect(2) to one fails with EACCES
 * whatever the gate decided, and a /32 through the gateway for each
 * internal exception, which wins over the range it is in.  The routes
 * are read back from the kernel before the gate serves: a route that
 * is missing or differs stops it.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gate.h"
#include "log.h"
#include "netlink.h"
#include "policy.h"

#define ROUTES_MAX	(NBOGONS + 256)

struct route {
	unsigned char	 type;		/* RTN_PROHIBIT, RTN_UNICAST */
	struct in_addr	 dst;
	int		 len;
	int		 has_gw;
	struct in_addr	 gw;
};

struct routes {
	struct route	 v[ROUTES_MAX];
	size_t		 n;
	int		 has_addr;	/* an IPv4 address off loopback */
};

static void
route_parse(const struct nlmsghdr *h, void *arg)
{
	struct routes	*rs = arg;
	struct rtmsg	*rtm = NLMSG_DATA(h);
	struct rtattr	*rta;
	struct route	 r;
	int		 len, table;

	if (h->nlmsg_type != RTM_NEWROUTE || rs->n == ROUTES_MAX ||
	    h->nlmsg_len < NLMSG_LENGTH(sizeof(*rtm)) ||
	    rtm->rtm_family != AF_INET)
		return;
	memset(&r, 0, sizeof(r));
	r.type = rtm->rtm_type;
	r.len = rtm->rtm_dst_len;
	table = rtm->rtm_table;
	len = h->nlmsg_len - NLMSG_LENGTH(sizeof(*rtm));
	for (rta = RTM_RTA(rtm); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		if (rta->rta_type == RTA_TABLE &&
		    RTA_PAYLOAD(rta) == sizeof(int))
			memcpy(&table, RTA_DATA(rta), sizeof(int));
		else if (rta->rta_type == RTA_DST && RTA_PAYLOAD(rta) == 4)
			memcpy(&r.dst, RTA_DATA(rta), 4);
		else if (rta->rta_type == RTA_GATEWAY &&
		    RTA_PAYLOAD(rta) == 4) {
			memcpy(&r.gw, RTA_DATA(rta), 4);
			r.has_gw = 1;
		}
	}
	if (table == RT_TABLE_MAIN)
		rs->v[rs->n++] = r;
}

static void
addr_parse(const struct nlmsghdr *h, void *arg)
{
	struct routes		*rs = arg;
	struct ifaddrmsg	*ifa = NLMSG_DATA(h);

	if (h->nlmsg_type == RTM_NEWADDR &&
	    h->nlmsg_len >= NLMSG_LENGTH(sizeof(*ifa)) &&
	    ifa->ifa_family == AF_INET && ifa->ifa_scope == RT_SCOPE_UNIVERSE)
		rs->has_addr = 1;
}

static void
routes_read(int fd, struct routes *rs)
{
	memset(rs, 0, sizeof(*rs));
	if (nl_dump(fd, RTM_GETROUTE, AF_INET, route_parse, rs) == -1)
		fatal("cannot read the gate's routes (netlink)");
	if (nl_dump(fd, RTM_GETADDR, AF_INET, addr_parse, rs) == -1)
		fatal("cannot read the gate's addresses (netlink)");
}

static const struct route *
routes_default(const struct routes *rs)
{
	size_t	i;

	for (i = 0; i < rs->n; i++) {
		if (rs->v[i].len == 0 && rs->v[i].type == RTN_UNICAST &&
		    rs->v[i].has_gw)
			return &rs->v[i];
	}
	return NULL;
}

static void
pasta_alive(pid_t pasta)
{
	int	status;

	if (waitpid(pasta, &status, WNOHANG) != pasta)
		return;
	if (WIFEXITED(status))
		fatalx("pasta exited with status %d before the gate's network "
		    "was ready", WEXITSTATUS(status));
	fatalx("pasta was killed by signal %d before the gate's network was "
	    "ready", WTERMSIG(status));
}

void
route_wait_ready(pid_t pasta, struct in_addr *gateway)
{
	static struct routes	 rs;
	const struct route	*def;
	struct timespec		 pause = { 0, 50 * 1000 * 1000 };
	int			 fd, i;

	fd = nl_open();
	for (i = 0; i < GATE_READY_SECS * 20; i++) {
		pasta_alive(pasta);
		routes_read(fd, &rs);
		if (rs.has_addr && (def = routes_default(&rs)) != NULL) {
			*gateway = def->gw;
			close(fd);
			log_debug("pasta configured the network in %d ms, "
			    "gateway %s", i * 50, inet_ntoa(*gateway));
			return;
		}
		nanosleep(&pause, NULL);
	}
	fatalx("pasta did not configure the gate's network within %d s "
	    "(no IPv4 address or no default route): does this machine have "
	    "an IPv4 default route?", GATE_READY_SECS);
}

static void
route_request(struct nlreq *req, unsigned char type, struct in_addr dst,
    int len)
{
	memset(req, 0, sizeof(*req));
	req->n.nlmsg_len = NLMSG_LENGTH(sizeof(req->r));
	req->n.nlmsg_type = RTM_NEWROUTE;
	req->n.nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	req->r.rtm_family = AF_INET;
	req->r.rtm_dst_len = len;
	req->r.rtm_table = RT_TABLE_MAIN;
	req->r.rtm_protocol = RTPROT_STATIC;
	req->r.rtm_scope = RT_SCOPE_UNIVERSE;
	req->r.rtm_type = type;
	if (nl_attr(req, RTA_DST, &dst, sizeof(dst)) == -1)
		fatalx("netlink: a route request too long");
}

#ifdef GATE_NOCHECK
/* The test build alone: leave out one route, to prove the read-back. */
static int
route_skipped(const char *cidr)
{
	const char	*skip = getenv("GATE_TEST_SKIP_ROUTE");

	return skip != NULL && strcmp(skip, cidr) == 0;
}
#else
#define route_skipped(cidr)	0
#endif

static void
route_add_prohibit(int fd, const struct bogon *b)
{
	struct nlreq	req;
	struct in_addr	dst = { .s_addr = htonl(b->net) };
	int		r;

	if (route_skipped(b->cidr))
		return;
	route_request(&req, RTN_PROHIBIT, dst, b->prefixlen);
	if ((r = nl_talk(fd, &req)) != 0)
		fatalx("cannot add the route prohibit %s: %s", b->cidr,
		    strerror(-r));
	log_debug("route prohibit %s", b->cidr);
}

static void
route_add_exception(int fd, const struct destination *d,
    struct in_addr gw)
{
	struct nlreq	req;
	char		ip[INET_ADDRSTRLEN], via[INET_ADDRSTRLEN];
	int		r;

	inet_ntop(AF_INET, &d->internal_ip, ip, sizeof(ip));
	inet_ntop(AF_INET, &gw, via, sizeof(via));
	route_request(&req, RTN_UNICAST, d->internal_ip, 32);
	if (nl_attr(&req, RTA_GATEWAY, &gw, sizeof(gw)) == -1)
		fatalx("netlink: a route request too long");
	r = nl_talk(fd, &req);
	/* Two destinations may share an exception's address. */
	if (r == -EEXIST)
		return;
	if (r != 0)
		fatalx("cannot add the route %s/32 via %s for %s: %s", ip, via,
		    d->name, strerror(-r));
	log_debug("route %s/32 via %s for %s", ip, via, d->name);
}

void
route_install(const struct gate *g)
{
	size_t	i;
	int	fd;

	fd = nl_open();
	for (i = 0; i < NBOGONS; i++)
		route_add_prohibit(fd, &bogons[i]);
	for (i = 0; i < g->ndests; i++) {
		if (g->dests[i].has_internal)
			route_add_exception(fd, &g->dests[i], g->gateway);
	}
	close(fd);
}

static const struct route *
routes_find(const struct routes *rs, struct in_addr dst, int len)
{
	size_t	i;

	for (i = 0; i < rs->n; i++) {
		if (rs->v[i].dst.s_addr == dst.s_addr && rs->v[i].len == len)
			return &rs->v[i];
	}
	return NULL;
}

static void
verify_prohibit(const struct routes *rs, const struct bogon *b)
{
	struct in_addr		 dst = { .s_addr = htonl(b->net) };
	const struct route	*r;

	if ((r = routes_find(rs, dst, b->prefixlen)) == NULL)
		fatalx("the route prohibit %s is missing from the gate's "
		    "network: refusing to serve", b->cidr);
	if (r->type != RTN_PROHIBIT)
		fatalx("the route to %s is of type %u, not prohibit: refusing "
		    "to serve", b->cidr, r->type);
}

static void
verify_exception(const struct routes *rs, const struct destination *d,
    struct in_addr gw)
{
	const struct route	*r;
	char			 ip[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &d->internal_ip, ip, sizeof(ip));
	if ((r = routes_find(rs, d->internal_ip, 32)) == NULL)
		fatalx("the route %s/32 of %s's internal exception is missing "
		    "from the gate's network: refusing to serve", ip, d->name);
	if (r->type != RTN_UNICAST || !r->has_gw ||
	    r->gw.s_addr != gw.s_addr)
		fatalx("the route %s/32 of %s's internal exception does not go "
		    "through the gateway %s: refusing to serve", ip, d->name,
		    inet_ntoa(gw));
}

void
route_verify(const struct gate *g)
{
	static struct routes	rs;
	size_t			i, nexc = 0;
	int			fd;

	fd = nl_open();
	routes_read(fd, &rs);
	close(fd);
	for (i = 0; i < NBOGONS; i++)
		verify_prohibit(&rs, &bogons[i]);
	for (i = 0; i < g->ndests; i++) {
		if (!g->dests[i].has_internal)
			continue;
		verify_exception(&rs, &g->dests[i], g->gateway);
		nexc++;
	}
	log_info("the gate's network holds its %d prohibit routes and the "
	    "routes of %zu internal exception(s)", NBOGONS, nexc);
}
