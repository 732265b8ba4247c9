/* The seccomp filters' frame, the daemons' base list and the debug trap. */
#include <sys/types.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <seccomp.h>

#include "log.h"
#include "sandbox.h"

#define NCALLS(a)	(sizeof(a) / sizeof((a)[0]))

/* Every daemon's needs; mmap is apart (never executable), mprotect not here. */
static const int sandbox_base[] = {
	SCMP_SYS(read), SCMP_SYS(write), SCMP_SYS(readv), SCMP_SYS(writev),
	SCMP_SYS(pread64),
	SCMP_SYS(recvmsg), SCMP_SYS(sendmsg), SCMP_SYS(sendto),
	SCMP_SYS(close), SCMP_SYS(poll), SCMP_SYS(ppoll),
	SCMP_SYS(fcntl), SCMP_SYS(lseek), SCMP_SYS(fstat), SCMP_SYS(newfstatat),
	SCMP_SYS(clock_gettime), SCMP_SYS(gettimeofday), SCMP_SYS(time),
	SCMP_SYS(nanosleep), SCMP_SYS(clock_nanosleep),
	SCMP_SYS(brk), SCMP_SYS(munmap), SCMP_SYS(mremap),
	SCMP_SYS(madvise), SCMP_SYS(futex), SCMP_SYS(getrandom),
	SCMP_SYS(rt_sigreturn), SCMP_SYS(rt_sigaction),
	SCMP_SYS(rt_sigprocmask), SCMP_SYS(restart_syscall),
	SCMP_SYS(getpid), SCMP_SYS(gettid), SCMP_SYS(getuid),
	SCMP_SYS(geteuid),
	SCMP_SYS(exit), SCMP_SYS(exit_group),
};

static const char *
sandbox_call_name(int call, char *buf, size_t bufsz)
{
	char	*name;

	name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, call);
	if (name == NULL)
		snprintf(buf, bufsz, "call %d", call);
	else
		strlcpy(buf, name, bufsz);
	free(name);
	return buf;
}

static void
sandbox_rule_failed(int call, int r)
{
	char	 name[64];

	fatalx("seccomp: cannot add a rule for %s: %s",
	    sandbox_call_name(call, name, sizeof(name)), strerror(-r));
}

uint32_t
sandbox_kill_action(void)
{
#ifdef SANDBOX_DEBUG
	return SCMP_ACT_TRAP;
#else
	return SCMP_ACT_KILL_PROCESS;
#endif
}

scmp_filter_ctx
sandbox_new(enum sandbox_default def)
{
	scmp_filter_ctx	 ctx;
	uint32_t	 action;
	int		 r;

	action = def == SANDBOX_DEFAULT_KILL ? sandbox_kill_action() :
	    SCMP_ACT_ALLOW;
	if ((ctx = seccomp_init(action)) == NULL)
		fatalx("seccomp: cannot start a filter");
	/* A call through another ABI would slip past every rule by number. */
	if ((r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
	    SCMP_ACT_KILL_PROCESS)) != 0)
		fatalx("seccomp: cannot kill other architectures: %s",
		    strerror(-r));
	/* Without it an unprivileged process cannot load a filter at all. */
	if ((r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 1)) != 0)
		fatalx("seccomp: cannot set no_new_privs: %s", strerror(-r));
	return ctx;
}

scmp_filter_ctx
sandbox_allow_list(void)
{
	scmp_filter_ctx	 ctx;

	ctx = sandbox_new(SANDBOX_DEFAULT_KILL);
	sandbox_add(ctx, SCMP_ACT_ALLOW, sandbox_base, NCALLS(sandbox_base));
	/* Never executable: no daemon process loads code once filtered. */
	sandbox_add_arg_masked(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 2,
	    PROT_EXEC, 0);
	return ctx;
}

void
sandbox_add(scmp_filter_ctx ctx, uint32_t action, const int *calls,
    size_t ncalls)
{
	size_t	 i;
	int	 r;

	for (i = 0; i < ncalls; i++) {
		/* A call this architecture lacks has a negative number. */
		if (calls[i] < 0)
			continue;
		if ((r = seccomp_rule_add(ctx, action, calls[i], 0)) != 0)
			sandbox_rule_failed(calls[i], r);
	}
}

void
sandbox_add_arg_eq(scmp_filter_ctx ctx, uint32_t action, int call,
    unsigned int arg, uint64_t value)
{
	int	 r;

	if ((r = seccomp_rule_add(ctx, action, call, 1,
	    SCMP_CMP(arg, SCMP_CMP_EQ, value))) != 0)
		sandbox_rule_failed(call, r);
}

void
sandbox_add_arg_masked(scmp_filter_ctx ctx, uint32_t action, int call,
    unsigned int arg, uint64_t mask, uint64_t value)
{
	int	 r;

	if ((r = seccomp_rule_add(ctx, action, call, 1,
	    SCMP_CMP(arg, SCMP_CMP_MASKED_EQ, mask, value))) != 0)
		sandbox_rule_failed(call, r);
}

void
sandbox_add_noexec(scmp_filter_ctx ctx)
{
	sandbox_add_arg_masked(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 2,
	    PROT_EXEC, 0);
}

