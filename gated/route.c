/*
 * The second barrier's routes.  The default goes "onlink" through pasta's
 * side, which itself stays behind 169.254.0.0/16's prohibit.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <linux/fib_rules.h>
#include <net/if.h>
#include <netinet/in.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "barrier.h"
#include "gate.h"
#include "log.h"
#include "netlink.h"
#include "policy.h"

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

int
route_wait_link(pid_t pasta)
{
	struct timespec	pause = { 0, 20 * 1000 * 1000 };
	int		i, ifindex;

	for (i = 0; i < GATE_READY_SECS * 50; i++) {
		pasta_alive(pasta);
		if ((ifindex = if_nametoindex(BARRIER_IFNAME)) != 0) {
			log_debug("pasta made the link %s in %d ms",
			    BARRIER_IFNAME, i * 20);
			return ifindex;
		}
		nanosleep(&pause, NULL);
	}
	fatalx("pasta did not make the gate's link %s within %d s",
	    BARRIER_IFNAME, GATE_READY_SECS);
}

static void
talk(int fd, struct nlreq *req, const char *what)
{
	int	r;

	if ((r = nl_talk(fd, req, NULL, NULL)) != 0)
		fatalx("cannot add %s to the gate's network: %s", what,
		    strerror(-r));
	log_debug("added %s", what);
}

static void
attr(struct nlreq *req, int type, const void *data, size_t len)
{
	if (nl_attr(req, type, data, len) == -1)
		fatalx("netlink: a request too long");
}

static void
link_up(int fd, int ifindex)
{
	struct nlreq		req;
	struct ifinfomsg	ifi;
	uint32_t		mtu = BARRIER_MTU;

	memset(&ifi, 0, sizeof(ifi));
	ifi.ifi_family = AF_UNSPEC;
	ifi.ifi_index = ifindex;
	ifi.ifi_flags = IFF_UP;
	ifi.ifi_change = IFF_UP;
	nl_request(&req, RTM_NEWLINK, 0, &ifi, sizeof(ifi));
	attr(&req, IFLA_MTU, &mtu, sizeof(mtu));
	talk(fd, &req, "the link " BARRIER_IFNAME);
}

static void
link_address(int fd, int ifindex)
{
	struct nlreq		req;
	struct ifaddrmsg	ifa;
	struct in_addr		a = barrier_ip4(BARRIER_ADDR);

	memset(&ifa, 0, sizeof(ifa));
	ifa.ifa_family = AF_INET;
	ifa.ifa_prefixlen = 32;
	ifa.ifa_scope = RT_SCOPE_UNIVERSE;
	ifa.ifa_index = ifindex;
	nl_request(&req, RTM_NEWADDR, NLM_F_CREATE | NLM_F_EXCL, &ifa,
	    sizeof(ifa));
	attr(&req, IFA_LOCAL, &a, sizeof(a));
	attr(&req, IFA_ADDRESS, &a, sizeof(a));
	talk(fd, &req, "the address " BARRIER_ADDR "/32");
}

static void
route_add(int fd, unsigned char type, struct in_addr dst, int len,
    int ifindex, uint32_t table, const char *what)
{
	struct nlreq	req;
	struct rtmsg	rtm;
	struct in_addr	gw = barrier_ip4(BARRIER_PEER);
	int		r;

	memset(&rtm, 0, sizeof(rtm));
	rtm.rtm_family = AF_INET;
	rtm.rtm_dst_len = len;
	rtm.rtm_table = table < 256 ? table : RT_TABLE_UNSPEC;
	rtm.rtm_protocol = RTPROT_STATIC;
	rtm.rtm_scope = RT_SCOPE_UNIVERSE;
	rtm.rtm_type = type;
	if (ifindex != 0)
		rtm.rtm_flags = RTNH_F_ONLINK;
	nl_request(&req, RTM_NEWROUTE, NLM_F_CREATE | NLM_F_EXCL, &rtm,
	    sizeof(rtm));
	attr(&req, RTA_TABLE, &table, sizeof(table));
	if (len > 0)
		attr(&req, RTA_DST, &dst, sizeof(dst));
	if (ifindex != 0) {
		attr(&req, RTA_GATEWAY, &gw, sizeof(gw));
		attr(&req, RTA_OIF, &ifindex, sizeof(ifindex));
	}
	/* Two destinations may share an exception's address. */
	if ((r = nl_talk(fd, &req, NULL, NULL)) != 0 && r != -EEXIST)
		fatalx("cannot add the route %s to the gate's network: %s",
		    what, strerror(-r));
	log_debug("route %s", what);
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
routes_prohibit(int fd, const struct barrier *b)
{
	struct in_addr	dst;
	char		what[64];
	size_t		i, j;

	for (i = 0; i < NBOGONS; i++) {
		if (route_skipped(bogons[i].cidr))
			continue;
		dst.s_addr = htonl(bogons[i].net);
		(void)snprintf(what, sizeof(what), "prohibit %s",
		    bogons[i].cidr);
		route_add(fd, RTN_PROHIBIT, dst, bogons[i].prefixlen, 0,
		    RT_TABLE_MAIN, what);
	}
	/* A public address of this machine or its router is closed too. */
	for (i = 0; i < b->nmachine; i++) {
		if (barrier_in_bogon(b->machine[i]))
			continue;
		for (j = 0; j < b->nexc; j++) {
			if (b->exc[j].ip.s_addr == b->machine[i].s_addr)
				break;
		}
		if (j < b->nexc)
			continue;
		(void)snprintf(what, sizeof(what), "prohibit %s/32 (%s)",
		    inet_ntoa(b->machine[i]), barrier_machine_what(b, i));
		route_add(fd, RTN_PROHIBIT, b->machine[i], 32, 0,
		    RT_TABLE_MAIN, what);
	}
}

