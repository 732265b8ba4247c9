/*
 * The messages between sandcastled's parent and its children, framed
 * with msg.h over fd 3.  Sizes and routes are procmsg.c's, takes and
 * sends each row's (proc.c).
 */
#ifndef SANDCASTLED_PROTO_H
#define SANDCASTLED_PROTO_H

#include <stdint.h>

#include "config.h"
#include "contract.h"
#include "job.h"
#include "msg.h"

enum proc_msg {
	PROC_READY = 1,		/* child -> parent, no payload: its filter is on */
	PROC_KEEP_PROBE,	/* core -> keep-frontend, no payload */
	PROC_KEEP_STATE,	/* keep-frontend -> core: uint32_t, 1 the keep answers */
	PROC_KEEP_CALL,		/* core, launcher -> keep-frontend: struct proc_keep_call, the envelope */
	PROC_KEEP_ANSWER,	/* keep-frontend -> caller: struct proc_keep_answer ... */
	PROC_KEEP_DOWN,		/* keep-frontend -> caller: why no answer came, text */
	PROC_JOB_RUN,		/* core -> launcher: struct proc_job, then the input */
	PROC_JOB_DONE,		/* launcher -> core: struct proc_job_done ... */
	PROC_SOURCES,		/* core -> parent: struct ctl_source, one per source (summary.h) */
	PROC_ROUND_DONE,	/* core -> parent (-1): uint32_t, 1: a failure */
	PROC_MSG_END		/* one past the last: the size of a table by type */
};

/* In a PROC_KEEP_CALL's id: the launcher's call (claude's request). */
#define PROC_ID_LAUNCHER	0x80000000U

/* A body of up to 32 MiB and its header, or an input of as much. */
#define PROC_MAXPAYLOAD		MSG_MAXPAYLOAD
#define PROC_REASON_MAX		KEEPCLI_REASON_MAX
#define PROC_CTYPE_MAX		1024

/* The call's seconds at the keep, keep.h's struct keep_request's. */
struct proc_keep_call {
	uint32_t	 seconds;
};

/* Then ctype_len bytes of content-type, reason_len of reason, body_len of body. */
struct proc_keep_answer {
	uint32_t	 refused;
	uint32_t	 status;
	uint32_t	 retry_after;
	uint32_t	 code;
	uint32_t	 ctype_len;
	uint32_t	 reason_len;
	uint32_t	 body_len;
};

/* Then inputlen bytes of input. */
struct proc_job {
	char		 source[NAME_LEN + 1];
	char		 id[CONTRACT_ID_MAX + 1];
	uint32_t	 cap;		/* enum cap_id */
	uint32_t	 timeout;	/* seconds */
	uint32_t	 inputlen;
};

/* Then output_len bytes of output, reply_len of reply, record_len of record. */
struct proc_job_done {
	uint32_t	 status;	/* enum job_status */
	uint32_t	 word;		/* enum job_word */
	char		 error[JOB_ERROR_MAX];
	char		 stderr_head[JOB_STDERR_MAX + 1];
	uint32_t	 stderr_len;
	struct job_usage usage;
	uint32_t	 box_started;
	uint32_t	 box_removed;
	uint32_t	 millis;	/* the job's seconds, times 1000 */
	uint32_t	 rest;		/* released: retry-after, seconds */
	uint32_t	 output_len;
	uint32_t	 reply_len;
	uint32_t	 record_len;
};

/* procmsg.c: the table, and a keep's answer across the processes */
extern const struct msg_rule	proc_rules[];
extern const size_t		proc_nrules;
void	 proc_verify(uint32_t set, const struct msg *, const char *peer);
const char *proc_msg_name(uint32_t type);
int	 proc_keep_answer_send(struct msgchan *, uint32_t id,
	    const struct keepcli_answer *);
void	 proc_keep_answer_read(const struct msg *, struct keepcli_answer *,
	    const char *peer);
int	 proc_keep_refuse(struct msgchan *, uint32_t id, uint32_t code,
	    const char *reason);

#endif
