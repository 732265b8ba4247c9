/*
 * N3 N6: the second barrier's read-back asks the kernel's route lookup,
 * address by address, and names what wins: each test makes the gate's
 * network as gated does (route_install) in a network namespace of its
 * own, on a tap link named as pasta's, doctors it one way, and
 * requires barrier_verify() to refuse, naming the address, what it is
 * and the route that won; the control is the same network undoctored.
 * As root: a network namespace and its routes need CAP_NET_ADMIN.
 */
#include <sys/types.h>

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>

#include <atf-c.h>

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../gated/barrier.h"
#include "../../gated/gate.h"
#include "../../gated/netlink.h"

static struct gate	g;

static struct in_addr
ip(const char *s)
{
	struct in_addr	in;

	ATF_REQUIRE_MSG(inet_pton(AF_INET, s, &in) == 1, "bad test ip %s", s);
	return in;
}

static void
sh(const char *cmd)
{
	ATF_REQUIRE_MSG(system(cmd) == 0, "%s failed", cmd);
}

/*
 * The gate's network for a home machine: 192.168.1.20 with its router
 * 192.168.1.1, a public address 198.20.5.2 too, and an internal
 * exception to the NAS, 192.168.1.30.
 */
static void
home_net(void)
{
	int	ifindex;

	ATF_REQUIRE_MSG(unshare(CLONE_NEWNET) == 0, "unshare: %s",
	    strerror(errno));
	sh("ip link set lo up && ip tuntap add dev " BARRIER_IFNAME " mode tap");
	ATF_REQUIRE((ifindex = if_nametoindex(BARRIER_IFNAME)) != 0);
	memset(&g, 0, sizeof(g));
	barrier_add_machine(&g.barrier, ip("192.168.1.20"), 0);
	barrier_add_machine(&g.barrier, ip("198.20.5.2"), 0);
	barrier_add_machine(&g.barrier, ip("192.168.1.1"), 1);
	barrier_add_exc(&g.barrier, ip("192.168.1.30"), "nas");
	route_install(&g, ifindex);
}

/* barrier_verify()'s refusal, which must hold want; "" when it passed. */
static void
expect(const char *want)
{
	char	why[512] = "";
	int	fd, n;

	fd = nl_open();
	n = barrier_verify(fd, &g.barrier, why, sizeof(why));
	close(fd);
	if (want == NULL) {
		ATF_CHECK_MSG(n > 0, "refused: %s", why);
		return;
	}
	ATF_CHECK_EQ_MSG(n, -1, "passed, not refused with %s", want);
	ATF_CHECK_MSG(strstr(why, want) != NULL, "why: %s\nwant: %s", why,
	    want);
}

static void
root_only(atf_tc_t *tc, const char *descr)
{
	atf_tc_set_md_var(tc, "descr", descr);
	atf_tc_set_md_var(tc, "require.user", "root");
}

ATF_TC(clean);
ATF_TC_HEAD(clean, tc)
{
	root_only(tc, "the gate's network as made passes: every bogon, the "
	    "machine's addresses and router prohibit, the exception open");
}
ATF_TC_BODY(clean, tc)
{
	char	why[512];
	int	fd;

	home_net();
	expect(NULL);
	/* 14 * 3 bogons, 3 of the machine, 1 exception, 4 of the link. */
	fd = nl_open();
	ATF_CHECK_EQ(barrier_verify(fd, &g.barrier, why, sizeof(why)), 50);
	close(fd);
	/* The public address of the machine is closed by a /32 of its own. */
	sh("ip route show | grep -q '^prohibit 198.20.5.2 '");
}

ATF_TC(copied_subnet);
ATF_TC_HEAD(copied_subnet, tc)
{
	root_only(tc, "a /24 copied from the machine's interface "
	    "shadows prohibit 192.168.0.0/16: refused, naming the route that won");
}
ATF_TC_BODY(copied_subnet, tc)
{
	home_net();
	sh("ip route add 192.168.1.0/24 dev " BARRIER_IFNAME);
	expect("192.168.1.20 (this machine's address) is answered by "
	    "192.168.1.0/24 dev egress, not prohibit");
}

