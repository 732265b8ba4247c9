/*
 * The machine's own IPv4 addresses, read before the gate leaves its
 * network: a name that resolves to one of them points at this machine,
 * which the policy refuses by name ("this machine").
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <ifaddrs.h>
#include <netinet/in.h>

#include "gate.h"
#include "log.h"

size_t
own_addresses(struct in_addr *own, size_t max)
{
	struct ifaddrs	*ifa, *i;
	size_t		 n = 0, left = 0;

	if (getifaddrs(&ifa) == -1)
		fatal("cannot read this machine's addresses (getifaddrs)");
	for (i = ifa; i != NULL; i = i->ifa_next) {
		if (i->ifa_addr == NULL || i->ifa_addr->sa_family != AF_INET)
			continue;
		if (n == max)
			left++;
		else
			own[n++] = ((struct sockaddr_in *)i->ifa_addr)->sin_addr;
	}
	freeifaddrs(ifa);
	if (left > 0)
		log_warnx("%zu addresses on this machine: the gate knows the "
		    "first %zu as its own", n + left, max);
	return n;
}
