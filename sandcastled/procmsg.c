/* The parent's messages: their sizes (proc_rules) and routes (proc_routes). */
#include <sys/types.h>
#include <sys/uio.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	{ PROC_KEEP_ANSWER, "PROC_KEEP_ANSWER",
	    sizeof(struct proc_keep_answer), PROC_MAXPAYLOAD, 0 },
	{ PROC_KEEP_DOWN, "PROC_KEEP_DOWN", 1, PROC_REASON_MAX, 0 },
	{ PROC_JOB_RUN, "PROC_JOB_RUN", sizeof(struct proc_job),
	    PROC_MAXPAYLOAD, 0 },
	{ PROC_JOB_DONE, "PROC_JOB_DONE", sizeof(struct proc_job_done),
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

int
proc_keep_answer_send(struct msgchan *chan, uint32_t id,
    const struct keepcli_answer *a)
{
	struct proc_keep_answer	 h;
	struct iovec		 iov[4];
	size_t			 clen = a->ctype != NULL ? strlen(a->ctype) : 0;

	memset(&h, 0, sizeof(h));
	h.refused = a->refused;
	h.status = a->status;
	h.retry_after = a->retry_after;
	h.code = a->code;
	h.ctype_len = clen > PROC_CTYPE_MAX ? PROC_CTYPE_MAX : clen;
	h.reason_len = strnlen(a->reason, sizeof(a->reason));
	h.body_len = a->body_len;
	iov[0].iov_base = &h;
	iov[0].iov_len = sizeof(h);
	iov[1].iov_base = a->ctype;
	iov[1].iov_len = h.ctype_len;
	iov[2].iov_base = (void *)a->reason;
	iov[2].iov_len = h.reason_len;
	iov[3].iov_base = a->body;
	iov[3].iov_len = h.body_len;
	return msg_composev(chan, PROC_KEEP_ANSWER, id, -1, iov, 4);
}

int
proc_keep_refuse(struct msgchan *chan, uint32_t id, uint32_t code,
    const char *reason)
{
	struct keepcli_answer	 a;

	memset(&a, 0, sizeof(a));
	a.refused = 1;
	a.code = code;
	(void)strlcpy(a.reason, reason, sizeof(a.reason));
	return proc_keep_answer_send(chan, id, &a);
}

static char *
proc_text(const char *p, size_t len)
{
	char	*s;

	if ((s = malloc(len + 1)) == NULL)
		fatal("malloc");
	memcpy(s, p, len);
	s[len] = '\0';
	return s;
}

/* a is filled; keepcli_answer_free() it. */
void
proc_keep_answer_read(const struct msg *m, struct keepcli_answer *a,
    const char *peer)
{
	struct proc_keep_answer	 h;
	const char		*p = (const char *)m->data + sizeof(h);

	memcpy(&h, m->data, sizeof(h));
	if (h.ctype_len > PROC_CTYPE_MAX || h.reason_len >= PROC_REASON_MAX ||
	    h.body_len > KEEP_MAXBODY || sizeof(h) + (size_t)h.ctype_len +
	    h.reason_len + h.body_len != m->len)
		fatalx("%s sent a keep answer whose lengths do not add up",
		    peer);
	memset(a, 0, sizeof(*a));
	a->refused = h.refused != 0;
	a->status = h.status;
	a->retry_after = h.retry_after;
	a->code = h.code;
	a->ctype = proc_text(p, h.ctype_len);
	memcpy(a->reason, p + h.ctype_len, h.reason_len);
	a->reason[h.reason_len] = '\0';
	a->body = proc_text(p + h.ctype_len + h.reason_len, h.body_len);
	a->body_len = h.body_len;
}