ATF_TC(copied_address);
ATF_TC_HEAD(copied_address, tc)
{
	root_only(tc, "the machine's own address copied into the "
	    "namespace, as pasta --config-net does: refused");
}
ATF_TC_BODY(copied_address, tc)
{
	home_net();
	sh("ip addr add 192.168.1.20/24 dev " BARRIER_IFNAME);
	expect("192.168.1.20 (this machine's address) is answered by local "
	    "192.168.1.20/32");
}

ATF_TC(more_specific);
ATF_TC_HEAD(more_specific, tc)
{
	root_only(tc, "a route more specific than a prohibit route, "
	    "through pasta's side: refused");
}
ATF_TC_BODY(more_specific, tc)
{
	home_net();
	sh("ip route add 10.0.0.0/9 via " BARRIER_PEER " dev "
	    BARRIER_IFNAME " onlink");
	expect("10.0.0.0 (the first of 10.0.0.0/8) is answered by "
	    "10.0.0.0/9 via 169.254.77.1 dev egress, not prohibit");
}

ATF_TC(missing_prohibit);
ATF_TC_HEAD(missing_prohibit, tc)
{
	root_only(tc, "a prohibit route removed: the lookup falls to "
	    "the default route, refused");
}
ATF_TC_BODY(missing_prohibit, tc)
{
	home_net();
	sh("ip route del prohibit 172.16.0.0/12");
	expect("172.16.0.0 (the first of 172.16.0.0/12) is answered by "
	    "default via 169.254.77.1 dev egress, not prohibit");
}

ATF_TC(public_own);
ATF_TC_HEAD(public_own, tc)
{
	root_only(tc, "the machine's public address without its /32: "
	    "refused");
}
ATF_TC_BODY(public_own, tc)
{
	home_net();
	sh("ip route del prohibit 198.20.5.2/32");
	expect("198.20.5.2 (this machine's address) is answered by default "
	    "via 169.254.77.1 dev egress, not prohibit");
}

ATF_TC(router);
ATF_TC_HEAD(router, tc)
{
	root_only(tc, "the router opened by a /32 of its own: refused");
}
ATF_TC_BODY(router, tc)
{
	home_net();
	sh("ip route add 192.168.1.1/32 via " BARRIER_PEER " dev "
	    BARRIER_IFNAME " onlink");
	expect("192.168.1.1 (this machine's router) is answered by "
	    "192.168.1.1/32 via 169.254.77.1 dev egress, not prohibit");
}

ATF_TC(exception_gone);
ATF_TC_HEAD(exception_gone, tc)
{
	root_only(tc, "an internal exception's /32 removed: refused, "
	    "naming the destination");
}
ATF_TC_BODY(exception_gone, tc)
{
	home_net();
	sh("ip route del 192.168.1.30/32");
	expect("192.168.1.30 (the internal exception of nas) is answered by "
	    "prohibit, not by its /32 through 169.254.77.1");
}

ATF_TC(dns_wide);
ATF_TC_HEAD(dns_wide, tc)
{
	root_only(tc, "the resolver's address opened to TCP as well: "
	    "refused");
}
ATF_TC_BODY(dns_wide, tc)
{
	home_net();
	sh("ip route add " BARRIER_DNS "/32 via " BARRIER_PEER " dev "
	    BARRIER_IFNAME " onlink");
	expect("169.254.77.53 (the resolver's address, by TCP) is answered "
	    "by 169.254.77.53/32 via 169.254.77.1 dev egress, not prohibit");
}

ATF_TC(dns_gone);
ATF_TC_HEAD(dns_gone, tc)
{
	root_only(tc, "the resolver's rule removed: refused");
}
ATF_TC_BODY(dns_gone, tc)
{
	home_net();
	sh("ip rule del pref 100");
	expect("the way to the resolver (UDP to 169.254.77.53 port 53) is "
	    "answered by prohibit");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, clean);
	ATF_TP_ADD_TC(tp, copied_subnet);
	ATF_TP_ADD_TC(tp, copied_address);
	ATF_TP_ADD_TC(tp, more_specific);
	ATF_TP_ADD_TC(tp, missing_prohibit);
	ATF_TP_ADD_TC(tp, public_own);
	ATF_TP_ADD_TC(tp, router);
	ATF_TP_ADD_TC(tp, exception_gone);
	ATF_TP_ADD_TC(tp, dns_wide);
	ATF_TP_ADD_TC(tp, dns_gone);
	return atf_no_error();
}
