/* The box's reader (jobread.c), private to jobrun.c and jobread.c; its
 * messages are jobread_rules's. */
#ifndef SANDCASTLED_JOBREAD_H
#define SANDCASTLED_JOBREAD_H

#include <stddef.h>
#include <stdint.h>

#include "boxproto.h"
#include "boxrun.h"
#include "job.h"
#include "msg.h"

enum jobread_msg {
	JR_KEEP = 1,	/* reader -> launcher: the keep's envelope, once */
	JR_ANSWER,	/* launcher -> reader: struct keepcli_wire ..., a memfd */
	JR_DOWN,	/* launcher -> reader: why the keep gave nothing, text */
	JR_DONE		/* reader -> launcher: struct outcome_wire ... */
};
#define JR_READER	0x1
#define JR_LAUNCHER	0x2
#define JR_DOWN_MAX	JOB_ERROR_MAX

struct jobread_done {
	uint32_t	 hello, last, decided;
	uint32_t	 failed;
	uint32_t	 timed_out;	/* its time ran out in the reader */
	uint32_t	 errlen;	/* bytes of errhead */
	char		 why[BOX_WHY_LEN];
	char		 errhead[BOX_ERR_HEAD];
};

extern const struct msg_rule	jobread_rules[];
extern const size_t		jobread_nrules;

void	jobread_run(struct job_ctx *, const char *input, size_t inputlen);

#endif
