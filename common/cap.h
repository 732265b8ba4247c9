/*
 * The capabilities, one row each (cap.c): all sandcastle's processes
 * know of one outside its box; nothing else names a capability.
 * HACKING lists what a new one takes.
 */
#ifndef SANDCASTLE_CAP_H
#define SANDCASTLE_CAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum cap_id {
	CAP_CLAUDE,
	CAP_OCR,
	CAP_COUNT
};
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

/* The limits every capability has, in config.yaml beside its settings. */
struct capability {
	int		 enabled;	/* its block is in config.yaml */
	uint64_t	 max_input;	/* bytes */
	uint64_t	 max_output;	/* bytes of one line from the box */
	uint32_t	 timeout;	/* seconds for its box */
	uint32_t	 cooldown;	/* seconds it rests */
	struct box_limits box;
};

/* What a job's input.json keeps of its input. */
enum cap_keeps {
	CAP_KEEPS_INPUT,	/* the input as the source sent it */
	CAP_KEEPS_DIGEST	/* the box's record, else size and SHA-256 */
};

/* install's copy and write of the image's files: 0, or -1 having said why. */
struct cap_image {
	int	(*copy)(void *arg, const char *path, const char *inside);
	int	(*write)(void *arg, const char *inside, const char *text);
	void	*arg;
};

struct cap_row {
	const char	*name;
	const char	*box;	/* its box program: /sandcastle-box in its image */
	struct capability defaults;
	int		 request;	/* its box asks the keep once */
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
	/* The job line's "settings" object, for the box. */
	void		(*settings)(struct json_writer *,
			    const struct config *);
	/* NULL, or what its image holds beyond the box; -1 when it cannot. */
	int		(*image)(const struct config *,
			    const struct cap_image *);
	/*
	 * check's words after "capability <name>: " for its check box's
	 * outcome; 0 when usable, -1 when not.
	 */
	int		(*proved)(const struct config *, const char *output,
			    const char *error, char *buf, size_t bufsz);
};

extern const struct cap_row cap_table[CAP_COUNT];

const char	*cap_name(enum cap_id);
int		 cap_from_name(const char *);	/* -1 when unknown */
const struct box_limits *cap_default_box(enum cap_id);
/* "claude or ocr": the names, for an error that lists them. */
const char	*cap_names(void);

/*
 * 0 when it is the request its box sends under conf; -1 and what
 * differed (printable, the box's words cut short).
 */
int		 capreq_check(const struct config *, enum cap_id,
		    unsigned int roles, const struct capreq *, char *why,
		    size_t whysz);

#endif
