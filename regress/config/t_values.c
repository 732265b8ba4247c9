/*
 * The values of sandcastle.conf(5): each accepted and each refused
 * spelling of durations, sizes, names, addresses and internal
 * exceptions, with the reason a refusal gives.
 */
#include <arpa/inet.h>

#include <atf-c.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "values.h"
#include "config.h"

static void
duration_ok(const char *s, uint32_t want)
{
	const char	*why = NULL;
	uint32_t	 v = 0;

	ATF_CHECK_MSG(parse_duration(s, &v, &why) == 0, "%s refused: %s", s,
	    why);
	ATF_CHECK_MSG(v == want, "%s: %u, not %u", s, v, want);
}

static void
duration_bad(const char *s, const char *reason)
{
	const char	*why = NULL;
	uint32_t	 v = 0;

	ATF_CHECK_MSG(parse_duration(s, &v, &why) == -1, "%s accepted", s);
	ATF_CHECK_MSG(why != NULL && strstr(why, reason) != NULL,
	    "%s: \"%s\" does not say \"%s\"", s, why ? why : "", reason);
}

ATF_TC_WITHOUT_HEAD(durations);
ATF_TC_BODY(durations, tc)
{
	duration_ok("30s", 30);
	duration_ok("15m", 900);
	duration_ok("1h30m", 5400);
	duration_ok("2h", 7200);
	duration_ok("1h1m1s", 3661);
	duration_ok("90s", 90);
	duration_ok("1h0m", 3600);
	duration_ok("4294967295s", UINT32_MAX);
	duration_bad("", "is not a duration");
	duration_bad("30", "write a number and a unit");
	duration_bad("s", "is not a duration");
	duration_bad("1.5h", "is not a duration");
	duration_bad("30 s", "is not a duration");
	duration_bad(" 30s", "is not a duration");
	duration_bad("30S", "is not a duration");
	duration_bad("1d", "is not a duration");
	duration_bad("-5s", "is not a duration");
	duration_bad("+5s", "is not a duration");
	duration_bad("1m1h", "in the order h, m, s");
	duration_bad("5m5m", "each unit once");
	duration_bad("1s1m", "in the order h, m, s");
	duration_bad("0s", "is zero");
	duration_bad("0h0m0s", "is zero");
	duration_bad("4294967296s", "is too long");
	duration_bad("1193047h", "is too long");
	duration_bad("99999999999999999999s", "is too long");
}

static void
size_ok(const char *s, uint64_t want)
{
	const char	*why = NULL;
	uint64_t	 v = 0;

	ATF_CHECK_MSG(parse_size(s, &v, &why) == 0, "%s refused: %s", s, why);
	ATF_CHECK_MSG(v == want, "%s: %llu, not %llu", s,
	    (unsigned long long)v, (unsigned long long)want);
}

static void
size_bad(const char *s, const char *reason)
{
	const char	*why = NULL;
	uint64_t	 v = 0;

	ATF_CHECK_MSG(parse_size(s, &v, &why) == -1, "%s accepted", s);
	ATF_CHECK_MSG(why != NULL && strstr(why, reason) != NULL,
	    "%s: \"%s\" does not say \"%s\"", s, why ? why : "", reason);
}

ATF_TC_WITHOUT_HEAD(sizes);
ATF_TC_BODY(sizes, tc)
{
	size_ok("0", 0);
	size_ok("1024", 1024);
	size_ok("256KiB", 256 * 1024);
	size_ok("16MiB", 16ULL << 20);
	size_ok("64GiB", 64ULL << 30);
	size_ok("18446744073709551615", UINT64_MAX);
	size_ok("17179869183GiB", 17179869183ULL << 30);
	size_bad("", "is not a size");
	size_bad("KiB", "is not a size");
	size_bad("16MB", "KiB, MiB or GiB");
	size_bad("16M", "KiB, MiB or GiB");
	size_bad("16kib", "KiB, MiB or GiB");
	size_bad("16mib", "KiB, MiB or GiB");
	size_bad("1TiB", "KiB, MiB or GiB");
	size_bad("1.5MiB", "whole number");
	size_bad("16 MiB", "together");
	size_bad("-1", "is not a size");
	size_bad("+1", "is not a size");
	size_bad("0755", "leading zero");
	size_bad("1e3", "is not a size");
	size_bad("0x10", "is not a size");
	size_bad("18446744073709551616", "is too large");
	size_bad("17179869184GiB", "is too large");
	size_bad("99999999999999999999KiB", "is too large");
}

