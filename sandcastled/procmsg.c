/* The parent's messages, a row each: the one place a message is described. */
#include <sys/types.h>

#include <stdio.h>

#include "ctl.h"
#include "keep.h"
#include "keepcli.h"
#include "log.h"
#include "msg.h"
#include "proto.h"
#include "sandcastled.h"

#define CORE		PROC_BIT(PROC_CORE)
#define KEEPFE		PROC_BIT(PROC_KEEPFE)
#define LAUNCHER	PROC_BIT(PROC_LAUNCHER)
#define M(t, least, most)	[PROC_ ## t] = { .rule = { PROC_ ## t, \
				    "PROC_" #t, (least), (most), 0 }
#define U32		sizeof(uint32_t)

/* By type: a hole is a type with no row, which t_wire finds. */
static const struct proc_msgrow proc_msgs[PROC_MSG_END] = {
	M(READY, 0, 0), CORE | KEEPFE | LAUNCHER, ROUTE_PARENT,
	    .take = parent_ready },
	M(KEEP_PROBE, 0, 0), CORE, PROC_KEEPFE,
	    .standin = stop_standin_state, .take = keepfe_probe },
	M(KEEP_STATE, U32, U32), KEEPFE, ROUTE_ASKER, .pays = PROC_KEEP_PROBE },
	/* The keep-frontend's check of the destination rests on that bit. */
	M(KEEP_CALL, sizeof(struct proc_keep_call) + 2, KEEP_MAXENVELOPE),
	    CORE | LAUNCHER, PROC_KEEPFE, .standin = stop_standin_down,
	    .take = keepfe_call, .id_names_sender = 1 },
	M(KEEP_ANSWER, KEEPCLI_WIRE_MIN, PROC_MAXPAYLOAD), KEEPFE, ROUTE_ASKER,
	    .pays = PROC_KEEP_CALL },
	M(KEEP_DOWN, 1, PROC_REASON_MAX), KEEPFE, ROUTE_ASKER,
	    .pays = PROC_KEEP_CALL },
	M(JOB_RUN, sizeof(struct proc_job), PROC_MAXPAYLOAD), CORE,
	    PROC_LAUNCHER, .standin = stop_standin_job, .take = launcher_job },
	M(JOB_DONE, sizeof(struct outcome_wire), PROC_MAXPAYLOAD), LAUNCHER,
	    ROUTE_ASKER, .pays = PROC_JOB_RUN },
	M(SOURCES, sizeof(struct ctl_source), PROC_MAXPAYLOAD), CORE,
	    ROUTE_PARENT, .take = parent_sources },
	M(ROUND_DONE, U32, U32), CORE, ROUTE_PARENT, .take = parent_round_done },
};

const struct proc_msgrow *
proc_msg(uint32_t type)
{
	if (type == 0 || type >= PROC_MSG_END ||
	    proc_msgs[type].rule.type != type)
		return NULL;
	return &proc_msgs[type];
}

/* The row after type's, in type order; from 0, the first. */
const struct proc_msgrow *
proc_msg_next(uint32_t type)
{
	const struct proc_msgrow	*r;

	while (++type < PROC_MSG_END)
		if ((r = proc_msg(type)) != NULL)
			return r;
	return NULL;
}

const char *
proc_msg_name(uint32_t type)
{
	static char			 num[32];
	const struct proc_msgrow	*r;

	if ((r = proc_msg(type)) != NULL)
		return r->rule.name;
	(void)snprintf(num, sizeof(num), "message type %u", type);
	return num;
}

/* fatalx unless m is of a type in set, of its size, with no descriptor. */
void
proc_verify(uint32_t set, const struct msg *m, const char *peer)
{
	const struct proc_msgrow	*r = proc_msg(m->type);

	msg_verify_set(r != NULL ? &r->rule : NULL, r != NULL, set, m, peer);
}
