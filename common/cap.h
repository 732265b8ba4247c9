/* The capabilities, one row each in its own cap_<name>.c (HACKING). */
#ifndef SANDCASTLE_CAP_H
#define SANDCASTLE_CAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "outcome.h"

/* CAP_ROW(id, name): its enum cap_id CAP_<id>, its row cap_<name>. */
#define CAP_ROWS	CAP_ROW(CLAUDE, claude) CAP_ROW(OCR, ocr)

#define CAP_ROW(id, name)	CAP_##id,
enum cap_id {
	CAP_ROWS
	CAP_COUNT
};
#undef CAP_ROW
#define CAP_BIT(c)	(1U << (c))

struct capreq;
struct config;
struct destination;
struct json_writer;
struct yfile;
struct ynode;

struct box_limits {
	uint64_t	 memory;	/* bytes, no swap on top */
	uint32_t	 millicpus;	/* box.cpus times 1000 */
	uint32_t	 pids;
	uint64_t	 tmp;		/* bytes of /tmp */
};

/* jobs: boxes at once, in all and of a source or a capability. */
#define JOBS_MAX	32

struct capability {
	int		 enabled;	/* its block is in config.yaml */
	uint64_t	 max_input;	/* bytes */
	uint64_t	 max_output;	/* bytes of one line from the box */
	uint32_t	 timeout;	/* seconds for its box */
	uint32_t	 cooldown;	/* seconds it rests */
	struct box_limits box;
	uint32_t	 jobs;		/* its boxes at once; 0: as the jobs key */
};

enum cap_keeps {
	CAP_KEEPS_INPUT,
	CAP_KEEPS_DIGEST	/* the box's record, else size and SHA-256 */
};

/* install's copy and write of the image's files: 0, or -1 having said why. */
struct cap_image {
	int	(*copy)(void *arg, const char *path, const char *inside);
	int	(*write)(void *arg, const char *inside, const char *text);
	void	*arg;
};

/* Capability c's own i-th word (outcome.h), and its place in its names. */
#define JW_CAP_WORD(c, i)	(JW_CAP + (c) * JW_CAP_WORDS + (i))
#define JW_CAP_INDEX(w)		(((w) - JW_CAP) % JW_CAP_WORDS)

/* A failure word its box may send, and whether the job is then released. */
struct cap_word {
	enum job_word	 word;
	int		 release;
};

/* How the keep writes its destination's secret: "header: <scheme><secret>". */
struct cap_credential {
	const char	*header;
	const char	*scheme;
};

struct cap_row {
	const char	*name;
	const char	*box;	/* its box program: /sandcastle-box in its image */
	struct capability defaults;
	int		 request;	/* its box asks the keep once */
	int		 cpu_bound;	/* its box keeps a processor busy (check) */
	const char	*api;		/* what it asks, for a person, or NULL */
	enum cap_keeps	 keeps;
	/* Its settings in config.yaml: defaults, parse, -nv, free. */
	void		(*init)(struct config *);
	void		(*parse)(struct yfile *, struct ynode *,
			    struct config *);
	void		(*print)(FILE *, const struct config *);
	void		(*free)(struct config *);
	/* Its destination in the configuration, or NULL: it reaches nothing. */
	const struct destination *(*destination)(const struct config *);
	/* NULL when its box makes no request; else capreq.h's check. */
	int		(*request_check)(const struct config *,
			    unsigned int roles, const struct capreq *,
			    char *why, size_t whysz);
	void		(*settings)(struct json_writer *,
			    const struct config *);
	/* NULL, or what its image holds beyond the box; -1 when it cannot. */
	int		(*image)(const struct config *,
			    const struct cap_image *);
	/* The paths in its image its box loads, NULL-ended, or NULL. */
	const char *const *loads;
	/* Its box's failure words beside cap_box_words, up to JW_NONE. */
	const struct cap_word *words;
	/* Its own words' names, by JW_CAP_INDEX (sandcastled(8), BOXES). */
	const char *const *names;
	size_t		 nnames;
	/* Its destination's secret, and the headers beyond cap_headers. */
	struct cap_credential credential;
	const char *const *headers;
	/* check's words after "capability <name>: "; 0 usable, -1 not. */
	int		(*proved)(const struct config *,
			    const struct job_outcome *, char *buf,
			    size_t bufsz);
};

/* The words any box may send (the exchange's), up to JW_NONE. */
extern const struct cap_word cap_box_words[];
/* The headers a request to any destination may carry, NULL-ended. */
extern const char *const cap_headers[];

#define CAP_ROW(id, name)	extern const struct cap_row cap_##name;
CAP_ROWS
#undef CAP_ROW
extern const struct cap_row *const cap_table[CAP_COUNT];

const char	*cap_name(enum cap_id);
int		 cap_from_name(const char *);
const struct box_limits *cap_default_box(enum cap_id);
const char	*cap_names(void);
const char	*cap_word_name(int);
int		 cap_word_of_name(const char *);

/* 0 when it is the request its box sends; -1 and what differed, printable. */
int		 capreq_check(const struct config *, enum cap_id,
		    unsigned int roles, const struct capreq *, char *why,
		    size_t whysz);

#endif
