/*
 * Logging for the daemons, to stderr under -d, else syslog(3); errno
 * survives every call.  Never log a secret or anything of a job's content.
 */
#ifndef SANDCASTLE_LOG_H
#define SANDCASTLE_LOG_H

#include <stdarg.h>
#include <stddef.h>

void	log_init(const char *procname, int foreground, int verbose);
void	log_procname(const char *procname);	/* retag after fork */
int	log_verbose(void);

void	log_warn(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_warnx(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_info(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_debug(const char *, ...) __attribute__((format(printf, 1, 2)));
void	vlog(int, const char *, va_list) __attribute__((format(printf, 2, 0)));
__attribute__((noreturn)) void
	fatal(const char *, ...) __attribute__((format(printf, 1, 2)));
__attribute__((noreturn)) void
	fatalx(const char *, ...) __attribute__((format(printf, 1, 2)));

/* A reason into why (none when why is NULL); -1, for the caller to return. */
int	failwhy(char *why, size_t whysz, const char *, ...)
	    __attribute__((format(printf, 3, 4)));

#endif