static void
name_ok(const char *s)
{
	const char	*why = NULL;

	ATF_CHECK_MSG(name_valid(s, &why) == 0, "%s refused: %s", s, why);
}

static void
name_bad(const char *s, const char *reason)
{
	const char	*why = NULL;

	ATF_CHECK_MSG(name_valid(s, &why) == -1, "%s accepted", s);
	ATF_CHECK_MSG(why != NULL && strstr(why, reason) != NULL,
	    "%s: \"%s\" does not say \"%s\"", s, why ? why : "", reason);
}

ATF_TC_WITHOUT_HEAD(names);
ATF_TC_BODY(names, tc)
{
	char	 name[80];

	name_ok("notes");
	name_ok("a");
	name_ok("0day");
	name_ok("recipes-2_b");
	memset(name, 'a', 64);
	name[64] = '\0';
	name_ok(name);
	name[64] = 'a';
	name[65] = '\0';
	name_bad(name, "longer than 64");
	name_bad("", "is empty");
	name_bad("-x", "start with a letter or a digit");
	name_bad("_x", "start with a letter or a digit");
	name_bad("Notes", "only a-z");
	name_bad("no tes", "only a-z");
	name_bad("a.b", "only a-z");
	name_bad("a/b", "only a-z");
	name_bad("..", "only a-z");
	name_bad("caf\xc3\xa9", "only a-z");
}

static void
address_ok(const char *s, int internal, int tls, const char *host,
    uint16_t port, const char *path)
{
	struct destination d;
	const char	*why = NULL;

	memset(&d, 0, sizeof(d));
	ATF_CHECK_MSG(address_parse(s, internal, &d, &why) == 0,
	    "%s refused: %s", s, why);
	ATF_CHECK_MSG(d.tls == tls, "%s: tls %d", s, d.tls);
	ATF_CHECK_MSG(strcmp(d.host, host) == 0, "%s: host %s", s, d.host);
	ATF_CHECK_MSG(d.port == port, "%s: port %u", s, d.port);
	ATF_CHECK_MSG(d.path != NULL && strcmp(d.path, path) == 0,
	    "%s: path %s", s, d.path ? d.path : "(none)");
	free(d.path);
}

static void
address_bad(const char *s, int internal, const char *reason)
{
	struct destination d;
	const char	*why = NULL;

	memset(&d, 0, sizeof(d));
	ATF_CHECK_MSG(address_parse(s, internal, &d, &why) == -1,
	    "%s accepted", s);
	ATF_CHECK_MSG(why != NULL && strstr(why, reason) != NULL,
	    "%s: \"%s\" does not say \"%s\"", s, why ? why : "", reason);
	free(d.path);
}

