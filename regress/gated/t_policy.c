/*
 * N1 N2 N3 N4 S3: the gate's first barrier: a name on the list that
 * resolves into the internal network, a sealed range or this machine is
 * refused after resolving, unless it has exactly that internal exception;
 * and the table of the second barrier.
 */
#include <arpa/inet.h>
#include <netinet/in.h>

#include <atf-c.h>

#include <stdlib.h>
#include <string.h>

#include "values.h"
#include "../../gated/policy.h"

static struct in_addr
ip(const char *s)
{
	struct in_addr	in;

	ATF_REQUIRE_MSG(inet_pton(AF_INET, s, &in) == 1, "bad test ip %s", s);
	return in;
}

static struct destination
dest_of(const char *name, const char *host, uint16_t port)
{
	struct destination	d;

	memset(&d, 0, sizeof(d));
	strlcpy(d.name, name, sizeof(d.name));
	strlcpy(d.host, host, sizeof(d.host));
	d.port = port;
	return d;
}

/* policy_check() on one resolved address, no own addresses. */
static enum refusal
check_one(const char *addr)
{
	struct destination	d = dest_of("notes", "notes.example.org", 443);
	struct in_addr		a = ip(addr);
	struct sockaddr_in	sin;
	const char		*why;

	return policy_check(&d, &a, 1, NULL, 0, &sin, &why);
}

/*
 * Each bogon's first and last address, and the ones just outside where
 * they are public; written out by hand, not computed from the table.
 */
static const struct {
	const char	*cidr, *first, *last, *below, *above;
	enum refusal	 refusal;
} edges[NBOGONS] = {
	{ "0.0.0.0/8", "0.0.0.0", "0.255.255.255", NULL, "1.0.0.0",
	    REFUSAL_UNSPECIFIED },
	{ "10.0.0.0/8", "10.0.0.0", "10.255.255.255", "9.255.255.255",
	    "11.0.0.0", REFUSAL_INTERNAL },
	{ "100.64.0.0/10", "100.64.0.0", "100.127.255.255", "100.63.255.255",
	    "100.128.0.0", REFUSAL_INTERNAL },
	{ "169.254.0.0/16", "169.254.0.0", "169.254.255.255",
	    "169.253.255.255", "169.255.0.0", REFUSAL_LINK_LOCAL },
	{ "172.16.0.0/12", "172.16.0.0", "172.31.255.255", "172.15.255.255",
	    "172.32.0.0", REFUSAL_INTERNAL },
	{ "192.0.0.0/24", "192.0.0.0", "192.0.0.255", "191.255.255.255",
	    "192.0.1.0", REFUSAL_PROTOCOL },
	{ "192.0.2.0/24", "192.0.2.0", "192.0.2.255", "192.0.1.255",
	    "192.0.3.0", REFUSAL_DOCUMENTATION },
	{ "192.88.99.0/24", "192.88.99.0", "192.88.99.255", "192.88.98.255",
	    "192.88.100.0", REFUSAL_6TO4 },
	{ "192.168.0.0/16", "192.168.0.0", "192.168.255.255",
	    "192.167.255.255", "192.169.0.0", REFUSAL_INTERNAL },
	{ "198.18.0.0/15", "198.18.0.0", "198.19.255.255", "198.17.255.255",
	    "198.20.0.0", REFUSAL_BENCHMARK },
	{ "198.51.100.0/24", "198.51.100.0", "198.51.100.255", "198.51.99.255",
	    "198.51.101.0", REFUSAL_DOCUMENTATION },
	{ "203.0.113.0/24", "203.0.113.0", "203.0.113.255", "203.0.112.255",
	    "203.0.114.0", REFUSAL_DOCUMENTATION },
	{ "224.0.0.0/4", "224.0.0.0", "239.255.255.255", "223.255.255.255",
	    NULL, REFUSAL_MULTICAST },
	/* Its very last address is the broadcast, refused as such below. */
	{ "240.0.0.0/4", "240.0.0.0", "255.255.255.254", NULL, NULL,
	    REFUSAL_RESERVED },
};

ATF_TC_WITHOUT_HEAD(bogon_edges);
ATF_TC_BODY(bogon_edges, tc)
{
	size_t	i, controls = 0;

	for (i = 0; i < NBOGONS; i++) {
		ATF_CHECK_EQ_MSG(check_one(edges[i].first), edges[i].refusal,
		    "%s", edges[i].first);
		ATF_CHECK_EQ_MSG(check_one(edges[i].last), edges[i].refusal,
		    "%s", edges[i].last);
		if (edges[i].below != NULL) {
			ATF_CHECK_EQ_MSG(check_one(edges[i].below),
			    REFUSAL_NONE, "%s", edges[i].below);
			controls++;
		}
		if (edges[i].above != NULL) {
			ATF_CHECK_EQ_MSG(check_one(edges[i].above),
			    REFUSAL_NONE, "%s", edges[i].above);
			controls++;
		}
	}
	ATF_CHECK_EQ(controls, 24);
}

