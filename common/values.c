/* Each refusal is a phrase after the quoted value: `key: "value" why'. */
#include <arpa/inet.h>

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "values.h"
#include "config.h"

#define SEALED(a, b, c, d, p, kind) \
	{ ((uint32_t)(a) << 24 | (b) << 16 | (c) << 8 | (d)), (p), (kind), \
	  "is sealed: " kind ": never opened, not even by an internal exception" }

const struct ipv4_range ipv4_internal_ranges[] = {
	{ 0x0a000000, 8, "private", NULL },
	{ 0xac100000, 12, "private", NULL },
	{ 0xc0a80000, 16, "private", NULL },
	{ 0x64400000, 10, "shared address space (CGNAT)", NULL },
};
const size_t ipv4_ninternal_ranges =
    sizeof(ipv4_internal_ranges) / sizeof(ipv4_internal_ranges[0]);

/* Broadcast comes before 240/4, which holds it, to be named exactly. */
const struct ipv4_range ipv4_sealed_ranges[] = {
	SEALED(0, 0, 0, 0, 8, "unspecified"),
	SEALED(127, 0, 0, 0, 8, "loopback"),
	SEALED(169, 254, 0, 0, 16, "link-local (cloud metadata)"),
	SEALED(224, 0, 0, 0, 4, "multicast"),
	SEALED(255, 255, 255, 255, 32, "broadcast"),
	SEALED(240, 0, 0, 0, 4, "reserved"),
	SEALED(192, 0, 0, 0, 24, "IETF protocol assignments"),
	SEALED(192, 0, 2, 0, 24, "documentation"),
	SEALED(198, 51, 100, 0, 24, "documentation"),
	SEALED(203, 0, 113, 0, 24, "documentation"),
	SEALED(198, 18, 0, 0, 15, "benchmarking"),
	SEALED(192, 88, 99, 0, 24, "6to4 relay"),
};
const size_t ipv4_nsealed_ranges =
    sizeof(ipv4_sealed_ranges) / sizeof(ipv4_sealed_ranges[0]);

static const char *const why_duration =
    "is not a duration: write a number and a unit, as 30s, 15m or 1h30m";
static const char *const why_size =
    "is not a size: write a number of bytes, plain or with KiB, MiB or GiB, "
    "as 1024, 256KiB or 16MiB";
static const char *const why_iplit =
    "names an address: name a host, not an address; "
    "a service inside your network takes internal:";
static const char *const why_internal =
    "is not an ip:port: write one IPv4 address and a port, "
    "as 192.168.1.20:8080";

static const struct ipv4_range *
ipv4_find(const struct ipv4_range *r, size_t n, struct in_addr in)
{
	uint32_t	 ip = ntohl(in.s_addr), mask;
	size_t		 i;

	for (i = 0; i < n; i++) {
		mask = r[i].prefix == 0 ? 0 : ~0U << (32 - r[i].prefix);
		if ((ip & mask) == r[i].net)
			return &r[i];
	}
	return NULL;
}

int
ipv4_is_internal(struct in_addr in)
{
	return ipv4_find(ipv4_internal_ranges, ipv4_ninternal_ranges,
	    in) != NULL;
}

const char *
ipv4_sealed(struct in_addr in)
{
	const struct ipv4_range *r;

	r = ipv4_find(ipv4_sealed_ranges, ipv4_nsealed_ranges, in);
	return r == NULL ? NULL : r->kind;
}

/*
 * Plain decimal digits at *sp, no sign and no leading zero, at most
 * max; *sp moves past them.  -1 on none, a leading zero or overflow.
 */
static int
decimal(const char **sp, uint64_t max, uint64_t *v)
{
	const char	*s = *sp;

	if (!isdigit((unsigned char)*s))
		return -1;
	if (s[0] == '0' && isdigit((unsigned char)s[1]))
		return -1;
	for (*v = 0; isdigit((unsigned char)*s); s++) {
		if (*v > (max - (uint64_t)(*s - '0')) / 10)
			return -1;
		*v = *v * 10 + (uint64_t)(*s - '0');
	}
	*sp = s;
	return 0;
}