ATF_TC_WITHOUT_HEAD(addresses);
ATF_TC_BODY(addresses, tc)
{
	static const char *const literals[] = {
		"https://1.2.3.4", "https://0x7f.1", "https://127.1",
		"https://2130706433", "https://[::1]", "https://[::1]:443",
		"https://::1", "https://0177.0.0.1", "https://0x7f000001",
		"https://127.0.0.1.", "https://10.0.0.1:8443/api",
		"https://a.0x1f", "https://[fd00::1]/x", NULL
	};
	char	 host[300];
	size_t	 i;

	address_ok("https://api.anthropic.com", 0, 1, "api.anthropic.com",
	    443, "");
	address_ok("https://Notes.Example.COM.:8443/api/worker", 0, 1,
	    "notes.example.com", 8443, "/api/worker");
	address_ok("http://notes.home.arpa:8080", 1, 0, "notes.home.arpa",
	    8080, "");
	address_ok("http://notes.home.arpa/x", 1, 0, "notes.home.arpa", 80,
	    "/x");
	address_ok("https://a-b.c1.example:65535/a.b/c~d", 0, 1,
	    "a-b.c1.example", 65535, "/a.b/c~d");
	address_ok("https://localhost", 0, 1, "localhost", 443, "");
	for (i = 0; literals[i] != NULL; i++)
		address_bad(literals[i], 1, "name a host, not an address");
	address_bad("http://notes.example.com", 0,
	    "allowed only with internal:");
	address_bad("ftp://notes.example.com", 0, "write https://");
	address_bad("HTTPS://notes.example.com", 0, "write https://");
	address_bad("notes.example.com", 0, "write https://");
	address_bad("https://", 0, "has no host");
	address_bad("https:///api", 0, "has no host");
	address_bad("https://user@notes.example.com", 0, "user info");
	address_bad("https://user:pw@notes.example.com", 0, "user info");
	address_bad("https://notes.example.com/a?b=c", 0, "query");
	address_bad("https://notes.example.com/a#b", 0, "fragment");
	address_bad("https://notes.example.com\\a", 0, "backslash");
	address_bad("https://notes.example.com/a%2fb", 0, "% escape");
	address_bad("https://notes.example.com/a/../b", 0, "..");
	address_bad("https://notes.example.com/..", 0, "..");
	address_bad("https://notes.example.com//a", 0, "//");
	address_bad("https://notes.example.com/a/", 0, "ends with /");
	address_bad("https://notes.example.com/", 0, "ends with /");
	address_bad("https://notes.example.com/a b", 0, "space");
	address_bad("https://notes.example.com/a\tb", 0, "control");
	address_bad("https://notes.example.com/a\x7f", 0, "control");
	address_bad("https://n\xc3\xb6tes.example.com", 0, "not ASCII");
	address_bad("https://notes.example.com/<x>", 0, "cannot hold");
	address_bad("https://notes.example.com:", 0, "port");
	address_bad("https://notes.example.com:0", 0, "port");
	address_bad("https://notes.example.com:65536", 0, "port");
	address_bad("https://notes.example.com:080", 0, "port");
	address_bad("https://notes.example.com:+80", 0, "port");
	address_bad("https://notes.example.com:http", 0, "port");
	address_bad("https://-notes.example.com", 0, "starts or ends with -");
	address_bad("https://notes-.example.com", 0, "starts or ends with -");
	address_bad("https://notes..example.com", 0, "empty");
	address_bad("https://.example.com", 0, "empty");
	address_bad("https://example.com..", 0, "empty");
	address_bad("https://notes_x.example.com", 0, "not a DNS name");
	address_bad("https://*.example.com", 0, "not a DNS name");
	memset(host, 'a', 64);
	strlcpy(host + 64, ".example.com", sizeof(host) - 64);
	{
		char	 a[400];

		snprintf(a, sizeof(a), "https://%s", host);
		address_bad(a, 0, "longer than 63");
		for (i = 0; i < 255; i++)
			host[i] = i % 2 ? '.' : 'a';
		host[255] = '\0';
		snprintf(a, sizeof(a), "https://%s", host);
		address_bad(a, 0, "longer than 253");
	}
}

static void
internal_ok(const char *s, const char *ip, uint16_t port)
{
	struct in_addr	 in, want;
	const char	*why = NULL;
	uint16_t	 p = 0;

	ATF_REQUIRE(inet_pton(AF_INET, ip, &want) == 1);
	ATF_CHECK_MSG(internal_parse(s, &in, &p, &why) == 0,
	    "%s refused: %s", s, why);
	ATF_CHECK_MSG(in.s_addr == want.s_addr && p == port, "%s: wrong "
	    "address or port", s);
}

static void
internal_bad(const char *s, const char *reason)
{
	struct in_addr	 in;
	const char	*why = NULL;
	uint16_t	 p = 0;

	ATF_CHECK_MSG(internal_parse(s, &in, &p, &why) == -1, "%s accepted",
	    s);
	ATF_CHECK_MSG(why != NULL && strstr(why, reason) != NULL,
	    "%s: \"%s\" does not say \"%s\"", s, why ? why : "", reason);
}