/* The table the second barrier installs: the same fourteen, spelled right. */
ATF_TC_WITHOUT_HEAD(bogon_table);
ATF_TC_BODY(bogon_table, tc)
{
	char		 net[32], *slash;
	struct in_addr	 in;
	size_t		 i;

	for (i = 0; i < NBOGONS; i++) {
		ATF_CHECK_STREQ(bogons[i].cidr, edges[i].cidr);
		ATF_CHECK_EQ(bogons[i].refusal, edges[i].refusal);
		strlcpy(net, bogons[i].cidr, sizeof(net));
		ATF_REQUIRE((slash = strchr(net, '/')) != NULL);
		*slash = '\0';
		in = ip(net);
		ATF_CHECK_EQ_MSG(ntohl(in.s_addr), bogons[i].net, "%s",
		    bogons[i].cidr);
		ATF_CHECK_EQ_MSG(atoi(slash + 1), bogons[i].prefixlen, "%s",
		    bogons[i].cidr);
		ATF_CHECK_EQ(check_one(net), bogons[i].refusal);
	}
}

/* The gate's list and common/values.h's ranges say the same of each bogon. */
ATF_TC_WITHOUT_HEAD(bogons_agree_with_addr);
ATF_TC_BODY(bogons_agree_with_addr, tc)
{
	const char	*which[2];
	struct in_addr	 in;
	size_t		 i, j;

	for (i = 0; i < NBOGONS; i++) {
		which[0] = edges[i].first;
		which[1] = edges[i].last;
		for (j = 0; j < 2; j++) {
			in = ip(which[j]);
			if (edges[i].refusal == REFUSAL_INTERNAL)
				ATF_CHECK_MSG(ipv4_is_internal(in), "%s",
				    which[j]);
			else
				ATF_CHECK_MSG(ipv4_sealed(in) != NULL, "%s",
				    which[j]);
		}
	}
	ATF_CHECK(!ipv4_is_internal(ip("93.184.216.34")));
	ATF_CHECK(ipv4_sealed(ip("93.184.216.34")) == NULL);
}

ATF_TC_WITHOUT_HEAD(loopback_broadcast);
ATF_TC_BODY(loopback_broadcast, tc)
{
	ATF_CHECK_EQ(check_one("127.0.0.0"), REFUSAL_LOOPBACK);
	ATF_CHECK_EQ(check_one("127.0.0.1"), REFUSAL_LOOPBACK);
	ATF_CHECK_EQ(check_one("127.255.255.255"), REFUSAL_LOOPBACK);
	ATF_CHECK_EQ(check_one("126.255.255.255"), REFUSAL_NONE);
	ATF_CHECK_EQ(check_one("128.0.0.0"), REFUSAL_NONE);
	ATF_CHECK_EQ(check_one("255.255.255.255"), REFUSAL_BROADCAST);
}

ATF_TC_WITHOUT_HEAD(own_address);
ATF_TC_BODY(own_address, tc)
{
	struct destination	d = dest_of("notes", "notes.example.org", 443);
	struct in_addr		own[2] = { ip("192.168.1.5"), ip("93.184.216.9") };
	struct in_addr		a;
	struct sockaddr_in	sin;
	const char		*why;

	a = ip("93.184.216.9");
	ATF_CHECK_EQ(policy_check(&d, &a, 1, own, 2, &sin, &why),
	    REFUSAL_SELF);
	ATF_CHECK_STREQ(why, "the name resolves to this machine");
	ATF_CHECK_EQ(sin.sin_addr.s_addr, a.s_addr);
	/* An own address in a private range is named as this machine. */
	a = ip("192.168.1.5");
	ATF_CHECK_EQ(policy_check(&d, &a, 1, own, 2, &sin, &why),
	    REFUSAL_SELF);
	/* Control: the same answer on a machine without that address. */
	a = ip("93.184.216.9");
	ATF_CHECK_EQ(policy_check(&d, &a, 1, own + 1, 0, &sin, &why),
	    REFUSAL_NONE);
	a = ip("93.184.216.10");
	ATF_CHECK_EQ(policy_check(&d, &a, 1, own, 2, &sin, &why),
	    REFUSAL_NONE);
}

