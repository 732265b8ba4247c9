/*
 * One job, or one check, in one box: the launcher's side of the box
 * protocol (common/boxproto.h).  The input goes in untouched; what the
 * box says comes back as JSON text to be stored, never logged.
 */
#ifndef SANDCASTLED_JOB_H
#define SANDCASTLED_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "boxproto.h"
#include "config.h"
#include "keepcli.h"
#include "outcome.h"

enum job_mode {
	JOB_RUN,
	JOB_CHECK
};

/*
 * 0 and the answer or refusal in *a, the seconds the keep had in it, or
 * -1 and why (static) when none came.  seconds: what the call has at
 * the keep, the box's time less its end.
 */
typedef int	 job_keep_fn(const char *envelope, size_t len,
		    unsigned int seconds, struct keepcli_answer *a, void *arg,
		    const char **why);

struct box;

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

/* The build every box must be of; NULL, or why none is yet. */
int		 job_init(const char *build, char *why, size_t whysz);
const char	*job_build(void);
const char	*job_no_build(void);
const char	*job_status_name(enum job_status);
/* The verdict, and the box's side of the protocol in its reader. */
void		 job_decide(struct job_ctx *, enum job_status, enum job_word,
		    const char *, ...) __attribute__((format(printf, 4, 5)));
void		 job_talk(struct job_ctx *, const char *input, size_t inputlen);

/* Parts of job_run(), for its tests: NULL and why, or the line. */
char		*job_line(const struct config *, enum cap_id, enum job_mode,
		    const char *input, size_t inputlen, size_t *len);
char		*job_envelope(enum cap_id, const char *request, size_t len,
		    size_t *outlen, const char **why);
char		*job_answer_line(const struct keepcli_answer *, int ok,
		    const char *why, size_t *len);

#endif
