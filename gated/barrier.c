/*
 * The second barrier, proved by the kernel's route lookup (RTM_F_FIB_MATCH)
 * and not a listing, which shows a prohibit route exists, not that it wins.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>

#include <errno.h>
#include <ifaddrs.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "barrier.h"
#include "log.h"
#include "netlink.h"
#include "policy.h"

#define PROBE_WHAT	96

enum expect {
	EXPECT_PROHIBIT,
	EXPECT_EXCEPTION,
	EXPECT_DNS
};

struct probe {
	struct in_addr	 addr;
	int		 proto;
	uint16_t	 dport;
	enum expect	 expect;
	char		 what[PROBE_WHAT];
};

static struct in_addr
ip4(uint32_t h)
{
	struct in_addr	a = { .s_addr = htonl(h) };

	return a;
}

struct in_addr
barrier_ip4(const char *s)
{
	struct in_addr	a;

	if (inet_pton(AF_INET, s, &a) != 1)
		fatalx("%s: not an IPv4 address", s);
	return a;
}

int
barrier_in_bogon(struct in_addr a)
{
	uint32_t	h = ntohl(a.s_addr), mask;
	size_t		i;

	for (i = 0; i < NBOGONS; i++) {
		mask = ~0U << (32 - bogons[i].prefixlen);
		if ((h & mask) == bogons[i].net)
			return 1;
	}
	return 0;
}

void
barrier_add_machine(struct barrier *b, struct in_addr a, int router)
{
	size_t	i;

	/* 127/8 in the gate's namespace is its own loopback, not the machine's. */
	if ((ntohl(a.s_addr) >> 24) == 127)
		return;
	for (i = 0; i < b->nmachine; i++) {
		if (b->machine[i].s_addr == a.s_addr)
			return;
	}
	if (b->nmachine == BARRIER_MACHINE_MAX) {
		log_warnx("more than %d addresses and routers on this "
		    "machine: %s is left out of the second barrier's read-back",
		    BARRIER_MACHINE_MAX, inet_ntoa(a));
		return;
	}
	b->router[b->nmachine] = router;
	b->machine[b->nmachine++] = a;
}

const char *
barrier_machine_what(const struct barrier *b, size_t i)
{
	return b->router[i] ? "this machine's router" :
	    "this machine's address";
}

void
barrier_add_exc(struct barrier *b, struct in_addr a, const char *dest)
{
	if (b->nexc == BARRIER_EXC_MAX)
		fatalx("more than %d internal exceptions", BARRIER_EXC_MAX);
	b->exc[b->nexc].ip = a;
	b->exc[b->nexc++].dest = dest;
}

static void
router_parse(const struct nlmsghdr *h, void *arg)
{
	struct barrier	*b = arg;
	struct rtmsg	*rtm = NLMSG_DATA(h);
	struct rtattr	*rta;
	const void	*p;
	uint32_t	 table;
	int		 len;

	if (h->nlmsg_type != RTM_NEWROUTE ||
	    h->nlmsg_len < NLMSG_LENGTH(sizeof(*rtm)) ||
	    rtm->rtm_family != AF_INET || rtm->rtm_dst_len != 0 ||
	    rtm->rtm_type != RTN_UNICAST)
		return;
	table = rtm->rtm_table;
	len = h->nlmsg_len - NLMSG_LENGTH(sizeof(*rtm));
	for (rta = RTM_RTA(rtm); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		if (rta->rta_type == RTA_TABLE &&
		    (p = nl_rta(rta, sizeof(table))) != NULL)
			memcpy(&table, p, sizeof(table));
	}
	if (table != RT_TABLE_MAIN)
		return;
	len = h->nlmsg_len - NLMSG_LENGTH(sizeof(*rtm));
	for (rta = RTM_RTA(rtm); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		if (rta->rta_type == RTA_GATEWAY &&
		    (p = nl_rta(rta, 4)) != NULL)
			barrier_add_machine(b, *(const struct in_addr *)p, 1);
	}
}

void
barrier_machine(struct barrier *b)
{
	struct ifaddrs	*ifa, *i;
	int		 fd;

	if (getifaddrs(&ifa) == -1)
		fatal("cannot read this machine's addresses (getifaddrs)");
	for (i = ifa; i != NULL; i = i->ifa_next) {
		if (i->ifa_addr != NULL && i->ifa_addr->sa_family == AF_INET)
			barrier_add_machine(b,
			    ((struct sockaddr_in *)i->ifa_addr)->sin_addr, 0);
	}
	freeifaddrs(ifa);
	fd = nl_open();
	if (nl_dump(fd, RTM_GETROUTE, AF_INET, router_parse, b) == -1)
		fatal("cannot read this machine's routes (netlink)");
	close(fd);
}