int
parse_duration(const char *s, uint32_t *seconds, const char **why)
{
	static const char	 units[] = "hms";
	static const uint64_t	 mult[] = { 3600, 60, 1 };
	const char		*u;
	uint64_t		 total = 0, v;
	size_t			 next = 0;

	*why = why_duration;
	if (*s == '\0')
		return -1;
	while (*s != '\0') {
		if (!isdigit((unsigned char)*s))
			return -1;
		for (v = 0; isdigit((unsigned char)*s); s++) {
			v = v * 10 + (uint64_t)(*s - '0');
			if (v > UINT32_MAX)
				goto toolong;
		}
		if (*s == '\0' || (u = strchr(units, *s)) == NULL)
			return -1;
		if ((size_t)(u - units) < next) {
			*why = "is not a duration: write each unit once, "
			    "in the order h, m, s, as 1h30m";
			return -1;
		}
		next = (size_t)(u - units) + 1;
		total += v * mult[u - units];
		if (total > UINT32_MAX)
			goto toolong;
		s++;
	}
	if (total == 0) {
		*why = "is zero: a duration is longer than 0s";
		return -1;
	}
	*seconds = (uint32_t)total;
	return 0;
toolong:
	*why = "is too long: a duration fits in 4294967295 seconds";
	return -1;
}

int
hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

void
duration_fmt(uint32_t s, char *buf, size_t bufsz)
{
	uint32_t	 h = s / 3600, m = s % 3600 / 60, sec = s % 60;
	size_t		 n = 0;

	buf[0] = '\0';
	if (h > 0)
		n += snprintf(buf + n, bufsz - n, "%uh", h);
	if (m > 0 && n < bufsz)
		n += snprintf(buf + n, bufsz - n, "%um", m);
	if ((sec > 0 || s == 0) && n < bufsz)
		(void)snprintf(buf + n, bufsz - n, "%us", sec);
}

static int
size_unit(const char *s, uint64_t *mult, const char **why)
{
	static const struct {
		const char	*unit;
		uint64_t	 mult;
	} units[] = {
		{ "", 1 }, { "KiB", 1ULL << 10 }, { "MiB", 1ULL << 20 },
		{ "GiB", 1ULL << 30 },
	};
	size_t	 i;

	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(s, units[i].unit) == 0) {
			*mult = units[i].mult;
			return 0;
		}
	}
	if (*s == '.' || *s == ',')
		*why = "is not a size: write a whole number, as 1536KiB "
		    "for 1.5MiB";
	else if (*s == ' ' || *s == '\t')
		*why = "is not a size: write the number and its unit "
		    "together, as 16MiB";
	else if (strchr("kKmMgGtT", *s) != NULL)
		*why = "is not a size: write KiB, MiB or GiB (powers of 1024, "
		    "case as shown), as 16MiB";
	else
		*why = why_size;
	return -1;
}

int
parse_size(const char *s, uint64_t *bytes, const char **why)
{
	const char	*p = s;
	uint64_t	 v, mult;

	*why = why_size;
	if (!isdigit((unsigned char)*p))
		return -1;
	if (p[0] == '0' && isdigit((unsigned char)p[1])) {
		*why = "has a leading zero, which YAML reads as octal: "
		    "write the number without it";
		return -1;
	}
	if (decimal(&p, UINT64_MAX, &v) == -1) {
		*why = "is too large: write at most 16383GiB";
		return -1;
	}
	if (size_unit(p, &mult, why) == -1)
		return -1;
	if (v > UINT64_MAX / mult) {
		*why = "is too large: write at most 16383GiB";
		return -1;
	}
	*bytes = v * mult;
	return 0;
}

