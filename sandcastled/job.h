/*
 * One job, or one check, in one box: the launcher's side of the box
 * protocol (common/boxproto.h).  job_run() starts the box with the
 * capability's limits, checks the box's build, sends the job line with
 * the operator's settings and the input spliced in untouched, carries
 * claude's one request to the keep and its answer back, and turns the
 * box's last line and its end into one outcome.  The core never parses
 * the input; what the box says comes back as JSON text to be stored,
 * never logged.  sandcastlectl check runs it too, for the box of role
 * check (sandcastlectl/check_caps.c).
 */
#ifndef SANDCASTLED_JOB_H
#define SANDCASTLED_JOB_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "keepcli.h"
#include "outcome.h"

enum job_mode {
	JOB_RUN,
	JOB_CHECK
};

/*
 * Carries one envelope to the keep: 0 and the answer or the keep's
 * refusal in *a, or -1 and why (static text) when the keep gave neither.
 */
typedef int	 job_keep_fn(const char *envelope, size_t len,
		    struct keepcli_answer *a, void *arg, const char **why);

/* Before any job: podman's path and environment, and this build's id. */
int		 job_init(const char *build, char *why, size_t whysz);
const char	*job_build(void);
/*
 * Runs the job (JOB_RUN: input, inputlen) or the check (JOB_CHECK: no
 * input) of cap within timeout seconds (0, or more than the
 * capability's timeout: its timeout).  keep may be NULL: a request is
 * then answered unreachable.  o is filled in every case; free it with
 * job_outcome_free().
 */
void		 job_run(const struct config *, enum cap_id, enum job_mode,
		    const char *input, size_t inputlen, unsigned int timeout,
		    job_keep_fn *keep, void *arg, struct job_outcome *o);
void		 job_outcome_free(struct job_outcome *);
/*
 * What each box's reader (jobread.c) puts on before it reads a byte of
 * the box: sandcastled's filter and ruleset for it; none by default.
 */
void		 job_reader_lock(void (*)(void));
const char	*job_status_name(enum job_status);

/* word.c: the word's name; the word for the error of a box's failure line. */
const char	*job_word_name(enum job_word);
enum job_word	 job_word_of_box(const char *error, int release);

/* Parts of job_run(), for its tests: NULL and why, or the line. */
char		*job_line(const struct config *, enum cap_id, enum job_mode,
		    const char *input, size_t inputlen, size_t *len);
char		*job_envelope(enum cap_id, const char *request, size_t len,
		    size_t *outlen, const char **why);
char		*job_answer_line(const struct keepcli_answer *, int ok,
		    const char *why, size_t *len);

#endif