/* W|X is EACCES, as W^X policies say; X alone stays for podman's libraries. */
void
sandbox_add_wx_refused(scmp_filter_ctx ctx)
{
	sandbox_add_arg_masked(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(mmap), 2,
	    PROT_WRITE | PROT_EXEC, PROT_WRITE | PROT_EXEC);
	sandbox_add_arg_masked(ctx, SCMP_ACT_ERRNO(EACCES),
	    SCMP_SYS(mprotect), 2, PROT_WRITE | PROT_EXEC,
	    PROT_WRITE | PROT_EXEC);
	sandbox_add_arg_masked(ctx, SCMP_ACT_ERRNO(EACCES),
	    SCMP_SYS(pkey_mprotect), 2, PROT_WRITE | PROT_EXEC,
	    PROT_WRITE | PROT_EXEC);
}

void
sandbox_add_stdio(scmp_filter_ctx ctx)
{
	sandbox_add_arg_eq(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1, TCGETS);
	sandbox_add_arg_eq(ctx, SCMP_ACT_ALLOW, SCMP_SYS(tgkill), 0,
	    (uint64_t)getpid());
}

/* glibc falls back from clone3 to clone, which the filter then holds. */
void
sandbox_add_no_clone3(scmp_filter_ctx ctx)
{
	sandbox_add(ctx, SCMP_ACT_ERRNO(ENOSYS), (const int[]){
	    SCMP_SYS(clone3) }, 1);
}

#ifdef SANDBOX_DEBUG
#define SANDBOX_NCALLS	512

/* Filled before the filter goes on: the handler may only index it. */
static char	sandbox_names[SANDBOX_NCALLS][32];
static char	sandbox_proc[32];

static void
sandbox_write(const char *s)
{
	ssize_t	 r;

	r = write(STDERR_FILENO, s, strlen(s));
	(void)r;
}

static void
sandbox_trap(int sig, siginfo_t *si, void *uctx)
{
	char		 num[12];
	unsigned int	 nr;
	size_t		 i;

	nr = (unsigned int)si->si_syscall;
	i = sizeof(num) - 1;
	num[i] = '\0';
	do {
		num[--i] = '0' + nr % 10;
		nr /= 10;
	} while (nr != 0 && i > 0);
	sandbox_write(sandbox_proc);
	sandbox_write(": seccomp filter denied ");
	nr = (unsigned int)si->si_syscall;
	if (nr < SANDBOX_NCALLS && sandbox_names[nr][0] != '\0')
		sandbox_write(sandbox_names[nr]);
	else
		sandbox_write("a call");
	sandbox_write(" (");
	sandbox_write(num + i);
	sandbox_write(")\n");
	_exit(SANDBOX_DEBUG_EXIT);
}

static void
sandbox_trap_init(const char *procname)
{
	struct sigaction sa;
	char		*name;
	int		 i;

	strlcpy(sandbox_proc, procname, sizeof(sandbox_proc));
	for (i = 0; i < SANDBOX_NCALLS; i++) {
		name = seccomp_syscall_resolve_num_arch(SCMP_ARCH_NATIVE, i);
		if (name != NULL)
			strlcpy(sandbox_names[i], name, sizeof(sandbox_names[i]));
		free(name);
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sandbox_trap;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSYS, &sa, NULL) == -1)
		fatal("sigaction SIGSYS");
}
#endif

void
sandbox_load(scmp_filter_ctx ctx, const char *procname)
{
	int	 r;

#ifdef SANDBOX_DEBUG
	sandbox_trap_init(procname);
#endif
	if ((r = seccomp_load(ctx)) != 0)
		fatalx("%s: cannot load its seccomp filter: %s", procname,
		    strerror(-r));
	seccomp_release(ctx);
	log_debug("seccomp filter on");
}

int
sandbox_landlock(enum landlock_proc p, const struct landlock_path *paths,
    size_t npaths, int start)
{
	const struct landlock_view	*v = &landlock_views[p];
	char				 why[PATH_MAX + 128], sees[512];
	char				 lacks[256];
	int				 abi;

	/* syslog and localtime open the zone file; a child's parent did. */
	if (start)
		tzset();
	if ((abi = landlock_apply(p, paths, npaths, why, sizeof(why))) == -1)
		fatalx("%s: cannot put its Landlock ruleset on: %s", v->proc,
		    why);
	if (abi == 0) {
		if (start)
			log_warnx("no Landlock: %s: %s sees every file the "
			    "account can read; its seccomp filter still holds",
			    why, v->proc);
		return 0;
	}
	landlock_describe(p, abi, sees, sizeof(sees));
	landlock_lacking(abi, v->wants, lacks, sizeof(lacks));
	if (!start)
		log_debug("landlock ABI %d: %s", abi, sees);
	else if (lacks[0] == '\0')
		log_info("landlock ABI %d: %s sees %s", abi, v->proc, sees);
	else
		log_warnx("landlock ABI %d: %s sees %s; this ABI has %s "
		    "(sandcastlectl check says what holds instead)", abi,
		    v->proc, sees, lacks);
	return abi;
}