int
name_valid(const char *s, const char **why)
{
	size_t	 i;

	if (*s == '\0') {
		*why = "is empty: a name has 1 to 64 characters";
		return -1;
	}
	for (i = 0; s[i] != '\0'; i++) {
		if (!islower((unsigned char)s[i]) &&
		    !isdigit((unsigned char)s[i]) &&
		    ((s[i] != '-' && s[i] != '_') || i == 0)) {
			*why = "is not a name: use only a-z, 0-9, - and _, "
			    "and start with a letter or a digit";
			return -1;
		}
	}
	if (i > NAME_LEN) {
		*why = "is longer than 64 characters: a name has 1 to 64";
		return -1;
	}
	return 0;
}

/* Anything an address never holds, whatever its part. */
static int
address_chars(const char *s, const char **why)
{
	for (; *s != '\0'; s++) {
		if ((unsigned char)*s <= ' ' || *s == 0x7f)
			*why = "has a space or a control character: "
			    "write the address alone";
		else if ((unsigned char)*s >= 0x80)
			*why = "is not ASCII: write the host in its xn-- form";
		else if (*s == '\\')
			*why = "has a backslash: write / between the parts";
		else if (*s == '%')
			*why = "has a % escape: write the path as it reads";
		else if (*s == '?')
			*why = "has a query: write the address without ?";
		else if (*s == '#')
			*why = "has a fragment: write the address without #";
		else if (strchr("\"<>{}|^`", *s) != NULL)
			*why = "has a character an address cannot hold";
		else
			continue;
		return -1;
	}
	return 0;
}

/* The last label all digits, or 0x and hex: a URL reads it as IPv4. */
static int
host_is_number(const char *host)
{
	const char	*last;

	last = strrchr(host, '.');
	last = last == NULL ? host : last + 1;
	if (last[0] == '0' && last[1] == 'x') {
		for (last += 2; isxdigit((unsigned char)*last); last++)
			;
		return *last == '\0';
	}
	if (*last == '\0')
		return 0;
	for (; isdigit((unsigned char)*last); last++)
		;
	return *last == '\0';
}

static int
host_labels(const char *host, const char **why)
{
	const char	*p, *label = host;

	for (p = host;; p++) {
		if (*p != '.' && *p != '\0') {
			if (!islower((unsigned char)*p) &&
			    !isdigit((unsigned char)*p) && *p != '-') {
				*why = "has a host that is not a DNS name: "
				    "use a-z, 0-9 and - in each label";
				return -1;
			}
			continue;
		}
		if (p == label || p - label > 63) {
			*why = "has a host label that is empty or longer than "
			    "63 characters";
			return -1;
		}
		if (*label == '-' || p[-1] == '-') {
			*why = "has a host label that starts or ends with -";
			return -1;
		}
		if (*p == '\0')
			return 0;
		label = p + 1;
	}
}

/* host[:port] into d; host is lowered and loses one trailing dot. */
static int
address_authority(char *auth, struct destination *d, const char **why)
{
	const char	*p;
	char		*colon;
	uint64_t	 v;
	size_t		 len, i;

	if (strchr(auth, '@') != NULL) {
		*why = "has user info: write no user@ before the host";
		return -1;
	}
	if (auth[0] == '[' || strchr(auth, ':') != strrchr(auth, ':')) {
		*why = why_iplit;
		return -1;
	}
	if ((colon = strchr(auth, ':')) != NULL) {
		*colon = '\0';
		p = colon + 1;
		if (decimal(&p, 65535, &v) == -1 || *p != '\0' || v == 0) {
			*why = "has a port that is not a number from 1 to 65535";
			return -1;
		}
		d->port = (uint16_t)v;
	}
	len = strlen(auth);
	if (len > 0 && auth[len - 1] == '.')
		auth[--len] = '\0';
	for (i = 0; i < len; i++)
		auth[i] = (char)tolower((unsigned char)auth[i]);
	if (len == 0) {
		*why = "has no host: write https://HOST[:PORT][/PATH]";
		return -1;
	}
	if (host_is_number(auth)) {
		*why = why_iplit;
		return -1;
	}
	if (len > HOST_LEN) {
		*why = "has a host longer than 253 characters";
		return -1;
	}
	if (host_labels(auth, why) == -1)
		return -1;
	strlcpy(d->host, auth, sizeof(d->host));
	return 0;
}