static void
lookup_parse(const struct nlmsghdr *h, void *arg)
{
	struct barrier_route	*r = arg;
	struct rtmsg		*rtm = NLMSG_DATA(h);
	struct rtattr		*rta;
	const void		*p;
	int			 len;

	if (h->nlmsg_type != RTM_NEWROUTE ||
	    h->nlmsg_len < NLMSG_LENGTH(sizeof(*rtm)))
		return;
	r->type = rtm->rtm_type;
	r->len = rtm->rtm_dst_len;
	r->table = rtm->rtm_table;
	len = h->nlmsg_len - NLMSG_LENGTH(sizeof(*rtm));
	for (rta = RTM_RTA(rtm); RTA_OK(rta, len); rta = RTA_NEXT(rta, len)) {
		switch (rta->rta_type) {
		case RTA_DST:
			if ((p = nl_rta(rta, 4)) != NULL)
				memcpy(&r->dst, p, 4);
			break;
		case RTA_GATEWAY:
			if ((p = nl_rta(rta, 4)) != NULL) {
				memcpy(&r->gw, p, 4);
				r->has_gw = 1;
			}
			break;
		case RTA_OIF:
			if ((p = nl_rta(rta, sizeof(int))) != NULL)
				memcpy(&r->oif, p, sizeof(int));
			break;
		case RTA_TABLE:
			if ((p = nl_rta(rta, sizeof(uint32_t))) != NULL)
				memcpy(&r->table, p, sizeof(uint32_t));
			break;
		}
	}
}

void
barrier_lookup(int nlfd, struct in_addr a, int proto, uint16_t dport,
    struct barrier_route *r)
{
	struct nlreq	req;
	struct rtmsg	rtm;
	uint8_t		p = proto;
	uint16_t	port = htons(dport);

	memset(&rtm, 0, sizeof(rtm));
	rtm.rtm_family = AF_INET;
	rtm.rtm_dst_len = 32;
	rtm.rtm_flags = RTM_F_FIB_MATCH | RTM_F_LOOKUP_TABLE;
	nl_request(&req, RTM_GETROUTE, 0, &rtm, sizeof(rtm));
	if (nl_attr(&req, RTA_DST, &a, sizeof(a)) == -1 ||
	    nl_attr(&req, RTA_IP_PROTO, &p, sizeof(p)) == -1 ||
	    (dport != 0 && nl_attr(&req, RTA_DPORT, &port,
	    sizeof(port)) == -1))
		fatalx("netlink: a lookup request too long");
	memset(r, 0, sizeof(*r));
	r->err = -nl_talk(nlfd, &req, lookup_parse, r);
}

void
barrier_route_str(const struct barrier_route *r, char *buf, size_t bufsz)
{
	char	dst[INET_ADDRSTRLEN], gw[INET_ADDRSTRLEN + 5] = "";
	char	dev[IF_NAMESIZE + 5] = "", table[24] = "";
	char	ifname[IF_NAMESIZE];

	if (r->err == EACCES) {
		(void)snprintf(buf, bufsz, "prohibit");
		return;
	}
	if (r->err != 0) {
		(void)snprintf(buf, bufsz, "no route (%s)", strerror(r->err));
		return;
	}
	inet_ntop(AF_INET, &r->dst, dst, sizeof(dst));
	if (r->has_gw)
		(void)snprintf(gw, sizeof(gw), " via %s", inet_ntoa(r->gw));
	if (r->oif != 0)
		(void)snprintf(dev, sizeof(dev), " dev %s",
		    if_indextoname(r->oif, ifname) ? ifname : "?");
	if (r->table != RT_TABLE_MAIN)
		(void)snprintf(table, sizeof(table), " table %u", r->table);
	if (r->type == RTN_UNICAST && r->len == 0)
		(void)snprintf(buf, bufsz, "default%s%s%s", gw, dev, table);
	else if (r->type == RTN_UNICAST)
		(void)snprintf(buf, bufsz, "%s/%d%s%s%s", dst, r->len, gw, dev,
		    table);
	else
		(void)snprintf(buf, bufsz, "%s %s/%d%s%s",
		    r->type == RTN_LOCAL ? "local" :
		    r->type == RTN_BLACKHOLE ? "blackhole" :
		    r->type == RTN_UNREACHABLE ? "unreachable" :
		    r->type == RTN_BROADCAST ? "broadcast" : "a route of type",
		    dst, r->len, dev, table);
}

static void
probe_add(struct probe *p, size_t *n, struct in_addr a, int proto,
    uint16_t dport, enum expect e, const char *what)
{
	p[*n].addr = a;
	p[*n].proto = proto;
	p[*n].dport = dport;
	p[*n].expect = e;
	(void)strlcpy(p[*n].what, what, sizeof(p[*n].what));
	(*n)++;
}

