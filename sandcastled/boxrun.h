/* One box: a rootless podman run of sandcastle-box, its stdio as pipes.
 * What the lines say is common/boxproto.h's, never read here. */
#ifndef SANDCASTLED_BOXRUN_H
#define SANDCASTLED_BOXRUN_H

#include <sys/types.h>

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "config.h"
#include "podman.h"

#define BOX_ERR_HEAD	4096		/* bytes of stderr kept for the record */
#define BOX_WHY_LEN	160

struct box {
	char		 name[BOX_NAME_LEN + 1];
	pid_t		 pid;			/* podman run; -1 once reaped */
	int		 status;
	int		 in, out, err;
	struct timespec	 deadline;
	uint32_t	 timeout;
	uint64_t	 max_line, total, max_total;
	char		*buf;
	size_t		 buflen, bufsz, taken;
	char		 errhead[BOX_ERR_HEAD];
	size_t		 errlen;
	int		 timed_out;
	int		 failed;		/* a bound on its output broke */
	int		 stopped;
	char		 why[BOX_WHY_LEN];
};

struct box_end {
	int		 exited;		/* 1: code is its exit code */
	int		 code;
	int		 signal;
	int		 timed_out;
	int		 output_failed;		/* a line too long, too much, no newline */
	int		 release;		/* podman could not create or run it */
	int		 removed;		/* overran: removed and confirmed gone */
	int		 stopped;
	char		 why[BOX_WHY_LEN];	/* for the record: no content of the job */
	char		 errhead[BOX_ERR_HEAD];	/* its stderr, cut short: never logged */
	size_t		 errlen;
};

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

#endif
