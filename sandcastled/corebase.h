/* The core's state and its lowest layer: core.c calls corejob.c and
 * coreresult.c, each calls corebase.c, which calls none of them. */
#ifndef SANDCASTLED_COREBASE_H
#define SANDCASTLED_COREBASE_H

#include <sys/queue.h>

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "ask.h"
#include "config.h"
#include "contract.h"
#include "outcome.h"
#include "keepcli.h"
#include "msg.h"
#include "records.h"
#include "schedule.h"

#define CORE_KEEP_PROBE		5	/* seconds between two asks of a keep that is down */
#define CORE_PRUNE_EVERY	3600	/* seconds between two prunes of the records */
#define CORE_RECORD_RETRY	5	/* seconds between two tries of a record held */
/* The call in flight, then a result; the parent kills a core past it. */
#define CORE_STOP_SECONDS	(2 * KEEPCLI_SECONDS)

/* The core's one call to the keep in flight, if any; jobs run beside it. */
enum core_wait {
	CORE_IDLE,
	CORE_PROBE,
	CORE_CLAIM,
	CORE_RESULT
};

struct core_job {
	TAILQ_ENTRY(core_job)	 entry;
	struct core		*core;
	size_t			 src;
	struct contract_claim	 claim;		/* the job is jobs[0] */
	struct keepcli_answer	 claimed;	/* its body: the memfd of its input */
	struct records_job	 rjob;
	time_t			 mono;		/* its start, monotonic */
};
TAILQ_HEAD(core_jobs, core_job);

/* A result goes out once its record is on disk, and is forgotten once the
 * record says the source took it or is gone; CORE_RECORD_RETRY retries. */
enum core_result_state {
	RESULT_RECORD,
	RESULT_SEND,
	RESULT_MARK
};

struct core_result {
	TAILQ_ENTRY(core_result) entry;
	enum core_result_state	 state;
	size_t			 src;		/* the source's index in sched */
	char			 id[CONTRACT_ID_MAX + 1];
	enum contract_status	 status;
	char			*output;	/* succeeded: JSON text */
	size_t			 outputlen;
	char			 error[JOB_ERROR_MAX];
	int			 tried;		/* sent once: it waits for the source */
	int			 norecord;	/* never noted: no record to mark */
	enum records_result	 mark;		/* RESULT_MARK: what the record must say */
	int			 numeric;
	int			 cap;
	time_t			 started_at, finished_at;
	struct job_outcome	 outcome;
};
TAILQ_HEAD(core_results, core_result);

struct core {
	struct config		*conf;
	struct msgchan		*chan;
	struct sched		*sched;
	int			 dfd;		/* data_dir */
	int			 keep_up;
	time_t			 probe_at;	/* monotonic */
	time_t			 prune_at;
	enum core_wait		 wait;
	size_t			 src;		/* whose call it is */
	unsigned int		 caps;		/* the capabilities the claim named */
	struct core_results	 results;
	struct core_result	*sending;
	struct core_jobs	 jobs;
	size_t			 njobs;
	time_t			 record_at;
	int			 stopping;	/* SIGTERM: no new claim or job */
	/* sandcastled -1: the next source to ask, whether anything failed. */
	size_t			 once_next;
	int			 once_failed;
	int			 once_told;	/* the round's end is sent */
	time_t			 stop_by;	/* no call begins that could end later */
};


time_t	 core_now(void);
const char *core_source(const struct core *, size_t);
void	 core_call(struct core *, size_t src, enum core_wait, char *envelope,
	    size_t len, ask_take_fn *);
/* to may keep the answer, leaving a zeroed one. */
void	 core_keep_answer(struct core *, struct msg *,
	    void (*to)(struct core *, struct keepcli_answer *, const char *));
void	 core_once_failed(struct core *);
void	 core_keep_down(struct core *, const char *why);

#endif
