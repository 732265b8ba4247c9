/*
 * The gate's reading of a DNS answer (resolve_parse(), over glibc's
 * ns_initparse and ns_parserr) on hostile bytes: what a resolver, or
 * whoever answers in its place, sends back.  Besides crashes it checks
 * what the gate relies on: never more addresses than asked for, and
 * each address once.
 */
#include <arpa/inet.h>
#include <netinet/in.h>

#include <stdint.h>
#include <stdlib.h>

#include "../../gated/gate.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct in_addr	addrs[GATE_ADDRS_MAX];
	size_t		n, i, j;

	n = resolve_parse(data, size, addrs, GATE_ADDRS_MAX);
	if (n > GATE_ADDRS_MAX)
		abort();
	for (i = 0; i < n; i++)
		for (j = i + 1; j < n; j++)
			if (addrs[i].s_addr == addrs[j].s_addr)
				abort();
	return 0;
}
