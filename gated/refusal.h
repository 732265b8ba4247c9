/*
 * The gate's refusals for `sandcastlectl check` (gated(8)): a line each,
 * one write(2) on O_APPEND, so that lines never interleave.  The gate
 * alone prunes: a rewrite elsewhere could lose a line.
 */
#ifndef SANDCASTLE_REFUSAL_H
#define SANDCASTLE_REFUSAL_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "config.h"
#include "policy.h"

#define REFUSAL_FILE		"gate-refusals"
#define REFUSAL_LINE_MAX	512
#define REFUSAL_WINDOW		3600		/* seconds: check's last hour */
#define REFUSAL_FILE_MAX	(1024 * 1024)	/* pruned past this; then dropped */
#define REFUSAL_GROUPS_MAX	256		/* destinations in one summary */

struct refusal_rec {
	time_t		 when;
	char		 dest[NAME_LEN + 1];	/* "-": on no destination */
	char		 host[HOST_LEN + 1];	/* "-": none kept */
	uint16_t	 port;
	int		 has_addr;
	struct in_addr	 addr;
	enum refusal	 code;
};

struct refusal_sum {
	unsigned int	 count;
	struct refusal_rec last;
};

/* -1 with EINVAL for an unwritable field, EFBIG when full after pruning. */
int	refusal_append(const char *path, const struct refusal_rec *);

/* The children cannot open or rename: EFBIG until the gate restarts. */
int	refusal_open(const char *path);
int	refusal_append_fd(int fd, const struct refusal_rec *);

int	refusal_prune(const char *path, time_t now);

/* Last hour's refusals, per destination, by name; a missing file is none. */
int	refusal_summary(const char *path, time_t now,
	    void (*cb)(const struct refusal_sum *, void *), void *arg);

int	refusal_format(const struct refusal_sum *, char *buf, size_t bufsz);

const char	*refusal_code(enum refusal);	/* the file's word for it */
const char	*refusal_advice(enum refusal);

#endif
