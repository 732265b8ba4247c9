/* The messages between sandcastled's parent and its children, framed with
 * msg.h over fd 3: a row each in proctab.c's proc_msgtab. */
#ifndef SANDCASTLED_PROTO_H
#define SANDCASTLED_PROTO_H

#include <stdint.h>

#include "config.h"
#include "contract.h"
#include "keepcli.h"
#include "msg.h"
#include "outcome.h"

enum proc_msg {
	PROC_READY = 1,		/* child -> parent, no payload: its filter is on */
	PROC_KEEP_PROBE,	/* core -> keep-frontend, no payload */
	PROC_KEEP_STATE,	/* keep-frontend -> core: uint32_t, 1 the keep answers */
	PROC_KEEP_CALL,		/* core, launcher -> keep-frontend: struct proc_keep_call, the envelope */
	PROC_KEEP_ANSWER,	/* keep-frontend -> caller: struct keepcli_wire ..., a memfd */
	PROC_KEEP_DOWN,		/* keep-frontend -> caller: why no answer came, text */
	PROC_JOB_RUN,		/* core -> launcher: struct proc_job, the claim's memfd */
	PROC_JOB_DONE,		/* launcher -> core: struct outcome_wire ... */
	PROC_SOURCES,		/* core -> parent: struct ctl_source, one per source */
	PROC_ROUND_DONE,	/* core -> parent (-1): uint32_t, 1: a failure */
	PROC_MSG_END		/* one past the last: the size of a table by type */
};

/* In a PROC_KEEP_CALL's id: the launcher's call (claude's request). */
#define PROC_ID_LAUNCHER	0x80000000U

#define PROC_MAXPAYLOAD		MSG_MAXPAYLOAD
#define PROC_REASON_MAX		KEEPCLI_REASON_MAX

/* The call's seconds at the keep, keep.h's struct keep_request's. */
struct proc_keep_call {
	uint32_t	 seconds;
};

/* The input is inputlen bytes at input_off of the claim's sealed memfd. */
struct proc_job {
	char		 source[NAME_LEN + 1];
	char		 id[CONTRACT_ID_MAX + 1];
	uint32_t	 cap;		/* enum cap_id */
	uint32_t	 timeout;	/* seconds */
	uint32_t	 inputlen;
	uint32_t	 input_off;
};

/* A question goes to a child, with the standin the parent sends when that
 * child ends owing it; an answer (ROUTE_ASKER) goes to the child that asked. */
#define ROUTE_PARENT	(-1)
#define ROUTE_ASKER	(-2)	/* the child that asked what it pays */
struct proc_msgrow {
	struct msg_rule	 rule;		/* from: PROC_BIT()s; take(struct proc *) */
	int		 to;
	int		(*standin)(struct msgchan *, uint32_t id);
	int		 id_names_sender;	/* PROC_ID_LAUNCHER set: the launcher's */
};

void		 proc_msgs_use(const struct proc_msgrow *);
const struct proc_msgrow *proc_msg(uint32_t type);
const struct proc_msgrow *proc_msg_next(uint32_t type);
const char	*proc_msg_name(uint32_t type);
void		 proc_verify(uint32_t set, const struct msg *, const char *peer);

#endif
