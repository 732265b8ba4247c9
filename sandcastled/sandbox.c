/*
 * The seccomp filters of sandcastled's processes, one each, installed
 * before a process reads anything that came from another, and beside
 * them the parent's, the core's and the keep frontend's Landlock
 * rulesets.  The parent's go on once its children run: it forks no
 * more, and what it reads after (the children's messages, the control
 * socket's) could be a taken child's or a hostile client's.
 */
#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>

#include <seccomp.h>

#include "sandbox.h"
#include "sandcastled.h"

#define NCALLS(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * What the core and the keep frontend add to the daemons' base
 * (common/sandbox.c): the parent's pid.
 */
static const int sandbox_child[] = {
	SCMP_SYS(getppid),
};

/* The core writes its job records under data_dir. */
static const int sandbox_records[] = {
	SCMP_SYS(openat), SCMP_SYS(mkdirat), SCMP_SYS(renameat),
	SCMP_SYS(renameat2), SCMP_SYS(unlinkat), SCMP_SYS(getdents64),
	SCMP_SYS(fsync), SCMP_SYS(fdatasync), SCMP_SYS(ftruncate),
};

/*
 * The box launcher runs podman, which needs much of the kernel, and a
 * filter is inherited across execve: an allow list would have to hold
 * all that podman, conmon, crun and the box itself may call.  So its
 * filter denies what none of them needs and what would let a taken
 * launcher reach past its boxes.  EPERM is what an unprivileged account
 * gets for most of these anyway, and what the tools under it are
 * written to handle: a kill would turn a tool's probe into a failed
 * job.  ptrace is here because an unprivileged process may trace its
 * own children: podman, and through it the boxes.  fanotify_init, which
 * an unprivileged process may call since Linux 5.13, would let it watch
 * the account's files; name_to_handle_at is open_by_handle_at's other
 * half; vhangup is a terminal's: none of podman, conmon, crun or a box
 * calls them (t_job_e2e runs boxes under this list).
 *
 * What the list cannot hold: socket(2) of AF_INET or AF_INET6 (podman
 * speaks netlink and Unix sockets, and a box's network, none, is made
 * by podman under the same filter), mount(2), setns(2) and unshare(2)
 * (the box's namespaces and root), execve(2) (podman, conmon, crun).
 * The launcher reads no byte of a box (jobread.c), which is what
 * leaves it exposed to the parent's messages alone.
 */
static const int sandbox_launcher_eperm[] = {
	SCMP_SYS(ptrace), SCMP_SYS(process_vm_readv),
	SCMP_SYS(process_vm_writev), SCMP_SYS(kexec_load),
	SCMP_SYS(kexec_file_load), SCMP_SYS(bpf), SCMP_SYS(perf_event_open),
	SCMP_SYS(init_module), SCMP_SYS(finit_module),
	SCMP_SYS(delete_module), SCMP_SYS(userfaultfd),
	SCMP_SYS(open_by_handle_at), SCMP_SYS(iopl), SCMP_SYS(ioperm),
	SCMP_SYS(reboot), SCMP_SYS(swapon), SCMP_SYS(swapoff),
	SCMP_SYS(acct), SCMP_SYS(settimeofday), SCMP_SYS(clock_settime),
	SCMP_SYS(clock_adjtime), SCMP_SYS(adjtimex), SCMP_SYS(syslog),
	SCMP_SYS(lookup_dcookie), SCMP_SYS(uselib), SCMP_SYS(kcmp),
	SCMP_SYS(quotactl), SCMP_SYS(pidfd_getfd), SCMP_SYS(fanotify_init),
	SCMP_SYS(name_to_handle_at), SCMP_SYS(vhangup),
};

/*
 * runc and crun take ENOSYS as "this kernel has no keyrings" (or no
 * io_uring) and go on without them.
 */
static const int sandbox_launcher_enosys[] = {
	SCMP_SYS(add_key), SCMP_SYS(request_key), SCMP_SYS(keyctl),
	SCMP_SYS(io_uring_setup), SCMP_SYS(io_uring_enter),
	SCMP_SYS(io_uring_register),
};

/*
 * What the parent adds to the base once its children run: the control
 * socket's clients accepted, their peer checked (getsockopt, SO_PEERCRED
 * alone) and a refused one shut; its children signalled by their pidfds
 * and reaped; control.sock removed at the end.  kill(2) is not here: by
 * a pid it would reach any process of the operator's account.
 */
static const int sandbox_parent_calls[] = {
	SCMP_SYS(restart_syscall), SCMP_SYS(accept), SCMP_SYS(accept4),
	SCMP_SYS(shutdown), SCMP_SYS(pidfd_send_signal), SCMP_SYS(wait4),
	SCMP_SYS(unlink), SCMP_SYS(unlinkat),
};

/* The rules both allow lists share, on the daemons' base. */
static scmp_filter_ctx
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

