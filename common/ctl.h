/*
 * The control protocol between sandcastlectl and sandcastled, framed
 * with msg.h.  The client speaks first, CTL_HELLO and its version; the
 * peer's uid is checked before a byte is read.  Every answer ends with
 * CTL_END or CTL_ERROR.
 */
#ifndef SANDCASTLE_CTL_H
#define SANDCASTLE_CTL_H

#include <stddef.h>
#include <stdint.h>

#include "msg.h"

/* 2: CTL_SHOW_SOURCES and CTL_SOURCE; 3: the jobs running now. */
#define CTL_VERSION	3
#define CTL_MAXPAYLOAD	(64 * 1024)

enum ctl_type {
	CTL_HELLO = 1,		/* both ways: struct ctl_hello */
	CTL_ERROR,		/* daemon: a NUL-terminated reason, then it closes */
	CTL_END,		/* daemon: the answer is complete; no payload */
	CTL_SHOW_STATUS,	/* client: no payload */
	CTL_STATUS_PROC,	/* daemon: struct ctl_proc, one per process */
	CTL_SHOW_SOURCES,	/* client: no payload */
	CTL_SOURCE,		/* daemon: struct ctl_source, one per source */
	CTL_STATUS_JOBS,	/* daemon: struct ctl_jobs, after the processes */
};

#define CTL_DAEMON	0x1	/* the sides: sandcastled */
#define CTL_CLIENT	0x2	/* and sandcastlectl */
#define CTL_SHOWS	(MSG_BIT(CTL_SHOW_STATUS) | MSG_BIT(CTL_SHOW_SOURCES))

/*
 * A row a message, all that is said of it: its type, least and most
 * bytes, descriptor (none), the sides that send it, the questions it
 * answers, and sandcastled's take (control.c).  ctl.c writes the rows
 * without the takes for sandcastlectl.
 */
#define CTL_ROWS(ROW) \
	ROW(CTL_HELLO, sizeof(struct ctl_hello), sizeof(struct ctl_hello), 0, \
	    CTL_DAEMON | CTL_CLIENT, MSG_BIT(CTL_HELLO), control_hello) \
	ROW(CTL_ERROR, 1, CTL_MAXPAYLOAD, 0, CTL_DAEMON, \
	    MSG_BIT(CTL_HELLO) | CTL_SHOWS, NULL) \
	ROW(CTL_END, 0, 0, 0, CTL_DAEMON, CTL_SHOWS, NULL) \
	ROW(CTL_SHOW_STATUS, 0, 0, 0, CTL_CLIENT, 0, control_status) \
	ROW(CTL_STATUS_PROC, sizeof(struct ctl_proc), sizeof(struct ctl_proc), \
	    0, CTL_DAEMON, MSG_BIT(CTL_SHOW_STATUS), NULL) \
	ROW(CTL_SHOW_SOURCES, 0, 0, 0, CTL_CLIENT, 0, control_sources) \
	ROW(CTL_SOURCE, sizeof(struct ctl_source), sizeof(struct ctl_source), \
	    0, CTL_DAEMON, MSG_BIT(CTL_SHOW_SOURCES), NULL) \
	ROW(CTL_STATUS_JOBS, sizeof(struct ctl_jobs), sizeof(struct ctl_jobs), \
	    0, CTL_DAEMON, MSG_BIT(CTL_SHOW_STATUS), NULL)
extern const struct msg_rule	ctl_rules[];
extern const size_t		ctl_nrules;

struct ctl_hello {
	uint32_t	version;
};

struct ctl_proc {
	char		title[32];	/* "parent", "core", ... NUL-terminated */
	int32_t		pid;
	int32_t		state;		/* enum ctl_proc_state */
	int64_t		started;	/* time(3) of its start */
};

enum ctl_proc_state {
	CTL_PROC_RUNNING = 1,
	CTL_PROC_STARTING,
};
const char	*ctl_state_name(int32_t);	/* "running", "starting", "unknown" */

#define CTL_NAME_MAX	65	/* a source's name and its NUL (config.h NAME_LEN) */
#define CTL_ERROR_MAX	512	/* its last failure, cut short, and its NUL */
#define CTL_MAXCAPS	8	/* room for enum cap_id */

/*
 * Sent by the core after every change and at least every minute; the
 * parent answers from its last copy.  Texts are printable ASCII.
 */
struct ctl_source {
	int64_t		at;		/* when the core made this summary */
	int64_t		next;		/* it may be asked next at, the soonest */
	int64_t		error_at;	/* when its last call failed; 0 none */
	int64_t		rest[CTL_MAXCAPS];	/* by enum cap_id: resting until; 0 none */
	uint32_t	caps;		/* CAP_BIT()s it may hand out */
	uint32_t	backoff;	/* seconds of its back-off; 0 none */
	uint32_t	failures;	/* calls failed in a row */
	uint32_t	jobs_hour;	/* jobs started in the last 60 minutes */
	uint32_t	max_jobs;	/* its max_jobs_per_hour */
	uint32_t	running;	/* its jobs in their boxes now */
	uint32_t	jobs;		/* its jobs key: the most at once */
	uint32_t	caprun[CTL_MAXCAPS];	/* by enum cap_id: of running */
	char		name[CTL_NAME_MAX];
	char		error[CTL_ERROR_MAX];	/* "" while its calls work */
};

/*
 * The jobs running now, a row each: every job, then each enabled
 * capability, then each source, from the core's last summary (none
 * running before the first).
 */
enum ctl_jobs_kind {
	CTL_JOBS_ALL = 1,
	CTL_JOBS_CAP,
	CTL_JOBS_SOURCE,
};

struct ctl_jobs {
	int64_t		at;		/* the summary's time(3); 0 before one */
	int32_t		kind;		/* enum ctl_jobs_kind */
	uint32_t	running;	/* in their boxes now */
	uint32_t	jobs;		/* the most at once */
	char		name[CTL_NAME_MAX];	/* the capability's or source's */
};

#endif