ATF_TC_WITHOUT_HEAD(mixed_answer);
ATF_TC_BODY(mixed_answer, tc)
{
	struct destination	d = dest_of("notes", "notes.example.org", 443);
	struct in_addr		a[3];
	struct sockaddr_in	sin;
	const char		*why;

	a[0] = ip("93.184.216.34");
	a[1] = ip("10.1.2.3");
	a[2] = ip("93.184.216.35");
	ATF_CHECK_EQ(policy_check(&d, a, 3, NULL, 0, &sin, &why),
	    REFUSAL_PARTLY);
	ATF_CHECK_STREQ(why, "the name resolves partly to the internal network");
	ATF_CHECK_EQ(sin.sin_addr.s_addr, a[1].s_addr);
	/* In any order. */
	a[0] = ip("127.0.0.1");
	a[1] = ip("93.184.216.34");
	ATF_CHECK_EQ(policy_check(&d, a, 2, NULL, 0, &sin, &why),
	    REFUSAL_PARTLY);
	ATF_CHECK_EQ(sin.sin_addr.s_addr, a[0].s_addr);
	/* All refused: the first refusal's reason. */
	a[0] = ip("10.1.2.3");
	a[1] = ip("127.0.0.1");
	ATF_CHECK_EQ(policy_check(&d, a, 2, NULL, 0, &sin, &why),
	    REFUSAL_INTERNAL);
	ATF_CHECK_STREQ(why, "the name resolves to the internal network");
	/* Control: all public, the first is chosen with the port. */
	a[0] = ip("93.184.216.34");
	a[1] = ip("93.184.216.35");
	ATF_CHECK_EQ(policy_check(&d, a, 2, NULL, 0, &sin, &why),
	    REFUSAL_NONE);
	ATF_CHECK_EQ(sin.sin_addr.s_addr, a[0].s_addr);
	ATF_CHECK_EQ(ntohs(sin.sin_port), 443);
	ATF_CHECK_EQ(sin.sin_family, AF_INET);
	ATF_CHECK_STREQ(why, "");
}

ATF_TC_WITHOUT_HEAD(empty_answer);
ATF_TC_BODY(empty_answer, tc)
{
	struct destination	d = dest_of("notes", "notes.example.org", 443);
	struct sockaddr_in	sin;
	const char		*why;

	ATF_CHECK_EQ(policy_check(&d, NULL, 0, NULL, 0, &sin, &why),
	    REFUSAL_UNRESOLVED);
	ATF_CHECK_STREQ(why, "the name does not resolve");
	ATF_CHECK_EQ(sin.sin_addr.s_addr, htonl(INADDR_ANY));
}

ATF_TC_WITHOUT_HEAD(internal_exception);
ATF_TC_BODY(internal_exception, tc)
{
	struct destination	d;
	struct in_addr		a = ip("93.184.216.34");
	struct sockaddr_in	sin;
	const char		*why;

	d = dest_of("recipes", "recipes.home.arpa", 443);
	d.has_internal = 1;
	d.internal_ip = ip("192.168.1.30");
	d.internal_port = 8443;
	/* Exactly the exception's ip:port, whatever the answer says. */
	ATF_CHECK_EQ(policy_check(&d, &a, 1, NULL, 0, &sin, &why),
	    REFUSAL_NONE);
	ATF_CHECK_EQ(sin.sin_addr.s_addr, ip("192.168.1.30").s_addr);
	ATF_CHECK_EQ(ntohs(sin.sin_port), 8443);
	ATF_CHECK_EQ(policy_check(&d, NULL, 0, NULL, 0, &sin, &why),
	    REFUSAL_NONE);
	ATF_CHECK_EQ(sin.sin_addr.s_addr, ip("192.168.1.30").s_addr);
	ATF_CHECK_EQ(ntohs(sin.sin_port), 8443);
	/* Control: without it, the same name resolving there is refused. */
	d.has_internal = 0;
	a = ip("192.168.1.30");
	ATF_CHECK_EQ(policy_check(&d, &a, 1, NULL, 0, &sin, &why),
	    REFUSAL_INTERNAL);
}

