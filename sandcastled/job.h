/*
 * One job, or one check, in one box: the launcher's side of the box
 * protocol (common/boxproto.h).  The input goes in untouched; what the
 * box says comes back as JSON text to be stored, never logged.
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
 * 0 and the answer or refusal in *a, the seconds the keep had in it, or
 * -1 and why (static) when none came.  seconds: what the call has at
 * the keep, the box's time less its end.
 */
typedef int	 job_keep_fn(const char *envelope, size_t len,
		    unsigned int seconds, struct keepcli_answer *a, void *arg,
		    const char **why);

/* job.c: the build every box must be of; NULL, or why none is yet. */
int		 job_init(const char *build, char *why, size_t whysz);
const char	*job_build(void);
const char	*job_no_build(void);
/*
 * jobrun.c: timeout 0 is the capability's; lock, required, is what the box's
 * reader puts on before it reads a byte of the box (reader_lock(), or a
 * test's); keep NULL answers requests unreachable.
 */
void		 job_run(const struct config *, enum cap_id, enum job_mode,
		    const char *input, size_t inputlen, unsigned int timeout,
		    void (*lock)(void), job_keep_fn *keep, void *arg,
		    struct job_outcome *o);
/* readlock.c: the box reader's filter and ruleset, the launcher's and check's. */
void		 reader_lock(void);
const char	*job_status_name(enum job_status);

/* word.c: 0 and the word of a box's failure line, -1 when its row lacks it. */
int		 job_word_of_box(enum cap_id, const char *name, int release,
		    enum job_word *word);

/* Parts of job_run(), for its tests: NULL and why, or the line. */
char		*job_line(const struct config *, enum cap_id, enum job_mode,
		    const char *input, size_t inputlen, size_t *len);
char		*job_envelope(enum cap_id, const char *request, size_t len,
		    size_t *outlen, const char **why);
char		*job_answer_line(const struct keepcli_answer *, int ok,
		    const char *why, size_t *len);

#endif
