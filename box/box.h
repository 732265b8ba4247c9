/* The box's exchange and what a capability's side gets and gives. */
#ifndef SANDCASTLE_BOX_H
#define SANDCASTLE_BOX_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"
#include "boxproto.h"

struct box_job;
struct box_outcome;

/* A capability's job: its outcome into o, which exchange.c writes last. */
typedef int	 box_run_fn(struct box_job *, struct box_outcome *o);

struct box_env {
	enum cap_id	 cap;
	box_run_fn	*run;
	const char	*build;		/* NULL when the build file was unreadable */
	const char	*build_why;
	void		*loaded;	/* what load made, or NULL */
};

struct box_io {
	struct proto_reader r;
	struct proto_seq seq;
	int		 out;
	int		 broken;	/* the launcher broke the protocol */
};

struct box_job {
	enum cap_id	 cap;
	const struct json *j;
	size_t		 settings;
	size_t		 input;		/* its input object, 0 for a check */
	int		 check;
	uint64_t	 max_input, max_output;
	void		*loaded;
	struct box_io	*io;		/* NULL in the unit tests */
};

/* How the job ended; each JSON text is NUL-terminated or NULL. */
struct box_outcome {
	int		 failed;
	enum job_word	 word;		/* its row's, or cap_box_words' */
	int		 release;
	char		 error[PROTO_ERROR_MAX];
	char		*output;
	char		*usage;
	char		*record;
	char		*reply;
};

/* A capability's row, box_<capability>: load, the filter, then the job. */
struct box_cap {
	enum cap_id	 cap;
	box_run_fn	*run;
	/* Before the filter, the image's paths of its cap_row's loads. */
	void		(*load)(struct box_env *, const char *const *loads);
	void		(*unload)(struct box_env *);
	int		 one_thread;	/* OMP_THREAD_LIMIT=1 before load */
};

/* The whole exchange on in and out: what main() exits with. */
int		 box_run(const struct box_env *, int in, int out);

/* landlock.c, for good: the ABI, 0 without Landlock, -1 refused (on stderr). */
int		 box_landlock(const char *readable);

/* 0, or -1 with o failed; answer is valid until the box reads again. */
int		 box_exchange(struct box_job *, const char *req, size_t len,
		    struct proto_msg *answer, struct box_outcome *o);

void		 box_fail(struct box_outcome *, enum job_word, int release,
		    const char *, ...) __attribute__((format(printf, 4, 5)));
void		 box_outcome_free(struct box_outcome *);
/* The last line for o within max bytes (a reply dropped to fit). */
char		*box_last_line(struct box_outcome *o, uint64_t max, size_t *len);
char		*box_raw_dup(const struct json *, size_t tok);

/* sandbox.c: once the capability has loaded, before the job is read. */
void		 sandbox_box(const char *name);

#endif