/* No socket, no exec: socket(2), execve(2) and execveat(2) kill it. */
void
sandbox_core(void)
{
	scmp_filter_ctx	 ctx;

	ctx = sandbox_child_list();
	sandbox_add(ctx, SCMP_ACT_ALLOW, sandbox_records,
	    NCALLS(sandbox_records));
	sandbox_load(ctx, "core");
}

/* Unix sockets only (keep.sock), files read only, no exec. */
void
sandbox_keepfe(void)
{
	scmp_filter_ctx	 ctx;

	ctx = sandbox_child_list();
	sandbox_add_arg_eq(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 0, AF_UNIX);
	sandbox_add(ctx, SCMP_ACT_ALLOW, (int[]){ SCMP_SYS(connect) }, 1);
	sandbox_add_arg_masked(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 2,
	    O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND, O_RDONLY);
	sandbox_load(ctx, "keep-frontend");
}

/*
 * The box's reader (jobread.c): the daemons' base and nothing
 * else of a file or a process: no socket, no connect, no open, no exec,
 * no fork, no memory made executable.  Its pipes and its channel were
 * open before.
 */
void
sandbox_reader(void)
{
	sandbox_load(sandbox_child_list(), "box reader");
}

/*
 * No exec, no fork, no ptrace, no open, no connect, no socket.  A Unix
 * socket is refused (EACCES) rather than killed: syslog(3) makes one to
 * reconnect when its own to syslogd failed, and the parent goes on
 * without its log rather than end the daemon for a syslogd restarted.
 */
void
sandbox_parent(void)
{
	scmp_filter_ctx	 ctx;

	ctx = sandbox_allow_list();
	sandbox_add(ctx, SCMP_ACT_ALLOW, sandbox_parent_calls,
	    NCALLS(sandbox_parent_calls));
	sandbox_add_arg_eq(ctx, SCMP_ACT_ALLOW, SCMP_SYS(getsockopt), 2,
	    SO_PEERCRED);
	sandbox_add_arg_eq(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(socket), 0,
	    AF_UNIX);
	sandbox_add_noexec(ctx);
	sandbox_add_stdio(ctx);
	sandbox_load(ctx, "parent");
}

void
sandbox_launcher(void)
{
	scmp_filter_ctx	 ctx;

	ctx = sandbox_new(SANDBOX_DEFAULT_ALLOW);
	sandbox_add(ctx, SCMP_ACT_ERRNO(EPERM), sandbox_launcher_eperm,
	    NCALLS(sandbox_launcher_eperm));
	sandbox_add(ctx, SCMP_ACT_ERRNO(ENOSYS), sandbox_launcher_enosys,
	    NCALLS(sandbox_launcher_enosys));
	sandbox_add_wx_refused(ctx);
	sandbox_load(ctx, "box launcher");
}

/*
 * No file but control.sock, which the parent removes at its end: the
 * runtime folder for removal alone.  The configuration was read and the
 * children exec'd before; nothing else is opened after.  Its signals
 * are not scoped: its children, which it signals, are outside its
 * domain.
 */
int
landlock_parent(const char *rundir)
{
	const struct landlock_path run = { -1, rundir, LANDLOCK_REMOVE };

	return sandbox_landlock(LANDLOCK_PARENT, &run, 1, 1);
}

/*
 * The core sees data_dir alone, through the folder it opened: every
 * record is below it, and nothing else (a secret, the configuration)
 * can be opened, read or written.
 */
int
landlock_core(int datafd, const char *datadir)
{
	const struct landlock_path data = { datafd, datadir,
	    LANDLOCK_READ | LANDLOCK_WRITE };

	return sandbox_landlock(LANDLOCK_CORE, &data, 1, 1);
}

/*
 * No file at all: the keep frontend connects to keep.sock, and no ABI
 * up to 7 holds a connect(2) to a named Unix socket.
 */
int
landlock_keepfe(void)
{
	return sandbox_landlock(LANDLOCK_KEEPFE, NULL, 0, 1);
}

/* No file at all: the box's reader has its descriptors. */
int
landlock_reader(void)
{
	return sandbox_landlock(LANDLOCK_READER, NULL, 0, 0);
}

/*
 * The box's reader's lock, put on in the reader before it reads a byte
 * of the box: the ruleset first (it needs prctl(2) and Landlock's
 * calls, which the filter then denies), then the filter.
 */
void
reader_lock(void)
{
	(void)landlock_reader();
	sandbox_reader();
}

/*
 * The box launcher has no Landlock ruleset, and cannot have one while
 * it runs rootless podman.  A ruleset needs no_new_privs, under which
 * the setuid newuidmap cannot make podman's user namespace: podman
 * must join the one its pause process holds, made before the filter
 * (box_prepare()).  But Landlock refuses a process in a domain any
 * ptrace-class access to a process outside it, which joining that
 * namespace through /proc/<pid>/ns needs: podman falls back to
 * newuidmap and fails.  Seen here with a ruleset of TCP rules alone;
 * one with file rules would also forbid mount(2) and pivot_root(2),
 * which runc needs for the box's root.  Its lock is the deny list
 * above, and what a box sees is podman's to hold.
 */
