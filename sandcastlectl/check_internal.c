/*
 * check: the internal exceptions, each an address of the operator's network
 * opened, said every time, and http:// beside one.
 */
#include <sys/queue.h>

#include <arpa/inet.h>
#include <stdio.h>

#include "config.h"
#include "check.h"

static void
check_exception(struct check *c, const char *item,
    const struct destination *d)
{
	char	ip[INET_ADDRSTRLEN];

	if (!d->has_internal)
		return;
	inet_ntop(AF_INET, &d->internal_ip, ip, sizeof(ip));
	check_line(c, MARK_WARN, "%s: internal exception: the gate lets "
	    "%s:%u through for %s", item, ip, (unsigned)d->internal_port,
	    d->host);
	if (!d->tls)
		check_line(c, MARK_WARN, "%s: http:// is outside the promise: "
		    "nothing encrypts the way to %s:%u", item, ip,
		    (unsigned)d->internal_port);
}

int
check_internal(struct check *c)
{
	const struct destination	*d;
	char				 item[NAME_LEN + 16];
	size_t				 i;

	for (i = 0; i < c->conf->ndests; i++) {
		d = c->conf->dests[i];
		(void)snprintf(item, sizeof(item), "%s %s", d->cap != -1 ?
		    "capability" : "source", d->name);
		check_exception(c, item, d);
	}
	return 0;
}
