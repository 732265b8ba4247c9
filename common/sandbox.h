/* The daemons' seccomp filters, loaded before anything from another is read. */
#ifndef SANDCASTLE_SANDBOX_H
#define SANDCASTLE_SANDBOX_H

#include <stddef.h>
#include <stdint.h>

#include <seccomp.h>

#include "landlock.h"

#define SANDBOX_DEBUG_EXIT	(128 + 31)	/* 128 + SIGSYS, as a shell says it */

enum sandbox_default {
	SANDBOX_DEFAULT_KILL,
	SANDBOX_DEFAULT_ALLOW
};

scmp_filter_ctx	sandbox_new(enum sandbox_default);
scmp_filter_ctx	sandbox_allow_list(void);
uint32_t	sandbox_kill_action(void);	/* KILL_PROCESS, or TRAP when debugging */
void		sandbox_add(scmp_filter_ctx, uint32_t action, const int *calls,
		    size_t ncalls);
void		sandbox_add_arg_eq(scmp_filter_ctx, uint32_t action, int call,
		    unsigned int arg, uint64_t value);
void		sandbox_add_arg_masked(scmp_filter_ctx, uint32_t action, int call,
		    unsigned int arg, uint64_t mask, uint64_t value);
void		sandbox_load(scmp_filter_ctx, const char *procname);

void		sandbox_add_noexec(scmp_filter_ctx);	/* mprotect, never PROT_EXEC */
void		sandbox_add_wx_refused(scmp_filter_ctx); /* EACCES for W|X */
void		sandbox_add_stdio(scmp_filter_ctx);	/* isatty(stderr), abort(3) */
void		sandbox_add_no_clone3(scmp_filter_ctx);	/* clone3 is ENOSYS */

/* Fatal when the kernel refuses; at start, logs the ABI and warns of a lack. */
int		sandbox_landlock(enum landlock_proc, const struct landlock_path *,
		    size_t npaths, int start);

#endif
