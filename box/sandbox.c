/*
 * The box's pledge("stdio"): what it was seen to need under make DEBUG=1's
 * trap on every path of regress/box and regress/launcher, not the daemons'
 * base, which allows any descriptor.
 */
#include <sys/mman.h>
#include <sys/types.h>

#include <errno.h>
#include <unistd.h>

#include <seccomp.h>

#include "log.h"
#include "sandbox.h"
#include "box.h"

#define NCALLS(a)	(sizeof(a) / sizeof((a)[0]))

/* Memory, the clock, the end: what any capability's box needs. */
static const int box_base[] = {
	SCMP_SYS(brk), SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(madvise),
	SCMP_SYS(futex), SCMP_SYS(clock_gettime), SCMP_SYS(gettimeofday),
	SCMP_SYS(exit), SCMP_SYS(exit_group),
	SCMP_SYS(rt_sigprocmask), SCMP_SYS(getpid), SCMP_SYS(gettid),
};

static void
box_rule(scmp_filter_ctx ctx, int call, unsigned int n,
    struct scmp_arg_cmp a, struct scmp_arg_cmp b)
{
	int	 r;

	if ((r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, call, n, a, b)) != 0)
		fatalx("seccomp: cannot add the box's rule for call %d: "
		    "error %d", call, -r);
}

static scmp_filter_ctx
box_allow_list(void)
{
	scmp_filter_ctx	 ctx;
	const struct scmp_arg_cmp no_exec = SCMP_A2(SCMP_CMP_MASKED_EQ,
	    PROT_EXEC, 0);

	ctx = sandbox_new(SANDBOX_DEFAULT_KILL);
	sandbox_add(ctx, SCMP_ACT_ALLOW, box_base, NCALLS(box_base));
	sandbox_add(ctx, SCMP_ACT_ERRNO(ENOSYS), (int[]){ SCMP_SYS(clone3) },
	    1);
	/* Its stdin, its stdout and its stderr, and no other descriptor. */
	sandbox_add_arg_eq(ctx, SCMP_ACT_ALLOW, SCMP_SYS(read), 0,
	    STDIN_FILENO);
	sandbox_add_arg_eq(ctx, SCMP_ACT_ALLOW, SCMP_SYS(write), 0,
	    STDOUT_FILENO);
	sandbox_add_arg_eq(ctx, SCMP_ACT_ALLOW, SCMP_SYS(write), 0,
	    STDERR_FILENO);
	/* A line and its newline in one call (proto_write_line()). */
	sandbox_add_arg_eq(ctx, SCMP_ACT_ALLOW, SCMP_SYS(writev), 0,
	    STDOUT_FILENO);
	/* Never executable, nor shared: the data rlimit does not count it. */
	box_rule(ctx, SCMP_SYS(mmap), 2, no_exec,
	    SCMP_A3(SCMP_CMP_MASKED_EQ, MAP_SHARED, 0));
	box_rule(ctx, SCMP_SYS(mprotect), 1, no_exec, no_exec);
	/* abort(3) signals its own process, and only that. */
	sandbox_add_arg_eq(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 0,
	    (uint64_t)getpid());
	return ctx;
}

static void
box_load(scmp_filter_ctx ctx, const char *cap)
{
#ifdef BOX_NO_SECCOMP
	/* A test build without it: t_job's proof of the ruleset alone. */
	(void)cap;
	seccomp_release(ctx);
#else
	sandbox_load(ctx, cap);
#endif
}

/* Beyond the base: nothing (claude's reply comes on stdin, like the job). */
void
sandbox_box(const char *name)
{
	box_load(box_allow_list(), name);
}
