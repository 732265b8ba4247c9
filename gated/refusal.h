/*
 * The gate's refusals, kept for `sandcastlectl check`: an append-only
 * file in the state folder (path_state_dir() + "/" REFUSAL_FILE), one
 * line per refusal, mode 0600:
 *
 *	<epoch> <destination> <host> <port> <address> <code> LF
 *
 * epoch is time(3) in decimal; destination is the destination's name
 * or "-" when none has that name and port; host is the name asked for
 * or "-" (an IP literal is not kept); address is dotted decimal or "-"
 * when there was none; code is one of refusal_code().  No field holds a
 * space, a line is at most REFUSAL_LINE_MAX bytes with its LF, and each
 * is written with one write(2) on O_APPEND, so lines never interleave.
 * A reader skips any line that is not exactly this shape, a torn last
 * one included.  The gate alone writes and prunes it (a rewrite by
 * another process could lose a line appended meanwhile); check reads it.
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

/* What check prints for one destination: the count and the last one. */
struct refusal_sum {
	unsigned int	 count;
	struct refusal_rec last;
};

/*
 * refusal_append() adds one line; -1 with errno EINVAL when a field
 * cannot be written as above, EFBIG when the file holds REFUSAL_FILE_MAX
 * bytes of the last hour even after pruning.
 */
int	refusal_append(const char *path, const struct refusal_rec *);

/*
 * The gate's children cannot open files: the gate opens the file once
 * (refusal_open(), O_APPEND) and each child appends with
 * refusal_append_fd().  It never prunes (rename needs the folder):
 * EFBIG once the file holds REFUSAL_FILE_MAX bytes, until the gate
 * starts again and prunes.
 */
int	refusal_open(const char *path);
int	refusal_append_fd(int fd, const struct refusal_rec *);

/* Rewrites path (a temporary file, then rename(2)) with only the last hour. */
int	refusal_prune(const char *path, time_t now);

/*
 * Calls cb once per destination refused in the last hour, sorted by
 * name (the refusals on no destination once per name and port); last
 * is the group's last line.  A missing file is no refusal.  Returns 0,
 * or -1 with errno set.
 */
int	refusal_summary(const char *path, time_t now,
	    void (*cb)(const struct refusal_sum *, void *), void *arg);

/*
 * "gate: refused notes 3 time(s) in the last hour, last at 10:15:46
 * (notes.example.org 192.168.1.30): <reason>; <what to do>", local time.
 */
int	refusal_format(const struct refusal_sum *, char *buf, size_t bufsz);

const char	*refusal_code(enum refusal);	/* the file's word for it */
const char	*refusal_advice(enum refusal);	/* what to do */

#endif
