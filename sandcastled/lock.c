/* The seccomp filters and Landlock rulesets of sandcastled's processes.
 * The parent's go on once its children run: it then reads hostile input. */
#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>

#include <seccomp.h>

#include "lock.h"
#include "readlock.h"
#include "sandbox.h"

#define NCALLS(a)	(sizeof(a) / sizeof((a)[0]))

static const int sandbox_records[] = {
	SCMP_SYS(openat), SCMP_SYS(mkdirat), SCMP_SYS(renameat),
	SCMP_SYS(renameat2), SCMP_SYS(unlinkat), SCMP_SYS(getdents64),
	SCMP_SYS(fsync), SCMP_SYS(fdatasync), SCMP_SYS(ftruncate),
};

/*
 * A filter is inherited across execve, so the launcher's denies what neither
 * podman nor the box needs.  EPERM, not a kill: the tools take it as an
 * unprivileged account's answer, where a kill fails the job.
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

/* runc and crun take ENOSYS as no keyrings (or io_uring) and go on. */
static const int sandbox_launcher_enosys[] = {
	SCMP_SYS(add_key), SCMP_SYS(request_key), SCMP_SYS(keyctl),
	SCMP_SYS(io_uring_setup), SCMP_SYS(io_uring_enter),
	SCMP_SYS(io_uring_register),
};

/* Not kill(2): by a pid it would reach any process of the account. */
static const int sandbox_parent_calls[] = {
	SCMP_SYS(restart_syscall), SCMP_SYS(accept), SCMP_SYS(accept4),
	SCMP_SYS(shutdown), SCMP_SYS(pidfd_send_signal), SCMP_SYS(wait4),
	SCMP_SYS(unlink), SCMP_SYS(unlinkat),
};

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

/* A Unix socket gets EACCES: syslog(3) makes one after a syslogd restart. */
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

int
landlock_parent(const char *rundir)
{
	const struct landlock_path run = { -1, rundir, LANDLOCK_REMOVE };

	return sandbox_landlock(LANDLOCK_PARENT, &run, 1, 1);
}

int
landlock_core(int datafd, const char *datadir)
{
	const struct landlock_path data = { datafd, datadir,
	    LANDLOCK_READ | LANDLOCK_WRITE };

	return sandbox_landlock(LANDLOCK_CORE, &data, 1, 1);
}

/* No file: no ABI up to 7 holds a connect(2) to keep.sock. */
int
landlock_keepfe(void)
{
	return sandbox_landlock(LANDLOCK_KEEPFE, NULL, 0, 1);
}

/* No Landlock for the launcher: podman could not join its user namespace. */
