/* The parent's messages: their sizes (proc_rules) and routes (proc_routes). */
#include <sys/types.h>

#include <stdio.h>

#include "ctl.h"
#include "keep.h"
#include "keepcli.h"
#include "log.h"
#include "msg.h"
#include "proto.h"
#include "sandcastled.h"

const struct msg_rule proc_rules[] = {
	{ PROC_READY, "PROC_READY", 0, 0, 0 },
	{ PROC_KEEP_PROBE, "PROC_KEEP_PROBE", 0, 0, 0 },
	{ PROC_KEEP_STATE, "PROC_KEEP_STATE", sizeof(uint32_t),
	    sizeof(uint32_t), 0 },
	{ PROC_KEEP_CALL, "PROC_KEEP_CALL", sizeof(struct proc_keep_call) + 2,
	    KEEP_MAXENVELOPE, 0 },
	{ PROC_KEEP_ANSWER, "PROC_KEEP_ANSWER", KEEPCLI_WIRE_MIN,
	    PROC_MAXPAYLOAD, 0 },
	{ PROC_KEEP_DOWN, "PROC_KEEP_DOWN", 1, PROC_REASON_MAX, 0 },
	{ PROC_JOB_RUN, "PROC_JOB_RUN", sizeof(struct proc_job),
	    PROC_MAXPAYLOAD, 0 },
	{ PROC_JOB_DONE, "PROC_JOB_DONE", sizeof(struct outcome_wire),
	    PROC_MAXPAYLOAD, 0 },
	{ PROC_SOURCES, "PROC_SOURCES", sizeof(struct ctl_source),
	    PROC_MAXPAYLOAD, 0 },
	{ PROC_ROUND_DONE, "PROC_ROUND_DONE", sizeof(uint32_t),
	    sizeof(uint32_t), 0 },
};
const size_t proc_nrules = sizeof(proc_rules) / sizeof(proc_rules[0]);

#define CORE		PROC_BIT(PROC_CORE)
#define KEEPFE		PROC_BIT(PROC_KEEPFE)
#define LAUNCHER	PROC_BIT(PROC_LAUNCHER)

/* In proc_rules' order; t_wire holds it to the rules and the rows. */
const struct proc_route proc_routes[] = {
	{ PROC_READY, CORE | KEEPFE | LAUNCHER, ROUTE_PARENT,
	    .take = parent_ready },
	{ PROC_KEEP_PROBE, CORE, PROC_KEEPFE, .standin = stop_standin_state },
	{ PROC_KEEP_STATE, KEEPFE, ROUTE_ASKER, .pays = PROC_KEEP_PROBE },
	/* The keep-frontend's check of the destination rests on that bit. */
	{ PROC_KEEP_CALL, CORE | LAUNCHER, PROC_KEEPFE,
	    .standin = stop_standin_down, .id_names_sender = 1 },
	{ PROC_KEEP_ANSWER, KEEPFE, ROUTE_ASKER, .pays = PROC_KEEP_CALL },
	{ PROC_KEEP_DOWN, KEEPFE, ROUTE_ASKER, .pays = PROC_KEEP_CALL },
	{ PROC_JOB_RUN, CORE, PROC_LAUNCHER, .standin = stop_standin_job },
	{ PROC_JOB_DONE, LAUNCHER, ROUTE_ASKER, .pays = PROC_JOB_RUN },
	{ PROC_SOURCES, CORE, ROUTE_PARENT, .take = parent_sources },
	{ PROC_ROUND_DONE, CORE, ROUTE_PARENT, .take = parent_round_done },
};
const size_t proc_nroutes = sizeof(proc_routes) / sizeof(proc_routes[0]);

const struct proc_route *
proc_route(uint32_t type)
{
	size_t	 i;

	for (i = 0; i < proc_nroutes; i++)
		if (proc_routes[i].type == type)
			return &proc_routes[i];
	return NULL;
}

const char *
proc_msg_name(uint32_t type)
{
	static char		 num[32];
	const struct msg_rule	*r;

	if ((r = msg_rule_find(proc_rules, proc_nrules, type)) != NULL)
		return r->name;
	(void)snprintf(num, sizeof(num), "message type %u", type);
	return num;
}

/* fatalx unless m is of a type in set, of its size, with no descriptor. */
void
proc_verify(uint32_t set, const struct msg *m, const char *peer)
{
	msg_verify_set(proc_rules, proc_nrules, set, m, peer);
}
