/* A job's runner (runner.c): one process per job, forked by the launcher,
 * that runs the job's box and asks the keep through it. */
#ifndef SANDCASTLED_RUNNER_H
#define SANDCASTLED_RUNNER_H

#include <sys/types.h>

#include <stddef.h>

#include "config.h"
#include "msg.h"
#include "proto.h"

enum run_msg {
	RUN_KEEP = 1,	/* runner: struct proc_keep_call, the envelope */
	RUN_ANSWER,	/* launcher: struct keepcli_wire ..., a memfd */
	RUN_DOWN,	/* launcher: why the keep gave nothing, text */
	RUN_DONE	/* runner: struct outcome_wire ... */
};
#define RUN_RUNNER	0x1
#define RUN_LAUNCHER	0x2

__attribute__((noreturn)) void
		 runner_main(const struct config *, const struct proc_job *,
		    int memfd, int chanfd, const struct msg_rule *,
		    size_t nrules, pid_t launcher);

#endif
