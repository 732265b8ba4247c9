/*
 * One box: a rootless podman run of sandcastle-box, its stdin, stdout
 * and stderr as pipes.  What the lines say is common/boxproto.h's,
 * never read here; podman itself is podman.h's.
 */
#ifndef COMMON_BOXRUN_H
#define COMMON_BOXRUN_H

#include <sys/types.h>

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "build.h"
#include "config.h"

#define BOX_NAME_LEN	(15 + 16)	/* "sandcastle-box-" (a check's: -chk-), 16 hex digits */
#define BOX_ERR_HEAD	4096		/* bytes of stderr kept for the record */
#define BOX_WHY_LEN	160
/* podman reads the box's seccomp profile (profile.c) on this descriptor. */
#define BOX_PROFILE_FD	3
#define BOX_PODMAN_PROFILE "/usr/share/containers/seccomp.json"

enum box_role {
	BOX_CORE,
	BOX_CHECK
};

struct box_params {
	char		 image[64];		/* sandcastle-<cap>:<build> */
	const char	*word;			/* its one argument: the capability */
	enum box_role	 role;
	struct box_limits limits;
	uint32_t	 timeout;		/* seconds of wall clock, and of cpu */
	uint64_t	 max_line;		/* bytes of one line from the box */
	uint64_t	 max_total;		/* bytes of stdout in all */
	int		 cgroup;		/* pass --memory, --cpus, --pids-limit */
};

/* What holds one box limit on this machine; none: nothing but the time limit. */
struct box_hold {
	const char	*limit;			/* box.memory, box.cpus, ... */
	const char	*held;
	int		 warn;			/* said with a warning: it holds less than the key says */
};

struct box {
	char		 name[BOX_NAME_LEN + 1];
	pid_t		 pid;			/* podman run; -1 once reaped */
	int		 status;		/* its wait status, once reaped */
	int		 in, out, err;		/* our ends of its stdin, stdout, stderr */
	struct timespec	 deadline;		/* CLOCK_MONOTONIC */
	uint32_t	 timeout;		/* seconds, to that deadline */
	uint64_t	 max_line, total, max_total;
	char		*buf;			/* stdout read, not yet taken */
	size_t		 buflen, bufsz, taken;
	char		 errhead[BOX_ERR_HEAD];
	size_t		 errlen;
	int		 timed_out;
	int		 failed;		/* a bound on its output broke */
	int		 stopped;		/* the launcher stops: removed */
	char		 why[BOX_WHY_LEN];
};

struct box_end {
	int		 exited;		/* 1: code is its exit code */
	int		 code;
	int		 signal;		/* podman run ended by this signal */
	int		 timed_out;
	int		 output_failed;		/* a line too long, too much, no newline */
	int		 release;		/* podman could not create or run it */
	int		 removed;		/* overran: removed and confirmed gone */
	int		 stopped;		/* the launcher stopped: removed */
	char		 why[BOX_WHY_LEN];	/* for the record: no content of the job */
	char		 errhead[BOX_ERR_HEAD];	/* its stderr, cut short: never logged */
	size_t		 errlen;
};

/* boxrun.c */
int		 box_init(const char *build, char *why, size_t whysz);
int		 box_prepare(char *why, size_t whysz);	/* before the filter */
void		 box_stop_when(const volatile sig_atomic_t *, int fd);
struct box	*box_start(enum cap_id, enum box_role,
		    const struct box_limits *, uint32_t timeout,
		    uint64_t max_output);
int		 box_params_init(struct box_params *, const char *image,
		    const char *word, enum box_role, const struct box_limits *,
		    uint32_t timeout, uint64_t max_output);
struct box	*box_spawn(const struct box_params *, char *const argv[],
		    const char *name);
int		 box_write_line(struct box *, const char *, size_t);
int		 box_close_input(struct box *);
int		 box_read_line(struct box *, const char **line, size_t *len);
void		 box_drain(struct box *);
void		 box_hand_off(struct box *);
int		 box_await(struct box *, int fd);
void		 box_finish(struct box *, struct box_end *);

/* profile.c */
int		 box_profile(char *why, size_t whysz);
char		*box_profile_text(const char *podman, size_t plen, size_t *len,
		    char *why, size_t whysz);

#endif
