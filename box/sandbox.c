/*
 * sandcastle-box's own seccomp filter, the box's pledge("stdio"): the
 * same for every capability, called once by main() after the
 * capability has loaded what it needs and before the first byte of the
 * job is read.  It stacks on podman's profile of the box (and, under
 * sandcastled, on the launcher's deny list): the kernel runs each one,
 * and the strictest answer wins.
 *
 * From then on the box may read its stdin, write its stdout and stderr,
 * manage its memory (private, never made executable), read the clock and
 * exit.  Nothing opens a file, makes a socket, runs a program, starts a
 * process or a thread, or drives a device: each kills the box with
 * SIGSYS, and the launcher fails its job saying that the box broke its
 * filter.  clone3(2) fails with ENOSYS, so that glibc falls back to
 * clone(2), which the filter kills.
 *
 * What is listed is what the box was seen to need, under the debug
 * build's trap (make DEBUG=1), on every path of regress/box and
 * regress/launcher: the rest is left out until a test shows it is
 * needed.
 *
 * It is built apart from the daemons' filters: it does not start from
 * their base list (common/sandbox.c, sandbox_allow_list()), which lets
 * a process read, write and poll any descriptor, pass messages on a
 * socket and read its ids.  The box may do much less, and only on its
 * three descriptors.
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

/* The rules of every capability's box. */
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
	/*
	 * Private memory, never executable: code a job's content planted
	 * cannot be run from a page it wrote, and shared memory, which
	 * the data rlimit does not count, cannot be had.
	 */
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
	/*
	 * A test build without its filter: t_job's proof of the ruleset
	 * alone, and with neither lock its control and make bench.
	 */
	(void)cap;
	seccomp_release(ctx);
#else
	sandbox_load(ctx, cap);
#endif
}

/*
 * What a capability needs beyond the base it loads before this (ocr:
 * Tesseract and its languages); claude's reply comes on stdin like the
 * job: neither needs more.
 */
void
sandbox_box(const char *name)
{
	box_load(box_allow_list(), name);
}
