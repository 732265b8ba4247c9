/*
 * The box's reader (jobread.c), private to jobrun.c, jobread.c and
 * job.c: one child per box holds its pipes and reads only under its
 * lock.  Its messages to the launcher are jobread_rules's; the launcher
 * never checks the box's JSON.
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

/* In the reader: the keep's answer through the launcher, its seconds in it. */
typedef int	 job_ask_fn(const char *envelope, size_t len,
		    struct keepcli_answer *a, void *arg, const char **why);

struct job_ctx {
	const struct config	*conf;
	enum cap_id		 cap;
	enum job_mode		 mode;
	struct box		*box;
	struct proto_seq	 seq;
	void			(*lock)(void);	/* the reader's, required */
	job_keep_fn		*keep;		/* the launcher's */
	job_ask_fn		*ask;		/* the reader's, when keep is set */
	void			*arg;
	int			 hello;		/* the box's hello came */
	int			 last;		/* its last line came */
	int			 decided;	/* the launcher's verdict stands */
	struct job_outcome	*o;
};

enum jobread_msg {
	JR_KEEP,	/* reader -> launcher: the keep's envelope, once */
	JR_ANSWER,	/* launcher -> reader: struct keepcli_wire ..., a memfd */
	JR_DOWN,	/* launcher -> reader: why the keep gave nothing, text */
	JR_DONE		/* reader -> launcher: struct outcome_wire ... */
};
#define JR_TO_LAUNCHER	(MSG_BIT(JR_KEEP) | MSG_BIT(JR_DONE))
#define JR_TO_READER	(MSG_BIT(JR_ANSWER) | MSG_BIT(JR_DOWN))
#define JR_DOWN_MAX	JOB_ERROR_MAX

/* JR_DONE's own part, between the outcome's and its texts. */
struct jobread_done {
	uint32_t	 hello, last, decided;
	uint32_t	 failed;	/* a bound on its output broke */
	uint32_t	 timed_out;	/* its time ran out in the reader */
	uint32_t	 errlen;	/* bytes of errhead */
	char		 why[BOX_WHY_LEN];
	char		 errhead[BOX_ERR_HEAD];
};

extern const struct msg_rule	jobread_rules[];
extern const size_t		jobread_nrules;

/* job.c: the verdict, and the box's side of the protocol in its reader */
void	job_decide(struct job_ctx *, enum job_status, enum job_word,
	    const char *, ...) __attribute__((format(printf, 4, 5)));
void	job_talk(struct job_ctx *, const char *input, size_t inputlen);

/* jobread.c: job_talk() in the box's reader, its outcome in x. */
void	jobread_run(struct job_ctx *, const char *input, size_t inputlen);

#endif
