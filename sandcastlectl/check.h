/*
 * sandcastlectl check: sections in check.c's table, their lines by
 * check_line(); -1 when the sections after it cannot be asked.
 */
#ifndef SANDCASTLECTL_CHECK_H
#define SANDCASTLECTL_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "build.h"

enum check_mark {
	MARK_OK,
	MARK_WARN,
	MARK_FAIL
};

struct config;
struct ctl_env;

struct check {
	const struct ctl_env	*env;
	struct config		*conf;		/* NULL until read */
	int			 nfail;
	int			 keep;		/* the keep answered */
	char			 build[BUILD_ID_LEN + 1]; /* "" until made */
};

#define CHECK_MiB	(1024ULL * 1024)

const char *check_mark(enum check_mark);	/* "ok", "warn", "FAIL" */
void	check_size(uint64_t, char *, size_t);	/* "256MiB", "1GiB", "1000" */
void	check_line(struct check *, enum check_mark, const char *, ...)
	    __attribute__((format(printf, 3, 4)));

/* 1 when install wrote the unit (check_units.c): its advice is systemctl's. */
int	check_unit_installed(const char *);
/* The command that starts daemon by hand, with the folders check took. */
const char *check_by_hand(const struct check *, const char *, int, char *,
	    size_t);
/* This build's id, hashed once a check: NULL with why. */
const char *check_build(struct check *, char *, size_t);

int	check_keep(struct check *);
int	check_landlock(struct check *);	/* needs nothing before it */
int	check_configuration(struct check *);
int	check_units(struct check *);	/* only where install wrote them */
int	check_secrets(struct check *);
int	check_internal(struct check *);
int	check_toolbox(struct check *);
void	check_jobs(struct check *);	/* within the toolbox's lines */
int	check_sources(struct check *);
int	check_capabilities(struct check *);
int	check_gate(struct check *);

#endif
