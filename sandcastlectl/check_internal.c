/*
 * check: the internal exceptions.  Each one opens an address of the
 * operator's network for one destination, so each is said every time,
 * and so is http:// beside one, which nothing encrypts.
 */
#include <sys/queue.h>

#include <arpa/inet.h>
#include <stdio.h>

#include "config.h"
#include "check.h"
#include "sandcastlectl.h"

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
	const struct source	*src;
	char			 item[NAME_LEN + 16];

	if (c->conf->caps[CAP_CLAUDE].enabled)
		check_exception(c, "capability claude", &c->conf->claude.dest);
	TAILQ_FOREACH(src, &c->conf->sources, entry) {
		(void)snprintf(item, sizeof(item), "source %s", src->name);
		check_exception(c, item, &src->dest);
	}
	return 0;
}
