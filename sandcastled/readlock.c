/* The filter each child of sandcastled starts from, and the lock of a box's
 * reader on it (sandcastlectl links this file). */
#include <sys/types.h>

#include <seccomp.h>

#include "job.h"
#include "readlock.h"
#include "sandbox.h"

#define NCALLS(a)	(sizeof(a) / sizeof((a)[0]))

/* The children's addition to common/sandbox.c's base. */
static const int sandbox_child[] = {
	SCMP_SYS(getppid),
};

scmp_filter_ctx
sandbox_child_list(void)
{
	scmp_filter_ctx	 ctx;

	ctx = sandbox_allow_list();
	sandbox_add(ctx, SCMP_ACT_ALLOW, sandbox_child, NCALLS(sandbox_child));
	sandbox_add_noexec(ctx);
	sandbox_add_stdio(ctx);
	sandbox_add_no_clone3(ctx);
	return ctx;
}

/* The box's reader: the base alone; its pipes and channel were open before. */
void
sandbox_reader(void)
{
	sandbox_load(sandbox_child_list(), "box reader");
}

int
landlock_reader(void)
{
	return sandbox_landlock(LANDLOCK_READER, NULL, 0, 0);
}

/* The ruleset first: its prctl(2) and Landlock calls the filter denies. */
void
reader_lock(void)
{
	(void)landlock_reader();
	sandbox_reader();
}