ATF_TC_WITHOUT_HEAD(internal);
ATF_TC_BODY(internal, tc)
{
	internal_ok("192.168.1.20:8080", "192.168.1.20", 8080);
	internal_ok("10.0.0.0:1", "10.0.0.0", 1);
	internal_ok("10.255.255.255:65535", "10.255.255.255", 65535);
	internal_ok("172.16.0.1:443", "172.16.0.1", 443);
	internal_ok("172.31.255.254:443", "172.31.255.254", 443);
	internal_ok("192.168.0.0:80", "192.168.0.0", 80);
	internal_ok("100.64.0.1:80", "100.64.0.1", 80);
	internal_ok("100.127.255.255:80", "100.127.255.255", 80);
	/* Public, just outside each internal range. */
	internal_bad("172.15.255.255:443", "not in the internal network");
	internal_bad("172.32.0.0:443", "not in the internal network");
	internal_bad("100.63.255.255:80", "not in the internal network");
	internal_bad("100.128.0.0:80", "not in the internal network");
	internal_bad("11.0.0.1:80", "not in the internal network");
	internal_bad("192.169.0.1:80", "not in the internal network");
	internal_bad("8.8.8.8:53", "a public address needs no exception");
	/* Shape. */
	internal_bad("192.168.1.20", "has no port");
	internal_bad("192.168.1.20:", "is not an ip:port");
	internal_bad("192.168.1.20:0", "is not an ip:port");
	internal_bad("192.168.1.20:65536", "is not an ip:port");
	internal_bad("192.168.1.20:080", "is not an ip:port");
	internal_bad("192.168.1.020:80", "leading zero");
	internal_bad("010.0.0.1:80", "leading zero");
	internal_bad("192.168.1:80", "is not an ip:port");
	internal_bad("192.168.1.2.3:80", "is not an ip:port");
	internal_bad("192.168.1.256:80", "is not an ip:port");
	internal_bad("0x0a.0.0.1:80", "is not an ip:port");
	internal_bad("167772161:80", "is not an ip:port");
	internal_bad("nas.home.arpa:80", "is not an ip:port");
	internal_bad(" 192.168.1.20:80", "is not an ip:port");
	internal_bad("192.168.1.20:80 ", "is not an ip:port");
	internal_bad("192.168.1.0/24:80", "is a range");
	internal_bad("192.168.1.0/24", "is a range");
	internal_bad("10.0.0.1-10.0.0.9:80", "is a range");
	internal_bad("10.0.0.*:80", "is a range");
	internal_bad("[fd00::1]:443", "IPv4 only");
	internal_bad("fd00::1:443", "IPv4 only");
	internal_bad("[::ffff:192.168.1.20]:443", "IPv4 only");
}

ATF_TC_WITHOUT_HEAD(sealed);
ATF_TC_BODY(sealed, tc)
{
	static const struct {
		const char	*addr;
		const char	*kind;
	} sealed[] = {
		{ "0.0.0.0:80", "unspecified" },
		{ "0.255.255.255:80", "unspecified" },
		{ "127.0.0.1:80", "loopback" },
		{ "127.255.255.254:80", "loopback" },
		{ "169.254.169.254:80", "link-local (cloud metadata)" },
		{ "169.254.0.1:80", "link-local (cloud metadata)" },
		{ "224.0.0.1:80", "multicast" },
		{ "239.255.255.255:80", "multicast" },
		{ "240.0.0.1:80", "reserved" },
		{ "254.255.255.255:80", "reserved" },
		{ "255.255.255.255:80", "broadcast" },
		{ "192.0.0.1:80", "IETF protocol assignments" },
		{ "192.0.2.1:80", "documentation" },
		{ "198.51.100.1:80", "documentation" },
		{ "203.0.113.255:80", "documentation" },
		{ "198.18.0.1:80", "benchmarking" },
		{ "198.19.255.255:80", "benchmarking" },
		{ "192.88.99.1:80", "6to4 relay" },
	};
	struct in_addr	 in;
	char		 want[128];
	size_t		 i;

	for (i = 0; i < sizeof(sealed) / sizeof(sealed[0]); i++) {
		snprintf(want, sizeof(want), "is sealed: %s: never opened, "
		    "not even by an internal exception", sealed[i].kind);
		internal_bad(sealed[i].addr, want);
	}
	/* The ranges' edges, and what the gate asks of the tables. */
	ATF_REQUIRE(inet_pton(AF_INET, "198.20.0.0", &in) == 1);
	ATF_CHECK(ipv4_sealed(in) == NULL && !ipv4_is_internal(in));
	ATF_REQUIRE(inet_pton(AF_INET, "192.0.1.0", &in) == 1);
	ATF_CHECK(ipv4_sealed(in) == NULL);
	ATF_REQUIRE(inet_pton(AF_INET, "1.1.1.1", &in) == 1);
	ATF_CHECK(ipv4_sealed(in) == NULL && !ipv4_is_internal(in));
	ATF_REQUIRE(inet_pton(AF_INET, "127.0.0.53", &in) == 1);
	ATF_CHECK(ipv4_sealed(in) != NULL &&
	    strcmp(ipv4_sealed(in), "loopback") == 0);
	ATF_REQUIRE(inet_pton(AF_INET, "10.1.2.3", &in) == 1);
	ATF_CHECK(ipv4_sealed(in) == NULL && ipv4_is_internal(in));
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, durations);
	ATF_TP_ADD_TC(tp, sizes);
	ATF_TP_ADD_TC(tp, names);
	ATF_TP_ADD_TC(tp, addresses);
	ATF_TP_ADD_TC(tp, internal);
	ATF_TP_ADD_TC(tp, sealed);
	return atf_no_error();
}