static int
address_path(const char *path, const char **why)
{
	if (*path == '\0')
		return 0;
	if (strstr(path, "//") != NULL) {
		*why = "has // in its path: write one / between the parts";
		return -1;
	}
	if (strstr(path, "..") != NULL) {
		*why = "has .. in its path: write the path it stands for";
		return -1;
	}
	if (path[strlen(path) - 1] == '/') {
		*why = "ends with /: write the address without the last /";
		return -1;
	}
	return 0;
}

static int
address_scheme(const char **s, int has_internal, struct destination *d,
    const char **why)
{
	if (strncmp(*s, "https://", 8) == 0) {
		d->tls = 1;
		d->port = 443;
		*s += 8;
		return 0;
	}
	if (strncmp(*s, "http://", 7) == 0) {
		if (!has_internal) {
			*why = "uses http://, which is allowed only with "
			    "internal: write https://";
			return -1;
		}
		d->tls = 0;
		d->port = 80;
		*s += 7;
		return 0;
	}
	*why = "is not an address: write https://HOST[:PORT][/PATH]";
	return -1;
}

int
address_parse(const char *s, int has_internal, struct destination *d,
    const char **why)
{
	const char	*slash;
	char		 auth[HOST_LEN + 16];
	size_t		 len;

	if (address_chars(s, why) == -1 ||
	    address_scheme(&s, has_internal, d, why) == -1)
		return -1;
	slash = strchr(s, '/');
	len = slash == NULL ? strlen(s) : (size_t)(slash - s);
	if (len >= sizeof(auth)) {
		*why = "has a host longer than 253 characters";
		return -1;
	}
	memcpy(auth, s, len);
	auth[len] = '\0';
	if (address_authority(auth, d, why) == -1)
		return -1;
	slash = slash == NULL ? "" : slash;
	if (address_path(slash, why) == -1)
		return -1;
	free(d->path);
	if ((d->path = strdup(slash)) == NULL) {
		*why = "cannot be kept: out of memory";
		return -1;
	}
	return 0;
}

static int
internal_shape(const char *s, const char **why)
{
	if (strchr(s, '[') != NULL || strchr(s, ':') != strrchr(s, ':')) {
		*why = "is IPv6: the gate speaks IPv4 only";
		return -1;
	}
	if (strchr(s, '/') != NULL || strchr(s, '-') != NULL ||
	    strchr(s, '*') != NULL) {
		*why = "is a range: an internal exception is one address and "
		    "a port, as 192.168.1.20:8080";
		return -1;
	}
	if (strchr(s, ':') == NULL) {
		*why = "has no port: write ip:port, as 192.168.1.20:8080";
		return -1;
	}
	return 0;
}

int
internal_parse(const char *s, struct in_addr *ip, uint16_t *port,
    const char **why)
{
	const struct ipv4_range *r;
	uint64_t	 v;
	uint32_t	 a = 0;
	int		 i;

	if (internal_shape(s, why) == -1)
		return -1;
	*why = why_internal;
	for (i = 0; i < 4; i++) {
		if (s[0] == '0' && isdigit((unsigned char)s[1])) {
			*why = "has a leading zero: write each number in plain "
			    "decimal, as 192.168.1.20:8080";
			return -1;
		}
		if (decimal(&s, 255, &v) == -1 || *s++ != (i < 3 ? '.' : ':'))
			return -1;
		a = a << 8 | (uint32_t)v;
	}
	if (decimal(&s, 65535, &v) == -1 || *s != '\0' || v == 0)
		return -1;
	ip->s_addr = htonl(a);
	*port = (uint16_t)v;
	r = ipv4_find(ipv4_sealed_ranges, ipv4_nsealed_ranges, *ip);
	if (r != NULL) {
		*why = r->why;
		return -1;
	}
	if (!ipv4_is_internal(*ip)) {
		*why = "is not in the internal network: a public address "
		    "needs no exception";
		return -1;
	}
	return 0;
}
