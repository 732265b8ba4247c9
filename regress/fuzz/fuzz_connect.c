/*
 * The gate's CONNECT parser and its address policy on hostile bytes.
 * Besides crashes it checks what the gate relies on: the same answer
 * however the bytes are split, nothing taken past the empty line, a
 * host that is a name and never an address, and no refused address
 * ever chosen.
 */
#include <arpa/inet.h>
#include <netinet/in.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../gated/connect.h"
#include "../../gated/policy.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static struct destination dests[3];

static void
dests_init(void)
{
	static int	done;

	if (done++)
		return;
	strlcpy(dests[0].host, "a.example", sizeof(dests[0].host));
	dests[0].port = 443;
	strlcpy(dests[1].host, "b", sizeof(dests[1].host));
	dests[1].port = 1;
	dests[1].has_internal = 1;
	inet_pton(AF_INET, "192.168.1.30", &dests[1].internal_ip);
	dests[1].internal_port = 8443;
	strlcpy(dests[2].host, "c.d", sizeof(dests[2].host));
	dests[2].port = 80;
}

/* Fed in chunks of 1, 2, 3 ... bytes, starting from seed. */
static enum connect_state
feed_chunked(struct connect_req *req, const uint8_t *data, size_t size,
    unsigned int seed, size_t *used)
{
	size_t	off = 0, n, chunk;

	connect_init(req);
	*used = 0;
	while (off < size && req->state == CONNECT_MORE) {
		chunk = 1 + (seed++ % 7);
		if (chunk > size - off)
			chunk = size - off;
		connect_feed(req, data + off, chunk, &n);
		*used += n;
		off += chunk;
	}
	return req->state;
}

static void
check_done(const struct connect_req *req, const uint8_t *data, size_t used)
{
	char		 target[HOST_LEN + 16], host[HOST_LEN + 1];
	struct in_addr	 in;
	const char	*why;
	uint16_t	 port;
	int		 literal;

	if (used < 4 || memcmp(data + used - 4, "\r\n\r\n", 4) != 0)
		abort();
	if (inet_aton(req->host, &in) != 0 || strchr(req->host, ':') != NULL)
		abort();
	if (req->port == 0)
		abort();
	snprintf(target, sizeof(target), "%s:%u", req->host, req->port);
	if (connect_target(target, host, sizeof(host), &port, &why,
	    &literal) != 0 || strcmp(host, req->host) != 0 || port != req->port)
		abort();
}

/* Addresses from the bytes after the request: none chosen if refused. */
static void
check_policy(const struct connect_req *req, const uint8_t *rest, size_t len)
{
	const struct destination *d;
	struct in_addr		 addrs[8];
	struct sockaddr_in	 sin;
	const char		*why;
	size_t			 i, n = len / 4 > 8 ? 8 : len / 4;
	enum refusal		 r;

	if ((d = policy_match(dests, 3, req->host, req->port)) == NULL)
		return;
	for (i = 0; i < n; i++)
		memcpy(&addrs[i], rest + 4 * i, 4);
	r = policy_check(d, addrs, n, addrs, n > 0 && rest[0] & 1, &sin, &why);
	if (r != REFUSAL_NONE) {
		if (why == NULL || *why == '\0')
			abort();
		return;
	}
	if (d->has_internal) {
		if (sin.sin_addr.s_addr != d->internal_ip.s_addr)
			abort();
		return;
	}
	for (i = 0; i < n; i++) {
		if (policy_address(addrs[i], NULL, 0) != REFUSAL_NONE)
			abort();
	}
	if (n == 0 || sin.sin_addr.s_addr != addrs[0].s_addr)
		abort();
}

static void
fuzz_target(const uint8_t *data, size_t size)
{
	char		*s, host[HOST_LEN + 1];
	const char	*why;
	uint16_t	 port;
	int		 literal;

	if ((s = malloc(size + 1)) == NULL)
		return;
	memcpy(s, data, size);
	s[size] = '\0';
	if (connect_target(s, host, sizeof(host), &port, &why, &literal) == 0) {
		if (inet_aton(host, &(struct in_addr){ 0 }) != 0 || port == 0)
			abort();
	}
	free(s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct connect_req	a, b;
	size_t			ua, ub;

	dests_init();
	fuzz_target(data, size);
	connect_init(&a);
	connect_feed(&a, data, size, &ua);
	feed_chunked(&b, data, size, size > 0 ? data[0] : 0, &ub);
	if (a.state != b.state || ua != ub || ua > size)
		abort();
	if (a.state == CONNECT_MORE && ua != size)
		abort();
	if (a.state == CONNECT_ERROR && strcmp(a.why, b.why) != 0)
		abort();
	if (a.state != CONNECT_DONE)
		return 0;
	if (strcmp(a.host, b.host) != 0 || a.port != b.port)
		abort();
	check_done(&a, data, ua);
	check_policy(&a, data + ua, size - ua);
	return 0;
}
