/*
 * The configuration folder: config.yaml (the general settings and the
 * toolbox) and sources/<name>.yaml (one source each), read once into
 * these structs.  Every limit is checked here; the rest of sandcastle
 * trusts what it finds in them.  sandcastle.conf(5) is the reference.
 */
#ifndef SANDCASTLE_CONFIG_H
#define SANDCASTLE_CONFIG_H

#include <sys/queue.h>

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define NAME_LEN	64		/* sources, secrets, destinations */
#define HOST_LEN	253		/* a DNS name, without the trailing dot */

enum cap_id {
	CAP_CLAUDE,
	CAP_OCR,
	CAP_COUNT
};
#define CAP_BIT(c)	(1U << (c))

struct destination {
	char		 name[NAME_LEN + 1];	/* "claude" or the source's name */
	char		 secret[NAME_LEN + 1];
	char		*address;		/* as the operator wrote it */
	int		 tls;			/* https:// (1) or http:// (0) */
	char		 host[HOST_LEN + 1];	/* lower case, no trailing dot */
	uint16_t	 port;			/* from the address, or 443/80 */
	char		*path;			/* "" or "/a/b", never ending in / */
	int		 has_internal;
	struct in_addr	 internal_ip;		/* the internal exception */
	uint16_t	 internal_port;
	char		*ca_file;		/* NULL: the system's CA bundle */
	char		*file;			/* where it was written */
	int		 line;
};

struct box_limits {
	uint64_t	 memory;		/* bytes, no swap on top */
	uint32_t	 millicpus;		/* box.cpus times 1000 */
	uint32_t	 pids;
	uint64_t	 tmp;			/* bytes of /tmp */
};

struct capability {
	int		 enabled;		/* its block is in config.yaml */
	uint64_t	 max_input;		/* bytes */
	uint64_t	 max_output;		/* bytes of one line from the box */
	uint32_t	 timeout;		/* seconds for its box */
	uint32_t	 cooldown;		/* seconds it rests */
	struct box_limits box;
};

struct claude_conf {
	struct destination dest;
	char		*model;
	uint32_t	 max_tokens;
	char		*effort;		/* low, medium or high */
	char		*system_prompt;
};

struct ocr_conf {
	char		**languages;
	size_t		  nlanguages;
	uint64_t	  max_pixels;
	uint32_t	  max_edge;
};

struct source {
	TAILQ_ENTRY(source) entry;
	char		 name[NAME_LEN + 1];
	char		*file;
	struct destination dest;
	uint32_t	 poll_interval;		/* seconds */
	uint32_t	 job_timeout;		/* seconds */
	uint32_t	 max_jobs_per_hour;
	unsigned int	 capabilities;		/* CAP_BIT() of each listed */
};
TAILQ_HEAD(sourcelist, source);

struct config {
	char		*dir;			/* the configuration folder */
	char		*data_dir;		/* absolute, ~ expanded */
	uint32_t	 retention_days;
	struct capability caps[CAP_COUNT];
	struct claude_conf claude;
	struct ocr_conf	 ocr;
	struct sourcelist sources;
	size_t		 nsources;
};

/* Problems found, each one line "file:line: key: what is wrong". */
struct conferr {
	TAILQ_ENTRY(conferr) entry;
	char		*line;
};
TAILQ_HEAD(conferrs, conferr);

/*
 * config_load() reads dir/config.yaml and dir/sources/ *.yaml.  It
 * returns the configuration, or NULL with every problem in errs (and
 * errno set when the folder itself cannot be read).  Problems never
 * stop the reading early: all of them are reported at once.
 */
struct config	*config_load(const char *dir, struct conferrs *errs);
void		 config_free(struct config *);
void		 conferrs_free(struct conferrs *);
void		 conferrs_print(FILE *, const struct conferrs *);

/* The same parser on a buffer, for the fuzz target and the unit tests. */
int		 config_parse_main(struct config *, const char *file,
		    const char *buf, size_t len, struct conferrs *);
struct source	*config_parse_source(struct config *, const char *file,
		    const char *name, const char *buf, size_t len,
		    struct conferrs *);
struct config	*config_new(const char *dir);	/* defaults, no sources */

/* -nv: the configuration as parsed, every default written out. */
void		 config_print(FILE *, const struct config *);

const char	*cap_name(enum cap_id);
int		 cap_from_name(const char *);	/* -1 when unknown */
const struct box_limits *cap_default_box(enum cap_id);
const struct destination *config_destination(const struct config *, const char *name);

/* Values, shared with the rest of sandcastle (sandcastle.conf(5), VALUES). */
int		 parse_duration(const char *, uint32_t *seconds, const char **why);
int		 parse_size(const char *, uint64_t *bytes, const char **why);
int		 name_valid(const char *, const char **why);

#endif
