/*
 * T4: what a taken process of sandcastled can do, sandcastle(7)'s table:
 * each process's real locks, its Landlock ruleset then its seccomp filter in
 * the daemon's order, put on in a forked child, which then makes each
 * attempt of the table below against a layout made before the locks.
 * A cell is the kernel's answer: SIGSYS, an errno, or the attempt done.
 * Each attempt's control is the same call with no lock, which succeeds.
 * Not built with the sanitizers: their runtimes make calls a filter kills.
 */
#include <sys/types.h>

#include <syslog.h>

#include <atf-c.h>

#include "sandbox.h"
#include "../../sandcastled/job.h"
#include "../../sandcastled/lock.h"
#include "../../sandcastled/readlock.h"
#include "../lib/taken.h"

enum taken_proc { PARENT, CORE, KEEPFE, LAUNCHER, READER, NPROCS };

/* sandcastle(7) "What a taken process can do": the same table. */
static const int taken[NPROCS][NTRIES] = {
	/*		secret	config	new	data	net	keep.sock exec	kill	ptrace	W|X */
	[PARENT] =   { KILLED, KILLED, KILLED, KILLED, KILLED, EACCES, KILLED, KILLED, KILLED, KILLED },
	[CORE] =     { EACCES, EACCES, EACCES, ALLOWED, KILLED, KILLED, KILLED, KILLED, KILLED, KILLED },
	[KEEPFE] =   { EACCES, KILLED, KILLED, EACCES, KILLED, ALLOWED, KILLED, KILLED, KILLED, KILLED },
	[LAUNCHER] = { ALLOWED, ALLOWED, ALLOWED, ALLOWED, ALLOWED, ALLOWED, ALLOWED, ALLOWED, EPERM, EACCES },
	[READER] =   { KILLED, KILLED, KILLED, KILLED, KILLED, KILLED, KILLED, KILLED, KILLED, KILLED },
};

static const char *const proc_names[NPROCS] = {
	"parent", "core", "keep frontend", "box launcher", "box reader",
};

static void
lock_parent(void)
{
	openlog("t_taken", LOG_PID | LOG_NDELAY, LOG_DAEMON);
	landlock_on(landlock_parent("run"));
	sandbox_parent();
}

static void
lock_core(void)
{
	landlock_on(landlock_core(datafd, "data"));
	sandbox_core();
}

static void
lock_keepfe(void)
{
	landlock_on(landlock_keepfe());
	sandbox_keepfe();
}

static void (*const locks[NPROCS])(void) = {
	lock_parent, lock_core, lock_keepfe, sandbox_launcher, reader_lock,
};

/* T4: every attempt with no lock succeeds, each cell's control. */
ATF_TC_WITHOUT_HEAD(controls);
ATF_TC_BODY(controls, tc)
{
	taken_controls(NULL, -1);
}

static void
row(enum taken_proc p)
{
	taken_row(locks[p], taken[p], proc_names[p]);
}

/* T4: the parent, its filter on its ruleset of control.sock's folder. */
ATF_TC_WITHOUT_HEAD(parent);
ATF_TC_BODY(parent, tc)
{
	row(PARENT);
}

/* T4: the core, its filter on its ruleset of data_dir. */
ATF_TC_WITHOUT_HEAD(core);
ATF_TC_BODY(core, tc)
{
	row(CORE);
}

/* T4: the keep frontend, its filter on its ruleset of no file. */
ATF_TC_WITHOUT_HEAD(keepfe);
ATF_TC_BODY(keepfe, tc)
{
	row(KEEPFE);
}

/* T4: the box launcher, its deny list and no ruleset. */
ATF_TC_WITHOUT_HEAD(launcher);
ATF_TC_BODY(launcher, tc)
{
	row(LAUNCHER);
}

/* T4: the box reader, its filter on its ruleset of no file. */
ATF_TC_WITHOUT_HEAD(reader);
ATF_TC_BODY(reader, tc)
{
	row(READER);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, controls);
	ATF_TP_ADD_TC(tp, parent);
	ATF_TP_ADD_TC(tp, core);
	ATF_TP_ADD_TC(tp, keepfe);
	ATF_TP_ADD_TC(tp, launcher);
	ATF_TP_ADD_TC(tp, reader);
	return atf_no_error();
}
