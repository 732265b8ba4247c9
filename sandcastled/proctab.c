/*
 * sandcastled's tables: its children, a row each (proc.c runs them), and
 * its messages, a row each, the one place a message is described.  main()
 * hands them down at start, so that no file the rows name calls back
 * into the file that names them.
 */
#include <sys/types.h>

#include <signal.h>

#include "core.h"
#include "ctl.h"
#include "keep.h"
#include "keepcli.h"
#include "msg.h"
#include "outcome.h"
#include "proto.h"
#include "sandcastled.h"

/*
 * The parent-death signal survives execve(2): SIGKILL where the records
 * leave nothing to undo, SIGTERM for the launcher, which removes its
 * box.  The core stops first; the launcher is told at once, so that it
 * removes the box the core is waiting on.
 */
struct proc proc_children[PROC_COUNT] = {
	{ .id = PROC_CORE, .title = "core",
	    .init = core_init, .sandbox = core_sandbox, .ready = core_ready,
	    .answer = core_answer, .timer = core_timer,
	    .deathsig = SIGKILL, .stop_order = 0,
	    .stop_grace = CORE_STOP_SECONDS + 5, .own_sigterm = 1,
	    .pid = -1, .pidfd = -1, .chan = { .fd = -1 } },
	{ .id = PROC_KEEPFE, .title = "keep-frontend",
	    .init = keepfe_init, .sandbox = keepfe_sandbox,
	    .ready = keepfe_ready,
	    .deathsig = SIGKILL, .stop_order = 1, .stop_grace = 5,
	    .pid = -1, .pidfd = -1, .chan = { .fd = -1 } },
	{ .id = PROC_LAUNCHER, .title = "box launcher",
	    .init = launcher_init, .sandbox = launcher_sandbox,
	    .ready = launcher_ready,
	    .deathsig = SIGTERM, .stop_order = 1, .stop_grace = 5,
	    .stop_early = 1,
	    .pid = -1, .pidfd = -1, .chan = { .fd = -1 } },
};

#define CORE		PROC_BIT(PROC_CORE)
#define KEEPFE		PROC_BIT(PROC_KEEPFE)
#define LAUNCHER	PROC_BIT(PROC_LAUNCHER)
#define MF(t, least, most, fd)	[PROC_ ## t] = { .rule = { PROC_ ## t, \
				    "PROC_" #t, (least), (most), (fd) }
#define M(t, least, most)	MF(t, least, most, 0)
#define U32		sizeof(uint32_t)

/* By type: a hole is a type with no row, which t_wire finds. */
const struct proc_msgrow proc_msgtab[PROC_MSG_END] = {
	M(READY, 0, 0), CORE | KEEPFE | LAUNCHER, ROUTE_PARENT,
	    .take = parent_ready },
	M(KEEP_PROBE, 0, 0), CORE, PROC_KEEPFE,
	    .standin = stop_standin_state, .take = keepfe_probe },
	M(KEEP_STATE, U32, U32), KEEPFE, ROUTE_ASKER, .pays = PROC_KEEP_PROBE },
	/* The keep-frontend's check of the destination rests on that bit. */
	M(KEEP_CALL, sizeof(struct proc_keep_call) + 2, KEEP_MAXENVELOPE),
	    CORE | LAUNCHER, PROC_KEEPFE, .standin = stop_standin_down,
	    .take = keepfe_call, .id_names_sender = 1 },
	/* The body is keepd's memfd, passed on: never in the payload. */
	MF(KEEP_ANSWER, KEEPCLI_WIRE_MIN, KEEPCLI_WIRE_MAX, 2), KEEPFE,
	    ROUTE_ASKER, .pays = PROC_KEEP_CALL },
	M(KEEP_DOWN, 1, PROC_REASON_MAX), KEEPFE, ROUTE_ASKER,
	    .pays = PROC_KEEP_CALL },
	/* The input is a span of the claim's memfd: an input needs one. */
	MF(JOB_RUN, sizeof(struct proc_job), sizeof(struct proc_job), 2), CORE,
	    PROC_LAUNCHER, .standin = stop_standin_job, .take = launcher_job },
	M(JOB_DONE, sizeof(struct outcome_wire), PROC_MAXPAYLOAD), LAUNCHER,
	    ROUTE_ASKER, .pays = PROC_JOB_RUN },
	M(SOURCES, sizeof(struct ctl_source), PROC_MAXPAYLOAD), CORE,
	    ROUTE_PARENT, .take = parent_sources },
	M(ROUND_DONE, U32, U32), CORE, ROUTE_PARENT, .take = parent_round_done },
};
