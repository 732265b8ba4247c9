/*
 * T4: what a taken gate and a taken tunnel child can do, their rows of
 * sandcastle(7)'s table: the gate's real locks, its Landlock ruleset
 * then its seccomp filter, and a tunnel child's stacked on them as the
 * gate forks it, put on in a forked child that then makes each attempt
 * of the table (regress/lib/taken.h).  The child first makes a user
 * namespace, as gated does, so that it holds the capabilities the
 * filter drops; each attempt's control is the same call in that
 * namespace with no lock, which succeeds.  Not built with the
 * sanitizers: their runtimes make calls a filter kills.
 */
#include <sys/types.h>

#include <sched.h>

#include <atf-c.h>

#include "sandbox.h"
#include "../../gated/gate.h"
#include "../lib/taken.h"

enum taken_proc { GATED, TUNNEL, NPROCS };

/* sandcastle(7) "What a taken process can do": the same rows. */
static const int taken[NPROCS][NTRIES] = {
	/*		secret	config	new	data	net	keep.sock exec	kill	ptrace	W|X */
	[GATED] =  { EACCES, EACCES, EACCES, EACCES, ALLOWED, EACCES, KILLED, ALLOWED, KILLED, KILLED },
	[TUNNEL] = { EACCES, EACCES, EACCES, EACCES, ALLOWED, EACCES, KILLED, KILLED, KILLED, KILLED },
};

static const char *const proc_names[NPROCS] = { "gated", "tunnel child" };

static void
in_userns(void)
{
	if (unshare(CLONE_NEWUSER) == -1)
		_exit(90);
}

static void
lock_gated(void)
{
	static struct gate	 gate;

	in_userns();
	(void)strlcpy(gate.sock, "run/gate.sock", sizeof(gate.sock));
	landlock_on(landlock_gate(&gate));
	filter_gate();
}

/* As the gate forks it (serve.c, as its spare): its own ruleset and filter on the gate's. */
static void
lock_tunnel(void)
{
	lock_gated();
	landlock_on(landlock_tunnel());
	filter_tunnel();
}

static void (*const locks[NPROCS])(void) = { lock_gated, lock_tunnel };

static void
row(enum taken_proc p)
{
	taken_row(locks[p], taken[p], proc_names[p]);
}

/*
 * T4: every attempt in the gate's user namespace with no lock succeeds;
 * PTRACE_ATTACH outside it, as the kernel refuses a namespace's process
 * a tracee of the namespace above whatever its filter.
 */
ATF_TC_WITHOUT_HEAD(controls);
ATF_TC_BODY(controls, tc)
{
	taken_controls(in_userns, PTRACE);
}

/* T4: gated, its filter on its ruleset of gate.sock's folder. */
ATF_TC_WITHOUT_HEAD(gated);
ATF_TC_BODY(gated, tc)
{
	row(GATED);
}

/* T4: a tunnel's child, its filter and ruleset stacked on the gate's. */
ATF_TC_WITHOUT_HEAD(tunnel);
ATF_TC_BODY(tunnel, tc)
{
	row(TUNNEL);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, controls);
	ATF_TP_ADD_TC(tp, gated);
	ATF_TP_ADD_TC(tp, tunnel);
	return atf_no_error();
}
