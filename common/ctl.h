/*
 * The control protocol between sandcastlectl and sandcastled, over
 * $XDG_RUNTIME_DIR/sandcastle/control.sock, framed with msg.h.
 *
 * The client speaks first with CTL_HELLO and its protocol version;
 * sandcastled checks the peer's uid (SO_PEERCRED) before it reads a
 * byte and answers CTL_HELLO with its own version, or CTL_ERROR and
 * closes.  Every answer ends with CTL_END or CTL_ERROR.
 */
#ifndef SANDCASTLE_CTL_H
#define SANDCASTLE_CTL_H

#include <stdint.h>

#define CTL_VERSION	1
#define CTL_MAXPAYLOAD	(64 * 1024)

enum ctl_type {
	CTL_HELLO = 1,		/* both ways: struct ctl_hello */
	CTL_ERROR,		/* daemon: a NUL-terminated reason, then it closes */
	CTL_END,		/* daemon: the answer is complete; no payload */
	CTL_SHOW_STATUS,	/* client: no payload */
	CTL_STATUS_PROC,	/* daemon: struct ctl_proc, one per process */
};

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

#endif
