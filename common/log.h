/*
 * Logging for the daemons: lines tagged with the process name, to
 * stderr in the foreground (-d) and to syslog(3) otherwise.
 *
 * A line reads "sandcastled: text", or "sandcastled: core: text" once a
 * child called log_procname("core"); syslog gets the first name as its
 * tag (LOG_PID) and the rest as the message.  Control characters in the
 * formatted text are escaped with vis(3), so a name cannot forge a line.
 * errno is the same after every call as before it.
 *
 * Never log a secret or anything of a job's content: the callers pass
 * names, numbers and reasons only.
 */
#ifndef SANDCASTLE_LOG_H
#define SANDCASTLE_LOG_H

#include <stdarg.h>

/* log_init(): foreground != 0 logs to stderr; verbose > 0 shows debug lines. */
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

#endif
