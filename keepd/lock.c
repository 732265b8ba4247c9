/*
 * keepd's seccomp filters and Landlock rulesets: the keep's, and its
 * request child's stacked on them (no file, fork or socket: keepd(8)).
 */
#include <sys/types.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>

#include <seccomp.h>

#include "lock.h"
#include "log.h"
#include "sandbox.h"

#define NCALLS(a)	(sizeof(a) / sizeof((a)[0]))

/* Any keep process, on common/sandbox.c's base: a memfd for the body. */
static const int keep_calls[] = {
	SCMP_SYS(recvfrom), SCMP_SYS(getsockopt),
	SCMP_SYS(shutdown), SCMP_SYS(getgid), SCMP_SYS(getegid),
	SCMP_SYS(memfd_create), SCMP_SYS(ftruncate),
};

/* The keep's own: secrets, clients, tunnels, children, keep.sock's end. */
static const int keepd_calls[] = {
	SCMP_SYS(connect),
	SCMP_SYS(accept4), SCMP_SYS(accept), SCMP_SYS(wait4), SCMP_SYS(kill),
	SCMP_SYS(close_range), SCMP_SYS(dup2), SCMP_SYS(dup3),
	SCMP_SYS(unlink), SCMP_SYS(set_robust_list), SCMP_SYS(getppid),
	/* A request's child puts its own ruleset on: it can only take away. */
	SCMP_SYS(landlock_create_ruleset), SCMP_SYS(landlock_restrict_self),
	/* heap_own(): keepd's after a spare's fork, the spare's before its filter. */
	SCMP_SYS(mincore),
};

#define CLONE_REFUSED	(CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWNET | \
	CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP | \
	CLONE_THREAD | CLONE_VM | CLONE_FS | CLONE_FILES)

/* Writing, creating or truncating: the keep only ever reads a file. */
#define OPEN_REFUSED	(O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND | \
	(O_TMPFILE & ~O_DIRECTORY))

static scmp_filter_ctx
sandbox_common(void)
{
	scmp_filter_ctx	 ctx;

	ctx = sandbox_allow_list();
	sandbox_add(ctx, SCMP_ACT_ALLOW, keep_calls, NCALLS(keep_calls));
	return ctx;
}

static void
sandbox_secrets_open(scmp_filter_ctx ctx, int secretsfd)
{
	int	 r;

	r = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 2,
	    SCMP_A0(SCMP_CMP_EQ, (uint64_t)(uint32_t)secretsfd),
	    SCMP_A2(SCMP_CMP_MASKED_EQ, OPEN_REFUSED, O_RDONLY));
	if (r != 0)
		fatalx("seccomp: cannot add the rule for openat");
}

void
sandbox_keepd(int secretsfd)
{
	scmp_filter_ctx	 ctx;

	ctx = sandbox_common();
	sandbox_add(ctx, SCMP_ACT_ALLOW, keepd_calls, NCALLS(keepd_calls));
	sandbox_add_arg_eq(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 0, AF_UNIX);
	sandbox_add_arg_eq(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socketpair), 0,
	    AF_UNIX);
	sandbox_add_arg_masked(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 0,
	    CLONE_REFUSED, 0);
	sandbox_add_no_clone3(ctx);
	/* A request's child stacks its own filter: a filter only takes away. */
	sandbox_add_arg_eq(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 0,
	    PR_SET_NO_NEW_PRIVS);
	/* And it dies with keepd (fetcher_fork()). */
	sandbox_add_arg_eq(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 0,
	    PR_SET_PDEATHSIG);
	sandbox_add(ctx, SCMP_ACT_ALLOW, (const int[]){ SCMP_SYS(seccomp) },
	    1);
	sandbox_secrets_open(ctx, secretsfd);
	sandbox_load(ctx, "keepd");
}

void
sandbox_fetch(void)
{
	scmp_filter_ctx	 ctx;

	ctx = sandbox_common();
	sandbox_load(ctx, "keepd: fetch");
}

/* A secret is read for every request; the CA bundles are in memory. */
int
landlock_keepd(int secretsfd, const char *secretsdir, const char *sockdir)
{
	const struct landlock_path paths[] = {
		{ secretsfd, secretsdir, LANDLOCK_ACCESS_FS_READ_FILE },
		{ -1, sockdir, LANDLOCK_REMOVE },
	};

	return sandbox_landlock(LANDLOCK_KEEPD, paths, 2, 1);
}

/* No file at all: its one socket, to the gate, is handed to it. */
int
landlock_fetch(void)
{
	return sandbox_landlock(LANDLOCK_FETCH, NULL, 0, 0);
}
