/* The box's protocol: strict JSON lines (sandcastle-box(8), PROTOCOL). */
#ifndef SANDCASTLE_BOX_PROTO_H
#define SANDCASTLE_BOX_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include "build.h"
#include "config.h"
#include "json.h"
#include "keep.h"

#define PROTO_SLACK		(64U * 1024)
#define PROTO_INPUT_MAX		(32U * 1024 * 1024)	/* max_input's ceiling */
#define PROTO_JOB_MAX		(PROTO_INPUT_MAX + PROTO_SLACK)
#define PROTO_ANSWER_MAX	(KEEP_MAXBODY + PROTO_SLACK)
/* The launcher makes the keep's envelope of it, a few bytes longer. */
#define PROTO_REQUEST_MAX	(KEEP_MAXENVELOPE - 1024)
#define PROTO_ERROR_MAX		512
#define PROTO_WHY_MAX		256
#define PROTO_BUILD_FILE	"/sandcastle/build"
#define PROTO_WORD_MAX		32

enum proto_type {
	PROTO_HELLO = 1,
	PROTO_JOB,
	PROTO_REQUEST,
	PROTO_ANSWER,
	PROTO_UNREACHABLE,
	PROTO_RESULT,
	PROTO_FAILURE,
	PROTO_NTYPES
};

/* Every field of every type; a message holds the token of each it has. */
enum proto_field {
	PF_BUILD,
	PF_CAPABILITY,
	PF_MODE,
	PF_LIMITS,
	PF_SETTINGS,
	PF_INPUT,
	PF_METHOD,
	PF_PATH,
	PF_HEADERS,
	PF_BODY,
	PF_STATUS,
	PF_CONTENT_TYPE,
	PF_RETRY_AFTER,
	PF_ERROR,
	PF_WORD,
	PF_OUTPUT,
	PF_USAGE,
	PF_RECORD,
	PF_RELEASE,
	PF_REPLY,
	PF_NFIELDS
};

struct proto_msg {
	enum proto_type	 type;
	struct json	 j;			/* over the caller's line */
	size_t		 f[PF_NFIELDS];		/* a field's value, 0 when absent */
	int		 check;			/* job: mode check */
	uint64_t	 max_input, max_output;
	int64_t		 status, retry_after;
	int		 release;
	char		 word[PROTO_WORD_MAX + 1];
};

/* Who may say what, and when: the order of the exchange. */
enum proto_state {
	PS_HELLO,
	PS_JOB,
	PS_WORK,
	PS_ANSWER,
	PS_LAST,
	PS_DONE
};

struct proto_seq {
	enum cap_id	 cap;
	enum proto_state state;
};

/* Lines from a descriptor, read in chunks; what follows a line waits. */
struct proto_reader {
	int		 fd;
	char		*buf;
	size_t		 size, len, off;
	size_t		 seen;		/* bytes from off known to hold no newline */
	int		 eof;
};

const char	*proto_type_name(enum proto_type);
size_t		 proto_line_max(enum proto_type, const struct proto_msg *job);

/* -1 and why naming the field and rule; m->j points into line, kept alive. */
int		 proto_parse(struct proto_msg *m, const char *line, size_t len,
		    char *why, size_t whysz);
void		 proto_msg_free(struct proto_msg *);

void		 proto_seq_init(struct proto_seq *, enum cap_id);
int		 proto_seq_next(struct proto_seq *, enum proto_type,
		    const char **why);

void		 proto_reader_init(struct proto_reader *, int fd);
void		 proto_reader_free(struct proto_reader *);
/* 1 and the line (its newline a NUL) until the next call, 0 at the end, -1. */
int		 proto_read_line(struct proto_reader *, size_t max, char **line,
		    size_t *len, const char **why);
int		 proto_write_line(int fd, const char *text, size_t len,
		    size_t max, const char **why);

/* 1 when s is a build id: BUILD_ID_LEN lower-case hex digits. */
int		 proto_build_valid(const char *s, size_t len);

#endif
