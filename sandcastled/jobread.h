/*
 * The box's reader (jobread.c), private to job.c and jobread.c: one
 * child per box holds its pipes and reads only under its lock.  Its
 * messages to the launcher are jobread_rules's; the launcher never
 * checks the box's JSON.
 */
#ifndef COMMON_JOBREAD_H
#define COMMON_JOBREAD_H

#include <stddef.h>
#include <stdint.h>

#include "boxproto.h"
#include "boxrun.h"
#include "job.h"
#include "msg.h"

/* Seconds a box keeps to end once its call is answered, or not. */
#define JOB_CALL_END	10

struct job_ctx {
	const struct config	*conf;
	enum cap_id		 cap;
	enum job_mode		 mode;
	struct box		*box;
	struct proto_seq	 seq;
	void			(*lock)(void);	/* the reader's, required */
	job_keep_fn		*keep;
	void			*arg;
	int			 hello;		/* the box's hello came */
	int			 last;		/* its last line came */
	int			 decided;	/* the launcher's verdict stands */
	struct job_outcome	*o;
};

enum jobread_msg {
	JR_KEEP,	/* reader -> launcher: the keep's envelope, once */
	JR_ANSWER,	/* launcher -> reader: struct jobread_answer, its texts */
	JR_DOWN,	/* launcher -> reader: why the keep gave nothing, text */
	JR_DONE		/* reader -> launcher: struct jobread_done, its texts */
};
#define JR_TO_LAUNCHER	(MSG_BIT(JR_KEEP) | MSG_BIT(JR_DONE))
#define JR_TO_READER	(MSG_BIT(JR_ANSWER) | MSG_BIT(JR_DOWN))
#define JR_DOWN_MAX	JOB_ERROR_MAX

/* Then ctype_len, reason_len and body_len bytes. */
struct jobread_answer {
	uint32_t	 refused;
	uint32_t	 status;
	uint32_t	 retry_after;
	uint32_t	 code;
	uint32_t	 ctype_len;
	uint32_t	 reason_len;
	uint32_t	 body_len;
};

/* Then output_len, reply_len and record_len bytes. */
struct jobread_done {
	uint32_t	 status;	/* enum job_status */
	uint32_t	 word;		/* enum job_word */
	uint32_t	 hello, last, decided;
	uint32_t	 failed;	/* a bound on its output broke */
	uint32_t	 timed_out;	/* its time ran out in the reader */
	uint32_t	 errlen;	/* bytes of errhead */
	char		 why[BOX_WHY_LEN];
	char		 error[JOB_ERROR_MAX];
	char		 errhead[BOX_ERR_HEAD];
	struct job_usage usage;
	uint32_t	 output_len;
	uint32_t	 reply_len;
	uint32_t	 record_len;
};

extern const struct msg_rule	jobread_rules[];
extern const size_t		jobread_nrules;

/* job.c */
void	job_decide(struct job_ctx *, enum job_status, enum job_word,
	    const char *, ...) __attribute__((format(printf, 4, 5)));
void	job_talk(struct job_ctx *, const char *input, size_t inputlen);
/* The seconds its call has at the keep: what is left, less JOB_CALL_END. */
unsigned int job_call_seconds(const struct job_ctx *);

/* jobread.c: job_talk() in the box's reader, its outcome in x. */
void	jobread_run(struct job_ctx *, const char *input, size_t inputlen);

#endif