static void
routes_exceptions(int fd, const struct barrier *b, int ifindex)
{
	char	what[128];
	size_t	i;

	for (i = 0; i < b->nexc; i++) {
		(void)snprintf(what, sizeof(what), "%s/32 via %s for %s",
		    inet_ntoa(b->exc[i].ip), BARRIER_PEER, b->exc[i].dest);
		route_add(fd, RTN_UNICAST, b->exc[i].ip, 32, ifindex,
		    RT_TABLE_MAIN, what);
	}
}

/* UDP to port 53 of BARRIER_DNS, pasta's DNS forward, and nothing else. */
static void
routes_dns(int fd, int ifindex)
{
	struct nlreq			req;
	struct fib_rule_hdr		frh;
	struct fib_rule_port_range	port = { 53, 53 };
	struct in_addr			dns = barrier_ip4(BARRIER_DNS);
	uint32_t			table = BARRIER_DNS_TABLE;
	uint32_t			pref = BARRIER_DNS_PREF;
	uint8_t				proto = IPPROTO_UDP;

	route_add(fd, RTN_UNICAST, dns, 32, ifindex, table,
	    BARRIER_DNS "/32 via " BARRIER_PEER " in the resolver's table");
	memset(&frh, 0, sizeof(frh));
	frh.family = AF_INET;
	frh.dst_len = 32;
	frh.action = FR_ACT_TO_TBL;
	nl_request(&req, RTM_NEWRULE, NLM_F_CREATE | NLM_F_EXCL, &frh,
	    sizeof(frh));
	attr(&req, FRA_DST, &dns, sizeof(dns));
	attr(&req, FRA_PRIORITY, &pref, sizeof(pref));
	attr(&req, FRA_TABLE, &table, sizeof(table));
	attr(&req, FRA_IP_PROTO, &proto, sizeof(proto));
	attr(&req, FRA_DPORT_RANGE, &port, sizeof(port));
	talk(fd, &req, "the rule for UDP to " BARRIER_DNS " port 53");
}

void
route_install(const struct gate *g, int ifindex)
{
	int	fd;

	fd = nl_open();
	link_up(fd, ifindex);
	link_address(fd, ifindex);
	route_add(fd, RTN_UNICAST, barrier_ip4(BARRIER_PEER), 0, ifindex,
	    RT_TABLE_MAIN, "default via " BARRIER_PEER);
	routes_prohibit(fd, &g->barrier);
	routes_exceptions(fd, &g->barrier, ifindex);
	routes_dns(fd, ifindex);
	close(fd);
}

void
route_verify(const struct gate *g)
{
	char	why[512];
	int	fd, n;

	fd = nl_open();
	if ((n = barrier_verify(fd, &g->barrier, why, sizeof(why))) == -1)
		fatalx("the gate's network: %s: refusing to serve", why);
	close(fd);
	log_info("the gate's network refuses every bogon and this machine: "
	    "%d route lookups, %zu internal exception(s) open", n,
	    g->barrier.nexc);
}