/* An exception opens its address for its destination alone. */
ATF_TC_WITHOUT_HEAD(exception_is_not_shared);
ATF_TC_BODY(exception_is_not_shared, tc)
{
	struct destination	d[2];
	const struct destination *m;
	struct in_addr		a = ip("192.168.1.30");
	struct sockaddr_in	sin;
	const char		*why;

	d[0] = dest_of("recipes", "recipes.home.arpa", 443);
	d[0].has_internal = 1;
	d[0].internal_ip = a;
	d[0].internal_port = 443;
	d[1] = dest_of("notes", "notes.example.org", 443);
	ATF_REQUIRE((m = policy_match(d, 2, "notes.example.org", 443)) != NULL);
	ATF_CHECK_EQ(policy_check(m, &a, 1, NULL, 0, &sin, &why),
	    REFUSAL_INTERNAL);
	ATF_CHECK_EQ(sin.sin_addr.s_addr, a.s_addr);
	/* Control: the destination that has it gets through. */
	ATF_REQUIRE((m = policy_match(d, 2, "recipes.home.arpa", 443)) != NULL);
	ATF_CHECK_EQ(policy_check(m, &a, 1, NULL, 0, &sin, &why),
	    REFUSAL_NONE);
	ATF_CHECK_EQ(sin.sin_addr.s_addr, a.s_addr);
}

ATF_TC_WITHOUT_HEAD(public_allowed);
ATF_TC_BODY(public_allowed, tc)
{
	struct destination	d = dest_of("claude", "api.anthropic.com", 443);
	struct in_addr		a = ip("160.79.104.10");
	struct sockaddr_in	sin;
	const char		*why = NULL;

	ATF_CHECK_EQ(policy_check(&d, &a, 1, NULL, 0, &sin, &why),
	    REFUSAL_NONE);
	ATF_CHECK_EQ(sin.sin_addr.s_addr, a.s_addr);
	ATF_CHECK_EQ(ntohs(sin.sin_port), 443);
	ATF_CHECK_STREQ(why, "");
	ATF_CHECK_EQ(check_one("1.1.1.1"), REFUSAL_NONE);
	ATF_CHECK_EQ(check_one("8.8.8.8"), REFUSAL_NONE);
}

ATF_TC_WITHOUT_HEAD(match);
ATF_TC_BODY(match, tc)
{
	struct destination	d[3];

	d[0] = dest_of("notes", "notes.example.org", 443);
	d[1] = dest_of("claude", "api.anthropic.com", 443);
	d[2] = dest_of("notes-alt", "notes.example.org", 8443);
	ATF_CHECK_EQ(policy_match(d, 3, "notes.example.org", 443), &d[0]);
	ATF_CHECK_EQ(policy_match(d, 3, "notes.example.org", 8443), &d[2]);
	ATF_CHECK_EQ(policy_match(d, 3, "api.anthropic.com", 443), &d[1]);
	ATF_CHECK_EQ(policy_match(d, 3, "notes.example.org", 80), NULL);
	ATF_CHECK_EQ(policy_match(d, 3, "api.anthropic.com", 8443), NULL);
	ATF_CHECK_EQ(policy_match(d, 3, "notes.example.or", 443), NULL);
	ATF_CHECK_EQ(policy_match(d, 3, "xnotes.example.org", 443), NULL);
	ATF_CHECK_EQ(policy_match(d, 3, "example.org", 443), NULL);
	ATF_CHECK_EQ(policy_match(d, 0, "notes.example.org", 443), NULL);
}

ATF_TC_WITHOUT_HEAD(reasons);
ATF_TC_BODY(reasons, tc)
{
	unsigned int	i;

	ATF_CHECK_STREQ(policy_reason(REFUSAL_NONE), "");
	for (i = REFUSAL_NONE + 1; i < REFUSAL_COUNT; i++)
		ATF_CHECK_MSG(strncmp(policy_reason(i), "the ", 4) == 0,
		    "reason %u: %s", i, policy_reason(i));
	ATF_CHECK_STREQ(policy_reason(REFUSAL_UNLISTED),
	    "the name is not on the gate's list");
	ATF_CHECK_STREQ(policy_reason(REFUSAL_LINK_LOCAL),
	    "the name resolves to a sealed address (link-local)");
	ATF_CHECK_STREQ(policy_reason(REFUSAL_COUNT), "unknown");
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, bogon_edges);
	ATF_TP_ADD_TC(tp, bogon_table);
	ATF_TP_ADD_TC(tp, bogons_agree_with_addr);
	ATF_TP_ADD_TC(tp, loopback_broadcast);
	ATF_TP_ADD_TC(tp, own_address);
	ATF_TP_ADD_TC(tp, mixed_answer);
	ATF_TP_ADD_TC(tp, empty_answer);
	ATF_TP_ADD_TC(tp, internal_exception);
	ATF_TP_ADD_TC(tp, exception_is_not_shared);
	ATF_TP_ADD_TC(tp, public_allowed);
	ATF_TP_ADD_TC(tp, match);
	ATF_TP_ADD_TC(tp, reasons);
	return atf_no_error();
}
