/* sandcastled's tables: its children and its messages, a row each.  main()
 * hands them down, so that no file the rows name calls back into this one. */
#include <sys/types.h>

#include <signal.h>

#include "core.h"
#include "ctl.h"
#include "keep.h"
#include "keepcli.h"
#include "keepfe.h"
#include "launcher.h"
#include "msg.h"
#include "outcome.h"
#include "parent.h"
#include "proc.h"
#include "proctab.h"
#include "proto.h"

/*
 * The parent-death signal survives execve(2): SIGTERM for the launcher,
 * which removes its box; the core stops first.
 */
struct proc proc_children[PROC_COUNT] = {
	{ .id = PROC_CORE, .title = "core",
	    .init = core_init, .sandbox = core_sandbox, .ready = core_ready,
	    .timer = core_timer,
	    .deathsig = SIGKILL, .stop_order = 0,
	    .stop_grace = CORE_STOP_SECONDS + 5, .own_sigterm = 1,
	    .pid = -1, .pidfd = -1, .chan = { .fd = -1 } },
	{ .id = PROC_KEEPFE, .title = "keep-frontend",
	    .init = keepfe_init, .sandbox = keepfe_sandbox,
	    .ready = keepfe_ready, .timer = keepfe_timer,
	    .pollfds = keepfe_pollfds, .dispatch = keepfe_dispatch,
	    .deathsig = SIGKILL, .stop_order = 1, .stop_grace = 5,
	    .pid = -1, .pidfd = -1, .chan = { .fd = -1 } },
	{ .id = PROC_LAUNCHER, .title = "box launcher",
	    .init = launcher_init, .sandbox = launcher_sandbox,
	    .ready = launcher_ready, .timer = launcher_timer,
	    .pollfds = launcher_pollfds, .dispatch = launcher_dispatch,
	    .deathsig = SIGTERM, .stop_order = 1, .stop_grace = 10,
	    .stop_early = 1, .own_sigterm = 1,
	    .pid = -1, .pidfd = -1, .chan = { .fd = -1 } },
};

#define CORE		PROC_BIT(PROC_CORE)
#define KEEPFE		PROC_BIT(PROC_KEEPFE)
#define LAUNCHER	PROC_BIT(PROC_LAUNCHER)
#define U32		sizeof(uint32_t)
/*
 * Type, least and most bytes, fd (0 never, 1 always, 2 maybe), senders,
 * the question it pays, take, destination, standin of a question owed.
 */
#define ROW(t, least, most, fd, from, pays, take, to, standin) \
	[PROC_ ## t] = { { PROC_ ## t, "PROC_" #t, (least), (most), (fd), \
	    (from), (pays), (take) }, (to), (standin), 0 }
#define ASKED(t)	MSG_BIT(PROC_ ## t)

/* By type: a hole is a type with no row, which t_wire finds. */
const struct proc_msgrow proc_msgtab[PROC_MSG_END] = {
	ROW(READY, 0, 0, 0, CORE | KEEPFE | LAUNCHER, 0, parent_ready,
	    ROUTE_PARENT, NULL),
	ROW(KEEP_PROBE, 0, 0, 0, CORE, 0, keepfe_probe, PROC_KEEPFE,
	    keepfe_standin_state),
	ROW(KEEP_STATE, U32, U32, 0, KEEPFE, ASKED(KEEP_PROBE), NULL,
	    ROUTE_ASKER, NULL),
	/* The keep-frontend's check of the destination rests on its id. */
	[PROC_KEEP_CALL] = { { PROC_KEEP_CALL, "PROC_KEEP_CALL",
	    sizeof(struct proc_keep_call) + 2, KEEP_MAXENVELOPE, 0,
	    CORE | LAUNCHER, 0, keepfe_call }, PROC_KEEPFE, keepfe_standin_down,
	    1 },
	/* The body is keepd's memfd, passed on: never in the payload. */
	ROW(KEEP_ANSWER, KEEPCLI_WIRE_MIN, KEEPCLI_WIRE_MAX, 2, KEEPFE,
	    ASKED(KEEP_CALL), NULL, ROUTE_ASKER, NULL),
	ROW(KEEP_DOWN, 1, PROC_REASON_MAX, 0, KEEPFE, ASKED(KEEP_CALL), NULL,
	    ROUTE_ASKER, NULL),
	/* The input is a span of the claim's memfd: an input needs one. */
	ROW(JOB_RUN, sizeof(struct proc_job), sizeof(struct proc_job), 2, CORE,
	    0, launcher_job, PROC_LAUNCHER, launcher_standin_job),
	ROW(JOB_DONE, sizeof(struct outcome_wire), PROC_MAXPAYLOAD, 0,
	    LAUNCHER, ASKED(JOB_RUN), NULL, ROUTE_ASKER, NULL),
	ROW(SOURCES, sizeof(struct ctl_source), PROC_MAXPAYLOAD, 0, CORE, 0,
	    parent_sources, ROUTE_PARENT, NULL),
	ROW(ROUND_DONE, U32, U32, 0, CORE, 0, parent_round_done, ROUTE_PARENT,
	    NULL),
};
