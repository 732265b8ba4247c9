/* claude's box side (claude.c); sandcastle-box(8), CLAUDE, has the table. */
#ifndef SANDCASTLE_BOX_CLAUDE_H
#define SANDCASTLE_BOX_CLAUDE_H

#include <stddef.h>
#include <stdint.h>

#include "box.h"
#include "cap_claude.h"

#define CLAUDE_MODEL_MAX	128
#define CLAUDE_API_VERSION	CLAUDE_ANTHROPIC_VERSION
#define CLAUDE_MESSAGE_MAX	200	/* bytes of the API's message kept */

struct claude_settings {
	char		 model[CLAUDE_MODEL_MAX + 1];
	int64_t		 max_tokens;
	char		 effort[8];
	size_t		 system;	/* the system_prompt string's token */
};

/* The job: box_run_fn, for its row in sandcastle-box.c. */
int		 claude_run(struct box_job *, struct box_outcome *);
/* Its row, for sandcastle-box.c. */
extern const struct box_cap box_claude;
/* The job line's settings: 0, or -1 and why naming the key. */
int		 claude_settings(const struct json *, size_t tok,
		    struct claude_settings *, char *why, size_t whysz);
/* The request line for the job (or the check), or NULL with o failed. */
char		*claude_request(const struct box_job *,
		    const struct claude_settings *, size_t *len,
		    struct box_outcome *o);
/* The verdict on an answer or unreachable line, into o. */
void		 claude_answer(const struct box_job *,
		    const struct claude_settings *, const struct proto_msg *,
		    struct box_outcome *o);

#endif
