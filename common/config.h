/*
 * The configuration folder, read once into these structs.  Every limit
 * is checked here; the rest of sandcastle trusts what it finds in them.
 */
#ifndef SANDCASTLE_CONFIG_H
#define SANDCASTLE_CONFIG_H

#include <sys/queue.h>

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cap.h"
#include "values.h"
#include "yamltree.h"

struct source {
	TAILQ_ENTRY(source) entry;
	char		 name[NAME_LEN + 1];
	char		*file;
	struct destination dest;
	uint32_t	 poll_interval;		/* seconds */
	uint32_t	 job_timeout;		/* seconds */
	uint32_t	 max_jobs_per_hour;
	uint32_t	 jobs;			/* its boxes at once, at most */
	unsigned int	 capabilities;		/* CAP_BIT() of each listed */
};
TAILQ_HEAD(sourcelist, source);

/* A file read: its name in the folder and the SHA-256 of its bytes, in hex. */
struct config_file {
	char		 name[NAME_LEN + 16];	/* config.yaml, sources/<name>.yaml */
	char		 sha256[64 + 1];
};

struct config {
	char		*dir;			/* the configuration folder */
	char		*data_dir;		/* absolute, ~ expanded */
	uint32_t	 retention_days;
	uint32_t	 jobs;			/* boxes at once, at most */
	struct capability caps[CAP_COUNT];
	void		*capconf[CAP_COUNT];	/* each one's, its row's */
	struct sourcelist sources;
	size_t		 nsources;
	/*
	 * Every destination, made once: each enabled capability's, then
	 * each source's by name.
	 */
	const struct destination **dests;
	size_t		 ndests;
	/* Each file read, in the order read: a child of sandcastled checks them. */
	struct config_file *files;
	size_t		 nfiles;
};

/*
 * NULL with every problem in errs (errno set when the folder cannot be
 * read); reading never stops at the first.
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

/*
 * confdigest.c: the files and their digests as one line, and the first
 * file that differs from such a line, with how.
 */
void		 config_file_add(struct config *, const char *name,
		    const char *buf, size_t len);
char		*config_digests(const struct config *);
int		 config_digests_differ(const struct config *, const char *line,
		    char *name, size_t namesz, const char **how);

const struct destination *config_destination(const struct config *, const char *name);
/* A source's or a capability's jobs, the jobs key's when 0 or above it. */
uint32_t	 config_jobs_of(const struct config *, uint32_t jobs);

#endif
