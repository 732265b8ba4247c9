/* The values of sandcastle.conf(5), VALUES, and the ranges the gate closes. */
#ifndef SANDCASTLE_VALUES_H
#define SANDCASTLE_VALUES_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

#define NAME_LEN	64		/* sources, secrets, destinations */
#define HOST_LEN	253		/* a DNS name, without the trailing dot */

struct destination {
	char		 name[NAME_LEN + 1];	/* the capability's or the source's */
	int		 cap;			/* enum cap_id, or -1: a source's */
	char		 secret[NAME_LEN + 1];
	char		*address;
	int		 tls;
	char		 host[HOST_LEN + 1];	/* lower case, no trailing dot */
	uint16_t	 port;			/* from the address, or 443/80 */
	char		*path;			/* "" or "/a/b", never ending in / */
	int		 has_internal;
	struct in_addr	 internal_ip;
	uint16_t	 internal_port;
	char		*ca_file;		/* NULL: the system's CA bundle */
	char		*file;
	int		 line;
	uint32_t	 call_seconds;		/* the most a call to it waits */
};

struct ipv4_range {
	uint32_t	 net;		/* host byte order */
	int		 prefix;
	const char	*kind;		/* "loopback", "documentation", ... */
	const char	*why;		/* the refusal of an internal exception */
};

extern const struct ipv4_range ipv4_internal_ranges[];
extern const size_t ipv4_ninternal_ranges;
extern const struct ipv4_range ipv4_sealed_ranges[];
extern const size_t ipv4_nsealed_ranges;

/* 1 when ip is in 10/8, 172.16/12, 192.168/16 or 100.64/10. */
int		 ipv4_is_internal(struct in_addr);
const char	*ipv4_sealed(struct in_addr);

int		 parse_duration(const char *, uint32_t *seconds, const char **why);
int		 hex_digit(int);
/* 30s, 2m, 1m30s, 1h5m: as sandcastle.conf(5) writes a duration. */
void		 duration_fmt(uint32_t seconds, char *buf, size_t bufsz);
int		 parse_size(const char *, uint64_t *bytes, const char **why);
int		 name_valid(const char *, const char **why);

/* https://HOST[:PORT][/PATH], http:// only with an internal exception. */
int		 address_parse(const char *, int has_internal,
		    struct destination *, const char **why);
/* a.b.c.d:port inside the internal network and outside every sealed range. */
int		 internal_parse(const char *, struct in_addr *, uint16_t *,
		    const char **why);

#endif
