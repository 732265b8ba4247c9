/*
 * The machine's addresses and routers, read before the gate leaves its
 * network: the second barrier closes them, the first refuses them by name.
 */
#include <sys/types.h>

#include <netinet/in.h>

#include "gate.h"
#include "log.h"

void
own_read(struct gate *g)
{
	size_t	i;

	barrier_machine(&g->barrier);
	for (i = 0; i < g->barrier.nmachine; i++) {
		if (g->barrier.router[i])
			continue;
		if (g->nown == GATE_OWN_MAX) {
			log_warnx("more than %d addresses on this machine: "
			    "the gate knows the first %d as its own",
			    GATE_OWN_MAX, GATE_OWN_MAX);
			break;
		}
		g->own[g->nown++] = g->barrier.machine[i];
	}
	for (i = 0; i < g->ndests; i++) {
		if (g->dests[i].has_internal)
			barrier_add_exc(&g->barrier, g->dests[i].internal_ip,
			    g->dests[i].name);
	}
}
