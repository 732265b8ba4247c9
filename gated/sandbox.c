/*
 * The gate's sandbox: every capability dropped (CAP_NET_ADMIN could remove
 * a route), then an allow list each tunnel's child tightens; an errno, not
 * a kill, where glibc's resolver falls back (nscd, hosts, gai.conf, netlink).
 */
#include <sys/types.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include <linux/capability.h>
#include <linux/securebits.h>

#include <errno.h>
#include <sched.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include <seccomp.h>

#include "gate.h"
#include "log.h"
#include "sandbox.h"

#define NCALLS(a)	(sizeof(a) / sizeof((a)[0]))
#define CLONE_NAMESPACES (CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWNS | \
	CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP)

static const int filter_allowed[] = {
	SCMP_SYS(accept4), SCMP_SYS(connect), SCMP_SYS(shutdown),
	SCMP_SYS(getsockopt), SCMP_SYS(setsockopt), SCMP_SYS(getsockname),
	SCMP_SYS(getpeername), SCMP_SYS(recvfrom), SCMP_SYS(sendmmsg),
	SCMP_SYS(alarm), SCMP_SYS(wait4),
	SCMP_SYS(kill), SCMP_SYS(unlink), SCMP_SYS(getppid),
	SCMP_SYS(set_robust_list), SCMP_SYS(capget), SCMP_SYS(pipe2),
	SCMP_SYS(splice), SCMP_SYS(mincore),
};

/* What the parent alone needs; a tunnel's child dies on any of them. */
static const int filter_parent_only[] = {
	SCMP_SYS(clone), SCMP_SYS(clone3), SCMP_SYS(fork), SCMP_SYS(vfork),
	SCMP_SYS(kill), SCMP_SYS(unlink), SCMP_SYS(unlinkat),
	SCMP_SYS(accept4), SCMP_SYS(accept), SCMP_SYS(wait4),
	SCMP_SYS(socketpair),
};

static void
rule2(scmp_filter_ctx ctx, uint32_t action, int call,
    struct scmp_arg_cmp a, struct scmp_arg_cmp b)
{
	int	r;

	if ((r = seccomp_rule_add(ctx, action, call, 2, a, b)) != 0)
		fatalx("seccomp: cannot add a rule: %s", strerror(-r));
}

/* TCP to destinations, UDP to the resolver; nothing else of the network. */
static void
filter_sockets(scmp_filter_ctx ctx)
{
	rule2(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket),
	    SCMP_A0(SCMP_CMP_EQ, AF_INET),
	    SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, SOCK_STREAM));
	rule2(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket),
	    SCMP_A0(SCMP_CMP_EQ, AF_INET),
	    SCMP_A1(SCMP_CMP_MASKED_EQ, 0xf, SOCK_DGRAM));
	sandbox_add_arg_eq(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 0,
	    AF_UNIX);
	/* The spare's channel, for its client's descriptor (serve.c). */
	sandbox_add_arg_eq(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socketpair), 0,
	    AF_UNIX);
	sandbox_add_arg_eq(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 0,
	    AF_INET6);
	sandbox_add_arg_eq(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 0,
	    AF_NETLINK);
}

static void
filter_rules(scmp_filter_ctx ctx)
{
	sandbox_add(ctx, SCMP_ACT_ALLOW, filter_allowed,
	    NCALLS(filter_allowed));
	filter_sockets(ctx);
	sandbox_add(ctx, SCMP_ACT_ERRNO(EACCES),
	    (int[]){ SCMP_SYS(open), SCMP_SYS(openat) }, 2);
	sandbox_add_no_clone3(ctx);
	/* fork(2) for the tunnels, never into a namespace of its own. */
	sandbox_add_arg_masked(ctx, SCMP_ACT_ALLOW, SCMP_SYS(clone), 0,
	    CLONE_NAMESPACES, 0);
	sandbox_add_noexec(ctx);
	/* The resolver asks FIONREAD. */
	sandbox_add_arg_eq(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, FIONREAD);
	sandbox_add_stdio(ctx);
	/* A tunnel's child stacks a filter and a ruleset: they only take away. */
	sandbox_add(ctx, SCMP_ACT_ALLOW, (int[]){ SCMP_SYS(seccomp),
	    SCMP_SYS(landlock_create_ruleset), SCMP_SYS(landlock_restrict_self) },
	    3);
	sandbox_add_arg_eq(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 0,
	    PR_SET_NO_NEW_PRIVS);
	sandbox_add_arg_eq(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 0,
	    PR_GET_NO_NEW_PRIVS);
	sandbox_add_arg_eq(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 0,
	    PR_CAPBSET_READ);
	/* A tunnel's child ends with the gate (child_start()). */
	sandbox_add_arg_eq(ctx, SCMP_ACT_ALLOW, SCMP_SYS(prctl), 0,
	    PR_SET_PDEATHSIG);
}

/* The bounding set first: dropping it needs CAP_SETPCAP, which capset ends. */
static void
caps_drop(void)
{
	struct __user_cap_header_struct	hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct	data[2];
	int				cap;

	for (cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++) {
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == -1)
			fatal("cannot drop capability %d from the bounding "
			    "set", cap);
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) == -1)
		fatal("cannot clear the ambient capabilities");
	/* Root of the namespace must not get them back by any exec. */
	if (prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |
	    SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED |
	    SECBIT_KEEP_CAPS_LOCKED, 0, 0, 0) == -1)
		fatal("cannot lock the securebits");
	memset(data, 0, sizeof(data));
	if (syscall(SYS_capset, &hdr, data) == -1)
		fatal("cannot drop every capability (capset)");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		fatal("cannot set no_new_privs");
}

void
filter_gate(void)
{
	scmp_filter_ctx	ctx;

	caps_drop();
	ctx = sandbox_allow_list();
	filter_rules(ctx);
	sandbox_load(ctx, "gated");
}

void
filter_tunnel(void)
{
	scmp_filter_ctx	ctx;

	ctx = sandbox_new(SANDBOX_DEFAULT_ALLOW);
	sandbox_add(ctx, sandbox_kill_action(), filter_parent_only,
	    NCALLS(filter_parent_only));
	sandbox_load(ctx, "tunnel");
}

/* gate.sock's removal alone; signals unscoped, for pasta's helper. */
int
landlock_gate(const struct gate *g)
{
	struct landlock_path	 sock = { -1, NULL, LANDLOCK_REMOVE };
	char			 dir[PATH_MAX], *slash;

	(void)strlcpy(dir, g->sock, sizeof(dir));
	if ((slash = strrchr(dir, '/')) != NULL && slash != dir)
		*slash = '\0';
	sock.path = dir;
	return sandbox_landlock(LANDLOCK_GATED, &sock, 1, 1);
}

int
landlock_tunnel(void)
{
	return sandbox_landlock(LANDLOCK_TUNNEL, NULL, 0, 0);
}
