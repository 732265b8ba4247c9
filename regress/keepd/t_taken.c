/*
 * T4: what a taken keepd and a taken request's child can do, their rows
 * of sandcastle(7)'s table: keepd's real locks, its Landlock ruleset
 * then its seccomp filter, and a request child's stacked on them as
 * keepd forks it, put on in a forked child that then makes each attempt
 * of the table (regress/lib/taken.h).  Each attempt's control is the
 * same call with no lock, which succeeds.  Not built with the
 * sanitizers: their runtimes make calls a filter kills.
 */
#include <sys/types.h>

#include <atf-c.h>

#include "sandbox.h"
#include "../../keepd/lock.h"
#include "../lib/taken.h"

enum taken_proc { KEEPD, FETCH, NPROCS };

/* sandcastle(7) "What a taken process can do": the same rows. */
static const int taken[NPROCS][NTRIES] = {
	/*		secret	config	new	data	net	keep.sock exec	kill	ptrace	W|X */
	[KEEPD] = { ALLOWED, KILLED, KILLED, KILLED, KILLED, ALLOWED, KILLED, SCOPED, KILLED, KILLED },
	[FETCH] = { KILLED, KILLED, KILLED, KILLED, KILLED, KILLED, KILLED, KILLED, KILLED, KILLED },
};

static const char *const proc_names[NPROCS] = { "keepd", "request child" };

static void
lock_keepd(void)
{
	landlock_on(landlock_keepd(secretsfd, "secrets", "run"));
	sandbox_keepd(secretsfd);
}

/* As keepd forks it (fetch.c): its own ruleset and filter on keepd's. */
static void
lock_fetch(void)
{
	lock_keepd();
	landlock_on(landlock_fetch());
	sandbox_fetch();
}

static void (*const locks[NPROCS])(void) = { lock_keepd, lock_fetch };

static void
row(enum taken_proc p)
{
	taken_row(locks[p], taken[p], proc_names[p]);
}

/* T4: every attempt with no lock succeeds, each cell's control. */
ATF_TC_WITHOUT_HEAD(controls);
ATF_TC_BODY(controls, tc)
{
	taken_controls(NULL, -1);
}

/* T4: keepd, its filter on its ruleset of the secrets, read only. */
ATF_TC_WITHOUT_HEAD(keepd);
ATF_TC_BODY(keepd, tc)
{
	row(KEEPD);
}

/* T4: a request's child, its filter and ruleset stacked on keepd's. */
ATF_TC_WITHOUT_HEAD(fetch);
ATF_TC_BODY(fetch, tc)
{
	row(FETCH);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, controls);
	ATF_TP_ADD_TC(tp, keepd);
	ATF_TP_ADD_TC(tp, fetch);
	return atf_no_error();
}
