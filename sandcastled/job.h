/* One job, or one check, in one box: the launcher's side of the box
 * protocol (common/boxproto.h). */
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

/* 0 and the answer or refusal in *a, or -1 and why (static). */
typedef int	 job_keep_fn(const char *envelope, size_t len,
		    unsigned int seconds, struct keepcli_answer *a, void *arg,
		    const char **why);

struct box;

/* Seconds a box keeps to end once its call is answered, or not. */
#define JOB_CALL_END	10

typedef int	 job_ask_fn(const char *envelope, size_t len,
		    struct keepcli_answer *a, void *arg, const char **why);

struct job_ctx {
	const struct config	*conf;
	enum cap_id		 cap;
	enum job_mode		 mode;
	struct box		*box;
	struct proto_seq	 seq;
	void			(*lock)(void);	/* the reader's, required */
	job_keep_fn		*keep;
	job_ask_fn		*ask;
	void			*arg;
	int			 hello;
	int			 last;
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

char		*job_line(const struct config *, enum cap_id, enum job_mode,
		    const char *input, size_t inputlen, size_t *len);
char		*job_envelope(enum cap_id, const char *request, size_t len,
		    size_t *outlen, const char **why);
char		*job_answer_line(const struct keepcli_answer *, int ok,
		    const char *why, size_t *len);

#endif
