/* A job's outcome and its message; the words are sandcastled(8)'s, BOXES. */
#ifndef SANDCASTLE_OUTCOME_H
#define SANDCASTLE_OUTCOME_H

#include <stddef.h>
#include <stdint.h>

#include "msg.h"

#define JOB_ERROR_MAX	512		/* bytes of an error, cut short */
#define JOB_STDERR_MAX	4096		/* bytes of the box's stderr kept */
#define JOB_MODEL_MAX	128
#define JOB_REST_MAX	86400		/* retry-after heeded, at most: 24h */

enum job_status {
	JOB_SUCCEEDED,
	JOB_FAILED,
	JOB_RELEASED
};

/* The log's words (sandcastled(8), BOXES); a capability's are from JW_CAP. */
enum job_word {
	JW_NONE,
	JW_INPUT,
	JW_CAPABILITY,
	JW_BOX,
	JW_PROTOCOL,
	JW_TIME,
	JW_OUTPUT,
	JW_FILTER,
	JW_KILLED,
	JW_EXIT,
	JW_PODMAN,
	JW_BUILD,
	JW_LEFTOVER,
	JW_UNREACHABLE,
	JW_RELEASED,
	JW_RECORD,
	JW_STOPPED,
	JW_LAUNCHER,
	JW_COUNT,
	JW_CAP = 64,
	JW_CAP_END = 1024
};
#define JW_CAP_WORDS	32	/* a capability's own words, at most */

/* meta.json's "usage": only when the job reached a model (has). */
struct job_usage {
	int		 has;
	char		 model[JOB_MODEL_MAX + 1];
	uint64_t	 input_tokens;
	uint64_t	 output_tokens;
};

/* The texts are hostile (a box wrote them): store them, never log them. */
struct job_outcome {
	enum job_status	 status;
	enum job_word	 word;
	/* "" when succeeded; else why, for meta.json's "error" and the source. */
	char		 error[JOB_ERROR_MAX];
	char		*output;	/* succeeded: the output, JSON text */
	char		*reply;		/* failed: the reply refused, JSON text, or NULL */
	struct job_usage usage;
	char		*record;	/* JSON text or NULL, for input.json */
	char		 stderr_head[JOB_STDERR_MAX + 1];
	size_t		 stderr_len;
	int		 box_started;	/* 0: decided before any box */
	int		 box_removed;	/* overran: removed and confirmed gone */
	/* released: the rest the API's answer asked (retry-after), seconds */
	uint32_t	 rest;
	double		 seconds;	/* from job_run() to the box's end */
};

/* Then the message's own part (extra), then output, reply and record. */
struct outcome_wire {
	uint32_t	 status;
	uint32_t	 word;
	char		 error[JOB_ERROR_MAX];
	char		 stderr_head[JOB_STDERR_MAX + 1];
	uint32_t	 stderr_len;
	struct job_usage usage;
	uint32_t	 box_started;
	uint32_t	 box_removed;
	uint32_t	 millis;
	uint32_t	 rest;
	uint32_t	 output_len;
	uint32_t	 reply_len;
	uint32_t	 record_len;
};

/* outcome.c: -1 and errno; take: -1 when it does not add up. */
int	outcome_send(struct msgchan *, uint32_t type, uint32_t id,
	    const struct job_outcome *, const void *extra, size_t extralen);
int	outcome_take(const struct msg *, struct job_outcome *, void *extra,
	    size_t extralen);
void	job_outcome_free(struct job_outcome *);
const char	*job_word_name(enum job_word);
int		 job_word_of_name(const char *);

#endif