/* 0.0.0.0 is "this host" to the kernel, never routed: the first is .1. */
static void
probes_bogons(struct probe *p, size_t *n)
{
	uint32_t	size;
	char		what[PROBE_WHAT];
	size_t		i;

	for (i = 0; i < NBOGONS; i++) {
		size = 1U << (32 - bogons[i].prefixlen);
		(void)snprintf(what, sizeof(what), "the first of %s",
		    bogons[i].cidr);
		probe_add(p, n, ip4(bogons[i].net + (bogons[i].net == 0)),
		    IPPROTO_TCP, 0, EXPECT_PROHIBIT, what);
		(void)snprintf(what, sizeof(what), "the middle of %s",
		    bogons[i].cidr);
		probe_add(p, n, ip4(bogons[i].net + size / 2), IPPROTO_TCP, 0,
		    EXPECT_PROHIBIT, what);
		(void)snprintf(what, sizeof(what), "the last of %s",
		    bogons[i].cidr);
		probe_add(p, n, ip4(bogons[i].net + size - 1), IPPROTO_TCP, 0,
		    EXPECT_PROHIBIT, what);
	}
}

static const struct barrier_exc *
exc_of(const struct barrier *b, struct in_addr a)
{
	size_t	i;

	for (i = 0; i < b->nexc; i++) {
		if (b->exc[i].ip.s_addr == a.s_addr)
			return &b->exc[i];
	}
	return NULL;
}

static int
route_is(const struct barrier_route *r, struct in_addr dst, uint32_t table,
    int oif)
{
	return r->err == 0 && r->type == RTN_UNICAST && r->len == 32 &&
	    r->dst.s_addr == dst.s_addr && r->has_gw &&
	    r->gw.s_addr == barrier_ip4(BARRIER_PEER).s_addr && r->oif == oif &&
	    r->table == table;
}

static int
probe_check(int nlfd, const struct barrier *b, const struct probe *p,
    int oif, char *why, size_t whysz)
{
	struct barrier_route		 r;
	const struct barrier_exc	*e = NULL;
	char				 ip[INET_ADDRSTRLEN], got[128];

	barrier_lookup(nlfd, p->addr, p->proto, p->dport, &r);
	barrier_route_str(&r, got, sizeof(got));
	inet_ntop(AF_INET, &p->addr, ip, sizeof(ip));
	if (p->expect == EXPECT_DNS) {
		if (route_is(&r, p->addr, BARRIER_DNS_TABLE, oif))
			return 0;
		(void)snprintf(why, whysz, "the way to the resolver (UDP to "
		    "%s port 53) is answered by %s, not by its route through "
		    "%s in table %u", ip, got, BARRIER_PEER, BARRIER_DNS_TABLE);
		return -1;
	}
	if (p->proto == IPPROTO_TCP && (e = exc_of(b, p->addr)) != NULL) {
		if (route_is(&r, p->addr, RT_TABLE_MAIN, oif))
			return 0;
		(void)snprintf(why, whysz, "%s (the internal exception of %s) "
		    "is answered by %s, not by its /32 through %s", ip,
		    e->dest, got, BARRIER_PEER);
		return -1;
	}
	if (r.err == EACCES)
		return 0;
	(void)snprintf(why, whysz, "%s (%s) is answered by %s, not prohibit",
	    ip, p->what, got);
	return -1;
}

int
barrier_verify(int nlfd, const struct barrier *b, char *why, size_t whysz)
{
	static struct probe	 p[NBOGONS * 3 + BARRIER_MACHINE_MAX +
				    BARRIER_EXC_MAX + 4];
	size_t			 n = 0, i;
	int			 oif;

	if ((oif = if_nametoindex(BARRIER_IFNAME)) == 0) {
		(void)snprintf(why, whysz, "the gate's network has no link %s",
		    BARRIER_IFNAME);
		return -1;
	}
	probes_bogons(p, &n);
	for (i = 0; i < b->nmachine; i++)
		probe_add(p, &n, b->machine[i], IPPROTO_TCP, 0,
		    EXPECT_PROHIBIT, barrier_machine_what(b, i));
	for (i = 0; i < b->nexc; i++)
		probe_add(p, &n, b->exc[i].ip, IPPROTO_TCP, 0,
		    EXPECT_EXCEPTION, "an internal exception");
	probe_add(p, &n, barrier_ip4(BARRIER_PEER), IPPROTO_TCP, 0,
	    EXPECT_PROHIBIT, "pasta's side of the link");
	probe_add(p, &n, barrier_ip4(BARRIER_DNS), IPPROTO_TCP, 53,
	    EXPECT_PROHIBIT, "the resolver's address, by TCP");
	probe_add(p, &n, barrier_ip4(BARRIER_DNS), IPPROTO_UDP, 54,
	    EXPECT_PROHIBIT, "the resolver's address, UDP to another port");
	probe_add(p, &n, barrier_ip4(BARRIER_DNS), IPPROTO_UDP, 53, EXPECT_DNS,
	    "the resolver");
	for (i = 0; i < n; i++) {
		if (probe_check(nlfd, b, &p[i], oif, why, whysz) == -1)
			return -1;
	}
	return (int)n;
}
